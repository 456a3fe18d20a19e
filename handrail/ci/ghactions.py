"""The local actions a commit's GitHub workflows run from its own tree: part of what runs the check.

`.github/workflows/**` and `.github/actions/**` are protected paths (policy/scope.py); a
workflow step may also run an action from any folder of the repository (`uses: ./tools/act`,
relative to the checkout's root), whose `action.yml` and everything beside it is then code
the job runs; a composite action's own steps may name more local actions, followed the same
way (bounded). A change under such a folder is a `policy_change`. An action at the root
(`uses: ./`) makes its `action.yml`/`action.yaml` and `Dockerfile` CI configuration, not the
whole tree. Not seen: a step's `run: ./scripts/x.sh`, and actions from other repositories
(`uses: owner/repo@ref`: pin those to a commit).
"""

from __future__ import annotations

import pygit2

from handrail.ci.ciconfig import Named, Reach, blob, follow, load_yaml, repo_path

WORKFLOWS = ".github/workflows"
_METADATA = ("action.yml", "action.yaml")
_ROOT_FILES = ("/action.yml", "/action.yaml", "/Dockerfile")
WHY = "a local action a workflow in .github/workflows runs"


class LocalActions:
    """`at(tree)`: the folders of the local actions that tree's workflows run; each file parsed once."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self._parsed: dict[pygit2.Oid, tuple[list[str], str | None]] = {}

    def at(self, tree: pygit2.Tree) -> Reach:
        files = _workflow_files(tree)
        if not files:
            return Reach()

        def reach(folder: str) -> Named:
            patterns = [(p, WHY) for p in (_ROOT_FILES if folder == "" else (f"/{folder}/**",))]
            metas = [f"{folder}/{name}" if folder else name for name in _METADATA]
            return patterns, [(meta, inner) for meta in metas if (inner := blob(tree, meta)) is not None]

        return follow(files, self._parsed, lambda data, _path: _uses(data), reach)


def _workflow_files(tree: pygit2.Tree) -> list[tuple[str, pygit2.Blob]]:
    """The workflow files GitHub reads: the YAML files directly in .github/workflows."""
    try:
        folder = tree[WORKFLOWS]
    except (KeyError, ValueError):
        return []
    if not isinstance(folder, pygit2.Tree):
        return []
    return [(f"{WORKFLOWS}/{e.name}", e) for e in folder
            if isinstance(e, pygit2.Blob) and e.name and e.name.lower().endswith((".yml", ".yaml"))]


def _uses(data: bytes) -> tuple[list[str], str | None]:
    """The repository folders a workflow's or a composite action's steps name with `uses: ./…`
    (a job's `uses: ./.github/workflows/x.yml` names a file under a protected path already)."""
    doc, why = load_yaml(data)
    if why is not None or not isinstance(doc, dict):
        return [], why
    steps: list[object] = []
    jobs = doc.get("jobs")
    for job in (jobs.values() if isinstance(jobs, dict) else ()):
        if isinstance(job, dict) and isinstance(job.get("steps"), list):
            steps += job["steps"]
    runs = doc.get("runs")
    if isinstance(runs, dict) and isinstance(runs.get("steps"), list):
        steps += runs["steps"]
    out: list[str] = []
    for step in steps:
        uses = step.get("uses") if isinstance(step, dict) else None
        if isinstance(uses, str) and uses.strip().startswith("./"):
            folder = repo_path(uses)  # a local action takes no @ref: the name is the folder
            if folder is not None:
                out.append(folder)
    return list(dict.fromkeys(out)), None
