"""Tree entries that are not files: symbolic links and submodules, judged by where they lead.

A path rule judges a path by its name. A symbolic link makes a second name for what it
points at: `docs -> .handrail` lets `docs/autonomy-protocol.json` rewrite the policy, and
`x -> ../elsewhere` reaches out of the repository, where no rule looks. A submodule's
entry (a gitlink) names a commit of another repository, whose content no rule here
reads. So a change that adds or repoints either is a `policy_change`, whoever made it:
the link's target is followed through the links the commit's own tree holds, and one
that leads to or above a protected or default-forbidden path, out of the tree, or
nowhere it can tell, is reported.

Nothing here reads git: the caller hands in each change's modes, the link's target and
a lookup of the tree's other links.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable
from typing import Protocol

from handrail.policy import gitrules, scope

SYMLINK, GITLINK = 0o120000, 0o160000
SOURCE = (f"handrail link rule (symbolic links and submodules, the {gitrules.POLICY_CHANGE} gate's reach); "
          "binds everyone")
MAX_HOPS = 40  # as the kernel's own limit on links followed in one lookup (ELOOP)
_DRIVE = re.compile(r"^[A-Za-z]:")
_PATTERNS = tuple(p for table in (scope.DEFAULT_FORBIDDEN, scope.PROTECTED) for p, _who, _why in table)
_WHY = {p: why for table in (scope.DEFAULT_FORBIDDEN, scope.PROTECTED) for p, _who, why in table}


class ModeChange(Protocol):
    """What the link rule needs of one changed path (repo.Change fits)."""

    @property
    def status(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def new_mode(self) -> int: ...


def kind(mode: int) -> int:
    return mode & 0o170000


def linked(changes: Iterable[ModeChange]) -> list[ModeChange]:
    """The changes that leave a symbolic link or a submodule at their path."""
    return [c for c in changes if c.status != "D" and kind(c.new_mode) in (SYMLINK, GITLINK)]


def resolve(link: str, target: str, link_at: Callable[[str], str | None]) -> tuple[str | None, str]:
    """(where the link at `link` leads, repository-relative; "" is the root) or (None, why it
    leads out of the tree or cannot be followed). `link_at(path)` is the target of another
    link in the same tree, or None where `path` is no link."""
    hops = 0
    pending = _parts(target)
    if pending is None:
        return None, f"an absolute target ({target!r}), outside the repository"
    stack = link.split("/")[:-1]
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not stack:
                return None, f"a target ({target!r}) that climbs out of the repository"
            stack.pop()
            continue
        stack.append(part)
        inner = link_at("/".join(stack))
        if inner is None:
            continue
        hops += 1
        more = _parts(inner)
        if hops > MAX_HOPS or more is None:
            why = "a chain of links too long to follow" if more is not None else "an absolute target"
            return None, f"{why} (through {'/'.join(stack)!r}), which this check cannot place in the repository"
        stack.pop()
        pending = more + pending
    return "/".join(stack), ""


def _parts(target: str) -> list[str] | None:
    """A target's parts, None for an absolute one. A backslash is read as a separator: on
    Windows git makes a link of it, and a name that might be either is taken for the one
    that leads further."""
    text = target.replace("\\", "/")
    if not text or text.startswith("/") or _DRIVE.match(text):
        return None
    return text.split("/")


def reaches(path: str) -> str | None:
    """The first protected or default-forbidden pattern that covers `path` itself or a path
    below it, if one does: a link to it or to a folder above it is a second name for it."""
    parts = [p for p in path.lower().split("/") if p]
    for pattern in _PATTERNS:
        if pattern == scope.ENV_PATTERN and scope.env_template(path):
            continue
        segs = pattern.lower().strip("/").split("/")
        if len(segs) == 1:
            segs = ["**", *segs]  # gitignore: a name without a slash matches at any depth
        if _leads(parts, 0, segs, 0, literal=False):
            return pattern
    return None


def _leads(parts: list[str], i: int, segs: list[str], j: int, *, literal: bool) -> bool:
    """Whether `parts[i:]` matches `segs[j:]` as a path, a path inside one it names, or a
    folder above one it could name. A folder above reached only through a leading `**`
    is not enough: a path under it matches that pattern by its own name as well."""
    if j == len(segs):
        return True
    if i == len(parts):
        return literal or segs[0] != "**"
    if segs[j] == "**":
        return _leads(parts, i, segs, j + 1, literal=literal) or _leads(parts, i + 1, segs, j, literal=literal)
    return fnmatch.fnmatchcase(parts[i], segs[j]) and _leads(parts, i + 1, segs, j + 1, literal=True)


def why_loosens(change: ModeChange, target: str | None, link_at: Callable[[str], str | None]) -> str | None:
    """What this link or submodule opens, in words, or None where it leads somewhere harmless."""
    if kind(change.new_mode) == GITLINK:
        return "a submodule's commit: code from another repository, which this check does not read"
    if target is None:
        return "a symbolic link whose target this clone lacks"
    where, why = resolve(change.path, target, link_at)
    if where is None:
        return f"a symbolic link with {why}"
    pattern = reaches(where)
    if pattern is None:
        return None
    shown = where or "the repository's root"
    return (f"a symbolic link to {shown!r}, a second name for a path under '{pattern}', which the path "
            f"rules do not see through: {_WHY[pattern]}")


def link_problems(changes: Iterable[ModeChange], target_of: Callable[[ModeChange], str | None],
                  link_at: Callable[[str], str | None], commit: str | None = None) -> list[gitrules.Problem]:
    """One `policy_change` per link or submodule a commit adds or repoints that leads where a
    path rule would have said no (`why_loosens`). `target_of(change)` is the link's target
    as the commit holds it, None where the clone lacks it."""
    out = []
    for change in linked(changes):
        target = target_of(change) if kind(change.new_mode) == SYMLINK else None
        why = why_loosens(change, target, link_at)
        if why is None:
            continue
        sub = kind(change.new_mode) == GITLINK
        fix = ("a reviewer who is not its author checks the submodule's URL in .gitmodules and the commit "
               "it points at before it is merged" if sub else
               "a reviewer who is not its author checks where it leads before it is merged; commit the "
               "file itself rather than a link to it")
        out.append(gitrules.Problem(gitrules.POLICY_CHANGE, f"{gitrules.display(change.path)} is {why}", SOURCE,
                                    fix, change.path, commit))
    return out
