"""`handrail notify`: marks, exit codes, case-insensitive levels, and usage errors
that record nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_handrail


def _recorded(project: Path) -> list[dict]:
    r = run_handrail("events", "--json", cwd=project)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in r.stdout.splitlines()]


@pytest.mark.parametrize(("level", "line", "code", "event_type"), [
    ("info", "ℹ [build] all green", 0, "notify_info"),
    ("WARN", "⚠ [build] all green", 0, "notify_warn"),
    ("Block", "⛔ [build] all green", 2, "notify_block"),
])
def test_levels_print_exit_and_record(repo: Path, level: str, line: str, code: int, event_type: str) -> None:
    r = run_handrail("notify", "--level", level, "--topic", "build", "--message", "all green", "--agent", "codex",
                     cwd=repo)
    assert (r.returncode, r.stdout) == (code, line + "\n")
    (event,) = _recorded(repo)
    assert (event["event_type"], event["topic"], event["message"], event["agent"]) == \
        (event_type, "build", "all green", "codex")


def test_json_prints_the_recorded_event(repo: Path) -> None:
    r = run_handrail("notify", "--level", "warn", "--topic", "ci", "--message", "flaky", "--json", cwd=repo)
    assert r.returncode == 0
    printed = json.loads(r.stdout.splitlines()[-1])
    assert printed == _recorded(repo)[0]
    assert printed["event_type"] == "notify_warn" and printed["id"] == 1


@pytest.mark.parametrize("args", [
    ["--level", "inf", "--topic", "t", "--message", "m"],  # a typo never passes as info
    ["--level", "", "--topic", "t", "--message", "m"],
    ["--level", "info", "--topic", "t", "--message", ""],
    ["--level", "info", "--topic", "t", "--message", "   "],
    ["--level", "info", "--topic", "", "--message", "m"],
    ["--level", "info", "--topic", "t"],  # click's own usage errors exit 1 here too
    ["--topic", "t", "--message", "m"],
    ["--level", "info", "--topic", "t", "--message", "m", "--bogus"],
])
def test_usage_errors_exit_1_and_record_nothing(repo: Path, args: list[str]) -> None:
    r = run_handrail("notify", *args, cwd=repo)
    assert r.returncode == 1, r.stderr
    assert r.stdout == ""
    assert r.stderr.strip()
    assert _recorded(repo) == []


@pytest.mark.parametrize(("level", "code"), [("info", 0), ("block", 2)])
def test_a_broken_log_changes_nothing_but_a_line_on_stderr(repo: Path, level: str, code: int) -> None:
    (repo / ".handrail" / "runtime" / "events.sqlite").mkdir(parents=True)
    r = run_handrail("notify", "--level", level, "--topic", "t", "--message", "still shown", "--json", cwd=repo)
    assert r.returncode == code
    event = json.loads(r.stdout.splitlines()[-1])
    assert event["id"] is None and event["message"] == "still shown"
    assert len(r.stderr.splitlines()) == 1 and "could not record" in r.stderr
