"""GitHub Copilot (coding agent, CLI, VS Code agent mode): its preToolUse hook protocol
(and, below, its native files)."""

from __future__ import annotations

# ---- hook protocol
# `handrail hook copilot`, registered in .github/hooks/*.json under hooks.preToolUse.
# The CLI and coding agent send `{toolName, toolArgs, cwd}` and read
# `{permissionDecision, permissionDecisionReason, modifiedArgs, additionalContext}`;
# VS Code sends Claude's shape (`tool_name`, `tool_input`) and reads `hookSpecificOutput`.
# Each is answered in its own shape. This module is imported before every tool call:
# keep its top-level imports light.
#
# What the CLI (1.0.102) sends, seen with the real client: `toolArgs` is an object, except
# for the free-form `apply_patch` (offered to gpt-5-codex models), whose `toolArgs` is the
# raw patch text; older builds sent every `toolArgs` as a JSON string. Its tools: `bash` and
# `powershell {command, mode, shellId…}`, `write_bash`/`write_powershell {shellId, input}`
# (text typed into a shell started with mode "async"), `read_/stop_/list_bash` (output of a
# command already judged), `view {path}`, `create {path, file_text}`, `edit {path, old_str,
# new_str}`, `grep` (or `rg` for codex models) `{pattern, paths, glob, type…}`, `glob
# {pattern, paths}` (names only), `task` and `write_agent` (sub-agents, whose own calls come
# through this hook too), `web_fetch`, `sql`, `skill`. The hook runs before Copilot checks
# that a tool exists, so a name it does not offer is still judged.
import sys

from handrail.hooks.pretool import (
    ALLOW,
    ASK,
    DENY,
    EDIT,
    NOTIFY,
    OTHER,
    PREFIX,
    READ,
    SEARCH,
    SHELL,
    Answer,
    BadPayload,
    Question,
    event_of,
    hook_specific,
    need_dict,
    need_str,
    opt_str,
    reason_json,
)

NAME = "copilot"
CAN_ASK = True  # interactive: Copilot asks its user; under -p it refuses with the reason
SHELL_TOOLS = frozenset({"bash", "shell", "powershell", "run_in_terminal", "runInTerminal", "runTerminalCommand",
                         "Bash"})
TYPED_TOOLS = frozenset({"write_bash", "write_powershell", "send_to_terminal", "sendToTerminal"})
EDIT_TOOLS = frozenset({"edit", "create", "write", "str_replace_editor", "str_replace", "insert", "multi_edit",
                        "editFiles", "createFile", "replaceString", "multiReplaceString", "insertEdit",
                        "editNotebook", "Edit", "Write", "MultiEdit"})
PATCH_TOOLS = frozenset({"apply_patch", "applyPatch"})
READ_TOOLS = frozenset({"view", "read", "readFile", "read_file", "Read"})
SEARCH_TOOLS = frozenset({"grep", "rg", "Grep"})
PATH_KEYS = ("path", "filePath", "file_path")
# write_bash's named keys (`{enter}` ends the line); any other key or control character
# edits or replays the shell's line, so what runs is not the text judged here.
ENTER = "{enter}"
KEYS = (r"\{(?:up|down|left|right|backspace|delete|del|tab|escape|esc|home|end|pageup|pagedown|insert|space"
        r"|(?:ctrl|alt|shift|meta)[+-]\w+|f\d{1,2})\}")
# The events VS Code sends a Claude-shaped hook, and the CLI's own (camelCase) names.
EVENTS = frozenset({"PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "Stop", "SubagentStart",
                    "SubagentStop", "PreCompact", "preToolUse", "postToolUse", "sessionStart", "sessionEnd",
                    "userPromptSubmitted", "errorOccurred"})
HELP = """
GitHub Copilot's preToolUse hook: allow, ask or deny one tool call before it runs.
For the CLI, the coding agent and VS Code's agent mode; registered in .github/hooks/handrail.json.

Reads stdin, in one of two shapes:
  CLI, coding agent: {"toolName", "toolArgs", "cwd"} (toolArgs an object, a JSON string
    from older builds, or the raw patch text of apply_patch)
  VS Code: Claude's shape {"hook_event_name", "tool_name", "tool_input", "cwd"}, answered
    as Claude's {"hookSpecificOutput": {"permissionDecision", ...}}
  bash, powershell, run_in_terminal, ... {command}   judged as a shell command
  write_bash, write_powershell {input}   text typed into a shell, judged as a command
  edit, create, str_replace_editor, apply_patch, ... {path}   judged as edits
  view, read {path}   refused when the file holds secrets
  grep, rg {paths, glob}   a search that reaches a secret is refused, or narrowed to leave
    it out (modifiedArgs)
  any other tool   no opinion: Copilot's own rules decide
Under -p Copilot refuses what the hook would ask about, with the reason.
"""
PRE_TOOL = frozenset({"PreToolUse", "preToolUse"})
# The call being judged, for the reply: which shape it came in, and a search's own
# arguments (narrowed with `modifiedArgs` rather than refused, where that keeps secrets out).
_CALL: dict[str, Any] = {"vscode": False, "search": None}


def question(payload: object) -> Question | None:
    _CALL.update(vscode=False, search=None)
    data = need_dict(payload, "payload")
    event = event_of(data, EVENTS)
    if event is not None and event not in PRE_TOOL:
        return None  # registered for another event by mistake: not ours to judge
    if "toolName" in data:
        tool = need_str(data, "toolName", "payload")
        raw = data.get("toolArgs")
    else:
        _CALL["vscode"] = True
        tool = need_str(data, "tool_name", "payload")
        raw = data.get("tool_input")
    cwd = opt_str(data, "cwd")
    if tool in PATCH_TOOLS:
        return _patch(tool, raw, cwd)
    args = _args(raw)
    if tool in SHELL_TOOLS:
        return Question(SHELL, tool, command=need_str(args, "command", "toolArgs"), cwd=cwd)
    if tool in TYPED_TOOLS:
        return Question(SHELL, tool, command=_typed(tool, args), cwd=cwd)
    if tool in EDIT_TOOLS:
        # str_replace_editor's `view` command only reads.
        kind = READ if tool == "str_replace_editor" and args.get("command") == "view" else EDIT
        return Question(kind, tool, paths=_paths(args), cwd=cwd)
    if tool in READ_TOOLS:
        return Question(READ, tool, paths=_paths(args), cwd=cwd)
    if tool in SEARCH_TOOLS:
        glob = opt_str(args, "glob", "toolArgs")
        if not _CALL["vscode"]:
            _CALL["search"] = args
        return Question(SEARCH, tool, paths=search_paths(args), globs=[glob] if glob else [], cwd=cwd)
    return Question(OTHER, tool)


def _args(value: object) -> dict[str, Any]:
    if isinstance(value, str):
        import json

        try:
            value = json.loads(value)
        except ValueError:
            raise BadPayload("toolArgs: a string that is not JSON") from None
    return need_dict(value, "toolArgs")


def _patch(tool: str, raw: object, cwd: str) -> Question:
    from handrail.harnesses.patch import patch_question

    text: object = raw
    if isinstance(raw, str) and raw.lstrip().startswith("{"):
        text = _args(raw)  # an older build's JSON-encoded arguments
    if isinstance(text, dict):
        text = text.get("input", text.get("patch", text.get("patchText")))
    return patch_question(tool, text, cwd)


def _typed(tool: str, args: dict[str, Any]) -> str:
    """What typing `input` into a running shell runs: its lines, judged as commands. Only
    whole lines are judged: a line left unfinished would run with whatever comes next."""
    text = need_str(args, "input", "toolArgs").replace(ENTER, "\n")
    if any(c != "\n" and (ord(c) < 32 or ord(c) == 127) for c in text) or _key(text):
        raise BadPayload(f"toolArgs.input: {tool} types keys that edit or replay the shell's line; "
                         "type whole command lines")
    if not text.endswith("\n"):
        raise BadPayload(f"toolArgs.input: {tool} types an unfinished line; end it with a newline")
    return text


def _key(text: str) -> bool:
    import re

    return re.search(KEYS, text) is not None


def search_paths(args: dict[str, Any]) -> list[str]:
    """A search tool's `paths`: one folder, a list of them, or none (the call's cwd)."""
    given = args.get("paths", args.get("path"))
    if given is None:
        return []
    if isinstance(given, str):
        given = [given]
    if not isinstance(given, list) or not all(isinstance(p, str) and p.strip() and "\0" not in p for p in given):
        raise BadPayload("toolArgs.paths: expected a folder or a list of folders")
    return given


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


def narrowed(args: dict[str, Any], answer: Answer) -> dict[str, Any] | None:
    """The search's arguments with the exclusions that keep every secret out, or None.
    Copilot's grep takes one `glob`: a call that brings its own is refused instead."""
    if answer.verdict != DENY or not answer.exclude or args.get("glob"):
        return None
    names = [g.removeprefix("!") for g in answer.exclude]
    return {**args, "glob": f"!{names[0]}" if len(names) == 1 else "!{" + ",".join(names) + "}"}


def reply(answer: Answer) -> tuple[str, int]:
    search = _CALL["search"]
    narrow = narrowed(search, answer) if search is not None else None
    if narrow is not None:
        why = f"{PREFIX}narrowed: searched without {narrow['glob'][1:]}, which holds secrets"
        return reason_json({"permissionDecision": "allow", "permissionDecisionReason": why, "modifiedArgs": narrow,
                            "additionalContext": why}), 0
    decision = {ALLOW: "allow", NOTIFY: "allow", ASK: "ask", DENY: "deny"}.get(answer.verdict)
    if decision is None:
        return "", 0  # no opinion: Copilot's own rules decide
    if _CALL["vscode"]:
        return hook_specific(answer)
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
    from handrail.policy.allowrules import AllowRule
    from handrail.policy.protocol import Protocol

HOOK_FILE = ".github/hooks/handrail.json"
HOOK_MARK = "handrail hook copilot"


def native_files(proto: Protocol) -> list[JsonFile | TextFile]:
    from handrail import native
    from handrail.fsio import dump_json

    command = native.hook_command(NAME)
    hook = {"type": "command", "bash": command, "powershell": command, "timeoutSec": 30}
    return [native.TextFile(HOOK_FILE, dump_json({"version": 1, "hooks": {"preToolUse": [hook]}}))]


# Without trust Copilot loads no project hook at all (neither .github/hooks nor
# .claude/settings.json), silently. It keeps the folders its user trusted in
# ~/.copilot/config.json `trustedFolders` (a folder trusts everything below it); the file
# opens with `//` comment lines. `--trust-folder` trusts one `-p` run without recording it.
TRUST = ("trust the folder when Copilot asks on its first start there (or run `copilot -p` with "
         "--trust-folder): until then it runs no project hook")
CONFIG = (".copilot", "config.json")


def trust_state(project: str, home: str) -> bool | None:
    """Whether Copilot trusts `project` (it or a folder above it is in `trustedFolders`); None
    when its config file is absent or unreadable (COPILOT_HOME may keep it elsewhere)."""
    import json
    import os

    try:
        with open(os.path.join(home, *CONFIG), encoding="utf-8") as f:
            text = "".join(line for line in f if not line.lstrip().startswith("//"))
        config = json.loads(text)
    except (OSError, ValueError):
        return None
    folders = config.get("trustedFolders", []) if isinstance(config, dict) else None
    if not isinstance(folders, list):
        return None
    here = {os.path.normpath(os.path.abspath(project)), os.path.realpath(project)}
    for folder in folders:
        if not isinstance(folder, str) or not folder.strip():
            continue
        top = os.path.normpath(folder)
        if any(p == top or p.startswith(top.rstrip(os.sep) + os.sep) for p in here):
            return True
    return False


VSCODE_SETTINGS = ".vscode/settings.json"
# VS Code's agent mode runs these terminal commands without asking: a key is a command prefix,
# or `/regex/` (flags after it); `true` (or `{"approve": true}`) approves it.
AUTO_APPROVE = ("chat.tools.terminal.autoApprove", "github.copilot.chat.agent.terminal.allowList")


def hand_allow_rules(project: str, owned: dict[str, dict[str, list[object]]]) -> list[AllowRule]:
    """The terminal commands VS Code's Copilot agent runs without asking, from the project's
    .vscode/settings.json (handrail writes none; the Copilot CLI has no project allow file)."""
    from handrail import native
    from handrail.policy.allowrules import PREFIX, REGEX
    from handrail.policy.allowrules import AllowRule as Rule

    del owned
    data = native.user_json(project, VSCODE_SETTINGS, comments=True)
    out = []
    for key in AUTO_APPROVE:
        rules = data.get(key) if isinstance(data, dict) else None
        fix = f"remove it from {key} in {VSCODE_SETTINGS}, or set it to false"
        for pattern, value in rules.items() if isinstance(rules, dict) else []:
            if value is not True and not (isinstance(value, dict) and value.get("approve") is True):
                continue
            shown = f"{key}: {pattern!r}"
            if pattern.startswith("/") and pattern.rfind("/") > 0:
                body, flags = pattern[1:pattern.rfind("/")], pattern[pattern.rfind("/") + 1:]
                out.append(Rule(VSCODE_SETTINGS, shown, REGEX, f"(?{flags.replace('g', '')})" * bool(
                    flags.replace("g", "")) + body, fix))
            else:
                out.append(Rule(VSCODE_SETTINGS, shown, PREFIX, pattern, fix))
    return out
