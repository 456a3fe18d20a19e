"""The loop runner: an agent iterates on a task alone, inside its scope, its budget,
its human gates and its verified criteria (`handrail loop run|status|check|reset|retro`).

The decisions live in `handrail.policy.loop`; this package runs processes, reads the
work tree and keeps the loop's state in `.handrail/tasks/<slug>/` (git-ignored).
"""
