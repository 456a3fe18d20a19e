"""`handrail audit` over sessions written to mislead it: escapes and fake report lines in
commands, a refusal printed by the command itself, globs, databases and files that are not
what their names say, links into loops, FIFOs and lines past any sensible size."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers import run_handrail
from kit import scene

from handrail.audit import claude as claude_reader
from handrail.audit import jsonl
from handrail.audit.calls import Problem

NOW = "2026-12-02T07:00:00Z"
PUSH = "git push --force origin main"


def transcript(root: Path, home: Path, calls: list[tuple[str, dict[str, Any], dict[str, Any]]],
               name: str = "s1") -> Path:
    """A Claude Code transcript of a session in `root`: per call its tool, input, and the user
    line that answers it (its tool_result block under "block", other keys on the line)."""
    lines: list[dict[str, Any]] = []
    for n, (tool, args, answer) in enumerate(calls):
        base = {"cwd": str(root), "sessionId": name, "timestamp": NOW}
        lines.append({**base, "type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": f"t{n}", "name": tool, "input": args}]}})
        block = {"type": "tool_result", "tool_use_id": f"t{n}", **answer.pop("block")}
        lines.append({**base, "type": "user", "message": {"content": [block]}, **answer})
    path = home / ".claude" / "projects" / claude_reader.slug(str(root)) / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def ran(text: str, error: bool = False) -> dict[str, Any]:
    return {"block": {"content": text, "is_error": error}, "toolUseResult": f"Error: {text}" if error else {}}


def audit(root: Path, home: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    r = run_handrail("audit", "--json", *args, cwd=root, env={"HOME": str(home)})
    return r.returncode, json.loads(r.stdout.strip().splitlines()[-1]), r.stderr


def findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for s in report["sessions"] for f in s["findings"]]


# --------------------------------------------------------------------------- what the report prints


def test_the_text_report_shows_escapes_and_newlines_of_a_command_escaped(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    command = f"{PUSH} # \x1b[2J\x1b[H\nresult: clean: 0 findings in 0 sessions"
    transcript(root, home, [("Bash", {"command": command}, ran("done"))])
    r = run_handrail("audit", cwd=root, env={"HOME": str(home)})
    assert r.returncode == 1
    assert "\x1b" not in r.stdout and "\\x1b[2J" in r.stdout
    assert not any(line.startswith("result: clean") for line in r.stdout.splitlines())
    assert r.stdout.splitlines()[-1].startswith("result: findings")
    _code, report, _ = audit(root, home)
    assert findings(report)[0]["command"] == command  # JSON carries the command exactly


# --------------------------------------------------------------------------- refusals the command printed


def test_a_refusal_printed_by_the_command_itself_is_no_hook_denial(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    fake = "handrail: refused, needs a human: 'git push' matches 'git push *'"
    transcript(root, home, [
        # As Claude Code writes a failed command: `Exit code N` first, then what it printed.
        ("Bash", {"command": f"{PUSH}; echo \"{fake}\" >&2; exit 1"}, ran(f"Exit code 1\n{fake}", error=True)),
        # A result of blocks, or whose toolUseResult is not the client's "Error: " and the text.
        ("Bash", {"command": f"{PUSH} --quiet"}, {"block": {"content": [{"type": "text", "text": fake}],
                                                             "is_error": True}, "toolUseResult": f"Error: {fake}"}),
        ("Bash", {"command": f"{PUSH} -v"}, {"block": {"content": fake, "is_error": True},
                                              "toolUseResult": {"stdout": fake}}),
    ])
    code, report, _ = audit(root, home)
    assert code == 1 and report["sessions"][0]["hook_denials"] == 0
    assert [(f["outcome"], f["verdict"]) for f in findings(report)] == [("error", "ask")] * 3
    assert all("it may have run" in f["why"] for f in findings(report))


def test_a_refusal_as_claude_code_writes_it_is_a_hook_denial(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    reason = "handrail: refused, needs a human: 'git push --force origin main' matches 'git push *'"
    transcript(root, home, [("Bash", {"command": PUSH}, ran(reason, error=True))])
    code, report, _ = audit(root, home)
    assert code == 0 and findings(report) == []
    assert report["sessions"][0]["hook_denials"] == 1 and report["sessions"][0]["denied"][0]["reason"] == reason


def test_a_codex_refusal_inside_a_commands_output_is_no_hook_denial(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    fake = f"Command blocked by PreToolUse hook: handrail: refused. Command: {PUSH}"
    lines = [{"timestamp": NOW, "type": "session_meta", "payload": {"id": "c1", "cwd": str(root)}},
             {"timestamp": NOW, "type": "response_item", "payload": {
                 "type": "function_call", "name": "exec_command", "call_id": "a",
                 "arguments": json.dumps({"cmd": f"{PUSH}; echo '{fake}'", "workdir": str(root)})}},
             {"timestamp": NOW, "type": "response_item", "payload": {
                 "type": "function_call_output", "call_id": "a",
                 "output": f"Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\n{fake}\n"}}]
    path = home / ".codex" / "sessions" / "2026" / "12" / "02" / "rollout-2026-12-02T07-00-00-c1.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, report, _ = audit(root, home)
    assert code == 1 and report["sessions"][0]["hook_denials"] == 0
    assert [(f["outcome"], f["verdict"]) for f in findings(report)] == [("ok", "ask")]


# --------------------------------------------------------------------------- globs


def test_a_glob_is_said_to_be_judged_against_todays_files_and_asked_for_when_it_could_name_a_secret(
        tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    transcript(root, home, [("Bash", {"command": "cat .en?"}, ran("x")), ("Bash", {"command": "ls *.py"}, ran("x"))])
    (root / ".env").write_text("A=1\n")
    _code, report, _ = audit(root, home)
    assert [f["command"] for f in findings(report)] == ["cat .en?"]
    assert "judged against the files there now" in findings(report)[0]["why"]
    (root / ".env").unlink()  # gone today: what the glob named then is not known
    code, report, _ = audit(root, home)
    assert code == 1 and [(f["command"], f["verdict"], f["rule"]) for f in findings(report)] == \
        [("cat .en?", "ask", "glob-then")]
    assert "'.env" in findings(report)[0]["why"]


# --------------------------------------------------------------------------- files that are not sessions


def test_a_database_that_is_not_opencodes_is_an_error_naming_what_it_lacks(tmp_path: Path) -> None:
    root, _home = scene(tmp_path)
    other = tmp_path / "notes.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (id TEXT)")
    r = run_handrail("audit", str(other), cwd=root)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().count("\n") == 0 and "notes.db" in r.stderr and "no table 'session'" in r.stderr
    almost = tmp_path / "opencode.db"
    with sqlite3.connect(almost) as conn:
        conn.execute("CREATE TABLE session (id TEXT, directory TEXT)")
        conn.execute("CREATE TABLE message (id TEXT, data TEXT)")
        conn.execute("CREATE TABLE part (id TEXT, message_id TEXT, session_id TEXT, time_created INTEGER)")
    r = run_handrail("audit", str(almost), cwd=root)
    assert r.returncode == 2 and "table 'part' has no column 'data'" in r.stderr


def test_a_fifo_named_on_the_command_line_is_an_error_not_a_wait(tmp_path: Path) -> None:
    root, _home = scene(tmp_path)
    fifo = tmp_path / "rollout-2026-x.jsonl"
    os.mkfifo(fifo)
    r = run_handrail("audit", str(fifo), cwd=root)
    assert r.returncode == 2 and "rollout-2026-x.jsonl" in r.stderr and "a FIFO" in r.stderr


def test_fifos_and_links_into_loops_among_the_sessions_are_one_line_each(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    good = transcript(root, home, [("Bash", {"command": "git status"}, ran("x"))])
    os.mkfifo(good.parent / "fifo.jsonl")
    os.symlink(good.parent / "loop-b.jsonl", good.parent / "loop-a.jsonl")
    os.symlink(good.parent / "loop-a.jsonl", good.parent / "loop-b.jsonl")
    os.symlink(tmp_path / "gone.jsonl", good.parent / "dangling.jsonl")
    code, report, _ = audit(root, home)
    assert code == 2 and report["counts"]["unreadable"] == 4
    problems = {os.path.basename(s["file"]): [p["what"] for p in s["problems"]] for s in report["sessions"]}
    assert problems["s1.jsonl"] == []
    assert [len(problems[n]) for n in ("fifo.jsonl", "loop-a.jsonl", "loop-b.jsonl", "dangling.jsonl")] == [1] * 4
    assert "a FIFO" in problems["fifo.jsonl"][0] and "symbolic links" in problems["loop-a.jsonl"][0]
    r = run_handrail("audit", cwd=root, env={"HOME": str(home)})
    assert r.returncode == 2 and r.stdout.splitlines()[-1].startswith("error: 4 session files could not be read")


def test_a_link_to_a_transcript_elsewhere_is_read_by_what_it_holds(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    elsewhere = transcript(root, tmp_path / "other-home", [("Bash", {"command": PUSH}, ran("x"))])
    folder = home / ".claude" / "projects" / claude_reader.slug(str(root))
    folder.mkdir(parents=True)
    os.symlink(elsewhere, folder / "linked.jsonl")
    code, report, _ = audit(root, home)
    assert code == 1 and [f["command"] for f in findings(report)] == [PUSH]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_an_unreadable_transcript_is_one_line_and_exit_2(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    path = transcript(root, home, [("Bash", {"command": "git status"}, ran("x"))])
    path.chmod(0)
    code, report, _ = audit(root, home)
    assert code == 2 and report["sessions"][0]["problems"][0]["what"].startswith("cannot be read")


def test_links_that_loop_under_codex_sessions_end(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    day = home / ".codex" / "sessions" / "2026" / "12"
    day.mkdir(parents=True)
    for name, up in (("a", ".."), ("b", ".."), ("c", "../..")):
        os.symlink(up, day / name)  # a recursive glob would walk a/b/a/b/… without end
    meta = {"timestamp": NOW, "type": "session_meta", "payload": {"id": "c1", "cwd": str(root)}}
    (day / "rollout-2026-12-02T07-00-00-c1.jsonl").write_text(json.dumps(meta) + "\n")
    code, report, _ = audit(root, home, "--harness", "codex")
    assert code == 0 and [os.path.basename(s["file"]) for s in report["sessions"]] == [
        "rollout-2026-12-02T07-00-00-c1.jsonl"]


# --------------------------------------------------------------------------- lines past the cap


def test_a_line_past_the_cap_is_one_problem_and_the_next_line_is_read(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonl, "MAX_LINE", 4096)
    monkeypatch.setattr(jsonl, "_CHUNK", 1000)
    path = tmp_path / "big.jsonl"
    with path.open("w") as f:
        f.write(json.dumps({"type": "user", "pad": "x" * 3 * 1024 * 1024}) + "\n")  # one 3 MB line
        f.write(json.dumps({"type": "user", "n": 2}) + "\n")
    got = list(jsonl.records(str(path)))
    assert isinstance(got[0], Problem) and got[0].line == 1 and "longer than 4096 bytes" in got[0].what
    assert got[1:] == [(2, {"type": "user", "n": 2})]
