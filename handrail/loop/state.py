"""The loop's state in `.handrail/tasks/<slug>/`, all of it git-ignored:

    progress.json        the circuit, the current run and every attempt (written atomically)
    attempts/<n>/        one attempt's artifacts: feedback.md, agent.log, changed-files.json,
                         diff.patch, checks/<criterion>.log
    attempts/baseline/   copies of files already dirty when a run began (for diff.patch)
    checks/              the logs of `loop check`
    gates/               human decisions (handrail.policy.gates)

A progress file that cannot be read stops every loop command with an error and is
never rewritten: writing a fresh one would silently close an open circuit.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

from handrail import filelock
from handrail.errors import HandrailError
from handrail.fsio import atomic_write, dump_json, read_json_object
from handrail.policy import loop as rules
from handrail.policy import tasks as taskmod
from handrail.records import clock

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PROGRESS_FILE = "progress.json"
ATTEMPTS_DIR = "attempts"
BASELINE_DIR = "baseline"
CHECKS_DIR = "checks"
VERSION = 1

LOCK_FILE = ".loop.lock"

_TASK_IGNORE = ("# handrail loop state: local, never committed\n"
                f"/progress.json\n/.progress.json.*\n/{LOCK_FILE}\n/.gitignore\n")
_FOLDER_IGNORE = "# handrail loop state: local, never committed\n*\n"


def shown(slug: str, *parts: str) -> str:
    """A path as messages print it: relative to the project."""
    return os.path.join(taskmod.TASKS_DIR, slug, *parts)


def progress_path(task_dir: str) -> str:
    return os.path.join(task_dir, PROGRESS_FILE)


def owned_prefixes(slug: str) -> tuple[str, ...]:
    """Project-relative paths the loop rewrites after every attempt: an agent touching
    them is a violation of that attempt, not one that lasts (the loop's next write undoes it)."""
    base = f"{taskmod.TASKS_DIR}/{slug}/".replace(os.sep, "/")
    return (f"{base}{PROGRESS_FILE}", f"{base}.{PROGRESS_FILE}.")


def fresh(slug: str) -> dict[str, Any]:
    return {
        "version": VERSION,
        "task": slug,
        "circuit": {"state": rules.CLOSED, "reason": None, "at": None, "attempt": None},
        "state": None,
        "reason": None,
        "policy": None,
        "run": None,
        "attempts": [],
    }


def load(task_dir: str, slug: str) -> dict[str, Any] | None:
    """The task's progress, or None before its first run. Broken: HandrailError, exit 2."""
    path = progress_path(task_dir)
    if not os.path.exists(path):
        return None
    where = shown(slug, PROGRESS_FILE)
    fix = ("; the loop never rewrites a broken progress file (that would close its circuit): "
           "a human repairs it, or removes it to start over")
    try:
        data = read_json_object(path)
    except HandrailError as e:
        raise HandrailError(f"{str(e).replace(path, where)}{fix}", reason="progress_corrupt") from None
    problem = _shape_problem(data)
    if problem is not None:
        raise HandrailError(f"{where}: {problem}{fix}", reason="progress_corrupt")
    return data


def _shape_problem(data: dict[str, Any]) -> str | None:
    if data.get("version") != VERSION:
        return f"version: expected {VERSION}, found {data.get('version')!r}"
    circuit = data.get("circuit")
    if not isinstance(circuit, dict) or circuit.get("state") not in rules.CIRCUIT_STATES:
        return f"circuit.state: expected one of {', '.join(rules.CIRCUIT_STATES)}"
    if data.get("state") not in (None, *rules.STATES):
        return f"state: '{data.get('state')}' is not one of {', '.join(rules.STATES)}"
    if not isinstance(data.get("attempts"), list) or not all(isinstance(a, dict) for a in data["attempts"]):
        return "attempts: expected a list of objects"
    run = data.get("run")
    if run is not None and (not isinstance(run, dict) or not isinstance(run.get("baseline"), dict)
                            or not isinstance(run.get("step"), int) or not isinstance(run.get("gates"), list)):
        return "run: expected an object with baseline, step and gates"
    if data.get("state") in (rules.RUNNING, rules.PAUSED) and run is None:
        return f"run: a {data['state']} loop needs its run"
    return None


def save(task_dir: str, data: dict[str, Any]) -> None:
    ensure_ignored(task_dir)
    atomic_write(progress_path(task_dir), dump_json(data))


def ensure_ignored(task_dir: str) -> None:
    """progress.json is ignored by a `.gitignore` beside it that ignores itself too."""
    path = os.path.join(task_dir, ".gitignore")
    try:
        with open(path, encoding="utf-8") as f:
            current = f.read()
    except FileNotFoundError:
        current = None
    if current is None:
        atomic_write(path, _TASK_IGNORE)
    elif "/progress.json" not in current.split():
        atomic_write(path, current + ("" if current.endswith("\n") or not current else "\n") + _TASK_IGNORE)


def ignored_folder(path: str) -> str:
    """A folder of loop state, created with a `.gitignore` of `*` (which ignores itself)."""
    os.makedirs(path, exist_ok=True)
    ignore = os.path.join(path, ".gitignore")
    if not os.path.exists(ignore):
        atomic_write(ignore, _FOLDER_IGNORE)
    return path


def attempts_root(task_dir: str) -> str:
    return ignored_folder(os.path.join(task_dir, ATTEMPTS_DIR))


def attempt_dir(task_dir: str, n: int) -> str:
    path = os.path.join(attempts_root(task_dir), str(n))
    os.makedirs(os.path.join(path, CHECKS_DIR), exist_ok=True)
    return path


def baseline_dir(task_dir: str) -> str:
    return os.path.join(attempts_root(task_dir), BASELINE_DIR)


def checks_dir(task_dir: str) -> str:
    return ignored_folder(os.path.join(task_dir, CHECKS_DIR))


def next_attempt(progress: dict[str, Any]) -> int:
    return max((a.get("n", 0) for a in progress["attempts"]), default=0) + 1


def new_id() -> str:
    """A run id that sorts by time and never collides (even with a pinned clock)."""
    return f"{clock.now().strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(3)}"


@contextmanager
def locked(task_dir: str, slug: str) -> Iterator[None]:
    """One loop command that writes progress at a time per task; a second is refused
    (exit 2) rather than left to overwrite the first one's state."""
    ensure_ignored(task_dir)
    with filelock.held(os.path.join(task_dir, LOCK_FILE)) as lock:
        if not lock.had:
            raise HandrailError(f"{shown(slug, LOCK_FILE)}: another loop command is running on task '{slug}' "
                                f"(pid {lock.holder}); wait for it, or stop it", reason="loop_busy")
        yield
