"""Fail closed: whatever a harness sends, no adapter prints a traceback, and no input
makes one allow what the policy refuses.

Generated inputs run in-process (`handrail.main.main`, exactly the console script's
code) so that hypothesis can try many; a few run through the real console script.
"""

from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hookkit import HARNESSES, hook, make_project
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handrail.main import main

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# Every key an adapter reads: the shape-preserving garbage below never touches these.
READ_KEYS = frozenset({
    "hook_event_name", "tool_name", "tool_input", "cwd", "toolName", "toolArgs", "preToolUse", "parameters", "tool",
    "args", "directory", "worktree", "command", "file_path", "workspace_roots",
    "workspaceRoots", "path", "filePath", "notebook_path", "absolute_path", "target_file", "patchText", "patch",
    "input", "files", "filePaths", "dir_path", "workdir", "working_directory", "cmd",
})
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=10)
extra_keys = st.dictionaries(st.text(max_size=12).filter(lambda k: k not in READ_KEYS), json_values, max_size=4)
not_a_string = json_values.filter(lambda v: not isinstance(v, str) and not (
    isinstance(v, list) and v and all(isinstance(w, str) for w in v)))  # Codex reads an argv list


def run(name: str, data: bytes) -> tuple[int, str, str]:
    """`handrail hook NAME` in this process; any exception escaping fails the test."""
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["hook", name])
    finally:
        sys.stdin = old
    return code, out.getvalue(), err.getvalue()


def verdict(name: str, code: int, stdout: str) -> str:
    """What the harness makes of a reply: allow, ask, deny or none (its own rules decide)."""
    assert code in (0, 2), code
    if code == 2:
        return "deny"
    lines = stdout.strip().splitlines()
    assert len(lines) <= 1, stdout
    if not lines:
        return "none"
    reply = json.loads(lines[0])
    assert isinstance(reply, dict)
    if name in ("claude", "codex", "qwen") or (name == "copilot" and "hookSpecificOutput" in reply):
        decision = (reply.get("hookSpecificOutput") or {}).get("permissionDecision")
        return decision or ("allow" if "systemMessage" in reply else "none")
    if name == "copilot":
        return reply.get("permissionDecision") or "none"
    if name == "gemini":
        return reply.get("decision") or "none"
    if name == "cursor":
        return reply.get("permission") or "none"
    if name == "cline":
        return "deny" if reply.get("cancel") is True else "allow"
    word = reply.get("decision")
    return {"notify": "allow", "none": "none"}.get(word, word)


@pytest.fixture
def guarded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = make_project(tmp_path / "project")
    monkeypatch.chdir(path)  # a payload without a usable cwd is judged here
    return path


def refused_calls(project: Path) -> dict[str, list[tuple[dict, str, str]]]:
    """For each harness: (payload, path to the field that carries the call, key) of calls
    the policy refuses: an edit of .env, and a tier-3 command."""
    env = str(project / ".env")
    push = "git push --force origin main"
    patch = "*** Begin Patch\n*** Add File: .env\n+X=1\n*** End Patch\n"
    return {
        "claude": [({"hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": str(project),
                     "tool_input": {"file_path": env, "old_string": "a", "new_string": "b"}},
                    "tool_input", "file_path"),
                   ({"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(project),
                     "tool_input": {"command": push}}, "tool_input", "command")],
        "codex": [({"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "cwd": str(project),
                    "tool_input": {"command": patch}}, "tool_input", "command"),
                  ({"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(project),
                    "tool_input": {"command": push}}, "tool_input", "command")],
        "gemini": [({"hook_event_name": "BeforeTool", "tool_name": "write_file", "cwd": str(project),
                     "tool_input": {"file_path": env, "content": "x"}}, "tool_input", "file_path"),
                   ({"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "cwd": str(project),
                     "tool_input": {"command": push}}, "tool_input", "command")],
        "cursor": [({"hook_event_name": "preToolUse", "tool_name": "Write", "cwd": str(project),
                     "tool_input": {"file_path": env}}, "tool_input", "file_path"),
                   ({"hook_event_name": "beforeShellExecution", "cwd": str(project), "command": push}, "", "command")],
        "copilot": [({"toolName": "edit", "cwd": str(project), "toolArgs": {"path": env}}, "toolArgs", "path"),
                    ({"toolName": "bash", "cwd": str(project), "toolArgs": {"command": push}}, "toolArgs", "command")],
        "cline": [({"workspaceRoots": [str(project)], "preToolUse": {"toolName": "write_to_file",
                                                                    "parameters": {"path": env}}},
                   "preToolUse.parameters", "path"),
                  ({"workspaceRoots": [str(project)], "preToolUse": {"toolName": "execute_command",
                                                                    "parameters": {"command": push}}},
                   "preToolUse.parameters", "command")],
        "opencode": [({"tool": "write", "directory": str(project), "args": {"filePath": env}}, "args", "filePath"),
                     ({"tool": "bash", "directory": str(project), "args": {"command": push}}, "args", "command")],
        "qwen": [({"hook_event_name": "PreToolUse", "tool_name": "write_file", "cwd": str(project),
                   "tool_input": {"file_path": env, "content": "x"}}, "tool_input", "file_path"),
                 ({"hook_event_name": "PreToolUse", "tool_name": "run_shell_command", "cwd": str(project),
                   "tool_input": {"command": push}}, "tool_input", "command")],
    }


def _at(payload: dict, where: str) -> dict:
    node = payload
    for key in filter(None, where.split(".")):
        node = node[key]
    return node


@pytest.mark.parametrize("name", HARNESSES)
@SETTINGS
@given(data=st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_any_input_gets_a_well_formed_answer_and_never_a_traceback(guarded: Path, name: str, data: bytes) -> None:
    code, stdout, stderr = run(name, data)
    verdict(name, code, stdout)
    assert "Traceback" not in stderr
    assert len(stderr.strip().splitlines()) <= 2  # the deny line, and at most a recording warning


@pytest.mark.parametrize("name", HARNESSES)
@SETTINGS
@given(which=st.integers(0, 1), top=extra_keys, inner=extra_keys)
def test_extra_fields_never_turn_a_refusal_into_an_allow(guarded: Path, name: str, which: int, top: dict,
                                                         inner: dict) -> None:
    payload, where, _key = refused_calls(guarded)[name][which]
    payload = {**top, **payload}
    _at(payload, where).update({k: v for k, v in inner.items() if k not in _at(payload, where)})
    code, stdout, _ = run(name, json.dumps(payload).encode())
    assert verdict(name, code, stdout) in ("deny", "ask")


@pytest.mark.parametrize("name", HARNESSES)
@SETTINGS
@given(which=st.integers(0, 1), value=not_a_string)
def test_a_mistyped_field_is_denied(guarded: Path, name: str, which: int, value: object) -> None:
    payload, where, key = refused_calls(guarded)[name][which]
    _at(payload, where)[key] = value
    code, stdout, stderr = run(name, json.dumps(payload).encode())
    assert verdict(name, code, stdout) == "deny"
    assert stderr.startswith("handrail: denied:")


@pytest.mark.parametrize("name", HARNESSES)
@pytest.mark.parametrize("raw", ["", "not json", "[]", "{}", "null", '{"tool_name": 7}', "{" * 100_000])
def test_garbage_through_the_console_script_is_denied(project: Path, name: str, raw: str) -> None:
    r = hook(name, None, raw=raw, cwd=project)
    assert verdict(name, r.code, r.stdout) == "deny"
    assert r.stderr.startswith("handrail: denied:") and len(r.stderr.strip().splitlines()) == 1
