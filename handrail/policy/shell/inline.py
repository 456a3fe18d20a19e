"""What code handed to an interpreter (`python -c`, `node -e`, `awk '...'`) would do.

The agent writes this code, and wants it to look harmless, so the answer is built from
what the code can reach, not from what it seems to say:

- Python is parsed (`ast`) and every *reference* to something dangerous counts, called or
  not: `os.remove` passed to `map`, stored in a list, used as a decorator or a default
  argument is a delete, as `os.remove('x')` is. Calls add the literal paths. Names are
  followed through imports (`import os as o`, `from os import remove as r`, star imports),
  assignments (`f = os.remove; f(x)`) and walrus, flow-insensitively: a name is every
  value it is ever given. Every way to reach a function without naming it (`getattr` with
  a computed name, `__dict__`, `__class__`, `globals()`, `sys.modules`, `importlib`,
  `__import__`, frames) is `dynamic`, and so is a call whose callee cannot be followed
  (`x[0]()`, `f()()`, a parameter). An import of a module not in `_MODULES` is `unknown`:
  importing a module runs its code.
- The other languages get no parser: their code is pure only when a tokenizer finds
  nothing but printing of literals, arithmetic and a few named read-only values
  (`_SCRIPT_WORDS`); anything else is `unknown`. awk is read in full, being small.

Paths: `reads` and `writes` are all or nothing. They list literal paths when every read
(every write, create, move, delete) has one; as soon as one target is known only at run
time (`open(sys.argv[1])`, an f-string, a path after `os.chdir`), the tuple is empty and
the effect stands alone, which the caller takes as "target known only at run time". A
leading `~` means the home directory (as after `expanduser`). A glob pattern is reported
as written. Temporary files (`tempfile.mkstemp()`, `TemporaryDirectory()`) are a write
without a path, reason "creates a temporary file", unless `dir=` names a literal folder:
where they land is `$TMPDIR`, known only at run time.

Not seen here: what the interpreter's own options do (`-m`, `-I`, `PYTHONSTARTUP`), and
modules the current directory shadows (`python -c 'import json'` beside a `json.py`
imports that file): the caller knows the command line and the folder.
"""

from __future__ import annotations

from handrail.policy.shell.codefx import EFFECTS, MAX_CODE, PURE, CodeEffects
from handrail.policy.shell.pycode import python_effects
from handrail.policy.shell.scriptcode import script_effects

__all__ = ["EFFECTS", "MAX_CODE", "PURE", "CodeEffects", "python_effects", "script_effects"]
