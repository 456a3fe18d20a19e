"""The shell classifier: which tier a shell command is in, what it writes, what it reads.

The only surface hooks, harnesses, permissions and the loop import. Internals:
`syntax` and `parser` read shell text into simple commands, `unwrap` and `handlers` look
through wrappers and nested shells, `patterns` matches the protocol's word patterns,
`effects` is the one table of what each program reads, writes, deletes, runs and sends,
`rules` turns effects into tier-3 and tier-2 findings, and `engine` decides.
"""

from __future__ import annotations

from handrail.policy.shell.syntax import (
    Compound,
    Pipeline,
    Redir,
    ShellSyntaxError,
    Simple,
    Word,
    parse,
)

__all__ = ["Compound", "Pipeline", "Redir", "ShellSyntaxError", "Simple", "Word", "parse"]
