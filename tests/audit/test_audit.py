"""`handrail audit` end to end: sessions the real clients wrote (committed), in a home where
each harness keeps them, replayed through the project's policy as a person runs the command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_handrail
from kit import install, scene

from handrail.audit import claude as claude_reader


def audit(root: Path, home: Path, *args: str) -> tuple[int, dict, str]:
    r = run_handrail("audit", "--json", *args, cwd=root, env={"HOME": str(home)})
    assert r.returncode in (0, 1) or '"unreadable": 0' not in r.stdout, r.stderr  # 2 only for what it could not read
    return r.returncode, json.loads(r.stdout.strip().splitlines()[-1]), r.stderr


def found(report: dict) -> list[tuple[str, str, str | None, str, str]]:
    return [(s["harness"], f["kind"], f["command"] or os.path.basename(f["paths"][0]), f["verdict"], f["rule"])
            for s in report["sessions"] for f in s["findings"]]


def test_an_unguarded_session_shows_the_force_push_the_secret_read_and_the_write_outside_scope(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    install("claude", "unguarded", root, home)
    install("codex", "unguarded", root, home)
    code, report, _ = audit(root, home)
    assert code == 1 and report["result"] == "findings"
    assert found(report) == [
        ("claude", "shell", "git push --force origin main", "ask", "git push *"),
        ("claude", "read", ".env", "refuse", ".env*"),
        ("claude", "write", "notes.md", "refuse", "src/**, tests/**"),
        ("codex", "shell", "git push --force origin main", "ask", "git push *"),
        ("codex", "shell", "cat .env", "ask", "secret-read"),
        ("codex", "edit", "notes.md", "refuse", "src/**, tests/**"),
    ]
    first = report["sessions"][0]
    assert set(first) >= {"harness", "session", "file", "started", "ended", "calls", "findings", "hook_denials",
                          "malformed", "unknown_records", "summary"}
    assert first["calls"] == 8 and first["hook_denials"] == 0 and first["started"] <= first["ended"]
    assert all(f["outcome"] == "ok" and isinstance(f["line"], int) and f["time"] for f in first["findings"])
    assert report["counts"]["findings"] == 6 and report["version"] == 1


def test_a_guarded_session_shows_the_hook_denials_and_nothing_that_ran(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    install("claude", "guarded", root, home)
    install("codex", "guarded", root, home)
    code, report, _ = audit(root, home)
    assert code == 0 and report["result"] == "clean" and found(report) == []
    assert [s["hook_denials"] for s in report["sessions"]] == [3, 3]
    assert [d["kind"] for d in report["sessions"][0]["denied"]] == ["shell", "read", "write"]
    assert "refused by a hook" in report["sessions"][0]["summary"]


def test_a_harmless_session_is_nothing(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    install("claude", "harmless", root, home)
    install("codex", "harmless", root, home)
    code, report, _ = audit(root, home)
    assert code == 0 and report["result"] == "clean"
    assert [(s["calls"], s["findings"], s["hook_denials"], s["malformed"]) for s in report["sessions"]] == \
        [(2, [], 0, 0), (2, [], 0, 0)]
    r = run_handrail("audit", cwd=root, env={"HOME": str(home)})
    assert r.returncode == 0 and "nothing the policy refuses" in r.stdout and r.stderr == ""


def test_before_any_task_began_every_edit_is_refused_as_can_edit_refuses_it(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    task = root / ".handrail" / "tasks" / "login" / "task.json"
    data = json.loads(task.read_text())
    for entry in data["history"]:
        entry["at"] = "2030-01-01T00:00:00Z"  # the task began after the session
    task.write_text(json.dumps(data))
    install("claude", "unguarded", root, home)
    _code, report, _ = audit(root, home)
    # No task was in an edit phase: the write outside allowed_files and the edit inside them are
    # both refused (`no_edit_tasks`); the secret read and the push are, whatever the task.
    assert [(f[2], f[4]) for f in found(report)][2:] == [("notes.md", "no_edit_tasks"), ("app.py", "no_edit_tasks")]
    assert [f[2] for f in found(report)][:2] == ["git push --force origin main", ".env"]


def test_since_leaves_older_sessions_out(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    install("claude", "unguarded", root, home)
    code, report, _ = audit(root, home, "--since", "2030-01-01")
    assert code == 0 and report["sessions"] == [] and report["since"] == "2030-01-01T00:00:00Z"
    code, report, _ = audit(root, home, "--since", "2026-01-01T00:00:00Z")
    assert code == 1 and len(report["sessions"]) == 1
    r = run_handrail("audit", "--since", "last tuesday", cwd=root, env={"HOME": str(home)})
    assert r.returncode == 2 and "--since" in r.stderr


def test_harness_narrows_the_search(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    install("claude", "unguarded", root, home)
    install("codex", "unguarded", root, home)
    _code, report, _ = audit(root, home, "--harness", "codex")
    assert {s["harness"] for s in report["sessions"]} == {"codex"}


def test_named_files_are_read_as_their_harness_wrote_them(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    path = install("codex", "unguarded", root, home)
    copy = tmp_path / "session.jsonl"
    copy.write_text(path.read_text())
    code, report, _ = audit(root, tmp_path / "nobody", str(copy))
    assert code == 1 and report["sessions"][0]["harness"] == "codex" and report["sessions"][0]["file"] == str(copy)
    (tmp_path / "notes.jsonl").write_text('{"a": 1}\n')
    r = run_handrail("audit", str(tmp_path / "notes.jsonl"), cwd=root)
    assert r.returncode == 2 and "notes.jsonl" in r.stderr and "--harness" in r.stderr
    r = run_handrail("audit", str(tmp_path / "absent.jsonl"), cwd=root)
    assert r.returncode == 2 and "absent.jsonl" in r.stderr


def test_a_malformed_line_is_reported_with_its_file_and_line_and_skipped(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    path = install("claude", "unguarded", root, home)
    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines[:2], "{not json", '{"type": "future-record"}', *lines[2:]]) + "\n")
    code, report, _ = audit(root, home)
    s = report["sessions"][0]
    # The line is not known to hold nothing: the session is not read in full, exit 2.
    assert code == 2 and s["malformed"] == 1 and s["problems"][0]["line"] == 3 and s["unread"]
    assert s["unknown_records"] == {"future-record": 1} and len(s["findings"]) == 3
    r = run_handrail("audit", cwd=root, env={"HOME": str(home)})
    assert f"{path}:3: malformed, skipped" in r.stdout and "unknown type 'future-record'" in r.stdout


def test_the_last_report_is_kept_for_the_dashboard(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    install("claude", "unguarded", root, home)
    _code, report, _ = audit(root, home)
    assert json.loads((root / ".handrail" / "runtime" / "audit.json").read_text()) == report


def test_a_project_handrail_does_not_guard_gets_no_file_and_outside_git_is_refused(tmp_path: Path) -> None:
    import shutil

    root, home = scene(tmp_path)
    shutil.rmtree(root / ".handrail")
    install("claude", "unguarded", root, home)
    code, report, _ = audit(root, home)
    assert code == 1 and not (root / ".handrail").exists()  # the built-in policy judged it; nothing written
    # No task, so no edit is allowed: can-edit answers `no_edit_tasks` there too.
    assert [f[2] for f in found(report)] == ["git push --force origin main", ".env", "notes.md", "app.py"]
    assert {f[4] for f in found(report)[2:]} == {"no_edit_tasks"}
    bare = tmp_path / "bare"
    bare.mkdir()
    r = run_handrail("audit", cwd=bare, env={"HOME": str(home)})
    assert r.returncode == 2 and "not inside a git repository" in r.stderr


# --------------------------------------------------------------------------- large sessions

MEASURE = """
import sys, tracemalloc
from handrail.audit import READERS
from handrail.audit.replay import Policy
from handrail.audit.report import session
tracemalloc.start()
entry = session("claude", sys.argv[1], READERS["claude"][1], Policy(sys.argv[2], sys.argv[3]), None)
print(entry["calls"], len(entry["findings"]), tracemalloc.get_traced_memory()[1])
"""


def big_transcript(path: Path, root: Path, megabytes: int) -> int:
    """A Claude transcript of `megabytes` MB: calls whose results are 1 MB each, and one secret read."""
    pairs = 0
    with path.open("w") as f:
        blob = "x" * (1024 * 1024)
        for n in range(megabytes):
            name, args = ("Read", {"file_path": str(root / ".env")}) if n == 1 else ("Bash", {"command": "ls"})
            use = {"type": "assistant", "cwd": str(root), "sessionId": "big", "timestamp": "2026-12-02T07:00:00Z",
                   "message": {"content": [{"type": "tool_use", "id": f"t{n}", "name": name, "input": args}]}}
            result = {"type": "user", "cwd": str(root), "sessionId": "big", "timestamp": "2026-12-02T07:00:01Z",
                      "message": {"content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": blob}]}}
            f.write(json.dumps(use) + "\n" + json.dumps(result) + "\n")
            pairs += 1
    return pairs


@pytest.mark.slow
def test_a_100_mb_transcript_is_read_in_bounded_memory(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    path = tmp_path / "big.jsonl"
    pairs = big_transcript(path, root, 100)
    assert path.stat().st_size > 100 * 1024 * 1024
    r = subprocess.run([sys.executable, "-c", MEASURE, str(path), str(root), str(home)],
                       capture_output=True, text=True, check=True)
    calls, findings, peak = (int(x) for x in r.stdout.split())
    assert (calls, findings) == (pairs, 1)
    assert peak < 24 * 1024 * 1024, f"peak {peak} bytes for a {path.stat().st_size} byte transcript"


def test_progress_goes_to_a_terminal_only(tmp_path: Path) -> None:
    import pty

    from helpers import HANDRAIL, read_terminal

    root, _home = scene(tmp_path)
    path = tmp_path / "mid.jsonl"
    big_transcript(path, root, 3)
    piped = run_handrail("audit", str(path), cwd=root)
    assert piped.returncode == 1 and "line" not in piped.stderr
    master, slave = pty.openpty()
    assert HANDRAIL
    proc = subprocess.Popen([HANDRAIL, "audit", str(path)], cwd=root, stdout=subprocess.DEVNULL, stderr=slave,
                            stdin=subprocess.DEVNULL)
    os.close(slave)
    seen = read_terminal(master).decode()
    os.close(master)
    assert proc.wait() == 1
    assert f"handrail audit: {path.name}: line" in seen


def test_the_claude_slug_is_the_clients(tmp_path: Path) -> None:
    # As Claude Code 2.1.197 names the folders (checked against the real client in test_clients.py).
    assert claude_reader.slug("/home/me/my_app.v2") == "-home-me-my-app-v2"
    long = "/" + "a" * 250
    assert claude_reader.slug(long).startswith("-" + "a" * 199 + "-") and len(claude_reader.slug(long)) > 200


def test_each_run_that_finds_something_is_an_event_beside_the_live_decisions(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    install("claude", "harmless", root, home)
    audit(root, home)  # nothing found: no event

    def recorded() -> list[dict]:
        r = run_handrail("events", "--json", "--type", "audit_findings", cwd=root)
        assert r.returncode == 0, r.stderr
        return [json.loads(x) for x in r.stdout.splitlines() if x.strip()]

    assert recorded() == []
    path = install("claude", "unguarded", root, home)
    _code, report, _ = audit(root, home)
    audit(root, home)
    events = recorded()
    assert len(events) == 2
    payload = events[0]["payload"]
    assert payload["counts"] == report["counts"] and payload["counts"]["findings"] == 3
    assert [(s["file"], s["findings"]) for s in payload["sessions"]] == [(str(path), 3)]
    assert json.loads((root / payload["report"]).read_text()) == report  # the whole report, for the dashboard
    assert "3 findings" in events[0]["message"] and payload["report"] in events[0]["message"]
    shown = run_handrail("events", cwd=root)
    assert shown.returncode == 0 and "audit_findings" in shown.stdout


def test_the_report_and_its_event_say_whether_a_human_or_which_agent_ran_the_audit(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    session = install("claude", "unguarded", root, home)
    _code, report, _ = audit(root, home)
    assert report["ran_by"] == "human"
    # An agent runs it on the file it names: the report the dashboard shows says whose it is.
    r = run_handrail("audit", "--json", str(session), cwd=root, env={"HOME": str(home), "CLAUDECODE": "1"})
    assert r.returncode == 1, r.stderr
    kept = json.loads((root / ".handrail" / "runtime" / "audit.json").read_text())
    assert kept["ran_by"] == "claude" == json.loads(r.stdout.splitlines()[-1])["ran_by"]
    shown = run_handrail("events", "--json", "--type", "audit_findings", cwd=root)
    events = [json.loads(x) for x in shown.stdout.splitlines() if x.strip()]
    assert [e["payload"]["ran_by"] for e in events] == ["human", "claude"]
    assert "run by claude" in events[-1]["message"]
