"""What happened: the event log, notices, and autonomy envelopes."""
