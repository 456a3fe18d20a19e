"""GitHub Copilot (coding agent, CLI, VS Code agent mode): its preToolUse hook protocol
(and, below, its native files)."""

from __future__ import annotations

# ---- hook protocol
# `handrail hook copilot`, registered in .github/hooks/*.json under hooks.preToolUse.
# The CLI and coding agent send `{toolName, toolArgs, cwd}` (`toolArgs` may be a JSON
# string) and read `{permissionDecision, permissionDecisionReason}`; VS Code sends
# Claude's shape (`tool_name`, `tool_input`) and reads `hookSpecificOutput`. Each is
# answered in its own shape. This module is imported before every tool call: keep
# its top-level imports light.
import sys

from handrail.hooks.pretool import (
    ALLOW,
    ASK,
    DENY,
    EDIT,
    NOTIFY,
    OTHER,
    READ,
    SHELL,
    Answer,
    BadPayload,
    Question,
    event_of,
    need_dict,
    need_str,
    opt_str,
    reason_json,
)

NAME = "copilot"
CAN_ASK = True
SHELL_TOOLS = frozenset({"bash", "shell", "powershell", "run_in_terminal", "runInTerminal", "runTerminalCommand",
                         "Bash"})
EDIT_TOOLS = frozenset({"edit", "create", "write", "str_replace_editor", "str_replace", "insert", "editFiles",
                        "createFile", "replaceString", "multiReplaceString", "insertEdit", "editNotebook",
                        "Edit", "Write", "MultiEdit"})
PATCH_TOOLS = frozenset({"apply_patch", "applyPatch"})
READ_TOOLS = frozenset({"view", "read", "readFile", "read_file", "Read"})
PATH_KEYS = ("path", "filePath", "file_path")
# The events VS Code sends a Claude-shaped hook, and the CLI's own (camelCase) names.
EVENTS = frozenset({"PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "Stop", "SubagentStart",
                    "SubagentStop", "PreCompact", "preToolUse", "postToolUse", "sessionStart", "sessionEnd",
                    "userPromptSubmitted", "errorOccurred"})
PRE_TOOL = frozenset({"PreToolUse", "preToolUse"})
_VSCODE_SHAPE: list[bool] = [False]  # which shape the payload came in, for the reply


def question(payload: object) -> Question | None:
    _VSCODE_SHAPE[0] = False
    data = need_dict(payload, "payload")
    event = event_of(data, EVENTS)
    if event is not None and event not in PRE_TOOL:
        return None  # registered for another event by mistake: not ours to judge
    if "toolName" in data:
        tool = need_str(data, "toolName", "payload")
        args = _args(data.get("toolArgs"))
    else:
        _VSCODE_SHAPE[0] = True
        tool = need_str(data, "tool_name", "payload")
        args = _args(data.get("tool_input"))
    cwd = opt_str(data, "cwd")
    if tool in SHELL_TOOLS:
        return Question(SHELL, tool, command=need_str(args, "command", "toolArgs"), cwd=cwd)
    if tool in EDIT_TOOLS:
        # str_replace_editor's `view` command only reads.
        kind = READ if tool == "str_replace_editor" and args.get("command") == "view" else EDIT
        return Question(kind, tool, paths=_paths(args), cwd=cwd)
    if tool in PATCH_TOOLS:
        from handrail.harnesses.patch import patch_paths

        text = args.get("input", args.get("patch", args.get("patchText")))
        if not isinstance(text, str):
            raise BadPayload("toolArgs.input: expected the patch text")
        try:
            return Question(EDIT, tool, paths=patch_paths(text), cwd=cwd)
        except ValueError as e:
            raise BadPayload(f"apply_patch: {e}") from None
    if tool in READ_TOOLS:
        return Question(READ, tool, paths=_paths(args), cwd=cwd)
    return Question(OTHER, tool)


def _args(value: object) -> dict[str, Any]:
    if isinstance(value, str):
        import json

        try:
            value = json.loads(value)
        except ValueError:
            raise BadPayload("toolArgs: a string that is not JSON") from None
    return need_dict(value, "toolArgs")


def _paths(args: dict[str, Any]) -> list[str]:
    files = args.get("files")
    if files is not None:
        if not isinstance(files, list) or not files or not all(isinstance(f, str) and f.strip() for f in files):
            raise BadPayload("toolArgs.files: expected a list of paths")
        return files
    for key in PATH_KEYS:
        if key in args:
            return [need_str(args, key, "toolArgs")]
    raise BadPayload(f"toolArgs: none of {', '.join(PATH_KEYS)} is given")


def reply(answer: Answer) -> tuple[str, int]:
    decision = {ALLOW: "allow", NOTIFY: "allow", ASK: "ask", DENY: "deny"}.get(answer.verdict)
    if decision is None:
        return "", 0  # no opinion: Copilot's own rules decide
    if _VSCODE_SHAPE[0]:
        out: dict[str, object] = {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                                         "permissionDecision": decision,
                                                         "permissionDecisionReason": answer.message}}
        if answer.verdict in (NOTIFY, ASK):
            out["systemMessage"] = answer.message
        return reason_json(out), 0
    return reason_json({"permissionDecision": decision, "permissionDecisionReason": answer.message}), 0


def main(argv: list[str]) -> int:
    from handrail.hooks.pretool import run

    return run(sys.modules[__name__], argv)


# ---- native files
# `.github/hooks/handrail.json`, handrail's own file (Copilot reads every
# `.github/hooks/*.json`): the preToolUse hook, for bash and PowerShell alike.
# Imported only by `handrail permissions` and `doctor`.

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from handrail.native import JsonFile, TextFile
    from handrail.policy.protocol import Protocol

HOOK_FILE = ".github/hooks/handrail.json"
HOOK_MARK = "handrail hook copilot"


def native_files(proto: Protocol) -> list[JsonFile | TextFile]:
    from handrail import native
    from handrail.fsio import dump_json

    command = native.hook_command(NAME)
    hook = {"type": "command", "bash": command, "powershell": command, "timeoutSec": 30}
    return [native.TextFile(HOOK_FILE, dump_json({"version": 1, "hooks": {"preToolUse": [hook]}}))]
