"""Shell text -> a syntax tree of the POSIX/bash subset that agents write.

shlex is not enough: it knows nothing of operators, heredocs, `$( … )`, backticks,
`<( … )` or reserved words. This parser reads all of them, keeps every nested
command (substitutions become sub-lists of the word they sit in), and raises
ShellSyntaxError on what bash itself would refuse, so that unparseable input is
reported and never silently passed. `handrail.policy.shell.unwrap` turns the tree into the
simple commands that are classified.

A word's `text` is its value after quote removal, with SENT standing for whatever an
expansion produces at run time.

The surface the rest of the classifier imports. Inside: `nodes` (the tree), `fastpath`
(plain commands without the parser), `lexer` (blanks, operators, here-documents),
`words` (one word and its expansions), `expand` (brace expansion, `$'…'`) and `parser`
(lists, pipelines, compound commands, redirections, and `parse`).
"""

from __future__ import annotations

from handrail.policy.shell.nodes import (
    MAX_DEPTH,
    MAX_INPUT,
    RESERVED,
    SENT,
    Compound,
    Pipeline,
    Redir,
    ShellSyntaxError,
    Simple,
    Word,
)
from handrail.policy.shell.parser import parse

__all__ = ["MAX_DEPTH", "MAX_INPUT", "RESERVED", "SENT", "Compound", "Pipeline", "Redir", "ShellSyntaxError",
           "Simple", "Word", "parse"]
