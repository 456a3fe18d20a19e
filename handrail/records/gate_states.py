"""Gate decisions and the loop's requests, written into a task's `gates/` folder: the
state that handrail/policy/gates.py reads and judges by."""

from __future__ import annotations

import os

from handrail.fsio import atomic_write, dump_json
from handrail.policy import gates
from handrail.records.clock import now_iso

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def decide(project: str, slug: str, theme: str, decision: str, *, by: str,
           note: str | None = None) -> tuple[dict[str, Any], bool]:
    """Record a decision; returns the gate's file content and whether anything changed.

    Deciding what is already in force changes nothing. An unknown task, theme, or a
    theme that is not one of the task's gates raises HandrailError (exit 2).
    """
    assert decision in (gates.APPROVED, gates.REJECTED)
    task = gates.check_gate(project, slug, theme)
    current = gates.read(task.dir, theme)
    if current is not None and current.get("decision") == decision:
        return current, False
    entry: dict[str, object] = {"decision": decision, "by": by, "at": now_iso()}
    if note:
        entry["note" if decision == gates.APPROVED else "reason"] = note
    history = list(current.get("history", [])) if current else []
    history.append(entry)
    data = {"task": slug, "theme": theme, **entry, "history": history}
    ensure_ignored(task.dir)
    atomic_write(gates.gate_file(task.dir, theme), dump_json(data))
    return data, True


def ensure_ignored(task_dir: str) -> None:
    """Gate decisions are local state: the folder ignores itself, as the runtime folder does."""
    folder = gates.gates_dir(task_dir)
    os.makedirs(folder, exist_ok=True)
    ignore = os.path.join(folder, ".gitignore")
    if not os.path.exists(ignore):
        atomic_write(ignore, "# handrail gate decisions: local, never committed\n*\n")


def request(task_dir: str, slug: str, theme: str, request_id: str, *, paths: list[str], why: str) -> dict[str, Any]:
    """Put `theme` back to pending for request `request_id`, keeping its history."""
    current = gates.read(task_dir, theme)
    entry: dict[str, object] = {"decision": gates.PENDING, "by": gates.REQUESTED_BY, "at": now_iso(),
                                "request": request_id,
                                "paths": paths, "reason": why}
    history = list(current.get("history", [])) if current else []
    history.append(entry)
    data = {"task": slug, "theme": theme, **entry, "history": history}
    ensure_ignored(task_dir)
    atomic_write(gates.gate_file(task_dir, theme), dump_json(data))
    return data
