"""task.json and the phase ledger, written: the state handrail/policy/tasks.py loads and
decides phase changes over."""

from __future__ import annotations

import os

from handrail.fsio import atomic_write, dump_json
from handrail.policy import tasks
from handrail.records.clock import now_iso


def new_task(project: str, slug: str, *, phase: str = "plan", title: str | None = None, by: str | None = None,
             evidence: str | None = None) -> tasks.Task:
    task = tasks.fresh(project, slug, phase=phase, now=now_iso(), title=title, by=by, evidence=evidence)
    write(task, project)
    return task


def set_phase(project: str, slug: str, phase: str, *, by: str | None = None,
              evidence: str | None = None) -> tuple[tasks.Task, str]:
    """Move a task to `phase`; returns the task and the phase it left. Same phase: no change."""
    tasks.check_phase(phase)
    task = tasks.load_task(project, slug)
    old = task.phase
    if tasks.changes(task, phase):
        tasks.move(task, phase, now=now_iso(), by=by, evidence=evidence)
        write(task, project)
    return task, old


def write(task: tasks.Task, project: str) -> None:
    atomic_write(os.path.join(task.dir, tasks.TASK_FILE), dump_json(task.data))
    record_phase(project, task.slug, task.phase)
    task.recorded = task.phase


def record_phase(project: str, slug: str, phase: str) -> None:
    """Write `phase` into the ledger git never restores (see tasks.ledger_path)."""
    path = tasks.ledger_path(project)
    if path is None:
        return
    known = tasks.ledger(project)
    known[slug] = phase
    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic_write(path, dump_json(known))
