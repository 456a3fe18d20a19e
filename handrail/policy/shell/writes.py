"""Which files a shell command writes: each one is an edit, judged as any other edit.

`echo x > src/a.py`, `tee -a notes.md`, `sed -i … f`, `cp a b`, `mv a b`, `curl -o f`:
the classifier reads these targets already (`effects.of_part`); here they
become absolute paths, so that the pre-tool hook asks can-edit about each of them.
A target only known at run time (`> "$OUT"`) has no path: the classifier's rules
judge it.
"""

from __future__ import annotations

import os

from handrail.policy.shell import effects, unwrap
from handrail.policy.shell import rules as cmdrules
from handrail.policy.shell.globdots import names_dotfiles
from handrail.policy.shell.globwrites import with_hits
from handrail.policy.shell.syntax import ShellSyntaxError, Word

# Their operands change a path's mode or make a folder, not a file's content: only
# their redirections are edits.
METADATA = frozenset({"mkdir", "chmod", "chown", "chgrp", "chattr", "setfacl"})
# Onto an existing folder (or a `dir/` target) these write `dir/<name of each source>`.
COPIERS = frozenset({"cp", "mv", "install", "ln", "rsync", "scp"})


def written_paths(text: str, cwd: str, home: str) -> list[str]:
    """Absolute, normalised paths that `text` writes or removes, in order, without repeats.

    Text that cannot be parsed writes nothing here: the classifier puts it in tier 3.
    """
    try:
        parts = unwrap.split(text, cwd, home)
    except ShellSyntaxError:
        return []
    return touched_paths(parts, home)


def touched_paths(parts: list[unwrap.Part], home: str) -> list[str]:
    """What the simple commands of one command line write, and what they delete or move away:
    both are edits, judged against the task's scope. Removing a regenerable output
    (`rm -rf node_modules`) is no edit of the project."""
    out: dict[str, None] = {}
    for part in parts:
        if not part.redirs and not part.words:
            continue
        eff = effects.of_part(part)
        written, removed = eff.writes, eff.removes
        dots = names_dotfiles(part)
        for word, came_from in with_hits(removed, part.cwd, home, dots):
            if came_from is word:
                continue  # a glob past the bound: the classifier asks about it
            path = unwrap.resolve(word, part.cwd, home)
            if path is not None and not _regenerable(path):
                out[path] = None
        redirected = {id(r.target) for r in part.redirs if r.target is not None}
        for word, came_from in with_hits(written, part.cwd, home, dots):
            if came_from is word:
                continue
            if came_from is not None and id(came_from) in redirected:
                redirected.add(id(word))
            if part.name in METADATA and id(word) not in redirected:
                continue
            path = unwrap.resolve(word, part.cwd, home)
            if path is None:
                continue
            if part.name in COPIERS and id(word) not in redirected and (
                    word.text.endswith("/") or os.path.isdir(path)):
                for name in _source_names(part, word, path, home):
                    out[os.path.join(path, name)] = None
                continue
            out[path] = None
    return list(out)


def _regenerable(path: str) -> bool:
    from handrail.policy.shell.deletes import regenerable

    return regenerable(path.lstrip("/"))


def _source_names(part: unwrap.Part, target: Word, path: str, home: str) -> list[str]:
    """The file names a copy or move into the folder `path` creates there."""
    names = []
    for word in cmdrules.operands(part.words):
        if word is target or word.dyn:
            continue
        source = unwrap.resolve(word, part.cwd, home)
        if source is None or source == path:
            continue
        name = os.path.basename(source.rstrip("/"))
        if name:
            names.append(name)
    return names
