"""The event log: many writers at once, filters, table and JSON output, follow mode,
and best-effort recording that never changes an answer."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import HANDRAIL, run_handrail

WRITER = """
import os, sys, time
from handrail.records.events import record
project, n, who, go = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
while not os.path.exists(go):
    time.sleep(0.001)
failed = 0
for i in range(n):
    if record(project, "load_test", agent=who, topic="load", message=str(i), payload={"i": i}) is None:
        failed += 1
sys.exit(1 if failed else 0)
"""


def _events(project: Path, *args: str, env: dict[str, str] | None = None) -> list[dict]:
    r = run_handrail("events", "--json", *args, cwd=project, env=env)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in r.stdout.splitlines()]


def test_eight_writers_at_once_lose_nothing(repo: Path) -> None:
    go = repo / "go"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(repo), "200", f"w{k}", str(go)],
                              stderr=subprocess.PIPE, text=True) for k in range(8)]
    go.touch()  # all eight start writing at the same moment
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    found = _events(repo, "--type", "load_test")
    assert len(found) == 1600
    assert len({e["id"] for e in found}) == 1600
    for k in range(8):
        mine = [e["payload"]["i"] for e in found if e["agent"] == f"w{k}"]
        assert sorted(mine) == list(range(200))


def _record_some(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Five events at known times: 3 hours ago, then within the last 2 hours."""
    from handrail.records.events import record

    for when, kind, agent, task, msg in (
        ("2026-03-01T09:00:00Z", "notify_info", "claude", "t1", "old notice"),
        ("2026-03-01T10:30:00Z", "notify_warn", "codex", "t1", "tests are slow"),
        ("2026-03-01T11:00:00Z", "edit_refused", "claude", "t2", "denied: .env is forbidden"),
        ("2026-03-01T11:30:00Z", "notify_block", "claude", None, "stop"),
        ("2026-03-01T11:45:00Z", "task_phase_changed", None, "t2", "task 't2' plan -> implement"),
    ):
        monkeypatch.setenv("HANDRAIL_NOW", when)
        assert record(str(project), kind, agent=agent, task=task, topic="test", message=msg) is not None
    monkeypatch.setenv("HANDRAIL_NOW", "2026-03-01T12:00:00Z")


def test_filters_since_type_agent_task_limit(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _record_some(repo, monkeypatch)
    msgs = lambda *a: [e["message"] for e in _events(repo, *a)]  # noqa: E731
    assert msgs("--since", "2h") == ["tests are slow", "denied: .env is forbidden", "stop",
                                     "task 't2' plan -> implement"]
    assert msgs("--since", "45m") == ["stop", "task 't2' plan -> implement"]
    assert msgs("--since", "2026-03-01T11:00:00Z") == ["denied: .env is forbidden", "stop",
                                                       "task 't2' plan -> implement"]
    assert msgs("--since", "2026-03-01T12:00:00+01:00") == ["denied: .env is forbidden", "stop",
                                                            "task 't2' plan -> implement"]
    assert msgs("--type", "notify_warn") == ["tests are slow"]
    assert msgs("--type", "notify_*") == ["old notice", "tests are slow", "stop"]
    assert msgs("--type", "edit_refused", "--type", "notify_block") == ["denied: .env is forbidden", "stop"]
    assert msgs("--agent", "claude") == ["old notice", "denied: .env is forbidden", "stop"]
    assert msgs("--task", "t2") == ["denied: .env is forbidden", "task 't2' plan -> implement"]
    assert msgs("--agent", "claude", "--task", "t2") == ["denied: .env is forbidden"]
    # --limit: the newest N, still printed newest last
    assert msgs("--limit", "2") == ["stop", "task 't2' plan -> implement"]
    assert msgs("--agent", "nobody") == []


def test_json_lines_have_stable_keys(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _record_some(repo, monkeypatch)
    found = _events(repo)
    assert len(found) == 5
    for e in found:
        assert list(e) == ["id", "created_at", "event_type", "agent", "task", "topic", "message", "payload"]
    assert found[0]["created_at"] == "2026-03-01T09:00:00Z"
    assert [e["id"] for e in found] == sorted(e["id"] for e in found)


def test_table_is_aligned_and_respects_the_width(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _record_some(repo, monkeypatch)
    from handrail.records.events import record

    record(str(repo), "notify_info", agent="claude", topic="long", message="word " * 60)
    r = run_handrail("events", cwd=repo, env={"COLUMNS": "100"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["ID", "TIME", "(UTC)", "TYPE", "AGENT", "TASK", "TOPIC", "MESSAGE"]
    assert len(lines) == 7
    assert all(len(line) <= 100 for line in lines)
    assert lines[-1].endswith("…")  # the long message is cut, not wrapped
    col = lines[0].index("TYPE")
    assert [line[col:].split()[0] for line in lines[1:]] == [
        "notify_info", "notify_warn", "edit_refused", "notify_block", "task_phase_changed", "notify_info"]
    assert lines[-1].startswith("6 ")  # newest last


def test_no_log_yet_and_bad_since(repo: Path) -> None:
    r = run_handrail("events", cwd=repo)
    assert r.returncode == 0 and r.stdout == ""
    assert "no events recorded yet" in r.stderr
    assert not (repo / ".handrail").exists()  # reading never creates the log
    r = run_handrail("events", "--since", "yesterday", cwd=repo)
    assert r.returncode != 0 and "--since" in r.stderr


def test_follow_streams_new_events_and_stops_cleanly_on_ctrl_c(repo: Path) -> None:
    assert run_handrail("notify", "--level", "info", "--topic", "a", "--message", "before", cwd=repo).returncode == 0
    proc = subprocess.Popen([HANDRAIL, "events", "--follow", "--json"], cwd=repo, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None

        def next_event() -> dict:
            ready, _, _ = select.select([proc.stdout], [], [], 30)
            assert ready, "no event arrived"
            return json.loads(proc.stdout.readline())  # type: ignore[union-attr]

        assert next_event()["message"] == "before"  # the backlog first
        run_handrail("notify", "--level", "warn", "--topic", "a", "--message", "after", cwd=repo)
        assert next_event()["message"] == "after"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    assert "Traceback" not in err


@pytest.mark.parametrize("breakage", ["directory", "garbage"])
def test_broken_log_never_changes_can_edit(project: Path, breakage: str) -> None:
    expected = run_handrail("can-edit", "--file", ".env", "--json", cwd=project)
    assert expected.returncode == 1
    db = project / ".handrail" / "runtime" / "events.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    if breakage == "directory":
        db.mkdir()
    else:
        db.write_bytes(b"this is not a database, it is text " * 100)
    r = run_handrail("can-edit", "--file", ".env", "--json", cwd=project)
    assert (r.returncode, r.stdout) == (expected.returncode, expected.stdout)
    assert len(r.stderr.splitlines()) == 1
    assert "could not record edit_refused" in r.stderr and "events.sqlite" in r.stderr
    allowed = run_handrail("can-edit", "--file", "src/app.py", cwd=project)
    assert allowed.returncode == 0 and allowed.stderr == ""


def test_can_edit_refusals_are_recorded_and_allowed_answers_are_not(project: Path) -> None:
    assert run_handrail("can-edit", "--file", "src/app.py", cwd=project).returncode == 0
    assert run_handrail("can-edit", "--file", ".env", "--agent", "claude", cwd=project).returncode == 1
    refused = _events(project, "--type", "edit_refused")
    assert len(refused) == 1
    assert refused[0]["agent"] == "claude" and refused[0]["task"] == "t1"
    assert refused[0]["topic"] == "forbidden_file" and refused[0]["payload"]["file"] == ".env"


def test_task_phase_changes_are_recorded(project: Path) -> None:
    run_handrail("task", "phase", "t1", "review", cwd=project)
    run_handrail("task", "phase", "t1", "review", cwd=project)  # no change: nothing recorded
    found = _events(project, "--type", "task_phase_changed")
    # the fixture's move into implement is a person's, made through the task library: not a CLI event
    assert [(e["payload"]["from"], e["payload"]["to"]) for e in found] == [(None, "plan"), ("implement", "review")]
    assert all(e["task"] == "t1" for e in found)


def test_recording_into_a_missing_project_creates_nothing(tmp_path: Path) -> None:
    from handrail.records.events import record

    assert record(str(tmp_path / "nowhere"), "x") is None
    assert not (tmp_path / "nowhere").exists()


def test_environment_names_the_agent(repo: Path) -> None:
    run_handrail("notify", "--level", "info", "--topic", "t", "--message", "m", cwd=repo,
                 env={"HANDRAIL_AGENT": "gemini", "HANDRAIL_TASK": "t9"})
    (event,) = _events(repo)
    assert (event["agent"], event["task"]) == ("gemini", "t9")
    assert os.environ.get("HANDRAIL_AGENT") is None
