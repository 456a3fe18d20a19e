"""The files a commit's GitLab pipeline includes from its own tree: part of what runs the check.

`.gitlab-ci.yml` and `.gitlab/ci/**` are protected paths (policy/scope.py); a pipeline may
also `include:` any other file of the repository (`include: 'ci/jobs.yml'`, `include:
[{local: '/ci/*.yml'}]`), and a change to one changes the pipeline as much. Those are
read from the commit's tree, and from each local file they include in turn (bounded as
GitLab bounds includes). What lives elsewhere is not seen: `remote:`, `project:`,
`template:` and `component:` includes, and a CI configuration path set in the project's
settings (the README's "What the CI check trusts").
"""

from __future__ import annotations

from collections.abc import Iterable

import pygit2

from handrail.policy import gitrules
from handrail.policy.globs import PatternSet

PIPELINE = ".gitlab-ci.yml"
MAX_FILES = 150  # GitLab's own limit on the includes of one pipeline
SOURCE = (f"include: local from {PIPELINE} (handrail CI configuration rule, the {gitrules.POLICY_CHANGE} "
          "gate's reach); binds everyone")


class Includes:
    """`at(tree)`: the local includes of the pipeline that tree holds; each file is parsed once."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self._parsed: dict[pygit2.Oid, list[str]] = {}

    def at(self, tree: pygit2.Tree) -> PatternSet | None:
        top = _blob(tree, PIPELINE)
        if top is None:
            return None
        seen: set[str] = set()
        patterns: list[str] = []
        queue = [(PIPELINE, top)]
        while queue and len(seen) < MAX_FILES:
            path, blob = queue.pop(0)
            if path in seen:
                continue
            seen.add(path)
            if blob.id not in self._parsed:
                self._parsed[blob.id] = _local(blob.data)
            for found in self._parsed[blob.id]:
                patterns.append(found)
                inner = None if "*" in found else _blob(tree, found.lstrip("/"))
                if inner is not None:
                    queue.append((found.lstrip("/"), inner))
        return PatternSet(patterns) if patterns else None


def _blob(tree: pygit2.Tree, path: str) -> pygit2.Blob | None:
    try:
        entry = tree[path]
    except (KeyError, ValueError, UnicodeError):
        return None
    return entry if isinstance(entry, pygit2.Blob) else None


def _local(data: bytes) -> list[str]:
    """The local include paths of one CI file, anchored at the root (`/ci/x.yml`), as
    patterns: GitLab's `**.yml` is any file below the folder."""
    import yaml

    try:
        doc = yaml.safe_load(data)
    except (yaml.YAMLError, ValueError):
        return []  # GitLab runs no pipeline it cannot read; the file's own change is judged as a path
    found = doc.get("include") if isinstance(doc, dict) else None
    items = found if isinstance(found, list) else [found]
    out = []
    for item in items:
        path = item.get("local") if isinstance(item, dict) else item
        if isinstance(path, str) and path.strip() and "://" not in path and not (
                isinstance(item, dict) and {"remote", "project", "template", "component"} & set(item)):
            out.append("/" + path.strip().lstrip("/").replace("**.", "**/*."))
    return out


def include_problems(changes: Iterable[gitrules.ChangeLike], includes: PatternSet | None,
                     commit: str) -> list[gitrules.Problem]:
    """One `policy_change` per changed path the pipeline includes that no protected pattern
    already reports."""
    if includes is None:
        return []
    from handrail.policy import scope

    out = []
    for change in changes:
        for path in dict.fromkeys(p for p in (change.path, change.old_path) if p):
            hit = includes.match(path)
            if hit is None or scope.protected_rule(path) is not None:
                continue
            out.append(gitrules.Problem(
                gitrules.POLICY_CHANGE, f"{gitrules.display(path)} is included by {PIPELINE} ('{hit}'): a "
                                        "change to it changes the pipeline that runs the CI check",
                SOURCE, "a reviewer who is not its author checks the change before it is merged", path, commit))
    return out
