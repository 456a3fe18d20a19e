"""What the agent changed: the run's baseline, snapshots around each agent call, and
an attempt's artifacts (changed-files.json, diff.patch).

Two views, because git shows only part of what an agent can touch:

- the work tree against the commit the run began from (tracked and untracked files,
  renames paired), cumulative over the run, limited to paths the agent itself
  touched: a criterion that writes `__pycache__/` is not the agent leaving its scope;
- guarded files git does not show (everything under `.handrail/` but its event log,
  its backups and the loop's own artifacts, the git hooks folder, ignored files a
  built-in rule forbids such as an ignored `.env`), hashed just before and just
  after each agent call.

Files already dirty at the baseline are recorded with their content ids, so a later
change to one of them is still seen; their content is copied (up to 1 MiB each) so
that diff.patch shows the agent's change, not the human's earlier one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

import pygit2

from handrail import linecount
from handrail import repo as git
from handrail.backups import BACKUPS
from handrail.errors import HandrailError
from handrail.fsio import atomic_write, dump_json
from handrail.policy import scope
from handrail.records import clock

HANDRAIL_PREFIX = ".handrail/"
RUNTIME_PREFIX = ".handrail/runtime/"
BACKUPS_PREFIX = BACKUPS.replace(os.sep, "/") + "/"
COPY_LIMIT = 1 << 20
DIFF_LIMIT = 16 << 20  # larger files get no patch text; their lines are all counted (the stricter count)
TREE = "tree"  # "as in the baseline commit": never equal to a content id or None


class Snapshot(NamedTuple):
    dirty: dict[str, str | None]  # path -> content id (None: absent) where it differs from the baseline tree
    renames: dict[str, str]       # new path -> old path, as git pairs them now


def open_repo(project: str) -> pygit2.Repository:
    repo = git.open_path(project)
    if repo.is_bare:
        raise HandrailError(f"{project}: a bare repository has no work tree to loop in", reason="bad_arguments")
    if os.path.realpath(git.workdir(repo)) != os.path.realpath(project):
        # Paths are judged relative to the project: a sub-folder would shift every rule.
        raise HandrailError(f"{os.path.abspath(project)}: not the root of its work tree ({git.workdir(repo)}): "
                            "run the loop with --project at the root", reason="bad_arguments")
    return repo


def snapshot(repo: pygit2.Repository, tree_id: str) -> Snapshot:
    """The work tree's differences from `tree_id`, outside `.handrail/`."""
    root = git.workdir(repo)
    dirty: dict[str, str | None] = {}
    renames: dict[str, str] = {}
    for change in git.worktree_changes(repo, tree_id):
        for path in change.paths():
            if path.startswith(HANDRAIL_PREFIX):
                continue
            now = git.workfile_id(root, path)
            # A filter or a stat-only change can make git list a file whose content is the tree's.
            if now != git.tree_entry_id(repo, tree_id, path):
                dirty[path] = now
        if change.status == "R" and change.old_path:
            renames[change.path] = change.old_path
    return Snapshot(dirty, renames)


def changed(before: Mapping[str, str | None], after: Mapping[str, str | None], default: str | None = TREE) -> set[str]:
    """Paths whose state differs between two snapshots (a path missing from one is in
    its `default` state: the baseline tree's for work-tree snapshots, absent for guarded ones)."""
    return {p for p in before.keys() | after.keys() if before.get(p, default) != after.get(p, default)}


def take_baseline(repo: pygit2.Repository, copies: str) -> dict[str, Any]:
    """Where a run begins: HEAD, and the content ids (and copies) of what is already dirty."""
    ids = git.head_ids(repo)
    if ids is None:
        raise HandrailError(f"{git.workdir(repo)}: the loop compares the work tree with a commit, and there is none "
                            "yet: commit once first", reason="bad_arguments")
    snap = snapshot(repo, ids[1])
    root = git.workdir(repo)
    for path, content_id in snap.dirty.items():
        if content_id is None or ":" not in content_id or not content_id.startswith(("100", "120")):
            continue
        data = _read(root, path)
        if data is not None and len(data) <= COPY_LIMIT:
            os.makedirs(copies, exist_ok=True)
            target = os.path.join(copies, content_id.split(":", 1)[1])
            if not os.path.exists(target):
                with open(target, "wb") as f:
                    f.write(data)
    return {"commit": ids[0], "tree": ids[1], "dirty": snap.dirty, "taken_at": clock.now_iso()}


def _read(root: str, path: str) -> bytes | None:
    full = os.path.join(os.fsencode(root), os.fsencode(path))
    try:
        if os.path.islink(full):
            return os.readlink(full)
        with open(full, "rb") as f:
            return f.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


# ----------------------------------------------------------------------------- guarded files


def guarded(repo: pygit2.Repository) -> dict[str, str | None]:
    """Content ids of the files an agent must not touch that git may not show."""
    root = git.workdir(repo)
    out: dict[str, str | None] = {}
    _walk(root, ".handrail", out, skip=_loop_output)
    hooks = git.hooks_dir(repo)
    rel = os.path.relpath(hooks, root).replace(os.sep, "/")
    if not rel.startswith("../"):
        _walk(root, rel, out)
    for path in git.ignored_paths(repo):
        if path.startswith(HANDRAIL_PREFIX):
            continue
        if path.endswith("/"):
            # An ignored folder a built-in rule covers (secrets/); never node_modules: it is
            # installed, not edited, and too big to hash before every agent call.
            if "node_modules/" not in path and scope.builtin_refusal(path + "x") is not None:
                _walk(root, path.rstrip("/"), out)
        elif scope.builtin_refusal(path) is not None:
            out[path] = git.workfile_id(root, path)
    return out


def _loop_output(folder: str) -> bool:
    """Folders handrail itself writes while an agent runs or between its calls: the
    event log and memory staging (runtime), the copies of what a write replaced
    (backups: never read back), and each task's attempts and check logs (artifacts,
    not policy)."""
    parts = folder.split("/")
    return folder in (RUNTIME_PREFIX.rstrip("/"), BACKUPS_PREFIX.rstrip("/")) or (
        len(parts) == 4 and parts[:2] == [".handrail", "tasks"] and parts[3] in ("attempts", "checks"))


def _walk(root: str, rel: str, out: dict[str, str | None], skip: Callable[[str], bool] | None = None) -> None:
    base = os.path.join(root, rel)
    if not os.path.isdir(base):
        return
    for folder, dirs, files in os.walk(base):
        here = os.path.relpath(folder, root).replace(os.sep, "/")
        dirs[:] = [d for d in dirs if not (skip and skip(f"{here}/{d}"))]
        for name in files:
            path = f"{here}/{name}"
            out[path] = git.workfile_id(root, path)


def guarded_refusal(path: str, hooks_rel: str | None) -> scope.Refusal:
    """Why an agent may not touch a guarded path (every one of them is refused)."""
    found = scope.builtin_refusal(path)
    if found is not None:
        return found
    return scope.Refusal(scope.PROTECTED_PATH, f"{hooks_rel or 'hooks'}/**", "the repository's git hooks folder",
                         "git hooks")


def hooks_rel(repo: pygit2.Repository) -> str | None:
    rel = os.path.relpath(git.hooks_dir(repo), git.workdir(repo)).replace(os.sep, "/")
    return None if rel.startswith("../") else rel


# ----------------------------------------------------------------------------- changes and artifacts


class Change(NamedTuple):
    status: str              # A, M, D, R
    path: str
    old_path: str | None     # the other side of a rename

    def paths(self) -> tuple[str, ...]:
        return (self.path,) if self.old_path is None else (self.path, self.old_path)

    def as_dict(self) -> dict[str, str | None]:
        return {"status": self.status, "path": self.path, "old_path": self.old_path}


def changes(repo: pygit2.Repository, baseline: dict[str, Any], now: Snapshot, paths: Iterable[str]) -> list[Change]:
    """The changes since the baseline among `paths`, renames paired where git pairs them."""
    base_dirty: dict[str, str | None] = baseline["dirty"]
    wanted = set(paths)

    def exists(state: str | None, path: str) -> bool:
        if state == TREE:
            return git.tree_entry_id(repo, baseline["tree"], path) is not None
        return state is not None

    out: list[Change] = []
    paired: set[str] = set()
    for new, old in sorted(now.renames.items()):
        if new in wanted and old in wanted:
            out.append(Change("R", new, old))
            paired.update((new, old))
    for path in sorted(wanted - paired):
        before = exists(base_dirty.get(path, TREE), path)
        after = exists(now.dirty.get(path, TREE), path)
        out.append(Change("A" if after and not before else "D" if before and not after else "M", path, None))
    return out


def _before(repo: pygit2.Repository, baseline: dict[str, Any], copies: str,
            path: str) -> tuple[bytes | None, str | None]:
    """A path's content at the baseline, and a note where it cannot be shown."""
    state = baseline["dirty"].get(path, TREE)
    if state == TREE:
        return git.tree_blob(repo, baseline["tree"], path), None
    if state is None:
        return None, None
    copy = os.path.join(copies, state.split(":", 1)[-1])
    try:
        with open(copy, "rb") as f:
            return f.read(), None
    except OSError:
        return (git.tree_blob(repo, baseline["tree"], path),
                "already dirty at the baseline and not kept: diffed against the commit")


def write_artifacts(repo: pygit2.Repository, baseline: dict[str, Any], copies: str, found: list[Change], folder: str,
                    extra: dict[str, Any]) -> tuple[int, int]:
    """changed-files.json and diff.patch of an attempt; returns (added, removed) lines,
    counted from content (so a content line starting `++` or `--` is content)."""
    root = git.workdir(repo)
    patches: list[str] = []
    added = removed = 0
    for c in found:
        old_data, note = _before(repo, baseline, copies, c.old_path or c.path)
        new_data = None if c.status == "D" else _read(root, c.path)
        if old_data is None and new_data is None:
            continue
        if max(len(old_data or b""), len(new_data or b"")) > DIFF_LIMIT:
            added += git.count_lines(new_data)
            removed += git.count_lines(old_data)
            patches.append(f"# {c.path}: larger than {DIFF_LIMIT >> 20} MiB: no patch; every line counted\n")
            continue
        patch = pygit2.Patch.create_from(old_data, new_data, old_as_path=c.old_path or c.path, new_as_path=c.path)
        plus, minus = linecount.changed(old_data, new_data)
        added += plus
        removed += minus
        text = patch.text or ""
        if note:
            text = f"# {c.path}: {note}\n{text}"
        patches.append(text if text.endswith("\n") or not text else text + "\n")
    atomic_write(os.path.join(folder, "diff.patch"), "".join(patches))
    data = {
        "added": [c.path for c in found if c.status == "A"],
        "modified": [c.path for c in found if c.status == "M"],
        "deleted": [c.path for c in found if c.status == "D"],
        "renamed": [{"from": c.old_path, "to": c.path} for c in found if c.status == "R"],
        "changes": [c.as_dict() for c in found],
        "lines": {"added": added, "removed": removed},
        **extra,
    }
    atomic_write(os.path.join(folder, "changed-files.json"), dump_json(data))
    return added, removed
