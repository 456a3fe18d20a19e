"""Tree entries that are not files: symbolic links and submodules, judged by where they lead.

A path rule judges a path by its name. A symbolic link makes a second name for what it
points at: `docs -> .handrail` lets `docs/autonomy-protocol.json` rewrite the policy, and
`x -> ../elsewhere` reaches out of the repository, where no rule looks. A submodule's
entry (a gitlink) names a commit of another repository, whose content no rule here
reads. So a change that adds or repoints either is a `policy_change`, whoever made it:
the link's target is followed through the links the commit's own tree holds, and one
that leads to or above a protected or default-forbidden path, out of the tree, or
nowhere it can tell, is reported.

The git hooks refuse the same links and submodules in an agent's commit, as they refuse
an agent's change of a protected path (`agent_problems`); a human's commit of one is the
human's call, which the CI check still puts before a reviewer (`link_problems`). One
judgement (`loosenings`) feeds both.

Nothing here reads git: the caller hands in each change's modes, the link's target and
a lookup of the tree's other links.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable
from typing import NamedTuple, Protocol, TypeVar

from handrail.policy import gitrules, scope

SYMLINK, GITLINK = 0o120000, 0o160000
SOURCE = (f"handrail link rule (symbolic links and submodules, the {gitrules.POLICY_CHANGE} gate's reach); "
          "binds everyone")
HOOK_SOURCE = ("handrail link rule (a symbolic link or submodule is a second name, or code, that no path rule "
               "sees through); binds agents")
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


C = TypeVar("C", bound=ModeChange)


def kind(mode: int) -> int:
    return mode & 0o170000


def linked(changes: Iterable[C]) -> list[C]:
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
    written = f"'{gitrules.display(target)}'"
    shown = where or "the repository's root"
    leads = "" if target.replace("\\", "/").strip("/") == where else f", which leads to '{gitrules.display(shown)}'"
    return (f"a symbolic link to {written}{leads}, a second name for a path under '{pattern}', which the path "
            f"rules do not see through: {_WHY[pattern]}")


class Loosening(NamedTuple):
    """One symbolic link or submodule a change adds or repoints that leads where no path rule looks."""

    path: str
    status: str                   # the change's git status letter
    why: str                      # what it opens, in words (`why_loosens`)
    submodule: bool


def loosenings(changes: Iterable[C], target_of: Callable[[C], str | None],
               link_at: Callable[[str], str | None]) -> list[Loosening]:
    """The one judgement of links and submodules: every link or submodule the changes add
    or repoint that leads where a path rule would have said no. `target_of(change)` is a
    link's target as the change holds it (None where the clone lacks it), `link_at(path)`
    the target of another link in the tree the changes lead to (None: no link there)."""
    out = []
    for change in linked(changes):
        sub = kind(change.new_mode) == GITLINK
        why = why_loosens(change, None if sub else target_of(change), link_at)
        if why is not None:
            out.append(Loosening(change.path, change.status, why, sub))
    return out


def link_problems(found: Iterable[Loosening], commit: str | None = None) -> list[gitrules.Problem]:
    """The CI check's answer: one `policy_change` per loosening, whoever made it, for a reviewer."""
    out = []
    for one in found:
        fix = ("a reviewer who is not its author checks the submodule's URL in .gitmodules and the commit "
               "it points at before it is merged" if one.submodule else
               "a reviewer who is not its author checks where it leads before it is merged; commit the "
               "file itself rather than a link to it")
        out.append(gitrules.Problem(gitrules.POLICY_CHANGE, f"{gitrules.display(one.path)} is {one.why}", SOURCE,
                                    fix, one.path, commit))
    return out


def agent_problems(found: Iterable[Loosening], commit: str | None = None) -> list[gitrules.Problem]:
    """The git hooks' answer for an agent's commit: each loosening refused as a protected path
    is (rule `path`, binds agents). A human's commit of one is the human's call, as a human's
    change of a protected path is; `handrail ci` still shows it to a reviewer."""
    out = []
    for one in found:
        what = "add or move a submodule" if one.submodule else "commit the link"
        fix = (f"{gitrules.path_fix(one.path, commit, one.status in ('A', 'C', 'R'))} (a human may {what}; "
               "handrail ci then asks a reviewer to check where it leads)")
        out.append(gitrules.Problem(gitrules.PATH, f"{gitrules.display(one.path)} is {one.why}", HOOK_SOURCE,
                                    fix, one.path, commit))
    return out
