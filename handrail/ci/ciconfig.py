"""What a tree's CI configuration reads from the rest of the tree, and a change to it.

The protected paths (policy/scope.py) name the files every engine reads by their place:
`.github/workflows/**`, `.github/actions/**`, `.gitlab-ci.yml`, `.gitlab/ci/**`. A pipeline
also names files of its own choosing: a GitLab `include:` (ci/gitlabci.py) and a GitHub
workflow's local action, `uses: ./tools/act` (ci/ghactions.py). A change to one of those
changes what runs the check as much, so it is a `policy_change` too; and a configuration
file handrail cannot read (YAML it cannot parse, nested past what it follows) hides what it
names, which is an `unreadable` finding where a commit changes it: the rest is still judged.

Both readers answer with a `Reach`; `problems` is the one place that turns a reach and a
change set into findings.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable
from typing import NamedTuple

import pygit2

from handrail.policy import gitrules
from handrail.policy.globs import PatternSet

UNREADABLE = "unreadable"
MAX_FILES = 150  # GitLab's own limit on the includes of one pipeline; the same bound for local actions


class Reach(NamedTuple):
    """The tree's files a CI configuration names (root-anchored patterns), why each is named,
    and the configuration files that could not be read (path -> why)."""

    patterns: tuple[tuple[str, str], ...] = ()     # (pattern, what names it: "included by .gitlab-ci.yml")
    unreadable: tuple[tuple[str, str], ...] = ()   # (path, why)

    def plus(self, other: Reach) -> Reach:
        return Reach(tuple(dict.fromkeys(self.patterns + other.patterns)),
                     tuple(dict.fromkeys(self.unreadable + other.unreadable)))


Parsed = tuple[list[str], str | None]  # what one file names, and why it cannot be read (None: it can)
Named = tuple[list[tuple[str, str]], list[tuple[str, pygit2.Blob]]]  # (patterns and why, files to read next)


def follow(start: list[tuple[str, pygit2.Blob]], parsed: dict[pygit2.Oid, Parsed],
           read: Callable[[bytes, str], Parsed], reach: Callable[[str], Named]) -> Reach:
    """What a configuration names from its `start` files, breadth first, each file read once
    (`parsed`, by blob), at most MAX_FILES files: `read` lists what one file names, `reach`
    turns each name into patterns and the files to read in turn."""
    patterns: list[tuple[str, str]] = []
    broken: list[tuple[str, str]] = []
    seen: set[str] = set()
    queue = list(start)
    while queue and len(seen) < MAX_FILES:
        path, found = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        if found.id not in parsed:
            parsed[found.id] = read(found.data, path)
        named, why = parsed[found.id]
        if why is not None:
            broken.append((path, why))
        for name in named:
            more, files = reach(name)
            patterns += more
            queue += files
    return Reach(tuple(dict.fromkeys(patterns)), tuple(broken))


def blob(tree: pygit2.Tree, path: str) -> pygit2.Blob | None:
    try:
        entry = tree[path]
    except (KeyError, ValueError, UnicodeError):
        return None
    return entry if isinstance(entry, pygit2.Blob) else None


def load_yaml(data: bytes) -> tuple[object, str | None]:
    """(the document, None) or (None, why it cannot be read). Never raises: a planted file
    nested a hundred thousand deep is a finding, not the end of the check."""
    import yaml

    try:
        return yaml.safe_load(data), None
    except yaml.YAMLError as e:
        return None, f"not valid YAML: {' '.join(str(e).split())[:160]}"
    except RecursionError:
        return None, "nested too deeply to read"
    except (ValueError, MemoryError) as e:
        return None, f"cannot be read: {type(e).__name__}"


def repo_path(raw: str, beside: str = "") -> str | None:
    """A path a configuration file names, repository-relative (`/ci/x.yml`, `ci/x.yml` and
    `./ci/x.yml` alike), or None where it climbs out of the repository or names nothing.
    `beside`: the folder of the file that names it, for a `./` or `../` path read relative
    to that file."""
    text = raw.strip().replace("\\", "/")
    if not text or "://" in text:
        return None
    base = "" if text.startswith("/") else beside
    parts: list[str] = [p for p in base.split("/") if p]
    for part in text.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
            continue
        parts.append(part)
    return posixpath.join(*parts) if parts else ""


def problems(changes: Iterable[gitrules.ChangeLike], reach: Reach, commit: str | None) -> list[gitrules.Problem]:
    """One `policy_change` per changed path the configuration names that no protected pattern
    already reports, and one `unreadable` per changed configuration file handrail cannot read."""
    from handrail.policy import scope

    paths = list(dict.fromkeys(p for c in changes for p in (c.path, c.old_path) if p))
    out = []
    broken = dict(reach.unreadable)
    for path in paths:
        if path in broken:
            out.append(unreadable_problem(path, broken[path], commit))
    if not reach.patterns:
        return out
    spec = PatternSet([p for p, _why in reach.patterns])
    named = dict(reach.patterns)
    for path in paths:
        hit = spec.match(path)
        if hit is None or scope.protected_rule(path) is not None:
            continue
        out.append(gitrules.Problem(
            gitrules.POLICY_CHANGE, f"{gitrules.display(path)} is {named[hit]} ('{hit}'): a change to it "
                                    "changes the pipeline that runs the CI check",
            f"{named[hit]} (handrail CI configuration rule, the {gitrules.POLICY_CHANGE} gate's reach); "
            "binds everyone",
            "a reviewer who is not its author checks the change before it is merged", path, commit))
    return out


def unreadable_problem(path: str, why: str, commit: str | None) -> gitrules.Problem:
    return gitrules.Problem(
        UNREADABLE, f"{gitrules.display(path)}: handrail cannot read it ({why}), so what it sets is not judged",
        "handrail unreadable-file rule (a policy or CI file the check cannot read); binds everyone",
        "a human fixes or removes the file; a reviewer checks what it was meant to say before it is merged",
        path, commit)
