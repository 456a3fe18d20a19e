"""`handrail audit` sees every call and every session that touched the project: Codex's
`shell_command`, `write_stdin` and file tools, tools no reader knows (counted), sessions in a
linked worktree or started in a folder above the project, edits while no task was in an edit
phase or at a time that cannot be read, and lines it could not read (not clean: exit 2)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from helpers import git, run_handrail
from kit import scene

from handrail.audit import claude as claude_reader
from handrail.policy.protocol import load as load_protocol
from handrail.policy.shell import engine as commands
from handrail.records import task_states

NOW = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
PUSH = "git push --force origin main"


def claude(home: Path, cwd: Path, calls: list[tuple[str, Any]], *, name: str = "s1",
           time: object = NOW) -> Path:
    """A Claude Code transcript of a session in `cwd`, each call answered as having run, kept
    where Claude Code keeps it (the folder named by `cwd`'s slug). `time` None: no timestamp."""
    lines: list[dict[str, Any]] = []
    for n, (tool, args) in enumerate(calls):
        base: dict[str, Any] = {"cwd": str(cwd), "sessionId": name, **({"timestamp": time} if time is not None else {})}
        lines.append({**base, "type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": f"t{n}", "name": tool, "input": args}]}})
        lines.append({**base, "type": "user", "toolUseResult": {}, "message": {"content": [
            {"type": "tool_result", "tool_use_id": f"t{n}", "content": "ok", "is_error": False}]}})
    path = home / ".claude" / "projects" / claude_reader.slug(str(cwd)) / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def codex(home: Path, cwd: Path, calls: list[tuple[str, dict[str, Any]]]) -> Path:
    """A Codex rollout of a session in `cwd`: per call a function_call and its output."""
    lines: list[dict[str, Any]] = [{"timestamp": NOW, "type": "session_meta", "payload": {"id": "c1", "cwd": str(cwd)}}]
    for n, (tool, args) in enumerate(calls):
        lines.append({"timestamp": NOW, "type": "response_item", "payload": {
            "type": "function_call", "name": tool, "arguments": json.dumps(args), "call_id": f"c{n}"}})
        lines.append({"timestamp": NOW, "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": f"c{n}", "output": "Exit code: 0\nOutput:\nok"}})
    path = home / ".codex" / "sessions" / "2026" / "12" / "02" / "rollout-2026-12-02T07-00-00-c1.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def audit(cwd: Path, home: Path, *args: str) -> tuple[int, dict[str, Any]]:
    r = run_handrail("audit", "--json", *args, cwd=cwd, env={"HOME": str(home)})
    return r.returncode, json.loads(r.stdout.strip().splitlines()[-1])


def findings(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["rule"], f["command"] or ",".join(f["paths"])) for s in report["sessions"] for f in s["findings"]]


# --------------------------------------------------------------------------- Codex's tools


def test_a_codex_shell_command_force_push_is_a_finding(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    codex(home, root, [("shell_command", {"command": PUSH, "workdir": str(root)})])
    code, report = audit(root, home, "--harness", "codex")
    assert code == 1 and report["counts"]["calls"] == 1
    assert [f["command"] for f in report["sessions"][0]["findings"]] == [PUSH]


def test_what_codex_types_into_a_running_shell_is_judged_and_a_poll_is_no_call(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    codex(home, root, [("exec_command", {"cmd": "ls", "workdir": str(root)}),
                       ("write_stdin", {"session_id": 1, "chars": ""}),
                       ("write_stdin", {"session_id": 1, "chars": PUSH + "\n"})])
    code, report = audit(root, home, "--harness", "codex")
    assert code == 1 and report["counts"]["calls"] == 2
    assert [f["command"] for f in report["sessions"][0]["findings"]] == [PUSH + "\n"]


def test_codex_file_tools_reading_a_secret_are_findings(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    codex(home, root, [("view_image", {"path": str(root / ".env")}),
                       ("read_file", {"file_path": ".env"}),
                       ("grep_files", {"pattern": "PASSWORD", "include": "*.py"})])
    code, report = audit(root, home, "--harness", "codex")
    assert code == 1 and [f["kind"] for f in report["sessions"][0]["findings"]] == ["read", "read"]


def test_a_codex_tool_no_reader_knows_is_counted_not_dropped(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    codex(home, root, [("fs__write_file", {"path": ".handrail/autonomy-protocol.json", "content": "{}"}),
                       ("update_plan", {"plan": []})])
    code, report = audit(root, home, "--harness", "codex")
    s = report["sessions"][0]
    assert code == 0 and s["unknown_records"] == {"function_call:fs__write_file": 1}
    assert "1 records of unknown types" in s["summary"]


# --------------------------------------------------------------------------- where sessions ran


def test_a_session_in_a_linked_worktree_is_the_projects_from_either_tree(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    tree = tmp_path / "project-wt"
    git(root, "worktree", "add", "-q", "-b", "wtb", str(tree))
    path = claude(home, tree, [("Bash", {"command": PUSH}),
                        ("Write", {"file_path": str(tree / "src" / "auth" / "a.py"), "content": "x"}),
                        ("Write", {"file_path": str(tree / "docs" / "x.md"), "content": "x"})])
    for where in (root, tree):
        code, report = audit(where, home, "--harness", "claude")
        assert code == 1 and [f["file"] for f in report["sessions"]] == [str(path)]
        assert findings(report) == [("git push *", PUSH), ("src/**, tests/**", str(tree / "docs" / "x.md"))]


def test_a_session_started_above_the_project_is_judged_by_what_it_did_inside(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    other = tmp_path / "other"
    protocol = str(root / ".handrail" / "autonomy-protocol.json")
    claude(home, tmp_path, [("Write", {"file_path": protocol, "content": "{}"}),
                            ("Bash", {"command": f"cd {root.name} && {PUSH}"}),
                            ("Bash", {"command": f"cd other && {PUSH}"}),
                            ("Write", {"file_path": str(other / "x.py"), "content": "x"})])
    code, report = audit(root, home, "--harness", "claude")
    s = report["sessions"][0]
    assert code == 1 and s["calls"] == 2 and s["elsewhere"] == 2
    assert [c for _r, c in findings(report)] == [protocol, f"cd {root.name} && {PUSH}"]


def test_a_session_above_the_project_that_never_reached_into_it_is_not_listed(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    claude(home, tmp_path, [("Bash", {"command": f"cd other && {PUSH}"})])
    code, report = audit(root, home, "--harness", "claude")
    assert code == 0 and report["sessions"] == []


# --------------------------------------------------------------------------- the task phase at the time


def test_an_edit_while_the_only_task_is_in_review_is_refused_as_can_edit_would(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    task_states.set_phase(str(root), "login", "review")
    after = (datetime.now(UTC) + timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    claude(home, root, [("Write", {"file_path": str(root / "src" / "auth" / "a.py"), "content": "x"}),
                        ("Bash", {"command": "echo x > src/auth/b.py"})], time=after)
    code, report = audit(root, home, "--harness", "claude")
    assert code == 1 and [r for r, _c in findings(report)] == ["no_edit_tasks", "no_edit_tasks"]
    assert "task 'login' is in phase review" in report["sessions"][0]["findings"][0]["why"]


def test_an_edit_before_any_task_existed_is_refused(tmp_path: Path) -> None:
    root, home = scene(tmp_path)  # task 'login' since 2020
    claude(home, root, [("Write", {"file_path": str(root / "src" / "auth" / "a.py"), "content": "x"})],
           time="2019-06-01T00:00:00Z")
    code, report = audit(root, home, "--harness", "claude")
    assert code == 1 and findings(report) == [("no_edit_tasks", str(root / "src" / "auth" / "a.py"))]
    assert "no task is in an edit phase" in report["sessions"][0]["findings"][0]["why"]


def test_an_edit_at_no_time_or_an_unreadable_one_is_judged_the_strictest_way(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    claude(home, root, [("Write", {"file_path": str(root / "src" / "auth" / "a.py"), "content": "x"})],
           name="none", time=None)
    claude(home, root, [("Write", {"file_path": str(root / "src" / "auth" / "a.py"), "content": "x"})],
           name="bad", time="not a time")
    code, report = audit(root, home, "--harness", "claude")
    assert code == 1 and [r for r, _c in findings(report)] == ["time_unknown", "time_unknown"]
    # In scope now and at a readable time: allowed, as can-edit allows it.
    claude(home, root, [("Write", {"file_path": str(root / "src" / "auth" / "a.py"), "content": "x"})], name="bad")
    claude(home, root, [("Write", {"file_path": str(root / "src" / "auth" / "a.py"), "content": "x"})], name="none")
    assert audit(root, home, "--harness", "claude")[0] == 0


# --------------------------------------------------------------------------- lines it could not read


def test_a_call_line_it_could_not_read_makes_the_result_not_clean(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    claude(home, root, [("Bash", {"command": "ls\u0000"})], name="nul")
    claude(home, root, [("Bash", {"command": ["git", "push", "--force"]})], name="list")
    path = claude(home, root, [("Bash", {"command": "ls"})], name="cut")
    path.write_text(path.read_text() + '{"type": "assistant", "message": {"content": [{"type": "tool_u\n')
    code, report = audit(root, home, "--harness", "claude")
    assert code == 2 and report["counts"]["unreadable"] == 3
    assert all(s["unread"] and s["malformed"] == 1 for s in report["sessions"])
    r = run_handrail("audit", "--harness", "claude", cwd=root, env={"HOME": str(home)})
    assert r.returncode == 2 and "could not be read in full" in r.stdout


# --------------------------------------------------------------------------- handrail's own cache


def test_a_write_to_handrails_cache_is_judged_by_the_live_classifier(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    command = "echo x > ~/.cache/handrail/validated/ab"
    claude(home, root, [("Bash", {"command": command})])
    code, report = audit(root, home, "--harness", "claude")
    live = commands.classify(command, commands.engine(load_protocol(str(root)), "claude"), cwd=str(root),
                             project=str(root), home=str(home))
    assert (code, [c for _r, c in findings(report)]) == ((1, [command]) if live["tier"] == 3 else (0, []))
