"""Claude Code: its PreToolUse hook protocol (and, below, its native permission files)."""

from __future__ import annotations

# ---- hook protocol
# `handrail hook claude`, registered in .claude/settings.json under hooks.PreToolUse.
# This module is imported before every tool call: keep its top-level imports light.
import os
import sys

from handrail.hooks.pretool import (
    DENY,
    EDIT,
    OTHER,
    PREFIX,
    READ,
    SEARCH,
    SHELL,
    Answer,
    Question,
    event_of,
    first_str,
    hook_specific,
    need_dict,
    need_str,
    opt_str,
    reason_json,
)

NAME = "claude"
# `claude -p` (CLAUDE_CODE_ENTRYPOINT=sdk-cli, set for the hook's process too) has no one to
# answer a prompt: it turns a hook's `ask` into a refusal, and where a settings `Bash(…)` ask rule
# matches as well, the agent is told only "you haven't granted it yet". A hook's `deny` outranks
# the rule and keeps handrail's reason, so a headless run is answered deny.
CAN_ASK = os.environ.get("CLAUDE_CODE_ENTRYPOINT") != "sdk-cli"
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
# Grep prints the lines it finds: the search question. Glob prints file names only, never
# their content, so it gets no opinion (nor is it in the matcher).
SEARCH_TOOLS = frozenset({"Grep"})
HOOK_MATCHER = "Bash|Edit|Write|MultiEdit|NotebookEdit|Read|NotebookRead|Grep"
HELP = """
Claude Code's PreToolUse hook: allow, ask or deny one tool call before it runs.
Registered in .claude/settings.json (hooks.PreToolUse, as `handrail hook claude || exit 2`).

Reads stdin: {"hook_event_name": "PreToolUse", "tool_name", "tool_input", "cwd"}.
  Bash {command}                                  judged as a shell command (its tier)
  Edit, Write, MultiEdit {file_path}, NotebookEdit {notebook_path}   judged as edits
  Read {file_path}, NotebookRead {notebook_path}  refused when the file holds secrets
  Grep {pattern, path, glob}                      a search that reaches a secret is refused,
                                                  or narrowed to leave it out (updatedInput)
  any other tool                                  no opinion: Claude's own rules decide
GitHub Copilot CLI runs this hook too, in Claude's shape with its own arguments (`path`,
an apply_patch text for Edit); its broken calls are answered in JSON, not with exit 2.
"""
HELP_ENV = (("CLAUDE_CODE_ENTRYPOINT", "sdk-cli (claude -p): no one to ask, so tier 3 is a deny"),)


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
    if tool in SEARCH_TOOLS:
        return _search(tool, need_dict(data.get("tool_input"), "tool_input"), cwd)
    return Question(OTHER, tool)


# The Grep call being judged, for reply(): a search refused with `exclude` globs is answered
# as the same call narrowed (`updatedInput`). One hook process judges one call.
_GREP: dict[str, object] = {}


def _search(tool: str, args: dict[str, object], cwd: str) -> Question:
    """Grep `{pattern, path?, glob?, type?, …}`: rg over `path` (default the cwd), reading hidden
    files, with `glob` split as Claude Code splits it into `--glob`s (at whitespace, then at commas
    outside braces). `type` only narrows, so it is not read: the search is judged wider."""
    import os

    # Claude Code trims the path and expands a leading `~` before it searches (` ~/app `).
    path = os.path.expanduser(opt_str(args, "path", "tool_input").strip())
    glob = opt_str(args, "glob", "tool_input")
    _GREP.clear()
    _GREP.update(args)
    return Question(SEARCH, tool, paths=[path] if path else [], globs=grep_globs(glob), cwd=cwd)


def grep_globs(glob: str) -> list[str]:
    out: list[str] = []
    for token in glob.split():
        out += [token] if "{" in token and "}" in token else [g for g in token.split(",") if g]
    return out


def narrowed(answer: Answer) -> dict[str, object] | None:
    """The Grep input that leaves every secret out, where the refusal can become one: the call
    has no glob of its own (one would mix with ours), and each exclusion survives the split."""
    if answer.verdict != DENY or not answer.exclude or not _GREP or "glob" in _GREP or "paths" in _GREP:
        return None
    if any(c in g for g in answer.exclude for c in " \t\n,{}"):
        return None
    return {**_GREP, "glob": " ".join(answer.exclude)}


# GitHub Copilot CLI runs the hooks in .claude/settings.json too, with Claude's tool names
# but its own arguments: `path` (not `file_path`) for Read, Write and Edit, Edit's input the
# raw text of its free-form apply_patch, Grep's `paths` a folder or a list. It reads the same
# `hookSpecificOutput`, but shows only "hook exited with code 2" for exit 2, so a broken call
# of its is refused in JSON, with the reason.
_COPILOT = [False]


def copilot_question(tool: str, tool_input: object, cwd: str) -> Question | None:
    """The question of a call Copilot sent in Claude's shape, or None for Claude Code's own."""
    if tool == "Edit" and isinstance(tool_input, str):
        from handrail.harnesses.patch import patch_question

        _COPILOT[0] = True
        return patch_question(tool, tool_input, cwd)
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
    updated = narrowed(answer)
    if updated is not None:
        globs = str(updated["glob"])
        return reason_json({"hookSpecificOutput": {
            "hookEventName": EVENT, "permissionDecision": "allow", "updatedInput": updated,
            "permissionDecisionReason": f"{PREFIX}narrowed: the search leaves out the secret files ({globs})"}}), 0
    return hook_specific(answer, EVENT)


def main(argv: list[str]) -> int:
    from handrail.hooks.pretool import run

    return run(sys.modules[__name__], argv)


# ---- native files
# `.claude/settings.json`, merged with what the user wrote there. Which rules are written
# follows from what Claude Code (2.1) does with each kind:
# - `Bash(…)` ask and deny rules are judged after the PreToolUse hook, and a hook's deny
#   outranks them with its own reason (listed in `permission_denials`). They are written for
#   tier 3 (`ask`, or `deny` where the protocol denies it): they hold under
#   `--dangerously-skip-permissions` too, and without the hook.
# - `Edit(…)` and `Read(…)` denies refuse inside the tool, before any hook runs: the agent is
#   told "denied by your permission settings", and the refusal is in no `permission_denials`.
#   None is written: the hook refuses those paths itself, naming the rule and its source.
# - No `Bash` allow rules: a word prefix cannot say what a command does (`Bash(rm *)` admits
#   `rm -rf src`, `Bash(cat *)` admits `cat .env`), and the hook allows tier 1 and 2 itself.
# The hook runs as `handrail hook claude || exit 2`, so a handrail that cannot start blocks the
# call. Should the hook entry be gone (removed, or `disableAllHooks`), what still holds: tier 3
# asks or is denied, Claude's own prompt for every edit and every command it does not judge
# read-only (in its default mode), and the git hooks at commit and push; reads of secrets, and
# everything under `--dangerously-skip-permissions` but tier 3, do not.
# Imported only by `handrail permissions` and `doctor`: nothing here runs before a tool call.

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.native import JsonFile, TextFile
    from handrail.policy.allowrules import AllowRule
    from handrail.policy.protocol import Protocol

HOOK_FILE = ".claude/settings.json"
HOOK_MARK = "handrail hook claude"
# Interactive Claude Code skips a project's hooks (and allow rules) until its trust dialog is
# accepted; `claude -p` runs them without it.
TRUST = ("start `claude` in the project once and accept its workspace trust dialog "
         "(`claude -p` runs the hooks without it)")


def bash_rule(pattern: str) -> str | None:
    """A protocol pattern as the `Bash(…)` rule Claude Code matches as meant, or None.

    Claude reads `*` as any text (spaces too), a lone trailing ` *` as "and any arguments",
    and `?`, `[` literally; a rule ending in `:*` is the old prefix form whatever precedes it
    (`Bash(git push * :*)` is the literal prefix `git push * `, which never matches), and a
    `:*` anywhere else makes the rule invalid. Such a pattern is left to the hook."""
    if ":*" in pattern or any(c in pattern for c in "?[\\"):
        return None
    return f"Bash({pattern})"


def trust_state(project: str, home: str) -> bool | None:
    """Whether Claude Code trusts `project`: `projects[<folder>].hasTrustDialogAccepted` for the
    folder or any folder above it, in the file Claude keeps its state in (`~/.claude.json`, or
    `.config.json` in its config folder; CLAUDE_CONFIG_DIR moves both). None when that file is
    missing or unreadable: Claude may not have run yet, or keeps another (`.claude-custom-oauth.json`)."""
    import json

    folder = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")
    state = os.path.join(folder, ".config.json")
    if not os.path.exists(state):
        state = os.path.join(os.environ.get("CLAUDE_CONFIG_DIR") or home, ".claude.json")
    try:
        with open(state, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return False if isinstance(data, dict) else None
    path = os.path.normpath(os.path.abspath(project))
    while True:
        entry = projects.get(path)
        if isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True:
            return True
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent


def native_files(proto: Protocol) -> list[JsonFile | TextFile]:
    from handrail import native
    from handrail.policy import protocol as protocols

    policy = protocols.resolve_tool(proto, NAME)
    ours = native.runs_handrail_hook
    pre_tool = {"matcher": HOOK_MATCHER, "hooks": [
        {"type": "command", "command": native.hook_command(NAME, block_on_failure=True), "timeout": 30}]}
    session = {"hooks": [{"type": "command", "command": f"handrail hook session-start --harness {NAME}",
                          "timeout": 10}]}
    ask = [r for r in (bash_rule(p.text) for p in policy.ask) if r]
    deny = [r for r in (bash_rule(p.text) for p in policy.deny) if r]
    return [native.JsonFile(HOOK_FILE, [
        native.ListSlot(("permissions", "allow"), []),
        native.ListSlot(("permissions", "ask"), ask),
        native.ListSlot(("permissions", "deny"), deny),
        native.ListSlot(("hooks", "PreToolUse"), [pre_tool], ours),
        native.ListSlot(("hooks", "SessionStart"), [session], ours),
    ])]


# Settings files whose `permissions.allow` a person may fill: the team's and their own.
ALLOW_FILES = (HOOK_FILE, ".claude/settings.local.json")


def hand_allow_rules(project: str, owned: dict[str, dict[str, list[object]]]) -> list[AllowRule]:
    """The `Bash(…)` allow rules in Claude's settings that handrail did not write (it writes none).
    Claude reads `Bash(x:*)` as a prefix, `*` as any text, and `Bash(x)` as that command only."""
    from handrail import native
    from handrail.policy.allowrules import EXACT, paren_rule

    out = []
    for rel in ALLOW_FILES:
        data = native.user_json(project, rel)
        allow = data.get("permissions", {}).get("allow") if isinstance(data, dict) else None
        mine = owned.get(rel, {}).get("permissions.allow", [])
        fix = (f"remove it from permissions.allow in {rel}, or narrow it to commands that are never tier 3: "
               "handrail's hook allows tier 1 and 2 itself")
        for entry in allow if isinstance(allow, list) else []:
            rule = None if entry in mine else paren_rule(entry, ("Bash",), rel, fix, bare=EXACT)
            if rule is not None:
                out.append(rule)
    return out
