"""Gemini CLI: its BeforeTool hook protocol (and, below, its native settings)."""

from __future__ import annotations

# ---- hook protocol
# `handrail hook gemini`, registered in .gemini/settings.json under hooks.BeforeTool.
# Gemini reads `decision` (allow, deny, ask) and `reason` (sent to the agent) and
# shows `systemMessage` to the user; exit 2 blocks with stderr as the reason.
# This module is imported before every tool call: keep its top-level imports light.
import os
import sys

from handrail.hooks.pretool import (
    ALLOW,
    ASK,
    DENY,
    EDIT,
    NOTIFY,
    OTHER,
    READ,
    SEARCH,
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
# Tools that print file names, never contents: a listing is judged as a read of the
# folder listed (a credentials folder is refused), not as a search of its files.
LISTING_TOOLS = frozenset({"list_directory", "glob"})
PATH_KEYS = ("file_path", "absolute_path", "path")
# Gemini tests the matcher as an unanchored regular expression against the tool name.
HOOK_MATCHER = ("^(run_shell_command|write_file|replace|edit|read_file|read_many_files|grep_search|glob"
                "|list_directory)$")
HELP = """
Gemini CLI's BeforeTool hook: allow, ask or deny one tool call before it runs.
Registered in .gemini/settings.json (hooks.BeforeTool).

Reads stdin: {"hook_event_name": "BeforeTool", "tool_name", "tool_input", "cwd"}.
  run_shell_command {command, dir_path}          judged as a shell command
  write_file, replace, edit {file_path}          judged as edits (every spelling Gemini
                                                 decodes a path to: %2E, a leading @)
  read_file {file_path}, list_directory, glob    refused when they reach secrets
  grep_search {include_pattern, dir_path}, read_many_files   searches: refused when
                                                 they reach a secret file
  any other tool                                 no opinion: Gemini's own rules decide
Gemini asks its person only in an interactive run: in a headless one (-p, CI, piped
input or output) tier 3 is a deny with the reason.
"""
HELP_ENV = (("CI, GITHUB_ACTIONS", "true: Gemini runs headless, so tier 3 is a deny (as Gemini itself reads them)"),)


def question(payload: object) -> Question | None:
    data = need_dict(payload, "payload")
    event = event_of(data, EVENTS)
    if event is not None and event != EVENT:
        return None
    tool = need_str(data, "tool_name", "payload")
    cwd = opt_str(data, "cwd")
    if tool in SHELL_TOOLS:
        args = need_dict(data.get("tool_input"), "tool_input")
        folder = _folder(args, cwd)
        if len(spellings(folder)) > 1:  # the command would run in a folder other than the one judged
            raise BadPayload(f"tool_input.dir_path: {folder} names another folder once Gemini decodes it")
        return Question(SHELL, tool, command=need_str(args, "command", "tool_input"), cwd=folder or cwd)
    if tool in EDIT_TOOLS:
        args = need_dict(data.get("tool_input"), "tool_input")
        path = first_str(args, PATH_KEYS, "tool_input")
        if tool in ("replace", "edit"):
            _existing(tool, path, cwd)
        return Question(EDIT, tool, paths=spellings(path), cwd=cwd)
    if tool in READ_TOOLS:
        args = need_dict(data.get("tool_input"), "tool_input")
        return Question(READ, tool, paths=spellings(first_str(args, PATH_KEYS, "tool_input")), cwd=cwd)
    if tool in LISTING_TOOLS:
        args = need_dict(data.get("tool_input"), "tool_input")
        return Question(READ, tool, paths=spellings(_folder(args, cwd) or cwd or "."), cwd=cwd)
    if tool == "grep_search":
        # `exclude_pattern` drops matching lines, not files: it keeps no secret file out.
        args = need_dict(data.get("tool_input"), "tool_input")
        include = opt_str(args, "include_pattern", "tool_input")
        folder = _folder(args, cwd)
        return Question(SEARCH, tool, paths=spellings(folder) if folder else [], globs=[include] if include else [],
                        cwd=cwd)
    if tool == "read_many_files":
        args = need_dict(data.get("tool_input"), "tool_input")
        return Question(SEARCH, tool, globs=_many_globs(args, cwd), cwd=cwd)
    return Question(OTHER, tool)


def _folder(args: dict[str, object], cwd: str) -> str:
    """`dir_path` (older: `directory`), made absolute against the call's folder."""
    where = opt_str(args, "dir_path", "tool_input") or opt_str(args, "directory", "tool_input")
    if where and cwd and not where.startswith("/"):
        where = cwd.rstrip("/") + "/" + where
    return where


def spellings(path: str) -> list[str]:
    """Every file a path may name to Gemini, which percent-decodes each path it is given and
    drops a leading `@` where no file has that name (`src/%2E%2E/.env`, `@.env`): each is judged."""
    from urllib.parse import unquote

    out = [path, unquote(path)]
    out += [p[1:] for p in out if p.startswith("@") and len(p) > 1]
    return list(dict.fromkeys(out))


def _existing(tool: str, path: str, cwd: str) -> None:
    """Gemini's edit of a relative path that names no file edits another one whose path ends in
    it (`src/a.py` becomes `lib/mysrc/a.py`): judged it would be the wrong file, so refused."""
    import os

    if not any(os.path.exists(p if os.path.isabs(p) else os.path.join(cwd or os.getcwd(), p)) for p in spellings(path)):
        raise BadPayload(f"{tool}: {path} names no file, and Gemini would edit another one whose path ends in it; "
                         "give the path of a file that exists")


def _strings(args: dict[str, object], key: str) -> list[str]:
    value = args.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() and "\0" not in v for v in value):
        raise BadPayload(f"tool_input.{key}: expected a list of paths or globs")
    return value


def _many_globs(args: dict[str, object], cwd: str) -> list[str]:
    """read_many_files' `include` (files, folders or globs below the workspace; a folder
    means everything in it) and `exclude`, as the search question's globs. The older
    `paths` is read as `include`."""
    include = _strings(args, "include") or _strings(args, "paths")
    if not include:
        raise BadPayload("tool_input.include: expected a list of paths or globs")
    base = cwd or os.getcwd()
    globs = []
    for given in include:
        rel = os.path.relpath(given, base) if given.startswith("/") else given
        if rel == ".." or rel.startswith("../"):
            raise BadPayload(f"tool_input.include: {given} is outside the workspace")
        rel = "**" if rel in (".", "./") else rel
        globs.append(rel.rstrip("/") + "/**" if os.path.isdir(os.path.join(base, rel)) else rel)
    return globs + ["!" + e for e in _strings(args, "exclude")]


def can_ask_now() -> bool:
    """Gemini asks its person only in an interactive run: a hook `ask` in a headless one
    (`-p`, piped input or output, CI) ends the whole run with no output, so there the
    answer is a refusal with the reason. Where the run cannot be told, Gemini asks."""
    from handrail.harnesses.gemini_run import headless

    return headless() is not True


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
    from handrail.policy.allowrules import AllowRule
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


# Gemini loads a project's hooks and settings only in a folder it trusts (folder trust is
# on by default); it records the person's choice in ~/.gemini/trustedFolders.json.
TRUST = ("trust the folder in Gemini CLI (its trust prompt, or /permissions trust), or run it with "
         "GEMINI_CLI_TRUST_WORKSPACE=true: until then it loads neither handrail's hook nor its policy")
TRUST_LEVELS = {"TRUST_FOLDER": True, "TRUST_PARENT": True, "DO_NOT_TRUST": False}


def trust_state(project: str, home: str) -> bool | None:
    """Whether Gemini trusts `project`, as its own files tell: folder trust turned off in
    the user's settings trusts every folder; else the longest rule of trustedFolders.json
    whose folder holds the project (a TRUST_PARENT rule names a folder in the one it
    trusts). No rule: not trusted yet. No ~/.gemini at all: Gemini never ran for this
    user, which tells nothing. A file that cannot be read raises (told nothing)."""
    import json

    if not os.path.isdir(os.path.join(home, ".gemini")):
        return None
    settings = os.path.join(home, ".gemini", "settings.json")
    if os.path.isfile(settings):
        with open(settings, encoding="utf-8") as f:
            security = json.load(f).get("security")
        trust = security.get("folderTrust") if isinstance(security, dict) else None
        if isinstance(trust, dict) and trust.get("enabled") is False:
            return True
    rules_file = os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or os.path.join(home, ".gemini",
                                                                                   "trustedFolders.json")
    if not os.path.isfile(rules_file):
        return False
    with open(rules_file, encoding="utf-8") as f:
        rules = json.load(f)
    if not isinstance(rules, dict):
        raise ValueError(f"{rules_file}: expected a JSON object")
    best, trusted = -1, False
    for rule, level in rules.items():
        if level not in TRUST_LEVELS:
            raise ValueError(f"{rules_file}: {rule}: unknown trust level {level!r}")
        folder = os.path.realpath(os.path.dirname(rule) if level == "TRUST_PARENT" else rule)
        if (project == folder or project.startswith(folder.rstrip("/") + "/")) and len(rule) > best:
            best, trusted = len(rule), TRUST_LEVELS[level]
    return trusted


def hand_allow_rules(project: str, owned: dict[str, dict[str, list[object]]]) -> list[AllowRule]:
    """Shell allow rules a person wrote for Gemini: `tools.allowed` entries (`run_shell_command`
    all of it, `run_shell_command(PREFIX)` a prefix) handrail did not write, and `decision =
    "allow"` rules of the Policy Engine files in .gemini/policies/ (and any project file
    `policyPaths` names) other than handrail's: `commandPrefix` a prefix, `commandRegex` a
    regular expression, no command field the whole tool, `argsPattern` unverifiable."""
    import glob
    import os
    import tomllib

    from handrail import native
    from handrail.policy.allowrules import EVERYTHING, PREFIX, REGEX, UNKNOWN, paren_rule
    from handrail.policy.allowrules import AllowRule as Rule

    out: list[AllowRule] = []
    data = native.user_json(project, HOOK_FILE)
    settings = data if isinstance(data, dict) else {}
    tools = settings.get("tools")
    allowed = tools.get("allowed") if isinstance(tools, dict) else None
    mine = owned.get(HOOK_FILE, {}).get("tools.allowed", [])
    fix = f"remove it from tools.allowed in {HOOK_FILE} (handrail's hook allows tier 1 and 2 itself)"
    for entry in allowed if isinstance(allowed, list) else []:
        rule = None if entry in mine else paren_rule(entry, SHELL_TOOLS, HOOK_FILE, fix, bare=PREFIX)
        if rule is not None:
            out.append(rule)
    named = [p for p in settings.get("policyPaths") or [] if isinstance(p, str) and not p.startswith(("~", "/"))]
    files = sorted(glob.glob(os.path.join(project, ".gemini", "policies", "*.toml")))
    files += [os.path.join(project, p) for p in named if p.endswith(".toml")]
    for path in dict.fromkeys(files):
        rel = os.path.relpath(path, project).replace(os.sep, "/")
        if rel == POLICY_FILE or not os.path.isfile(path):
            continue
        fix = f"remove the rule from {rel}, or make its decision ask_user"
        try:
            with open(path, "rb") as f:
                rules = tomllib.load(f).get("rule", [])
        except (OSError, tomllib.TOMLDecodeError) as e:
            out.append(Rule(rel, f"the file ({e}: not read)", UNKNOWN, fix=fix))
            continue
        for n, r in enumerate(rules if isinstance(rules, list) else []):
            if not isinstance(r, dict) or r.get("decision") != "allow" or r.get("toolName") not in SHELL_TOOLS:
                continue
            shown = f"rule {n + 1} (toolName = {r.get('toolName')!r}, decision = 'allow')"
            prefixes = r.get("commandPrefix")
            if "argsPattern" in r:
                out.append(Rule(rel, shown, UNKNOWN, fix=fix))
            elif isinstance(r.get("commandRegex"), str):
                out.append(Rule(rel, shown, REGEX, r["commandRegex"], fix))
            elif prefixes is None:
                out.append(Rule(rel, shown, EVERYTHING, fix=fix))
            else:
                for prefix in prefixes if isinstance(prefixes, list) else [prefixes]:
                    out.append(Rule(rel, f"{shown}: commandPrefix {prefix!r}", PREFIX, prefix, fix)
                               if isinstance(prefix, str) else Rule(rel, shown, UNKNOWN, fix=fix))
    return out
