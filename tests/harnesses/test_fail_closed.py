"""Fail closed under hostile text, oversized input and slow judging: every adapter's
blocking answer gets out, in the form its harness reads as a refusal.

The fuzzed inputs run in-process (`handrail.main.main`, the console script's code) with
stdout a strict UTF-8 stream, as the real one is, so that a reply that cannot be encoded
fails here as it would there; the rest run through the real console script.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_handrail
from hookkit import FUZZ_TRIED, HARNESSES, Reply, events, hook, make_project
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handrail.main import main

EXAMPLES = 30  # per adapter and test: enough to meet each kind of junk, fast enough for every CI run
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
FIND = "find victim -delete -o -name 'x{}'"
SLOW_SHELL = "find victim -delete; " + "git status; " * 10_000  # ~120 KiB: half a second to judge
EVENTS = {"claude": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool", "cursor": "beforeShellExecution",
          "copilot": "PreToolUse", "qwen": "PreToolUse"}

def _all_events() -> frozenset[str]:
    from handrail.harnesses import claude, codex, copilot, cursor, gemini, qwen

    return claude.EVENTS | codex.EVENTS | copilot.EVENTS | cursor.EVENTS | gemini.EVENTS | qwen.EVENTS


ALL_EVENTS = _all_events()


surrogates = st.integers(0xD800, 0xDFFF).map(chr)
controls = st.sampled_from([chr(c) for c in (*range(1, 32), 127)])
junk = st.lists(surrogates | controls | st.just("\0") | st.characters(), min_size=1, max_size=6).map("".join)
# Bytes that are not UTF-8: a lone surrogate's encoding, stray continuation and lead bytes, overlongs.
bad_bytes = st.lists(st.sampled_from([b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xff", b"\xfe", b"\x80", b"\xc3", b"\xc0\xaf",
                                      b"\xe2\x82", b"\xf4\x90\x80\x80"]) | st.binary(min_size=1, max_size=3),
                     min_size=1, max_size=4).map(b"".join)


def _not_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def shell_call(name: str, project: Path, command: str) -> dict:
    """The payload each harness sends to run `command`."""
    where = str(project)
    calls: dict[str, dict] = {
        "claude": {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": where,
                   "tool_input": {"command": command}},
        "codex": {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": where,
                  "tool_input": {"command": command}},
        "gemini": {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "cwd": where,
                   "tool_input": {"command": command}},
        "cursor": {"hook_event_name": "beforeShellExecution", "cwd": where, "command": command},
        "copilot": {"toolName": "bash", "cwd": where, "toolArgs": {"command": command}},
        "cline": {"workspaceRoots": [where], "preToolUse": {"toolName": "execute_command",
                                                            "parameters": {"command": command}}},
        "opencode": {"tool": "bash", "directory": where, "args": {"command": command}},
        "qwen": {"hook_event_name": "PreToolUse", "tool_name": "run_shell_command", "cwd": where,
                 "tool_input": {"command": command}},
    }
    return calls[name]


def edit_call(name: str, project: Path, path: str) -> dict:
    """The payload each harness sends to edit `path`."""
    where = str(project)
    calls: dict[str, dict] = {
        "claude": {"hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": where,
                   "tool_input": {"file_path": path}},
        "codex": {"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "cwd": where,
                  "tool_input": {"command": f"*** Begin Patch\n*** Add File: {path}\n+x\n*** End Patch\n"}},
        "gemini": {"hook_event_name": "BeforeTool", "tool_name": "write_file", "cwd": where,
                   "tool_input": {"file_path": path}},
        "cursor": {"hook_event_name": "preToolUse", "tool_name": "Write", "cwd": where,
                   "tool_input": {"file_path": path}},
        "copilot": {"toolName": "edit", "cwd": where, "toolArgs": {"path": path}},
        "cline": {"workspaceRoots": [where], "preToolUse": {"toolName": "write_to_file", "parameters": {"path": path}}},
        "opencode": {"tool": "write", "directory": where, "args": {"filePath": path}},
        "qwen": {"hook_event_name": "PreToolUse", "tool_name": "write_file", "cwd": where,
                 "tool_input": {"file_path": path}},
    }
    return calls[name]


def run(name: str, data: bytes) -> tuple[int, str, str]:
    """`handrail hook NAME` in this process, stdout a strict UTF-8 stream like the real one."""
    out, err = io.BytesIO(), io.BytesIO()
    streams = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    sys.stdout = stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True)
    sys.stderr = stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True)
    try:
        code = main(["hook", name])
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
        stdout.detach()
        stderr.detach()
    FUZZ_TRIED[name] += 1
    return code, out.getvalue().decode("ascii"), err.getvalue().decode("utf-8")


def blocking(name: str, code: int, stdout: str, stderr: str) -> str:
    """Assert that the reply is one `name` reads as a refusal (its ask or its deny), in
    the shape it documents; return which."""
    assert "Traceback" not in stderr
    lines = stdout.strip().splitlines()
    assert len(lines) <= 1, stdout
    reply = json.loads(lines[0]) if lines else None
    if code == 2 and name in ("claude", "codex", "gemini", "opencode", "qwen"):
        # Exit 2 blocks, with the line on stderr as the reason.
        assert stderr.startswith("handrail: denied:") and len(stderr.strip().splitlines()) <= 2, stderr
        if name == "opencode":
            assert reply is not None and reply["decision"] == "deny" and reply["message"].startswith("handrail:")
        return "deny"
    assert code == 0, (code, stdout, stderr)
    assert isinstance(reply, dict), stdout
    if name in ("claude", "codex", "qwen") or (name == "copilot" and "hookSpecificOutput" in reply):
        out = reply["hookSpecificOutput"]
        assert out["hookEventName"] == "PreToolUse" and out["permissionDecisionReason"].startswith("handrail:")
        decision = out["permissionDecision"]
    elif name == "copilot":
        assert reply["permissionDecisionReason"].startswith("handrail:")
        decision = reply["permissionDecision"]
    elif name == "gemini":
        assert reply["reason"].startswith("handrail:")
        decision = reply["decision"]
    elif name == "cursor":
        assert reply["agent_message"].startswith("handrail:")
        decision = reply["permission"]
    elif name == "cline":
        assert reply["cancel"] is True and reply["errorMessage"].startswith("handrail:")
        decision = "deny"
    else:
        assert reply["message"].startswith("handrail:")
        decision = reply["decision"]
    assert decision in (("ask", "deny") if name in ("claude", "gemini", "cursor", "copilot") else ("deny",)), reply
    return str(decision)


@pytest.fixture
def guarded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = make_project(tmp_path / "project")
    monkeypatch.chdir(path)
    monkeypatch.delenv("HANDRAIL_HOOK_DEADLINE_MS", raising=False)
    return path


# --------------------------------------------------------------------------- hostile text


@pytest.mark.parametrize("name", HARNESSES)
@SETTINGS
@given(text=junk)
def test_a_tier_3_command_quoting_lone_surrogates_or_control_characters_is_refused(guarded: Path, name: str,
                                                                                    text: str) -> None:
    # json.dumps writes a lone surrogate as its escape, `\ud800`, as a harness would.
    data = json.dumps(shell_call(name, guarded, FIND.format(text))).encode()
    blocking(name, *run(name, data))


@pytest.mark.parametrize("name", HARNESSES)
@SETTINGS
@given(raw=bad_bytes)
def test_a_tier_3_command_holding_bytes_that_are_not_utf8_is_refused(guarded: Path, name: str, raw: bytes) -> None:
    data = json.dumps(shell_call(name, guarded, FIND.format("JUNK"))).encode().replace(b"JUNK", raw)
    blocking(name, *run(name, data))


@pytest.mark.parametrize("name", HARNESSES)
@SETTINGS
@given(raw=bad_bytes.filter(_not_utf8), text=junk)
def test_a_tier_1_command_or_an_edit_holding_text_that_is_not_utf8_is_never_let_through(
        guarded: Path, name: str, raw: bytes, text: str) -> None:
    # What runs is not what was judged (the harness decodes the bytes its own way): a human decides.
    def calls(word: str) -> tuple[dict, dict]:
        # One line: a line break in a patch header ends the path there (the rest is content).
        path = str(guarded / "src" / f"{''.join(word.splitlines())}.py")
        return shell_call(name, guarded, f"ls {word}"), edit_call(name, guarded, path)

    for payload in calls("JUNK"):
        blocking(name, *run(name, json.dumps(payload).encode().replace(b"JUNK", raw)))
    for payload in calls(text + "\ud800."):  # a high surrogate that no low one follows
        blocking(name, *run(name, json.dumps(payload).encode()))


def test_the_reported_lone_surrogate_is_quoted_escaped_in_the_reply(guarded: Path) -> None:
    code, stdout, stderr = run("claude", json.dumps(shell_call("claude", guarded, FIND.format("\ud800"))).encode())
    assert blocking("claude", code, stdout, stderr) == "ask"
    assert "x\\ud800" in stdout and "find-delete" in stdout


# --------------------------------------------------------------------------- mistyped fields


@pytest.mark.parametrize("name", sorted(EVENTS))
@SETTINGS
@given(event=st.integers() | st.floats(allow_nan=False) | st.booleans() | st.lists(st.text(max_size=5), max_size=2)
       | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2) | st.text(max_size=20).map(lambda t: t + "\0")
       | st.text(max_size=30).filter(lambda t: t not in ALL_EVENTS))
def test_a_malformed_or_unknown_hook_event_name_is_refused(guarded: Path, name: str, event: object) -> None:
    payload = shell_call(name, guarded, "git status")
    payload["hook_event_name"] = event
    code, stdout, stderr = run(name, json.dumps(payload).encode())
    assert blocking(name, code, stdout, stderr) == "deny"
    assert "hook_event_name" in stderr or "hook_event_name" in stdout


FOLDERS = [7, ["/tmp"], {"a": 1}, True, "/tmp\0x"]


@pytest.mark.parametrize("name", HARNESSES)
@pytest.mark.parametrize("value", FOLDERS)
def test_a_mistyped_folder_is_refused_not_ignored(guarded: Path, name: str, value: object) -> None:
    payload = shell_call(name, guarded, "git status")
    if name == "cline":  # a list of folders: each kind of junk as the list, or in it
        payload["workspaceRoots"] = [value] if isinstance(value, str) or value == ["/tmp"] else value
    else:
        payload["directory" if name == "opencode" else "cwd"] = value
    assert blocking(name, *run(name, json.dumps(payload).encode())) == "deny"


def test_an_event_the_harness_sends_elsewhere_is_not_ours_to_judge(guarded: Path) -> None:
    payload = shell_call("claude", guarded, "git push --force origin main")
    payload["hook_event_name"] = "PostToolUse"
    assert run("claude", json.dumps(payload).encode()) == (0, "", "")


# --------------------------------------------------------------------------- oversized input and the deadline


def _reason(r: Reply) -> str:
    return r.stderr + r.stdout


@pytest.mark.parametrize("name", HARNESSES)
def test_a_10_mb_command_and_a_10_mb_path_are_refused_before_judging(project: Path, name: str) -> None:
    command = hook(name, shell_call(name, project, "find victim -delete -o -name " + "x" * 10_000_000), cwd=project)
    assert blocking(name, command.code, command.stdout, command.stderr) == "deny"
    assert "the command is 10000029 bytes, over the 131072-byte limit: refused before judging" in _reason(command)
    path = hook(name, edit_call(name, project, str(project / "src") + "/a" * 5_000_000), cwd=project)
    assert blocking(name, path.code, path.stdout, path.stderr) == "deny"
    assert "over the 4096-byte limit: refused before judging" in _reason(path)


@pytest.mark.parametrize("name", HARNESSES)
def test_past_the_deadline_the_call_is_refused_as_too_slow_and_recorded(project: Path, name: str) -> None:
    r = hook(name, shell_call(name, project, SLOW_SHELL), cwd=project, env={"HANDRAIL_HOOK_DEADLINE_MS": "1"})
    assert blocking(name, r.code, r.stdout, r.stderr) == "deny"
    assert "took too long to judge (over 1 ms; HANDRAIL_HOOK_DEADLINE_MS sets the budget)" in _reason(r)
    assert any(e["event_type"] == "hook_too_slow" and e["payload"]["hook"] == f"hook {name}" for e in events(project))


def test_within_the_deadline_the_same_command_is_judged(project: Path) -> None:
    r = hook("claude", shell_call("claude", project, SLOW_SHELL), cwd=project,
             env={"HANDRAIL_HOOK_DEADLINE_MS": "20000"})
    assert r.code == 0 and r.json["hookSpecificOutput"]["permissionDecision"] == "ask"  # type: ignore[index]
    assert "find-delete" in r.stdout


def test_a_harness_that_never_closes_stdin_is_refused(project: Path) -> None:
    from helpers import HANDRAIL

    assert HANDRAIL
    with subprocess.Popen([HANDRAIL, "hook", "claude"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, cwd=project,
                          env={**os.environ, "HANDRAIL_HOOK_DEADLINE_MS": "200"}) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout.read(), proc.stderr.read()  # stdin is still open: the hook gave up waiting
        proc.wait(timeout=30)
    assert proc.returncode == 2 and out == ""
    assert err.startswith("handrail: denied: took too long to judge")


def test_can_edit_and_classify_refuse_oversized_input_and_slow_judging(project: Path) -> None:
    r = run_handrail("can-edit", "--file", "src/" + "a/" * 3000, "--json", cwd=project)
    assert r.returncode == 2 and "over the 4096-byte limit" in r.stderr
    assert json.loads(r.stdout.splitlines()[-1])["allowed"] is False
    r = run_handrail("classify", "--json", "git status;" * 7000, "git status;" * 7000, cwd=project)
    assert r.returncode == 2 and "over the 131072-byte limit" in r.stderr
    r = run_handrail("classify", "--json", "git status; " * 8000, cwd=project, env={"HANDRAIL_HOOK_DEADLINE_MS": "1"})
    assert r.returncode == 2 and "took too long to judge" in r.stderr
    assert json.loads(r.stdout.splitlines()[-1])["reason"] == "too_slow"
    r = run_handrail("can-edit", "--file", "src/app.py", "--json", cwd=project, env={"HANDRAIL_HOOK_DEADLINE_MS": "1"})
    # Judging one path may beat even 1 ms; either way the answer is a whole one.
    answer = json.loads(r.stdout.splitlines()[-1])
    assert (r.returncode, answer["allowed"]) == (0, True) or (r.returncode, answer["reason"]) == (2, "too_slow")


def test_the_watchdog_answers_for_a_main_thread_no_signal_reaches(tmp_path: Path) -> None:
    # SIGALRM blocked stands for a main thread stuck where no handler runs.
    script = (
        "import signal, time\n"
        "from handrail.hooks.budget import Deadline\n"
        "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n"
        "Deadline(50, (b'{\"cancel\":true}\\n', b'handrail: denied: took too long to judge\\n', 3)).start()\n"
        "time.sleep(20)\n"
        "print('judged')\n"
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                       check=False)
    assert (r.returncode, r.stdout, r.stderr) == (3, '{"cancel":true}\n', "handrail: denied: took too long to judge\n")


# --------------------------------------------------------------------------- option values


def test_an_option_value_that_looks_like_an_option_is_a_usage_error(project: Path) -> None:
    r = run_handrail("can-edit", "--agent", "--json", cwd=project)
    assert r.returncode == 2
    assert r.stderr.splitlines()[0] == ("handrail can-edit: error: option --agent needs a value, found the option "
                                        "--json (for a value that starts with '-', write --agent=--json)")
    assert json.loads(r.stdout.splitlines()[-1])["reason"] == "bad_arguments"
    assert run_handrail("can-edit", "--agent=-x", "--json", cwd=project).returncode in (0, 1)
