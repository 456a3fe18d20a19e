"""The files a commit's GitLab pipeline includes from its own tree: part of what runs the check.

`.gitlab-ci.yml` and `.gitlab/ci/**` are protected paths (policy/scope.py); a pipeline may
also `include:` any other file of the repository (`include: 'ci/jobs.yml'`, `include:
[{local: '/ci/*.yml'}]`), and start a child pipeline from one (`trigger: {include: ci/child.yml}`,
a string, a list, `- local:`), whose own includes count the same; a change to any of them
changes the pipeline as much. Those are read from the commit's tree, and from each local
file they include in turn (bounded as GitLab bounds includes). A path is repository-relative
(`/ci/x.yml` and `ci/x.yml` alike); a `./` or `../` path, which GitLab has read as neither,
is taken both ways (from the root, and beside the file that names it), so no reading of it
is missed. What lives elsewhere is not seen: `remote:`, `project:`, `template:`,
`component:` and `artifact:` includes, and a CI configuration path set in the project's
settings (the README's "What the CI check trusts").
"""

from __future__ import annotations

import posixpath

import pygit2

from handrail.ci.ciconfig import Named, Reach, blob, follow, load_yaml, repo_path

PIPELINE = ".gitlab-ci.yml"
_ELSEWHERE = frozenset({"remote", "project", "template", "component", "artifact"})


class Includes:
    """`at(tree)`: the local includes of the pipeline that tree holds; each file is parsed once."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self._parsed: dict[pygit2.Oid, tuple[list[str], str | None]] = {}

    def at(self, tree: pygit2.Tree) -> Reach:
        top = blob(tree, PIPELINE)
        if top is None:
            return Reach()

        def reach(pattern: str) -> Named:
            inner = None if "*" in pattern else blob(tree, pattern.lstrip("/"))
            return [(pattern, f"included by {PIPELINE}")], [] if inner is None else [(pattern.lstrip("/"), inner)]

        return follow([(PIPELINE, top)], self._parsed, lambda data, path: _local(data, posixpath.dirname(path)),
                      reach)


def _local(data: bytes, folder: str) -> tuple[list[str], str | None]:
    """The local include paths of one CI file (its `include:` and every job's
    `trigger: include:`), anchored at the root (`/ci/x.yml`), as patterns: GitLab's `**.yml`
    is any file below the folder. And why the file cannot be read, if it cannot."""
    doc, why = load_yaml(data)
    if why is not None or not isinstance(doc, dict):
        return [], why
    found: list[object] = [doc.get("include")]
    for job in doc.values():
        trigger = job.get("trigger") if isinstance(job, dict) else None
        if isinstance(trigger, dict):
            found.append(trigger.get("include"))
    out: list[str] = []
    for value in found:
        for item in value if isinstance(value, list) else [value]:
            out += _paths(item, folder)
    return list(dict.fromkeys(out)), None


def _paths(item: object, folder: str) -> list[str]:
    if isinstance(item, dict):
        if _ELSEWHERE & set(item):
            return []
        item = item.get("local")
    if not isinstance(item, str):
        return []
    readings = [repo_path(item)]
    if item.strip().startswith("."):
        readings.append(repo_path(item, folder))
    return ["/" + p.replace("**.", "**/*.") for p in dict.fromkeys(readings) if p]
