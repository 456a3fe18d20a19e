"""Claude Code: its PreToolUse hook protocol (and, below, its native permission files)."""

from __future__ import annotations

# ---- hook protocol
# `handrail hook claude`, registered in .claude/settings.json under hooks.PreToolUse.
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
    opt_str,
    reason_json,
)

NAME = "claude"
CAN_ASK = True
EVENT = "PreToolUse"
# Every event Claude Code (2.1) sends a hook: one registered for another is no call to judge.
EVENTS = frozenset({
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification", "UserPromptSubmit",
    "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
    "PreCompact", "PostCompact", "PermissionRequest", "PermissionDenied", "Setup", "TeammateIdle", "TaskCreated",
    "TaskCompleted", "Elicitation", "ElicitationResult", "ConfigChange", "WorktreeCreate", "WorktreeRemove",
    "InstructionsLoaded", "CwdChanged", "FileChanged", "MessageDisplay"})
EDIT_TOOLS = {"Edit": ("file_path",), "Write": ("file_path",), "MultiEdit": ("file_path",),
              "NotebookEdit": ("notebook_path", "file_path")}
READ_TOOLS = {"Read": ("file_path",), "NotebookRead": ("notebook_path", "file_path")}
SHELL_TOOLS = frozenset({"Bash"})
HOOK_MATCHER = "Bash|Edit|Write|MultiEdit|NotebookEdit|Read|NotebookRead|Grep"


def question(payload: object) -> Question | None:
    data = need_dict(payload, "payload")
    event = event_of(data, EVENTS)
    if event is not None and event != EVENT:
        return None  # registered for another event by mistake: not ours to judge
    tool = need_str(data, "tool_name", "payload")
    cwd = opt_str(data, "cwd")
    _COPILOT[0] = False
    copilot = copilot_question(tool, data.get("tool_input"), cwd)
    if copilot is not None:
        return copilot
    if tool in SHELL_TOOLS:
        return Question(SHELL, tool, command=need_str(need_dict(data.get("tool_input"), "tool_input"), "command",
                                                      "tool_input"), cwd=cwd)
    if tool in EDIT_TOOLS:
        args = need_dict(data.get("tool_input"), "tool_input")
        return Question(EDIT, tool, paths=[first_str(args, EDIT_TOOLS[tool], "tool_input")], cwd=cwd)
    if tool in READ_TOOLS:
        args = need_dict(data.get("tool_input"), "tool_input")
        return Question(READ, tool, paths=[first_str(args, READ_TOOLS[tool], "tool_input")], cwd=cwd)
    if tool == "Grep":
        args = need_dict(data.get("tool_input"), "tool_input")
        path = opt_str(args, "path", "tool_input")
        return Question(READ, tool, paths=[path], cwd=cwd) if path.strip() else Question(OTHER, tool)
    return Question(OTHER, tool)


# GitHub Copilot CLI runs the hooks in .claude/settings.json too, with Claude's tool names
# but its own arguments: `path` (not `file_path`) for Read, Write and Edit, Edit's input the
# raw text of its free-form apply_patch, Grep's `paths` a folder or a list. It reads the same
# `hookSpecificOutput`, but shows only "hook exited with code 2" for exit 2, so a broken call
# of its is refused in JSON, with the reason.
_COPILOT = [False]


def copilot_question(tool: str, tool_input: object, cwd: str) -> Question | None:
    """The question of a call Copilot sent in Claude's shape, or None for Claude Code's own."""
    if tool == "Edit" and isinstance(tool_input, str):
        from handrail.harnesses.patch import patch_paths

        _COPILOT[0] = True
        try:
            return Question(EDIT, tool, paths=patch_paths(tool_input), cwd=cwd)
        except ValueError as e:
            raise BadPayload(f"tool_input: apply_patch: {e}") from None
    if not isinstance(tool_input, dict):
        return None
    keys = EDIT_TOOLS.get(tool) or READ_TOOLS.get(tool)
    if keys is not None and "path" in tool_input and not any(k in tool_input for k in keys):
        _COPILOT[0] = True
        kind = EDIT if tool in EDIT_TOOLS else READ
        return Question(kind, tool, paths=[need_str(tool_input, "path", "tool_input")], cwd=cwd)
    if tool == "Grep" and "paths" in tool_input:
        from handrail.harnesses.copilot import search_paths
        from handrail.hooks.pretool import SEARCH

        _COPILOT[0] = True
        glob = opt_str(tool_input, "glob", "tool_input")
        return Question(SEARCH, tool, paths=search_paths(tool_input), globs=[glob] if glob else [], cwd=cwd)
    return None


def reply(answer: Answer) -> tuple[str, int]:
    """Claude reads `hookSpecificOutput.permissionDecision`; a notice also goes to the
    user as `systemMessage`. A broken call exits 2: Claude blocks it with stderr."""
    if answer.verdict == DENY and answer.broken and not _COPILOT[0]:
        return "", 2
    decision = {ALLOW: "allow", NOTIFY: "allow", ASK: "ask", DENY: "deny"}.get(answer.verdict)
    if decision is None:
        return "", 0  # no opinion: Claude's own permission rules decide
    out: dict[str, object] = {"hookSpecificOutput": {"hookEventName": EVENT, "permissionDecision": decision,
                                                     "permissionDecisionReason": answer.message}}
    if answer.verdict in (NOTIFY, ASK):
        out["systemMessage"] = answer.message
    return reason_json(out), 0


def main(argv: list[str]) -> int:
    from handrail.hooks.pretool import run

    return run(sys.modules[__name__], argv)


# ---- native files
# `.claude/settings.json`, merged with what the user wrote there: no Bash allow rules (the
# hook allows tier 1 and 2), tier 3 as `ask` (`deny` when the protocol denies it), forbidden
# and protected paths as `Edit` denies and secrets as `Read` denies, and the
# PreToolUse and SessionStart hooks. Claude evaluates deny, then ask, then allow, so
# a tier-3 rule outranks any allow. Project allow rules need workspace trust (and are
# ignored under `-p`); ask, deny and hooks always apply. Imported only by
# `handrail permissions` and `doctor`: nothing here runs before a tool call.

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.native import JsonFile, TextFile
    from handrail.policy.protocol import Protocol

HOOK_FILE = ".claude/settings.json"
HOOK_MARK = "handrail hook claude"


def path_rule(pattern: str) -> str:
    """A gitignore pattern as Claude's path rule: `/x` is x at the project root and a
    pattern without a slash matches at any depth, as in gitignore."""
    p = pattern.lstrip("/")
    return f"/{p}" if "/" in p else f"/**/{p}"


def native_files(proto: Protocol) -> list[JsonFile | TextFile]:
    from handrail import native
    from handrail.policy import protocol as protocols

    policy = protocols.resolve_tool(proto, NAME)
    ours = native.runs_handrail_hook
    pre_tool = {"matcher": HOOK_MATCHER, "hooks": [
        {"type": "command", "command": native.hook_command(NAME, block_on_failure=True), "timeout": 30}]}
    session = {"hooks": [{"type": "command", "command": f"handrail hook session-start --harness {NAME}",
                          "timeout": 10}]}
    deny = [f"Bash({p.text})" for p in policy.deny]
    deny += [f"Edit({path_rule(p)})" for p in native.path_denies()]
    deny += [f"Read({path_rule(p)})" for p in native.secret_paths()]
    return [native.JsonFile(HOOK_FILE, [
        # No Bash allow rules: a word prefix cannot say what a command does (`Bash(rm *)` admits
        # `rm -rf src`, `Bash(cat *)` admits `cat .env`), and the PreToolUse hook allows tier 1
        # and 2 itself. Should the hook not run, Claude then asks instead of allowing.
        native.ListSlot(("permissions", "allow"), []),
        native.ListSlot(("permissions", "ask"), [f"Bash({p.text})" for p in policy.ask]),
        native.ListSlot(("permissions", "deny"), deny),
        native.ListSlot(("hooks", "PreToolUse"), [pre_tool], ours),
        native.ListSlot(("hooks", "SessionStart"), [session], ours),
    ])]
