"""The shell classifier: which tier a shell command is in, what it writes, what it reads.

Internals: `syntax` and `parser` read shell text into simple commands; `unwrap` and
`handlers` look through wrappers and nested shells; `patterns` matches the protocol's word
patterns; what each program reads (`sources`), writes and deletes (`targets`), runs
(`code` and the inline readers), sends (`remote`, `sends`) and which of its options change that
(`options`) are the parts of one table, which `effects` joins: a part's files are read
from it once, for every rule and for the hooks' edits; `rules` turns them into tier-3 and
tier-2 findings, and `engine` decides. Callers use `engine.classify`, `writes.touched_paths` and
`reads.read_refusal`.
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
