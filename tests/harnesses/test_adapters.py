"""Each harness's payloads, through `handrail hook NAME`, answered in that harness's reply form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hookkit import hook

PUSH = "git push --force origin main"
PATCH = """*** Begin Patch
*** Update File: src/app.py
@@
-print('old')
+print('new')
*** Add File: tests/test_app.py
+def test_app(): pass
*** Update File: src/old_name.py
*** Move to: {moved}
@@
-x
+y
*** End Patch
"""


# --------------------------------------------------------------------------- Codex


def codex(project: Path, tool: str, command: object) -> dict | None:
    payload = {"session_id": "s", "turn_id": "t", "transcript_path": None, "cwd": str(project),
               "hook_event_name": "PreToolUse", "model": "gpt-5", "permission_mode": "default",
               "tool_name": tool, "tool_input": {"command": command}, "tool_use_id": "call_1"}
    r = hook("codex", payload, cwd=project)
    assert r.code == 0, r
    return r.json


def test_codex_cannot_ask_so_tier_3_is_denied_with_the_way_forward(project: Path) -> None:
    out = codex(project, "Bash", PUSH)
    assert out == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                          "permissionDecisionReason": out["hookSpecificOutput"][  # type: ignore[index]
                                              "permissionDecisionReason"]}}
    reason = out["hookSpecificOutput"]["permissionDecisionReason"]  # type: ignore[index]
    assert "git push --force" in reason and "a human runs it in a terminal" in reason


def test_codex_allow_says_nothing_and_a_notice_is_a_system_message(project: Path) -> None:
    assert codex(project, "Bash", "git diff --stat") is None
    assert set(codex(project, "Bash", "npm install") or {}) == {"systemMessage"}
    assert codex(project, "Bash", "frobnicate") is None


def test_codex_argv_commands_are_read_as_the_shell_would_run_them(project: Path) -> None:
    out = codex(project, "Bash", ["bash", "-lc", PUSH])
    assert out is not None and out["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_codex_multi_file_patch_inside_the_scope_is_allowed(project: Path) -> None:
    assert codex(project, "apply_patch", PATCH.format(moved="src/new_name.py")) is None


@pytest.mark.parametrize("moved", ["src/vendor/lib.py", ".env.production", "docs/moved.py"])
def test_codex_patch_is_denied_when_any_file_it_names_is_refused(project: Path, moved: str) -> None:
    out = codex(project, "apply_patch", PATCH.format(moved=moved))
    assert out is not None
    reason = out["hookSpecificOutput"]["permissionDecisionReason"]
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert moved in reason


def test_codex_patch_run_through_the_shell_is_an_edit(project: Path) -> None:
    out = codex(project, "Bash", "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: src/vendor/x.js\n"
                                 "*** End Patch\nEOF")
    assert out is not None and "src/vendor/x.js" in out["hookSpecificOutput"]["permissionDecisionReason"]


def test_codex_patch_that_names_no_file_is_refused(project: Path) -> None:
    r = hook("codex", {"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "cwd": str(project),
                       "tool_input": {"command": "*** Begin Patch\n*** End Patch\n"}}, cwd=project)
    assert r.code == 2 and r.stdout == ""
    assert "names no file" in r.stderr


# --------------------------------------------------------------------------- Gemini CLI


def gemini(project: Path, tool: str, tool_input: dict) -> dict | None:
    r = hook("gemini", {"session_id": "s", "transcript_path": "/tmp/t.json", "cwd": str(project),
                        "hook_event_name": "BeforeTool", "timestamp": "2026-01-01T00:00:00Z", "tool_name": tool,
                        "tool_input": tool_input}, cwd=project)
    assert r.code == 0, r
    return r.json


def test_gemini_replies(project: Path) -> None:
    assert gemini(project, "run_shell_command", {"command": "git status"}) == {"decision": "allow"}
    notice = gemini(project, "run_shell_command", {"command": "npm install"})
    assert notice is not None and notice["decision"] == "allow" and "npm install" in notice["systemMessage"]
    asked = gemini(project, "run_shell_command", {"command": PUSH})
    assert asked is not None and asked["decision"] == "ask"
    denied = gemini(project, "replace", {"file_path": str(project / ".env"), "old_string": "a", "new_string": "b"})
    assert denied is not None and denied["decision"] == "deny" and ".env*" in denied["reason"]
    assert gemini(project, "write_file", {"file_path": "src/new.py", "content": ""}) == {"decision": "allow"}
    secret = gemini(project, "read_file", {"absolute_path": str(project / ".env")})
    assert secret is not None and secret["decision"] == "deny"
    assert gemini(project, "google_web_search", {"query": "x"}) == {}


def test_gemini_shell_in_a_subfolder_judges_writes_from_there(project: Path) -> None:
    out = gemini(project, "run_shell_command", {"command": "echo x > lib.js", "dir_path": "src/vendor"})
    assert out is not None and out["decision"] == "deny" and "src/vendor/lib.js" in out["reason"]


# --------------------------------------------------------------------------- Cursor


def cursor(project: Path, payload: dict) -> dict | None:
    r = hook("cursor", {"conversation_id": "c", "generation_id": "g", "workspace_roots": [str(project)], **payload},
             cwd=project)
    assert r.code == 0, r
    return r.json


def test_cursor_replies(project: Path) -> None:
    shell = {"hook_event_name": "beforeShellExecution", "cwd": str(project)}
    assert cursor(project, {**shell, "command": "git status"}) == {"permission": "allow"}
    asked = cursor(project, {**shell, "command": PUSH})
    assert asked is not None and asked["permission"] == "ask" and asked["user_message"]
    read = cursor(project, {"hook_event_name": "beforeReadFile", "file_path": str(project / ".env"), "content": "x"})
    assert read is not None and read["permission"] == "deny"
    edit = cursor(project, {"hook_event_name": "preToolUse", "tool_name": "Write",
                            "tool_input": {"file_path": str(project / "src/vendor/a.js"), "content": ""}})
    assert edit is not None and edit["permission"] == "deny" and "src/vendor/**" in edit["agent_message"]
    ok = cursor(project, {"hook_event_name": "preToolUse", "tool_name": "StrReplace",
                          "tool_input": {"path": "src/app.py", "old_string": "a", "new_string": "b"}})
    assert ok == {"permission": "allow"}
    assert cursor(project, {"hook_event_name": "afterFileEdit", "file_path": "x", "edits": []}) == {}


def test_cursor_garbage_is_denied_in_cursors_form(project: Path) -> None:
    r = hook("cursor", None, raw="{\"hook_event_name\": \"beforeShellExecution\"}", cwd=project)
    assert r.code == 0 and r.json is not None and r.json["permission"] == "deny"
    assert "command" in r.stderr


# --------------------------------------------------------------------------- GitHub Copilot


def test_copilot_cli_shape(project: Path) -> None:
    def run(tool: str, args: dict) -> dict | None:
        r = hook("copilot", {"timestamp": 1, "cwd": str(project), "toolName": tool, "toolArgs": json.dumps(args)},
                 cwd=project)
        assert r.code == 0, r
        return r.json

    asked = run("bash", {"command": PUSH})
    assert asked is not None and asked["permissionDecision"] == "ask"
    denied = run("edit", {"path": str(project / ".env"), "old_str": "a", "new_str": "b"})
    assert denied is not None and denied["permissionDecision"] == "deny" and ".env" in denied[
        "permissionDecisionReason"]
    assert (run("create", {"path": "src/x.py", "file_text": ""}) or {})["permissionDecision"] == "allow"
    assert run("web_fetch", {"url": "https://example.com"}) is None


def test_copilot_vscode_shape_is_answered_in_its_own_form(project: Path) -> None:
    r = hook("copilot", {"hook_event_name": "PreToolUse", "cwd": str(project), "tool_name": "editFiles",
                         "tool_input": {"files": [str(project / "src/app.py"), str(project / "src/vendor/v.js")]}},
             cwd=project)
    assert r.json is not None and r.json["hookSpecificOutput"]["permissionDecision"] == "deny"


# --------------------------------------------------------------------------- Cline


def cline(project: Path, tool: str, parameters: dict) -> dict | None:
    r = hook("cline", {"clineVersion": "3", "hookName": "PreToolUse", "timestamp": "1", "taskId": "t",
                       "workspaceRoots": [str(project)], "preToolUse": {"toolName": tool, "parameters": parameters}},
             cwd=project)
    assert r.code == 0, r
    return r.json


def test_cline_cannot_ask_so_tier_3_is_cancelled(project: Path) -> None:
    out = cline(project, "execute_command", {"command": PUSH, "requires_approval": "true"})
    assert out is not None and out["cancel"] is True and "a human runs it" in out["errorMessage"]


def test_cline_replies(project: Path) -> None:
    assert cline(project, "execute_command", {"command": "git status"}) == {"cancel": False}
    notice = cline(project, "execute_command", {"command": "npm install"})
    assert notice is not None and notice["cancel"] is False and "npm install" in notice["contextModification"]
    assert (cline(project, "write_to_file", {"path": ".env", "content": "x"}) or {})["cancel"] is True
    assert cline(project, "replace_in_file", {"path": "src/app.py", "diff": "x"}) == {"cancel": False}
    assert cline(project, "use_mcp_tool", {"server_name": "x"}) == {"cancel": False}


# --------------------------------------------------------------------------- OpenCode


def opencode(project: Path, tool: str, args: dict) -> dict | None:
    r = hook("opencode", {"tool": tool, "sessionID": "s", "callID": "c", "args": args, "directory": str(project),
                          "worktree": str(project)}, cwd=project)
    assert r.code == 0, r
    return r.json


def test_opencode_replies(project: Path) -> None:
    assert (opencode(project, "bash", {"command": "git status"}) or {})["decision"] == "allow"
    assert (opencode(project, "bash", {"command": "npm install"}) or {})["decision"] == "notify"
    denied = opencode(project, "bash", {"command": PUSH})
    assert denied is not None and denied["decision"] == "deny" and "a human runs it" in denied["message"]
    assert (opencode(project, "bash", {"command": "frobnicate"}) or {})["decision"] == "none"
    assert (opencode(project, "edit", {"filePath": str(project / ".env")}) or {})["decision"] == "deny"
    assert (opencode(project, "write", {"filePath": str(project / "src/x.py")}) or {})["decision"] == "allow"
    patch = PATCH.format(moved="src/vendor/x.py")
    assert (opencode(project, "apply_patch", {"patchText": patch}) or {})["decision"] == "deny"
    assert (opencode(project, "read", {"filePath": str(project / ".env")}) or {})["decision"] == "deny"
    assert (opencode(project, "webfetch", {"url": "https://example.com"}) or {})["decision"] == "none"


# Codex parses a hook's output with `additionalProperties: false` (codex-rs/hooks/schema/generated/
# pre-tool-use.command.output.schema.json): an unknown key makes the hook count as failed, and a
# failed hook lets the call through.
CODEX_TOP_KEYS = {"continue", "hookSpecificOutput", "stopReason", "suppressOutput", "systemMessage"}
CODEX_SPECIFIC_KEYS = {"additionalContext", "hookEventName", "permissionDecision", "permissionDecisionReason",
                       "updatedInput"}


@pytest.mark.parametrize("tool, command", [
    ("Bash", PUSH), ("Bash", "npm install"), ("Bash", "git status"), ("Bash", "frobnicate"),
    ("apply_patch", PATCH.format(moved="src/vendor/x.py")), ("apply_patch", PATCH.format(moved="src/y.py")),
])
def test_codex_replies_use_only_the_keys_its_schema_allows(project: Path, tool: str, command: str) -> None:
    out = codex(project, tool, command)
    if out is None:
        return
    assert set(out) <= CODEX_TOP_KEYS
    specific = out.get("hookSpecificOutput")
    if specific is not None:
        assert set(specific) <= CODEX_SPECIFIC_KEYS
        assert specific["hookEventName"] == "PreToolUse"
        assert specific["permissionDecision"] == "deny" and specific["permissionDecisionReason"].strip()
