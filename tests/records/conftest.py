"""Fixtures for the records tests: a project with a task in an edit phase, and
envelopes written by hand as an operator editing the file would."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import run_handrail

from handrail.records import task_states

WriteEnvelope = Callable[..., Path]


@pytest.fixture
def project(repo: Path) -> Path:
    """A git repository with task `t1` in phase implement (so can-edit allows src/**)."""
    r = run_handrail("task", "new", "t1", cwd=repo)
    assert r.returncode == 0, r.stderr
    task_states.set_phase(str(repo), "t1", "implement")  # a person's step (`task phase` needs a terminal)
    return repo


def _write_envelope(project: Path, agent: str, states: dict[str, str], *,
                    updated: str = "2026-01-01T00:00:00Z") -> Path:
    """A valid envelope with unquoted timestamps (YAML reads them as datetimes)."""
    lines = ["---", f"agent: {agent}", "owner: operator", f"updated: {updated}", "taskTypes:"]
    if not states:
        lines[-1] = "taskTypes: []"
    for task_type, state in states.items():
        lines += [f"  - id: {task_type}", f"    state: {state}", f"    stateSince: {updated}",
                  "    operatorNote: written by hand"]
    lines += ["---", f"# Autonomy envelope: {agent}", "", "## History", "", "hand-written history", ""]
    path = project / "agents" / agent / "autonomy-envelope.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@pytest.fixture
def write_envelope() -> WriteEnvelope:
    return _write_envelope
