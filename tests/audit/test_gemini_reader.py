"""Gemini CLI's chat files read into calls: the committed copies of real sessions, where the
finder looks (the project registry, and the hashed folders of older versions), and what a
broken or unknown line gives."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from clientruns import CASES, DATA, fixture, gemini_home, laid, made, shown
from hookkit import needs_client

from handrail.audit import READERS, gemini
from handrail.audit.calls import Call, Problem, Unknown


def place(tmp_path: Path, case: str) -> tuple[Path, Path]:
    root, home = tmp_path / "work" / "project", tmp_path / "home"
    root.mkdir(parents=True)
    laid("gemini", case, root, home)
    return root, home


@pytest.mark.parametrize("case", CASES)
def test_a_real_session_reads_to_the_calls_it_made(tmp_path: Path, case: str) -> None:
    root, home = place(tmp_path, case)
    find, read = READERS["gemini"]
    files = find(str(root), str(home), {})
    assert files == [str(home / ".gemini" / "tmp" / "project" / "chats" / "session-fixture.jsonl")]
    expected = json.loads((DATA / f"gemini-{case}.calls.json").read_text())
    assert shown(list(read(files[0])), root, home, exact=True) == expected


def test_each_call_is_told_once_though_gemini_writes_its_message_again() -> None:
    lines = fixture("gemini", "plain").read_text().splitlines()
    written = [json.loads(x) for x in lines]
    ids = [c["id"] for r in written for c in r.get("toolCalls", [])]
    calls = json.loads((DATA / "gemini-plain.calls.json").read_text())
    assert len(calls) == 6 and len(set(ids)) == 6
    assert [c["outcome"] for c in calls] == ["ok", "error", "ok", "ok", "ok", "ok"]
    guarded = json.loads((DATA / "gemini-guarded.calls.json").read_text())
    assert [c["outcome"] for c in guarded] == ["hook_denied", "error", "hook_denied", "hook_denied", "hook_denied",
                                               "ok"]
    assert guarded[0]["reason"].startswith("handrail: refused")  # Gemini's "Tool execution blocked: " taken off


def test_the_finder_keeps_the_sessions_of_folders_inside_the_project(tmp_path: Path) -> None:
    root, home = place(tmp_path, "plain")
    chat = str(home / ".gemini" / "tmp" / "project" / "chats" / "session-fixture.jsonl")
    assert gemini.find_gemini(str(root.parent), str(home), {}) == [chat]
    assert gemini.find_gemini(str(root / "src"), str(home), {}) == []
    assert gemini.find_gemini(str(tmp_path / "work" / "proj"), str(home), {}) == []
    # without .project_root, the registry names the folder
    (home / ".gemini" / "tmp" / "project" / ".project_root").unlink()
    assert gemini.find_gemini(str(root), str(home), {}) == [chat]
    (home / ".gemini" / "projects.json").write_text("{broken")
    assert gemini.find_gemini(str(root), str(home), {}) == []


def test_an_older_versions_hashed_folder_is_found_by_the_projects_folders(tmp_path: Path) -> None:
    root, home = tmp_path / "work" / "project", tmp_path / "home"
    (root / "src").mkdir(parents=True)
    text = fixture("gemini", "plain").read_text()
    for folder in (root, root / "src"):
        chats = home / ".gemini" / "tmp" / hashlib.sha256(str(folder).encode()).hexdigest() / "chats"
        chats.mkdir(parents=True)
        (chats / "session-old.jsonl").write_text(text.replace("@PROJECT@", str(root)))
    found = gemini.find_gemini(str(root), str(home), {})
    assert len(found) == 2
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert gemini.find_gemini(str(other), str(home), {}) == []
    calls = [r for r in gemini.read_gemini(found[0]) if isinstance(r, Call)]
    assert len(calls) == 6 and calls[0].cwd is None  # the folder is known only to who hashed it


def test_broken_and_unknown_lines_are_told_and_the_rest_is_read(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    lines = fixture("gemini", "plain").read_text().splitlines()
    lines[5:5] = ["{not json", json.dumps(["a list"]), json.dumps({"hologram": 1}),
                  json.dumps({"id": "m1", "type": "telepathy"}),
                  json.dumps({"id": "m2", "type": "gemini", "toolCalls": [{"args": {}}]})]
    chat = gemini_home("\n".join(lines) + "\n", root, home)
    records = list(gemini.read_gemini(str(chat)))
    assert len([r for r in records if isinstance(r, Call)]) == 6
    problems = [(p.line, p.what) for p in records if isinstance(p, Problem)]
    assert [line for line, _ in problems] == [6, 7, 10]
    assert "not JSON" in problems[0][1] and "a tool call without a name" in problems[2][1]
    assert [r for r in records if isinstance(r, Unknown)] == [Unknown("record without id, $set or $rewindTo"),
                                                              Unknown("message telepathy")]


def tool_call(ident: str, name: str, args: dict, status: str, error: str | None = None) -> dict:
    response = {"error": error} if error else {"output": "fine"}
    return {"id": ident, "name": name, "args": args, "status": status, "timestamp": "2026-01-01T00:00:00.000Z",
            "result": [{"functionResponse": {"id": ident, "name": name, "response": response}}]}


def test_a_persons_refusal_and_a_policy_rule_are_told_apart_from_errors(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    calls = [tool_call("a", "run_shell_command", {"command": "git push --force"}, "cancelled",
                       "User denied execution."),
             tool_call("b", "run_shell_command", {"command": "rm -rf /"}, "error",
                       "Tool execution denied by policy. Not on this machine."),
             tool_call("c", "replace", {"file_path": "src/gone.py", "old_string": "a", "new_string": "b"}, "error",
                       "File not found: src/gone.py"),
             tool_call("d", "web_fetch", {"prompt": "x"}, "success")]
    text = "\n".join([json.dumps({"sessionId": "s1", "projectHash": "h", "startTime": "t"}),
                      json.dumps({"id": "m", "type": "gemini", "content": "", "toolCalls": calls})]) + "\n"
    chat = gemini_home(text, root, home)
    got = [(c.kind, c.outcome, c.reason, c.paths) for c in gemini.read_gemini(str(chat)) if isinstance(c, Call)]
    assert got == [("shell", "user_denied", "User denied execution.", ()),
                   ("shell", "hook_denied", "Tool execution denied by policy. Not on this machine.", ()),
                   ("edit", "error", "File not found: src/gone.py", ("src/gone.py",))]


def test_an_older_whole_json_session_is_read(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    chat = gemini_home("", root, home, name="session-old.json")
    messages = [{"id": "m", "type": "gemini", "content": "",
                 "toolCalls": [tool_call("a", "read_file", {"file_path": str(root / ".env")}, "success")]}]
    chat.write_text(json.dumps({"sessionId": "old", "projectHash": "h", "messages": messages}))
    (call,) = gemini.read_gemini(str(chat))
    assert isinstance(call, Call) and (call.session, call.kind, call.paths, call.cwd) == (
        "old", "read", (str(root / ".env"),), str(root))
    chat.write_text("{\"sessionId\": ")
    (problem,) = gemini.read_gemini(str(chat))
    assert isinstance(problem, Problem) and problem.what == "not a JSON document"


@needs_client("gemini")
@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_the_installed_gemini_still_writes_what_the_reader_reads(tmp_path: Path, case: str) -> None:
    root, home = made(tmp_path, "gemini", case)
    find, read = READERS["gemini"]
    records = [r for f in find(str(root), str(home), {}) for r in read(f)]
    expected = json.loads((DATA / f"gemini-{case}.calls.json").read_text())
    for item in expected:
        for key in ("session", "file", "line", "time"):
            item.pop(key)
    assert shown(records, root, home, exact=False) == expected
