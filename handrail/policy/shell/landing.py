"""Where a copy or a move lands, and moves of the folders that hold the protected paths.

`cp -r /tmp/c/.handrail .` writes `./.handrail`, though its last operand is `.`; `rsync -a
/tmp/c/ .` and `cp -rT /tmp/c .` write whatever the source holds into the work tree's root,
`.git` and `.handrail` among them. So the write of a copy into a folder is judged at each path it
lands on (the folder and the source's last name), and a copy of a folder's contents is judged as
a write of the folder itself, the work tree's root too. And `mv . /tmp/x`, `mv ../p ../q` or
`rm -rf ..` moves or removes the work tree with every protected path in it.
"""

from __future__ import annotations

import os

from handrail.policy.shell.parts import resolve
from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx
    from handrail.policy.shell.parts import Part


class Landing(Word):
    """A path a copy writes that is none of its operands. `contents`: the source's contents land
    in this folder (`src/.`, rsync's `src/`, `-T`), whatever they hold."""

    contents = False


def landings(part: Part, sources: list[Word], dest: Word) -> list[Word]:
    """The paths a copy of `sources` into `dest` writes besides `dest` itself."""
    no_target_dir = any(_no_target_dir(part.name, w.text) for w in part.words[1:])
    if dest.dyn or not sources or not (no_target_dir or _is_folder(part, dest) or len(sources) > 1):
        return []
    out: list[Word] = []
    base = dest.text.rstrip("/") or "/"
    for src in sources:
        if src.dyn:
            continue
        text = src.text.split(":", 1)[1] if part.name in ("scp", "rsync") and _remote(src.text) else src.text
        name = os.path.basename(text.rstrip("/"))
        contents = no_target_dir or name in (".", "") or (part.name == "rsync" and text.endswith("/"))
        if contents:
            w = Landing(dest.text, dest.raw)
            w.contents = True
        elif name:
            w = Landing(f"{base}/{name}", f"{dest.raw.rstrip('/')}/{name}")
        else:
            continue
        w.tilde = dest.tilde
        out.append(w)
    return out


def _no_target_dir(name: str, t: str) -> bool:
    """`-T` (`cp -rT`, `mv -fT`): the destination is the folder itself, not a folder to copy into
    (rsync's `-T` is its temp folder)."""
    if t == "--no-target-directory":
        return True
    return name != "rsync" and t.startswith("-") and not t.startswith("--") and "T" in t[1:]


def _remote(text: str) -> bool:
    head = text.split("/", 1)[0]
    return ":" in head and not head.startswith(".")


def _is_folder(part: Part, dest: Word) -> bool:
    if dest.text.endswith("/") or dest.text in (".", "..", "~"):
        return True
    path = resolve(dest, part.cwd, os.path.expanduser("~"))
    return path is not None and os.path.isdir(path)


def above_project(path: str, ctx: Ctx) -> bool:
    """The work tree's root or a folder above it: moving or removing it moves every protected path."""
    return path == ctx.project or ctx.project.startswith(path.rstrip("/") + "/")
