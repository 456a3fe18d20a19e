"""The shared policy: pure decisions, no git, no click, no harness."""
