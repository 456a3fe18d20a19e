"""How `handrail audit` judges what a session shows: an error it cannot place is no denial (the
call may have run), a search is judged with the tool's own globs, and a write outside the
project is refused with or without a task history, as the live hooks and can-edit refuse it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from clientruns import fixture, gemini_home, laid
from helpers import run_handrail
from kit import scene

from handrail.audit import claude as claude_reader

NOW = "2026-12-02T07:00:00Z"


def audit(root: Path, home: Path, *args: str) -> tuple[int, dict[str, Any]]:
    r = run_handrail("audit", "--json", *args, cwd=root, env={"HOME": str(home)})
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout.strip().splitlines()[-1])


def claude_session(root: Path, home: Path, calls: list[tuple[str, dict[str, Any], dict[str, Any] | None]]) -> Path:
    """A Claude Code transcript in `home` of a session in `root`: per call its tool, input and
    result (None: the session ended before it came), in the lines Claude Code 2.1 writes."""
    lines: list[dict[str, Any]] = []
    for n, (name, args, result) in enumerate(calls):
        base = {"cwd": str(root), "sessionId": "s1", "timestamp": NOW}
        lines.append({**base, "type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": f"t{n}", "name": name, "input": args}]}})
        if result is not None:
            lines.append({**base, "type": "user", "message": {"content": [
                {"type": "tool_result", "tool_use_id": f"t{n}", **result}]}})
    path = home / ".claude" / "projects" / claude_reader.slug(str(root)) / "s1.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for s in report["sessions"] for f in s["findings"]]


# --------------------------------------------------------------------------- errors are no denials

def test_an_error_no_hook_is_known_to_write_is_a_finding_that_may_have_run(tmp_path: Path) -> None:
    root, home = scene(tmp_path)  # no hooks installed: no denial can have come from handrail
    claude_session(root, home, [
        ("Bash", {"command": "git push --force origin main"},
         {"content": "remote: the push hook timed out", "is_error": True}),
        ("Read", {"file_path": str(root / ".env")}, None),  # no result: the session stopped there
        ("Bash", {"command": "git push origin main"},
         {"content": "handrail: refused, needs a human", "is_error": True}),
    ])
    code, report = audit(root, home)
    assert code == 1
    got = [(f["command"] or Path(f["paths"][0]).name, f["outcome"]) for f in findings(report)]
    assert got == [("git push --force origin main", "error"), (".env", "unknown")]
    assert all("may have run" in f["why"] for f in findings(report))
    (session,) = report["sessions"]
    assert session["hook_denials"] == 1  # handrail's own refusal, recognised by its text
    r = run_handrail("audit", cwd=root, env={"HOME": str(home)})
    assert r.returncode == 1 and r.stdout.count("may have run") == 2


# --------------------------------------------------------------------------- search globs

def test_a_claude_grep_of_python_files_reads_no_secret(tmp_path: Path) -> None:
    root, home = scene(tmp_path)  # the project holds .env
    ok = {"content": "No matches found", "is_error": False}
    claude_session(root, home, [
        ("Grep", {"pattern": "password", "path": str(root), "glob": "*.py"}, ok),
        ("Grep", {"pattern": "password", "path": str(root), "glob": "*.{py,md}"}, ok),
        ("Grep", {"pattern": "password", "path": str(root)}, ok),
        ("Grep", {"pattern": "password", "path": str(root), "glob": "*.env"}, ok),
    ])
    _code, report = audit(root, home)
    assert [(f["kind"], f["globs"], f["rule"]) for f in findings(report)] == \
        [("search", [], "secrets"), ("search", ["*.env"], "secrets")]
    assert ".env" in findings(report)[0]["why"]


def test_a_gemini_grep_search_with_an_include_pattern_is_judged_with_it(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    laid("gemini", "plain", root, home)
    _code, report = audit(root, home)
    assert "search" in [f["kind"] for f in findings(report)]  # grep_search {pattern} over the project, .env in it
    records = [json.loads(x) for x in fixture("gemini", "plain").read_text().splitlines()]
    for r in records:
        for call in r.get("toolCalls", []):
            if call["name"] == "grep_search":
                call["args"]["include_pattern"] = "*.py"
    gemini_home("".join(json.dumps(r) + "\n" for r in records), root, home)
    _code, report = audit(root, home)
    assert "search" not in [f["kind"] for f in findings(report)]


def test_an_opencode_grep_with_an_include_is_judged_with_it(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    laid("opencode", "plain", root, home)
    _code, report = audit(root, home)
    assert "search" in [f["kind"] for f in findings(report)]
    con = sqlite3.connect(home / ".local" / "share" / "opencode" / "opencode.db")
    with con:
        con.execute("""UPDATE part SET data = json_set(data, '$.state.input.include', '*.py')
                       WHERE json_extract(data, '$.tool') = 'grep'""")
    con.close()
    _code, report = audit(root, home)
    assert "search" not in [f["kind"] for f in findings(report)]


# --------------------------------------------------------------------------- outside the project

@pytest.mark.parametrize("history", ["covers", "none"])
def test_a_write_outside_the_project_is_refused_as_can_edit_refuses_it(tmp_path: Path, history: str) -> None:
    root, home = scene(tmp_path)
    outside = tmp_path / "elsewhere" / "notes.md"
    live = run_handrail("can-edit", "--file", str(outside), "--json", cwd=root)
    assert live.returncode == 1
    said = json.loads(live.stdout.strip().splitlines()[-1])
    if history == "none":  # the task began after the session: no task history covers the write
        task = root / ".handrail" / "tasks" / "login" / "task.json"
        data = json.loads(task.read_text())
        for entry in data["history"]:
            entry["at"] = "2030-01-01T00:00:00Z"
        task.write_text(json.dumps(data))
    claude_session(root, home, [("Write", {"file_path": str(outside), "content": "x\n"},
                                 {"content": f"File created successfully at: {outside}", "is_error": False})])
    code, report = audit(root, home)
    assert code == 1
    (finding,) = findings(report)
    assert (finding["kind"], finding["verdict"], finding["rule"]) == ("write", "refuse", said["reason"])
    assert said["reason"] == "out_of_scope" and "outside the project" in finding["why"]
