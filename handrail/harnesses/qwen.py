"""Qwen Code: its PreToolUse hook protocol (and, below, its native settings)."""

from __future__ import annotations

# ---- hook protocol
# `handrail hook qwen`, registered in .qwen/settings.json under hooks.PreToolUse. Qwen Code
# (0.15) is a Gemini CLI fork with Claude's hook protocol: stdin `{hook_event_name, cwd,
# tool_name, tool_input, …}` with Gemini's tool names and arguments; it reads
# `hookSpecificOutput.permissionDecision` and its reason. The hook runs after Qwen's own
# approval (yolo, allow rules, the user's yes), just before the tool executes, so it has
# the last word. An `ask` there never reaches a person: Qwen blocks the call with the
# reason, so handrail cannot ask (tier 3 is refused). Exit 2 blocks with stderr as the
# reason; any other failure, a timeout or a crash lets the call through.
# This module is imported before every tool call: keep its top-level imports light.
import sys

from handrail.harnesses import gemini
from handrail.hooks.pretool import (
    DENY,
    OTHER,
    READ,
    SEARCH,
    SHELL,
    Answer,
    Question,
    event_of,
    hook_specific,
    need_dict,
    need_str,
    opt_str,
)

NAME = "qwen"
CAN_ASK = False
EVENT = "PreToolUse"
# Every event Qwen Code 0.15 sends a hook: one registered for another is no call to judge.
EVENTS = frozenset({
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop",
    "StopFailure", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "Notification",
    "PermissionRequest"})
# `monitor` runs a shell command and streams its output, with the same `directory` as the shell tool.
SHELL_TOOLS = frozenset({"run_shell_command", "monitor"})
# `search_file_content` is grep_search's older name, still accepted from the model.
GREP_TOOLS = frozenset({"grep_search", "search_file_content"})
# Every tool handrail judges; the matcher is a regular expression Qwen tests unanchored.
TOOLS = ("run_shell_command", "monitor", "write_file", "edit", "replace", "read_file", "read_many_files",
         "grep_search", "search_file_content", "lsp")
HOOK_MATCHER = "^(" + "|".join(TOOLS) + ")$"
HELP = """
Qwen Code's PreToolUse hook: allow or deny one tool call just before it runs.
It runs after Qwen's own approval, so it has the last word. Registered in .qwen/settings.json
(hooks.PreToolUse).

Reads stdin: {"hook_event_name": "PreToolUse", "tool_name", "tool_input", "cwd"}, with
Gemini CLI's tool names:
  run_shell_command, monitor {command, directory}   judged as a shell command
  write_file, edit, replace {file_path}             judged as edits
  read_file, read_many_files, grep_search, lsp      refused when they reach secrets
  any other tool                                    no opinion
"""


def question(payload: object) -> Question | None:
    data = need_dict(payload, "payload")
    event = event_of(data, EVENTS)
    if event is not None and event != EVENT:
        return None  # registered for another event by mistake: not ours to judge
    tool = need_str(data, "tool_name", "payload")
    cwd = opt_str(data, "cwd")
    if tool in SHELL_TOOLS:
        args = need_dict(data.get("tool_input"), "tool_input")
        where = opt_str(args, "directory", "tool_input")
        if where and cwd and not where.startswith("/"):
            where = cwd.rstrip("/") + "/" + where
        return Question(SHELL, tool, command=need_str(args, "command", "tool_input"), cwd=where or cwd)
    if tool in GREP_TOOLS:
        # rg over `path` (default: the project), filtered by its one `glob`.
        args = need_dict(data.get("tool_input"), "tool_input")
        path, glob = opt_str(args, "path", "tool_input"), opt_str(args, "glob", "tool_input")
        return Question(SEARCH, tool, paths=[path] if path.strip() else [], globs=[glob] if glob.strip() else [],
                        cwd=cwd)
    if tool == "lsp":
        # A language server answers about one file (hover, symbols): a read of it.
        args = need_dict(data.get("tool_input"), "tool_input")
        path = opt_str(args, "filePath", "tool_input")
        return Question(READ, tool, paths=[path], cwd=cwd) if path.strip() else Question(OTHER, tool)
    if tool in ("list_directory", "glob"):
        return Question(OTHER, tool)  # file names, never a file's contents
    # The file tools have Gemini CLI's names and arguments: read by its adapter, our event checked above.
    return gemini.question({k: v for k, v in data.items() if k != "hook_event_name"})


def reply(answer: Answer) -> tuple[str, int]:
    """Qwen reads `hookSpecificOutput.permissionDecision` and its reason (which the agent
    is told on a deny); `systemMessage` shows a notice to the user. A broken call exits 2:
    Qwen blocks it with stderr as the reason."""
    if answer.verdict == DENY and answer.broken:
        return "", 2
    return hook_specific(answer, EVENT)  # tier 3 never asks here: CAN_ASK is False


def main(argv: list[str]) -> int:
    from handrail.hooks.pretool import run

    return run(sys.modules[__name__], argv)


# ---- native files
# `.qwen/settings.json`, merged with the user's: the PreToolUse and SessionStart hooks
# (timeouts are milliseconds), and no permission rules. An allow rule is a word prefix
# (`Bash(cat)` admits `cat .env`, `Bash(printenv)` the whole environment), and it only
# matters where the hook does not run, which is exactly where it would let tier 3
# through. `ask` and `deny` rules Qwen answers before the hook, with its own text, so the
# agent would never learn handrail's reason and way forward (under `-p` an ask is a bare
# refusal); the hook refuses those calls itself. Imported only by `handrail permissions`
# and `doctor`.

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.native import JsonFile, TextFile
    from handrail.policy.allowrules import AllowRule
    from handrail.policy.protocol import Protocol

HOOK_FILE = ".qwen/settings.json"
HOOK_MARK = "handrail hook qwen"
# Completes "before its hooks run, …": Qwen loads a project's settings unless folder trust is on
# and the folder is marked untrusted.
TRUST = ("nothing, unless security.folderTrust.enabled is set in ~/.qwen/settings.json: then trust the "
         "folder in Qwen Code's dialog (or /permissions), since an untrusted one loads no .qwen/settings.json")


def native_files(proto: Protocol) -> list[JsonFile | TextFile]:
    from handrail import native

    ours = native.runs_handrail_hook
    pre_tool = {"matcher": HOOK_MATCHER, "hooks": [
        {"type": "command", "command": native.hook_command(NAME, block_on_failure=True), "name": "handrail",
         "timeout": 30000}]}
    session = {"hooks": [{"type": "command", "command": f"handrail hook session-start --harness {NAME}",
                          "timeout": 10000}]}
    return [native.JsonFile(HOOK_FILE, [
        native.ListSlot(("hooks", "PreToolUse"), [pre_tool], ours),
        native.ListSlot(("hooks", "SessionStart"), [session], ours),
    ])]


def trust_state(project: str, home: str) -> bool | None:
    """Does Qwen Code load this project's `.qwen/settings.json`? True where folder trust is
    off (its default) or the folder is trusted or not ruled on (Qwen then loads it); False
    where ~/.qwen/trustedFolders.json marks it DO_NOT_TRUST and nothing trusts it; None where
    a file it reads is not valid JSON (Qwen stops at start then)."""
    import json
    import os

    from handrail.native import without_comments

    def load(path: str) -> object:
        try:
            with open(path, encoding="utf-8") as f:
                return json.loads(without_comments(f.read()))
        except FileNotFoundError:
            return {}

    qwen_dir = os.path.join(home, ".qwen")
    try:
        settings = load(os.path.join(qwen_dir, "settings.json"))
        if not isinstance(settings, dict):
            return None
        security = settings.get("security")
        trust = security.get("folderTrust") if isinstance(security, dict) else None
        if not (isinstance(trust, dict) and trust.get("enabled") is True):
            return True
        rules = load(os.path.join(qwen_dir, "trustedFolders.json"))
    except (OSError, ValueError):
        return None
    if not isinstance(rules, dict):
        return None
    where = os.path.normpath(os.path.abspath(project))
    trusted = [str(p) if level == "TRUST_FOLDER" else os.path.dirname(str(p))
               for p, level in rules.items() if level in ("TRUST_FOLDER", "TRUST_PARENT")]
    if any(where == os.path.normpath(t) or where.startswith(os.path.normpath(t).rstrip("/") + "/") for t in trusted):
        return True
    return not any(level == "DO_NOT_TRUST" and os.path.normpath(str(p)) == where for p, level in rules.items())


def hand_allow_rules(project: str, owned: dict[str, dict[str, list[object]]]) -> list[AllowRule]:
    """Shell allow rules in Qwen's settings (handrail writes none): `permissions.allow` and the
    older `tools.allowed`, whose `Bash(x)`, `run_shell_command(x)` are word prefixes."""
    from handrail import native
    from handrail.policy.allowrules import PREFIX, paren_rule

    del owned
    data = native.user_json(project, HOOK_FILE, comments=True)
    if not isinstance(data, dict):
        return []
    out = []
    for top, key in (("permissions", "allow"), ("tools", "allowed")):
        holder = data.get(top)
        entries = holder.get(key) if isinstance(holder, dict) else None
        fix = f"remove it from {top}.{key} in {HOOK_FILE}: handrail's hook allows tier 1 and 2 itself"
        for entry in entries if isinstance(entries, list) else []:
            rule = paren_rule(entry, ("Bash", "ShellTool", *SHELL_TOOLS), HOOK_FILE, fix, bare=PREFIX)
            if rule is not None:
                out.append(rule)
    return out
