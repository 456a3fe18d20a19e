"""Gemini CLI: its BeforeTool hook protocol (and, below, its native settings)."""

from __future__ import annotations

# ---- hook protocol
# `handrail hook gemini`, registered in .gemini/settings.json under hooks.BeforeTool.
# Gemini reads `decision` (allow, deny, ask) and `reason` (sent to the agent) and
# shows `systemMessage` to the user; exit 2 blocks with stderr as the reason.
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

NAME = "gemini"
CAN_ASK = True
EVENT = "BeforeTool"
EVENTS = frozenset({"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
                    "BeforeToolSelection", "SessionStart", "SessionEnd", "PreCompress", "Notification"})
SHELL_TOOLS = frozenset({"run_shell_command"})
EDIT_TOOLS = frozenset({"write_file", "replace", "edit"})
READ_TOOLS = frozenset({"read_file"})
PATH_KEYS = ("file_path", "absolute_path", "path")
HOOK_MATCHER = "run_shell_command|write_file|replace|edit|read_file|read_many_files"


def question(payload: object) -> Question | None:
    data = need_dict(payload, "payload")
    event = event_of(data, EVENTS)
    if event is not None and event != EVENT:
        return None
    tool = need_str(data, "tool_name", "payload")
    cwd = opt_str(data, "cwd")
    if tool in SHELL_TOOLS:
        args = need_dict(data.get("tool_input"), "tool_input")
        # `dir_path` (older: `directory`) runs the command in a folder of the workspace.
        where = opt_str(args, "dir_path", "tool_input") or opt_str(args, "directory", "tool_input")
        if where and cwd and not where.startswith("/"):
            where = cwd.rstrip("/") + "/" + where
        return Question(SHELL, tool, command=need_str(args, "command", "tool_input"), cwd=where or cwd)
    if tool in EDIT_TOOLS:
        args = need_dict(data.get("tool_input"), "tool_input")
        return Question(EDIT, tool, paths=[first_str(args, PATH_KEYS, "tool_input")], cwd=cwd)
    if tool in READ_TOOLS:
        args = need_dict(data.get("tool_input"), "tool_input")
        return Question(READ, tool, paths=[first_str(args, PATH_KEYS, "tool_input")], cwd=cwd)
    if tool == "read_many_files":
        args = need_dict(data.get("tool_input"), "tool_input")
        paths = args.get("paths")
        if not isinstance(paths, list) or not all(isinstance(p, str) and p.strip() for p in paths):
            raise BadPayload("tool_input.paths: expected a list of paths")
        # Glob patterns name no one file: a pattern that spells a secret is refused all the same.
        return Question(READ, tool, paths=paths, cwd=cwd) if paths else Question(OTHER, tool)
    return Question(OTHER, tool)


def reply(answer: Answer) -> tuple[str, int]:
    if answer.verdict == DENY:
        if answer.broken:
            return "", 2
        return reason_json({"decision": "deny", "reason": answer.message}), 0
    if answer.verdict == ASK:
        return reason_json({"decision": "ask", "reason": answer.message, "systemMessage": answer.message}), 0
    if answer.verdict == NOTIFY:
        return reason_json({"decision": "allow", "systemMessage": answer.message}), 0
    if answer.verdict == ALLOW:
        return reason_json({"decision": "allow"}), 0
    return "{}", 0  # no opinion: Gemini's own confirmation applies


def main(argv: list[str]) -> int:
    from handrail.hooks.pretool import run

    return run(sys.modules[__name__], argv)


# ---- native files
# `.gemini/settings.json`, merged with the user's: the BeforeTool and SessionStart hooks,
# and `policyPaths` naming handrail's Policy Engine file `.gemini/policies/handrail.toml`.
# That file allows (no confirmation) the tier 1 and 2 patterns a command prefix can hold.
# Gemini 0.61 reads no workspace policy folder (its loader has them switched off) but
# does read the files `policyPaths` lists, at its user tier; a `policyPaths` replaces the
# user's own ~/.gemini/policies, so that folder is listed too. `tools.allowed` (what
# earlier handrail wrote) is deprecated, with a warning on every start: handrail's old
# entries there are removed, the user's kept. A prefix that could admit a tier-3 command
# (`git push` admits `git push --force`) is left out: Gemini then confirms, and the hook
# judges, before any policy rule, every call. Hook timeouts are milliseconds.
# Imported only by `handrail permissions` and `doctor`.

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from handrail.native import JsonFile, TextFile
    from handrail.policy.protocol import Protocol

HOOK_FILE = ".gemini/settings.json"
HOOK_MARK = "handrail hook gemini"
POLICY_FILE = ".gemini/policies/handrail.toml"
USER_POLICIES = "~/.gemini/policies"
# The Policy Engine's user tier spans priorities 0-999; the user's own rules there at a
# higher priority (a deny of theirs at 100, say) outrank handrail's allows.
PRIORITY = 10


def native_files(proto: Protocol) -> list[JsonFile | TextFile]:
    from handrail import native, prefixes
    from handrail.policy import protocol as protocols

    policy = protocols.resolve_tool(proto, NAME)
    ours = native.runs_handrail_hook
    allowed = [" ".join(words) for words, _p in prefixes.allow_prefixes(proto, policy)]
    before = {"matcher": HOOK_MATCHER, "hooks": [
        {"type": "command", "command": native.hook_command(NAME, block_on_failure=True), "timeout": 30000}]}
    session = {"hooks": [{"type": "command", "command": f"handrail hook session-start --harness {NAME}",
                          "timeout": 10000}]}
    return [native.JsonFile(HOOK_FILE, [
        native.ListSlot(("policyPaths",), [POLICY_FILE, USER_POLICIES]),
        native.ListSlot(("tools", "allowed"), [], _old_allowed(allowed), retired=True),
        native.ListSlot(("hooks", "BeforeTool"), [before], ours),
        native.ListSlot(("hooks", "SessionStart"), [session], ours),
    ]), native.TextFile(POLICY_FILE, policy_text(allowed))]


def _old_allowed(allowed: list[str]) -> Callable[[object], bool]:
    """Recognises the `tools.allowed` entries earlier handrail wrote (the same prefixes),
    so that they go even where the record of them was lost."""
    old = {f"run_shell_command({prefix})" for prefix in allowed}
    return lambda item: item in old


def policy_text(allowed: list[str]) -> str:
    import json

    head = ("# Generated by handrail from .handrail/autonomy-protocol.json; `handrail permissions`\n"
            "# rewrites it. Gemini CLI runs these command prefixes without asking (tiers 1 and 2);\n"
            "# handrail's BeforeTool hook judges every call before any rule here.\n")
    if not allowed:
        return head + "# The protocol allows no command prefix here: Gemini confirms each command.\n"
    lines = "".join(f"  {json.dumps(prefix)},\n" for prefix in allowed)
    return (head + "\n[[rule]]\n" 'toolName = "run_shell_command"\n'
            f"commandPrefix = [\n{lines}]\n" 'decision = "allow"\n' f"priority = {PRIORITY}\n")
