"""The commands a person types, one module per group: each command is a plain
function with keyword arguments that returns its exit code. `handrail/cli.py` parses
the command line with click and fills them in; nothing here imports click, and
everything printed goes through `render`."""
