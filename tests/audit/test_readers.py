"""The readers over sessions the real clients wrote (committed, trimmed): every call with its
outcome, a hook's denial told apart from an ordinary error, and untrusted lines survived."""

from __future__ import annotations

from pathlib import Path

import pytest
from kit import install, scene, text

from handrail.audit import READERS, harness_of
from handrail.audit.calls import Call, Problem, Unknown


def calls(harness: str, path: Path) -> list[tuple[str, str | None, tuple[str, ...], str]]:
    read = READERS[harness][1]
    return [(c.kind, c.command, c.paths, c.outcome) for c in read(str(path)) if isinstance(c, Call)]


def everything(harness: str, path: Path) -> list[object]:
    return list(READERS[harness][1](str(path)))


@pytest.fixture
def place(tmp_path: Path) -> tuple[Path, Path]:
    return scene(tmp_path)


def test_claude_calls_and_what_became_of_them(place: tuple[Path, Path]) -> None:
    root, home = place
    unguarded = calls("claude", install("claude", "unguarded", root, home))
    guarded = calls("claude", install("claude", "guarded", root, home))
    env, notes, app = str(root / ".env"), str(root / "docs" / "notes.md"), str(root / "src" / "app.py")
    assert unguarded == [
        ("shell", "git status --short", (), "ok"),
        ("shell", "git push --force origin main", (), "ok"),
        ("read", None, (env,), "ok"),
        ("write", None, (notes,), "ok"),
        ("read", None, (app,), "ok"),
        ("edit", None, (app,), "ok"),
        ("search", None, (str(root / "src"),), "error"),  # no Grep tool in that session: Claude's own error
        ("shell", "ls /nonexistent-folder", (), "error"),  # ran, exit 2: an error, not a denial
    ]
    # In the guarded repository the hook refused three of them: each an error result with only
    # the hook's text, told apart from the two ordinary errors.
    assert [c[3] for c in guarded] == ["ok", "hook_denied", "hook_denied", "hook_denied", "ok", "ok", "error", "error"]
    assert [c[:3] for c in guarded] == [c[:3] for c in unguarded]


def test_a_claude_hook_denial_keeps_the_hooks_reason(place: tuple[Path, Path]) -> None:
    root, home = place
    found = [c for c in everything("claude", install("claude", "guarded", root, home)) if isinstance(c, Call)]
    denied = [c for c in found if c.outcome == "hook_denied"]
    assert all(c.reason and c.reason.startswith("handrail: ") for c in denied)
    assert "git push *" in (denied[0].reason or "")
    assert all(c.time and c.time.startswith("2026-") and c.cwd == str(root) for c in found)
    assert len({c.session for c in found}) == 1


def test_codex_calls_and_what_became_of_them(place: tuple[Path, Path]) -> None:
    root, home = place
    unguarded = calls("codex", install("codex", "unguarded", root, home))
    guarded = calls("codex", install("codex", "guarded", root, home))
    assert unguarded == [
        ("shell", "git status --short", (), "ok"),
        ("shell", "git push --force origin main", (), "ok"),
        ("shell", "cat .env", (), "ok"),
        ("edit", None, ("docs/notes.md",), "ok"),
        ("edit", None, ("src/app.py",), "ok"),
    ]
    assert [c[3] for c in guarded] == ["ok", "hook_denied", "hook_denied", "hook_denied", "ok"]
    reasons = [c.reason for c in everything("codex", install("codex", "guarded", root, home))
               if isinstance(c, Call) and c.outcome == "hook_denied"]
    # The reason is the hook's own text, without Codex's "Command blocked by…" and "Command: …" around it.
    assert all(r and r.startswith("handrail: ") and "Command:" not in r for r in reasons)


@pytest.mark.parametrize("harness", ["claude", "codex"])
def test_malformed_lines_are_problems_with_their_line_and_the_rest_is_read(harness: str,
                                                                           place: tuple[Path, Path]) -> None:
    root, home = place
    path = install(harness, "unguarded", root, home)
    lines = path.read_text().splitlines()
    before = calls(harness, path)
    garbage = ['{"type": "assistant", "message": {"content": [{"type": "tool_use"', "[1, 2]", "\x00\xff not json",
               '{"type": "brand-new-kind", "x": 1}']
    path.write_text("\n".join(lines[:3] + garbage + lines[3:]) + "\n")
    out = everything(harness, path)
    problems = [p for p in out if isinstance(p, Problem)]
    assert [(p.file, p.line) for p in problems] == [(str(path), 4), (str(path), 5), (str(path), 6)]
    assert Unknown("brand-new-kind") in out
    assert calls(harness, path) == before


def test_a_tool_use_without_its_input_is_a_problem_not_a_crash(place: tuple[Path, Path]) -> None:
    root, home = place
    path = install("claude", "unguarded", root, home)
    bad = '{"type": "assistant", "cwd": "/", "message": {"content": [{"type": "tool_use", "id": "x", "name": "Bash", ' \
          '"input": {"command": 7}}]}}'
    path.write_text(path.read_text() + bad + "\n")
    problems = [p for p in everything("claude", path) if isinstance(p, Problem)]
    assert [p.line for p in problems] == [len(path.read_text().splitlines())]
    assert "tool_input.command" in problems[0].what


def test_an_unanswered_call_is_unknown(place: tuple[Path, Path]) -> None:
    root, home = place
    path = install("codex", "unguarded", root, home)
    kept = [line for line in path.read_text().splitlines() if '"call_id": "call_0002"' not in line
            or '"function_call"' in line]
    path.write_text("\n".join(kept) + "\n")
    found = {c.command: c.outcome for c in everything("codex", path) if isinstance(c, Call)}
    assert found["git push --force origin main"] == "unknown"


def test_finders_keep_only_the_projects_sessions(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    other = tmp_path / "project-two"  # its slug begins with the project's: its sessions are not ours
    other.mkdir()
    mine = [install("claude", "unguarded", root, home), install("claude", "harmless", root, home,
                                                                cwd=root / "src")]
    install("claude", "guarded", other, home)
    assert sorted(READERS["claude"][0](str(root), str(home), {})) == sorted(str(p) for p in mine)
    theirs = install("codex", "guarded", other, home)
    ours = install("codex", "unguarded", root, home)
    assert READERS["codex"][0](str(root), str(home), {}) == [str(ours)]
    assert READERS["codex"][0](str(other), str(home), {}) == [str(theirs)]
    assert READERS["claude"][0](str(root), str(tmp_path / "nobody"), {}) == []


def test_a_copied_file_is_known_by_its_lines(place: tuple[Path, Path], tmp_path: Path) -> None:
    root, home = place
    for harness in ("claude", "codex"):
        copy = tmp_path / f"{harness}-copy.jsonl"
        copy.write_text(text(harness, "unguarded", root, home))
        assert harness_of(str(copy)) == harness
    (tmp_path / "notes.jsonl").write_text('{"hello": 1}\n')
    assert harness_of(str(tmp_path / "notes.jsonl")) is None


PRE = {"type": "hook_blocking_error", "hookName": "PreToolUse:Bash", "hookEvent": "PreToolUse"}
POST = {"type": "hook_blocking_error", "hookName": "PostToolUse:Bash", "hookEvent": "PostToolUse"}


@pytest.mark.parametrize(("result", "attachment", "outcome"), [
    ({"content": "fine", "is_error": False}, None, "ok"),
    ({"content": "Exit code 1\nboom", "is_error": True}, None, "error"),
    ({"content": "Command timed out after 2m 0.0s", "is_error": True}, None, "error"),
    ({"content": "<tool_use_error>File does not exist.</tool_use_error>", "is_error": True}, None, "error"),
    ({"content": "The user doesn't want to proceed with this tool use. The tool use was rejected", "is_error": True},
     None, "user_denied"),
    ({"content": "Permission to use Bash with command rm -rf x has been denied.", "is_error": True}, None,
     "user_denied"),
    # Recognised denials: handrail's own reason, and the texts Claude Code writes for a hook's refusal.
    ({"content": "handrail: refused, needs a human: 'make' …", "is_error": True}, None, "hook_denied"),
    ({"content": "PreToolUse:Bash hook error: not today", "is_error": True}, None, "hook_denied"),
    ({"content": "Blocked by hook", "is_error": True}, None, "hook_denied"),
    ({"content": "Execution stopped by PreToolUse hook: enough", "is_error": True}, None, "hook_denied"),
    # An error in no shape Claude or handrail writes is no proof of a denial: the call may have run.
    ({"content": "blocked: not today", "is_error": True}, None, "error"),
    ({"content": "something broke", "is_error": True}, None, "error"),
    ({"content": "[Request interrupted by user for tool use]", "is_error": True}, None, "error"),  # Esc mid-run
    # A hook let it through, and then it failed: an error, whatever its text.
    ({"content": "something broke", "is_error": True}, {"type": "hook_success"}, "error"),
    ({"content": [{"type": "text", "text": "x"}], "is_error": True}, PRE, "hook_denied"),
    # A post-tool hook blocks after the tool ran: what the result says stands.
    ({"content": "fine", "is_error": False}, POST, "ok"),
])
def test_claude_outcomes_by_the_marks_the_client_leaves(tmp_path: Path, result: dict, attachment: dict | None,
                                                         outcome: str) -> None:
    import json

    use = {"type": "assistant", "cwd": str(tmp_path), "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z",
           "message": {"content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}]}}
    lines = [use]
    if attachment:
        lines.append({"type": "attachment", "attachment": {**attachment, "toolUseID": "t1",
                                                           "blockingError": {"blockingError": "no", "command": "h"}}})
    lines.append({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", **result}]}})
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert [c.outcome for c in everything("claude", path) if isinstance(c, Call)] == [outcome]


@pytest.mark.parametrize(("output", "outcome"), [
    ("Command blocked by PreToolUse hook: handrail: refused. Command: make", "hook_denied"),
    ("Tool call blocked by PreToolUse hook: handrail: denied: .env. Tool: exec_command", "hook_denied"),
    # Codex names what it refused last: a denial naming another command or tool is no denial of this call.
    ("Command blocked by PreToolUse hook: handrail: refused. Command: ls", "ok"),
    ("Tool call blocked by PreToolUse hook: handrail: denied: .env. Tool: apply_patch", "ok"),
    ("exec command rejected by user", "user_denied"),
    ("patch rejected by user", "user_denied"),
    # What the command printed is not a refusal, wherever the words stand.
    ("Process exited with code 0\nOutput:\n ! [remote rejected] main (push rejected by user hook)", "ok"),
    ("Process exited with code 1\nOutput:\nblocked", "error"),
    ({"content": "sandbox said no", "success": False}, "error"),
])
def test_codex_outcomes_by_the_marks_the_client_leaves(tmp_path: Path, output: object, outcome: str) -> None:
    import json

    meta = {"id": "s", "cwd": str(tmp_path)}
    lines = [{"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": meta},
             {"timestamp": "2026-01-01T00:00:01Z", "type": "response_item", "payload": {
                 "type": "function_call", "name": "exec_command", "call_id": "c1",
                 "arguments": json.dumps({"cmd": "make", "workdir": str(tmp_path)})}},
             {"timestamp": "2026-01-01T00:00:02Z", "type": "response_item", "payload": {
                 "type": "function_call_output", "call_id": "c1", "output": output}}]
    path = tmp_path / "rollout-2026-01-01T00-00-00-s.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    found = [c for c in everything("codex", path) if isinstance(c, Call)]
    assert [c.outcome for c in found] == [outcome]
    if outcome == "hook_denied":
        # The hook's own text, without what Codex writes around it.
        assert found[0].reason in ("handrail: refused", "handrail: denied: .env")
