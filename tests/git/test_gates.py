"""Human gates: only a person at a terminal decides; deciding twice changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import helpers
import pytest
from gitkit import Project

GATED = {"human_gate": {"required_for": ["auth_permission_change"]}}


def in_terminal(project: Project, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    return helpers.in_terminal(project.path, *args, env=env)


def gate_file(project: Project, slug: str, theme: str) -> Path:
    return project.path / ".handrail" / "tasks" / slug / "gates" / f"{theme}.json"


def test_a_person_at_a_terminal_approves_once(project: Project) -> None:
    project.task("login", contract=GATED)
    code, out = in_terminal(project, "gate", "approve", "login", "auth_permission_change", "--note", "reviewed")
    assert code == 0, out
    assert "approved by" in out
    path = gate_file(project, "login", "auth_permission_change")
    data = json.loads(path.read_text())
    assert (data["decision"], data["note"], data["task"]) == ("approved", "reviewed", "login")
    assert data["by"] and data["at"].endswith("Z")
    before = path.read_bytes()
    code, out = in_terminal(project, "gate", "approve", "login", "auth_permission_change")
    assert code == 0 and "already approved" in out and "nothing changed" in out
    assert path.read_bytes() == before
    # The gate folder is local state: git ignores it.
    assert project.git("check-ignore", "-q", str(path), check=False).returncode == 0


def test_reject_needs_a_reason_and_is_recorded(project: Project) -> None:
    project.task("login", contract=GATED)
    code, out = in_terminal(project, "gate", "reject", "login", "auth_permission_change")
    assert code == 2 and "--reason" in out
    code, out = in_terminal(project, "gate", "reject", "login", "auth_permission_change", "--reason", "too broad")
    assert code == 0, out
    listed = json.loads(in_terminal(project, "gate", "list", "--json")[1].splitlines()[-1])
    auth = next(g for g in listed["gates"] if g["theme"] == "auth_permission_change")
    assert (auth["status"], auth["reason"]) == ("rejected", "too broad")
    assert {g["theme"] for g in listed["gates"]} == {"auth_permission_change", "publish"}


def test_without_a_terminal_approval_is_refused_and_nothing_is_written(project: Project, handrail) -> None:  # type: ignore[no-untyped-def]
    project.task("login", contract=GATED)
    r = handrail("gate", "approve", "login", "auth_permission_change", cwd=project.path)
    assert r.returncode == 1
    assert "a human decides gates" in r.stderr and "not a terminal" in r.stderr
    assert not gate_file(project, "login", "auth_permission_change").exists()


def test_an_agent_environment_is_refused_even_at_a_terminal(project: Project) -> None:
    project.task("login", contract=GATED)
    code, out = in_terminal(project, "gate", "approve", "login", "publish", env={"CLAUDECODE": "1"})
    assert code == 1
    assert "the environment shows an agent (CLAUDECODE=1" in out
    assert not gate_file(project, "login", "publish").exists()


@pytest.mark.parametrize(("slug", "theme", "words"), [
    ("nosuch", "publish", "no task 'nosuch'"),
    ("login", "auth_permision_change", "did you mean 'auth_permission_change'"),
    ("login", "payment_logic_change", "task 'login' has no 'payment_logic_change' gate"),
])
def test_unknown_task_theme_or_gate_is_exit_2_with_nothing_changed(project: Project, slug: str, theme: str,
                                                                   words: str) -> None:
    project.task("login", contract=GATED)
    before = sorted(p for p in project.path.rglob("*") if ".git" not in p.parts)
    code, out = in_terminal(project, "gate", "approve", slug, theme)
    assert code == 2 and words in out, out
    assert sorted(p for p in project.path.rglob("*") if ".git" not in p.parts) == before


def test_approval_opens_the_commit_and_is_recorded(project: Project) -> None:
    import sqlite3

    project.task("login", contract=GATED)
    project.write("src/auth/a.py")
    assert project.commit("src/auth/a.py").returncode != 0
    assert in_terminal(project, "gate", "approve", "login", "auth_permission_change")[0] == 0
    assert project.commit().returncode == 0
    db = project.path / ".handrail" / "runtime" / "events.sqlite"
    kinds = [r[0] for r in sqlite3.connect(db).execute("SELECT event_type FROM agent_events ORDER BY id")]
    assert kinds == ["commit_refused", "gate_approved"]


def test_gate_list_text(project: Project, handrail) -> None:  # type: ignore[no-untyped-def]
    project.task("login", contract=GATED)
    r = handrail("gate", "list", "--task", "login", cwd=project.path)
    assert r.returncode == 0
    assert "auth_permission_change" in r.stdout and "pending" in r.stdout


MALFORMED = {
    "decision is a list": ('{"decision": ["approved"], "by": "ana"}',
                           "decision: expected one of approved, rejected, pending, found a list"),
    "no decision": ('{"by": "ana", "at": "2026-01-01T00:00:00Z"}',
                    "decision: expected one of approved, rejected, pending, found nothing"),
    "unknown decision": ('{"decision": "maybe"}',
                         "decision: expected one of approved, rejected, pending, found 'maybe'"),
    "by is a number": ('{"decision": "approved", "by": 7}', "by: expected text, found a number"),
    "history is an object": ('{"decision": "rejected", "reason": "no", "history": {}}',
                             "history: expected a list of decisions, found an object"),
    "not JSON": ('{"decision": ', "invalid JSON at line 1"),
    "not an object": ('["approved"]', "expected a JSON object at the top level, found list"),
}


@pytest.mark.parametrize("shape", MALFORMED)
def test_a_malformed_gate_file_is_named_and_every_other_gate_listed(project: Project, handrail,  # type: ignore[no-untyped-def]
                                                                   shape: str) -> None:
    content, words = MALFORMED[shape]
    project.task("login", contract=GATED)
    project.task("billing")
    path = gate_file(project, "login", "auth_permission_change")
    path.parent.mkdir(parents=True)
    path.write_text(content)
    shown = ".handrail/tasks/login/gates/auth_permission_change.json"

    r = handrail("gate", "list", cwd=project.path)
    assert r.returncode == 2
    (line,) = r.stderr.splitlines()
    assert line.startswith("handrail: error: ") and shown in line and words in line, line
    header, *rows = r.stdout.splitlines()
    assert header.split()[:3] == ["TASK", "GATE", "STATUS"]
    assert [row.split()[:3] for row in rows] == [["billing", "publish", "pending"], ["login", "publish", "pending"]]

    r = handrail("gate", "list", "--json", cwd=project.path)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1
    answer = json.loads(r.stdout.splitlines()[-1])
    assert [(g["task"], g["theme"]) for g in answer["gates"]] == [("billing", "publish"), ("login", "publish")]
    (error,) = answer["errors"]
    assert shown in error and words in error

    # A person deciding that gate is told the same, and the file stays as it was.
    code, out = in_terminal(project, "gate", "approve", "login", "auth_permission_change")
    assert code == 2 and shown in out and words in out and "Traceback" not in out
    assert path.read_text() == content
    r = handrail("doctor", "--json", cwd=project.path)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    report = json.loads(r.stdout.splitlines()[-1])
    assert any(f["check"] == "policy" and shown in f["finding"] and words in f["finding"]
               for f in report["findings"]), report["findings"]
    assert report["checks"]["advice"] != "error"
