"""Tasks and their phases. Edits are allowed only while some task is in an edit phase."""

from __future__ import annotations

import os
import re

from handrail.errors import HandrailError, PolicyError
from handrail.fsio import parse_json, read_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PHASES = ("plan", "implement", "doc_review", "review", "done")
EDIT_PHASES = ("implement", "doc_review")
TASKS_DIR = os.path.join(".handrail", "tasks")
TASK_FILE = "task.json"
_SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_TASK_KEYS = frozenset({"slug", "title", "phase", "created_at", "updated_at", "history"})


class Task:
    __slots__ = ("data", "dir", "display", "recorded", "slug")

    def __init__(self, slug: str, data: dict[str, Any], directory: str, display: str,
                 recorded: str | None = None) -> None:
        self.slug = slug
        self.data = data
        self.dir = directory
        self.display = display
        # The phase handrail last set, from the ledger git does not track (None: none recorded).
        self.recorded = recorded

    @property
    def phase(self) -> str:
        phase: str = self.data["phase"]
        return phase

    @property
    def editing(self) -> bool:
        """In an edit phase, as task.json says and as handrail itself last set it: a task.json
        brought back by git (`git stash`, `git revert`, `git checkout`) opens no edit phase."""
        return self.phase in EDIT_PHASES and self.recorded in (None, self.phase)

    @property
    def updated_at(self) -> str:
        updated: str = self.data.get("updated_at", "")
        return updated

    def summary(self) -> dict[str, str]:
        out = {"task": self.slug, "phase": self.phase}
        if self.recorded not in (None, self.phase):
            assert self.recorded is not None
            out["recorded_phase"] = self.recorded  # task.json was changed other than by handrail
        return out


def slug_error(slug: str) -> str | None:
    """Why `slug` is not a safe folder name, or None."""
    if not slug:
        return "a task slug cannot be empty"
    if not _SLUG.fullmatch(slug) or ".." in slug:
        return (f"'{slug}' is not a valid task slug: "
                "use letters, digits, '.', '_' and '-', starting with a letter or digit")
    return None


def check_slug(slug: str) -> str:
    err = slug_error(slug)
    if err:
        raise HandrailError(err, reason="bad_arguments")
    return slug


def check_phase(phase: str) -> str:
    if phase not in PHASES:
        raise HandrailError(f"unknown phase '{phase}' (phases: {', '.join(PHASES)})", reason="bad_arguments")
    return phase


def tasks_root(project: str) -> str:
    return os.path.join(project, TASKS_DIR)


def task_dir(project: str, slug: str) -> str:
    return os.path.join(tasks_root(project), slug)


def _validate(data: dict[str, Any], slug: str, display: str) -> None:
    for key in data:
        if key not in _TASK_KEYS:
            raise PolicyError(f"{display}: {key}: unknown key (valid keys: {', '.join(sorted(_TASK_KEYS))})")
    phase = data.get("phase")
    if phase not in PHASES:
        raise PolicyError(f"{display}: phase: '{phase}' is not one of {', '.join(PHASES)}")
    if data.get("slug", slug) != slug:
        raise PolicyError(f"{display}: slug: '{data.get('slug')}' does not match its folder '{slug}'")
    history = data.get("history", [])
    if not isinstance(history, list) or not all(isinstance(h, dict) for h in history):
        raise PolicyError(f"{display}: history: expected a list of phase changes")
    for key in ("title", "created_at", "updated_at"):
        if key in data and not isinstance(data[key], str):
            raise PolicyError(f"{display}: {key}: expected a string")


def load_task(project: str, slug: str) -> Task:
    check_slug(slug)
    directory = task_dir(project, slug)
    path = os.path.join(directory, TASK_FILE)
    display = os.path.join(TASKS_DIR, slug, TASK_FILE)
    if not os.path.isfile(path):
        raise HandrailError(f"no task '{slug}' (no {display}); create it with `handrail task new {slug}`",
                            reason="task_not_found")
    data = parse_json(read_text(path), display)
    if not isinstance(data, dict):
        raise PolicyError(f"{display}: expected a JSON object at the top level, found {type(data).__name__}")
    _validate(data, slug, display)
    return Task(slug, data, directory, display, ledger(project).get(slug))


def load_all(project: str) -> list[Task]:
    """Every task of the project, ordered by slug. A broken task file is an error."""
    root = tasks_root(project)
    try:
        names = sorted(os.listdir(root))
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = []
    for n in names:
        if not os.path.isfile(os.path.join(root, n, TASK_FILE)):
            continue
        err = slug_error(n)
        if err:
            # A folder nobody could have made with `task new`: the policy is broken, not the call.
            raise PolicyError(f"{os.path.join(TASKS_DIR, n)}: {err}")
        found.append(load_task(project, n))
    return found


def edit_tasks(tasks: list[Task]) -> list[Task]:
    """Tasks in an edit phase, the most recently moved first (ties by slug)."""
    editing = sorted((t for t in tasks if t.editing), key=lambda t: t.slug)
    return sorted(editing, key=lambda t: t.updated_at, reverse=True)


# --------------------------------------------------------------------------- the phase ledger

# task.json is a file of the work tree, so git can bring an old one back (a stash, a revert, a
# checkout of the folder) and reopen an edit phase no person opened. handrail also writes each
# phase it sets into the repository's own folder, which git never restores and where every
# write is default-forbidden: a task counts as editing only where the two agree.
LEDGER = os.path.join("handrail", "phases.json")


def ledger_path(project: str) -> str | None:
    """`<git common dir>/handrail/phases.json`, or None outside a git repository."""
    dot = os.path.join(project, ".git")
    if os.path.isdir(dot):
        return os.path.join(dot, LEDGER)
    try:
        with open(dot, encoding="utf-8") as f:
            head = f.read(4096)
    except OSError:
        return None
    if not head.startswith("gitdir:"):
        return None
    gitdir = os.path.join(project, head[len("gitdir:"):].strip())
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as f:
            gitdir = os.path.join(gitdir, f.read(4096).strip())
    except OSError:
        pass
    return os.path.join(os.path.normpath(gitdir), LEDGER)


def ledger(project: str) -> dict[str, str]:
    """slug -> the phase handrail last set. Unreadable or absent: nothing recorded."""
    path = ledger_path(project)
    if path is None:
        return {}
    try:
        data = parse_json(read_text(path), path)
    except (OSError, HandrailError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}


def _entry(now: str, old: str | None, new: str, by: str | None, evidence: str | None) -> dict[str, object]:
    """One phase change for the history: when, from, to, and who made it: an agent's name
    with `evidence` (the marker that showed it), or a person (`name <email>`)."""
    entry: dict[str, object] = {"at": now, "from": old, "to": new}
    if by:
        entry["by"] = by
    if evidence:
        entry["evidence"] = evidence
    return entry


def fresh(project: str, slug: str, *, phase: str, now: str, title: str | None = None, by: str | None = None,
          evidence: str | None = None) -> Task:
    """The task `task new` would create, not yet written. An existing task is an error."""
    check_slug(slug)
    check_phase(phase)
    directory = task_dir(project, slug)
    if os.path.exists(os.path.join(directory, TASK_FILE)):
        raise HandrailError(f"task '{slug}' already exists ({os.path.join(TASKS_DIR, slug, TASK_FILE)})",
                            reason="task_exists")
    entry = _entry(now, None, phase, by, evidence)
    data: dict[str, object] = {"slug": slug, "title": title or slug, "phase": phase, "created_at": now,
                               "updated_at": now, "history": [entry]}
    return Task(slug, data, directory, os.path.join(TASKS_DIR, slug, TASK_FILE))


def changes(task: Task, phase: str) -> bool:
    """Whether moving `task` to `phase` changes anything: the same phase is a change only
    where the ledger disagrees with task.json (setting it again makes the two agree)."""
    check_phase(phase)
    return task.phase != phase or task.recorded not in (None, phase)


def move(task: Task, phase: str, *, now: str, by: str | None = None, evidence: str | None = None) -> None:
    """Apply the phase change to `task` in memory, with its history entry."""
    entry = _entry(now, task.phase, phase, by, evidence)
    task.data["phase"] = phase
    task.data["updated_at"] = now
    task.data.setdefault("history", []).append(entry)
