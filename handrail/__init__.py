"""handrail: keep AI coding agents inside the autonomy their operator granted."""

__version__ = "0.3.0"
