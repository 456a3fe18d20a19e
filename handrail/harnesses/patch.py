"""The file paths of an `apply_patch` patch: the format Codex writes, and OpenCode took over.

    *** Begin Patch
    *** Update File: src/app.py
    *** Move to: src/main.py
    @@ …
    *** Add File: docs/new.md
    *** Delete File: old.txt
    *** End Patch

Every path a header names is an edit: the one added, updated, deleted, and the one a
file moves to. Headers are read with their blanks trimmed, as Codex reads them.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.hooks.pretool import Question

HEADERS = ("*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:")


def patch_paths(text: str) -> list[str]:
    """The paths in order, without repeats. Raises ValueError on a patch that names no
    file or has a header without a path: such a patch is refused, never let through."""
    out: dict[str, None] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("*** "):
            continue
        for header in HEADERS:
            if line.startswith(header):
                path = line[len(header):].strip()
                if not path:
                    raise ValueError(f"'{header}' without a path")
                out[path] = None
                break
    if not out:
        raise ValueError("the patch names no file (no '*** Add/Update/Delete File:' line)")
    return list(out)


def patch_question(tool: str, text: object, cwd: str) -> Question:
    """The edit an `apply_patch` call makes; a text that is no patch naming its files is refused."""
    from handrail.hooks.pretool import EDIT, BadPayload, Question

    if not isinstance(text, str):
        raise BadPayload(f"{tool}: expected the patch text")
    try:
        return Question(EDIT, tool, paths=patch_paths(text), cwd=cwd)
    except ValueError as e:
        raise BadPayload(f"{tool}: {e}") from None
