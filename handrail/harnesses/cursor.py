"""Cursor: its agent hook protocol (and, below, its native permission file)."""

from __future__ import annotations

# ---- hook protocol
# `handrail hook cursor`, registered in .cursor/hooks.json for beforeShellExecution,
# beforeReadFile and preToolUse. Shell events carry `command` and `cwd`, file events
# `file_path`, preToolUse `tool_name` and `tool_input`; the answer is
# `{"permission": "allow|deny|ask", "user_message", "agent_message"}`. Field names are
# partly unverified (no Cursor client runs here), so the reader takes the known variants.
# This module is imported before every tool call: keep its top-level imports light.
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
    first_str,
    need_dict,
    need_str,
    opt_roots,
    opt_str,
    reason_json,
)

NAME = "cursor"
CAN_ASK = True
SHELL_TOOLS = frozenset({"Shell", "Bash", "run_terminal_cmd", "Terminal"})
EDIT_TOOLS = frozenset({"Write", "Edit", "StrReplace", "MultiEdit", "Delete", "TabWrite", "edit_file", "search_replace",
                        "delete_file", "write", "NotebookEdit", "EditNotebook"})
READ_TOOLS = frozenset({"Read", "read_file", "ReadFile"})
PATH_KEYS = ("file_path", "path", "target_file", "filePath", "notebook_path")
SHELL_EVENTS = frozenset({"beforeShellExecution"})
READ_EVENTS = frozenset({"beforeReadFile", "beforeTabFileRead"})
TOOL_EVENTS = frozenset({"preToolUse"})
# Every event Cursor (2.6) sends a hook; the others are nothing for this hook to judge.
EVENTS = SHELL_EVENTS | READ_EVENTS | TOOL_EVENTS | frozenset({
    "beforeMCPExecution", "afterShellExecution", "afterMCPExecution", "afterFileEdit", "afterTabFileEdit", "stop",
    "beforeSubmitPrompt", "afterAgentResponse", "afterAgentThought", "sessionStart", "sessionEnd", "preCompact",
    "subagentStart", "subagentStop", "postToolUse", "postToolUseFailure", "workspaceOpen"})
HELP = """
Cursor's agent hook: allow, ask or deny one call before it runs.
Registered in .cursor/hooks.json (beforeShellExecution, beforeReadFile, preToolUse).

Reads stdin, by hook_event_name:
  beforeShellExecution {command, cwd}            judged as a shell command
  beforeReadFile, beforeTabFileRead {file_path}  refused when the file holds secrets
  preToolUse {tool_name, tool_input}             Write, Edit, StrReplace, Delete, ... judged
                                                 as edits; Shell as a command; Read as a read
  workspace_roots                                the project folder, where Cursor names it
Field names are partly unverified: the known variants are read. Every answer, a broken
one included, is Cursor's JSON, its documented way to refuse.
"""


def question(payload: object) -> Question | None:
    q = _question(payload)
    if q is not None:  # the folder the harness names as the project: it, not the call's cwd, picks the root
        data = need_dict(payload, "payload")
        q.project = opt_roots(data, "workspace_roots")
    return q


def _question(payload: object) -> Question | None:
    data = need_dict(payload, "payload")
    event = event_of(data, EVENTS)
    cwd = opt_str(data, "cwd") or opt_roots(data, "workspace_roots")
    if event in SHELL_EVENTS or (event is None and "command" in data and "tool_name" not in data):
        return Question(SHELL, "beforeShellExecution", command=need_str(data, "command", "payload"), cwd=cwd)
    if event in READ_EVENTS or (event is None and "file_path" in data and "tool_name" not in data):
        return Question(READ, str(event or "beforeReadFile"), paths=[need_str(data, "file_path", "payload")], cwd=cwd)
    if event in TOOL_EVENTS or (event is None and "tool_name" in data):
        tool = need_str(data, "tool_name", "payload")
        if tool in SHELL_TOOLS or tool in EDIT_TOOLS or tool in READ_TOOLS:
            args = _args(data.get("tool_input"))
            if tool in SHELL_TOOLS:
                return Question(SHELL, tool, command=need_str(args, "command", "tool_input"),
                                cwd=opt_str(args, "cwd", "tool_input")
                                or opt_str(args, "working_directory", "tool_input") or cwd)
            kind = EDIT if tool in EDIT_TOOLS else READ
            return Question(kind, tool, paths=[first_str(args, PATH_KEYS, "tool_input")], cwd=cwd)
        return Question(OTHER, tool)
    if event is not None:
        return None  # afterFileEdit, stop, beforeMCPExecution…: nothing for this hook to judge
    raise BadPayload("payload: no hook_event_name, command, file_path or tool_name")


def _args(value: object) -> dict[str, Any]:
    if isinstance(value, str):  # some events send tool_input as a JSON string
        import json

        try:
            value = json.loads(value)
        except ValueError:
            raise BadPayload("tool_input: a string that is not JSON") from None
    return need_dict(value, "tool_input")


def reply(answer: Answer) -> tuple[str, int]:
    """Every answer, a broken one included, is Cursor's JSON: its documented way to refuse."""
    if answer.verdict == DENY:
        return reason_json({"permission": "deny", "user_message": answer.message,
                            "agent_message": answer.message}), 0
    if answer.verdict == ASK:
        return reason_json({"permission": "ask", "user_message": answer.message,
                            "agent_message": answer.message}), 0
    if answer.verdict == NOTIFY:
        return reason_json({"permission": "allow", "user_message": answer.message}), 0
    if answer.verdict == ALLOW:
        return reason_json({"permission": "allow"}), 0
    return "{}", 0  # no opinion: Cursor's own settings decide


def main(argv: list[str]) -> int:
    from handrail.hooks.pretool import run

    return run(sys.modules[__name__], argv)


# ---- native files
# `.cursor/hooks.json`, merged with the user's: the shell, read and edit hooks that
# run `handrail hook cursor`, and sessionStart. Cursor's command permissions
# (`.cursor/cli.json`) are unverified, so none are written: the hooks decide.
# Imported only by `handrail permissions` and `doctor`.

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from handrail.native import JsonFile, TextFile
    from handrail.policy.allowrules import AllowRule
    from handrail.policy.protocol import Protocol

HOOK_FILE = ".cursor/hooks.json"
HOOK_MARK = "handrail hook cursor"


def native_files(proto: Protocol) -> list[JsonFile | TextFile]:
    from handrail import native

    ours = native.runs_handrail_hook
    command = native.hook_command(NAME)
    slots = [native.ListSlot(("hooks", event), [{"command": command}], ours)
             for event in sorted(SHELL_EVENTS | READ_EVENTS)]
    slots.append(native.ListSlot(("hooks", "preToolUse"),
                                 [{"command": command, "matcher": "|".join(sorted(EDIT_TOOLS))}], ours))
    slots.append(native.ListSlot(("hooks", "sessionStart"),
                                 [{"command": f"handrail hook session-start --harness {NAME}"}], ours))
    return [native.JsonFile(HOOK_FILE, slots, defaults=[(("version",), 1)])]


CLI_FILE = ".cursor/cli.json"


def hand_allow_rules(project: str, owned: dict[str, dict[str, list[object]]]) -> list[AllowRule]:
    """`Shell(…)` entries of `.cursor/cli.json` `permissions.allow` (handrail writes none), which
    the Cursor CLI reads as a command base: `Shell(git)` admits every git command."""
    from handrail import native
    from handrail.policy.allowrules import PREFIX, paren_rule

    del owned
    data = native.user_json(project, CLI_FILE)
    permissions = data.get("permissions") if isinstance(data, dict) else None
    allow = permissions.get("allow") if isinstance(permissions, dict) else None
    fix = f"remove it from permissions.allow in {CLI_FILE}: handrail's hook allows tier 1 and 2 itself"
    rules = [paren_rule(e, ("Shell",), CLI_FILE, fix, bare=PREFIX) for e in allow or [] if isinstance(allow, list)]
    return [r for r in rules if r is not None]
