"""OpenCode: the hook its handrail plugin calls (and, below, its native permission files)."""

from __future__ import annotations

# ---- hook protocol
# `handrail hook opencode`, run by the plugin handrail/template/opencode/handrail.js
# (laid into .opencode/plugin/) from its `tool.execute.before` with
# `{"tool", "args", "directory"}` on stdin. The answer is one JSON line,
# `{"decision": "allow|notify|deny|none", "message"}`; the plugin throws an Error on
# anything but allow, notify and none, so a refusal reaches the agent as the tool's
# error. The plugin cannot ask a human: tier 3 is a deny with the way forward.
# A search refused for the secrets in its scope also carries `"narrow": {"include": G}`:
# the arguments that keep every secret out. OpenCode runs the tool with the very object
# the plugin was handed, so the plugin sets them on it (when the call has none of its
# own) and lets the narrowed call run.
#
# OpenCode 1.18's tools that read the project: `read {filePath}` (a file, or a folder's
# entries), `grep {pattern, path?, include?}` (ripgrep `--hidden`, `--glob=INCLUDE`, run in
# `path`, or in the folder of `path` when it names a file: the whole folder is searched)
# and `glob {pattern, path?}` (ripgrep `--files`, names only, no `--hidden`). glob and the
# experimental `lsp` return names and symbols, never a file's text: no opinion on them.
# This module is imported before every tool call: keep its top-level imports light.
import sys

from handrail.hooks.pretool import (
    ALLOW,
    ASK,
    DENY,
    EDIT,
    NONE,
    NOTIFY,
    OTHER,
    READ,
    SEARCH,
    SHELL,
    Answer,
    BadPayload,
    Question,
    need_dict,
    need_str,
    opt_str,
    reason_json,
)

NAME = "opencode"
CAN_ASK = False
SHELL_TOOLS = frozenset({"bash"})
EDIT_TOOLS = frozenset({"edit", "write", "multiedit"})
PATCH_TOOLS = frozenset({"patch", "apply_patch"})
READ_TOOLS = frozenset({"read"})
SEARCH_TOOLS = frozenset({"grep"})
# OpenCode 1.18 skips every plugin, the project's own included, under `--pure` or OPENCODE_PURE=1.
TRUST = "nothing: OpenCode loads .opencode/plugin/ in any folder (not under --pure or OPENCODE_PURE=1)"
HELP = """
OpenCode's pre-tool hook: allow or deny one tool call before it runs.
Called by handrail's plugin .opencode/plugin/handrail.js from its tool.execute.before.

Reads stdin: {"tool", "args", "directory"} (`worktree` where `directory` is absent).
  bash {command}                        judged as a shell command
  edit, write, multiedit {filePath}; patch, apply_patch {patchText}   judged as edits
  read {filePath}                       refused when it reaches secrets
  grep {path, include}                  a search that reaches a secret is refused, or
                                        narrowed ("narrow": {"include": G}) to leave it out
  any other tool                        no opinion: OpenCode's permission rules decide
The plugin throws the message as the tool's error on anything but allow, notify and none.
"""


def question(payload: object) -> Question | None:
    q = _question(payload)
    if q is not None:  # the folder the harness names as the project: it, not the call's cwd, picks the root
        data = need_dict(payload, "payload")
        q.project = opt_str(data, "directory") or opt_str(data, "worktree")
    return q


def _question(payload: object) -> Question | None:
    data = need_dict(payload, "payload")
    tool = need_str(data, "tool", "payload")
    cwd = opt_str(data, "directory") or opt_str(data, "worktree")
    if tool in SHELL_TOOLS:
        args = need_dict(data.get("args"), "args")
        where = opt_str(args, "workdir", "args")
        return Question(SHELL, tool, command=need_str(args, "command", "args"), cwd=where or cwd)
    if tool in EDIT_TOOLS:
        return Question(EDIT, tool, paths=[need_str(need_dict(data.get("args"), "args"), "filePath", "args")], cwd=cwd)
    if tool in PATCH_TOOLS:
        from handrail.harnesses.patch import patch_question

        return patch_question(tool, need_str(need_dict(data.get("args"), "args"), "patchText", "args"), cwd)
    if tool in READ_TOOLS:
        args = need_dict(data.get("args"), "args")
        paths = args.get("filePaths")
        if "filePath" in args or not isinstance(paths, list):
            paths = [need_str(args, "filePath", "args")]
        elif not paths or not all(isinstance(p, str) and p.strip() for p in paths):
            raise BadPayload("args.filePaths: expected a list of paths")
        return Question(READ, tool, paths=paths, cwd=cwd)
    if tool in SEARCH_TOOLS:
        return _search(tool, need_dict(data.get("args"), "args"), cwd)
    return Question(OTHER, tool)


def _search(tool: str, args: dict[str, object], cwd: str) -> Question:
    """grep searches the folder `path` names, or, for anything that is no folder (a file, or
    nothing yet), the folder it lies in."""
    import os

    path = opt_str(args, "path", "args")
    include = opt_str(args, "include", "args")
    if path:
        where = os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd or os.getcwd(), path))
        path = where if os.path.isdir(where) else os.path.dirname(where)
    return Question(SEARCH, tool, paths=[path] if path else [], globs=[include] if include else [], cwd=cwd)


def narrowed(exclude: list[str]) -> dict[str, str] | None:
    """grep's one `include` glob that keeps out everything `exclude` names, or None when
    no single ripgrep glob can. Each exclusion matches at any depth (`**/`): searched from
    a subfolder, a pattern anchored at the project's top must still keep its files out;
    ripgrep's alternation does not nest, so a pattern with braces or commas is not folded."""
    if not exclude or not all(e.startswith("!") and len(e) > 1 for e in exclude):
        return None
    parts = [e[1:].lstrip("/") for e in exclude]
    if any(c in p for p in parts for c in "{},"):
        return None
    parts = [p if p.startswith("**/") else f"**/{p}" for p in parts]
    return {"include": "!" + (parts[0] if len(parts) == 1 else "{" + ",".join(parts) + "}")}


def reply(answer: Answer) -> tuple[str, int]:
    if answer.verdict in (DENY, ASK):  # ASK never reaches here (CAN_ASK is False); refuse it if it does
        out: dict[str, object] = {"decision": "deny", "message": answer.message}
        narrow = None if answer.broken else narrowed(answer.exclude)
        if narrow is not None:
            out["narrow"] = narrow
        return reason_json(out), 2 if answer.broken else 0
    word = {ALLOW: "allow", NOTIFY: "notify", NONE: "none"}.get(answer.verdict, "deny")
    return reason_json({"decision": word, "message": answer.message}), 0


def main(argv: list[str]) -> int:
    from handrail.hooks.pretool import run

    return run(sys.modules[__name__], argv)


# ---- native files
# `opencode.json` `permission` (merged with the user's) and the plugin
# `.opencode/plugin/handrail.js` (handrail's own, from handrail/template/opencode/).
# OpenCode's *last* matching rule wins, so each rule map runs: `"*"` first, tier 1
# `allow`, the user's own rules, then tier 3 (`ask`, or `deny`) and the path denies
# last, where nothing after them can loosen them. OpenCode's `*` matches any
# characters, `/` included, and paths are relative to the project.
#
# The plugin runs before OpenCode checks these rules, so with it they only matter where
# the hook has no opinion. They are written to hold without it too: an `allow` is kept
# only for a tier 1 pattern without a wildcard, an exact command line, which OpenCode
# matches against the whole line, redirections included (`pwd` does not admit
# `pwd > x`), while `cat *` would admit `cat .env`. So without the plugin, in guarded
# mode: every other command is asked of the person, tier 3 asked or denied, edits of
# protected and default-forbidden paths and `read` of secret files denied; in trusted
# and headless modes, OpenCode's own default (allow) covers unlisted commands, and only
# tier 3 and the path denies stand.
# `$schema` is written where the user has none: OpenCode adds it on first use, and the
# file would otherwise show as changed after every first run.
# Imported only by `handrail permissions` and `doctor`.

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.native import JsonFile, TextFile
    from handrail.policy.allowrules import AllowRule
    from handrail.policy.protocol import Protocol

CONFIG_FILE = "opencode.json"
HOOK_FILE = ".opencode/plugin/handrail.js"
HOOK_MARK = "hook opencode"
SCHEMA = "https://opencode.ai/config.json"


def exact(pattern: str) -> bool:
    """A pattern OpenCode matches only as this one command line: no `*` or `?` in it."""
    return "*" not in pattern and "?" not in pattern


def trust_state(project: str, home: str) -> bool | None:
    """OpenCode asks nobody before it loads a project's plugins: always True (whether a run
    passes `--pure` is not known until it starts)."""
    del project, home
    return True


def path_rules(pattern: str) -> list[str]:
    """A gitignore pattern as OpenCode path patterns: one without a slash, or starting
    with `**/`, also at any depth; a trailing `/**` is everything below."""
    p = pattern.lstrip("/")
    anywhere = "/" not in p or p.startswith("**/")
    if p.startswith("**/"):
        p = p[3:]
    if p.endswith("/**"):
        p = p[:-3] + "/*"
    p = p.replace("**", "*")
    return [p, f"*/{p}"] if anywhere and not p.startswith("*") else [p]


def native_files(proto: Protocol) -> list[JsonFile | TextFile]:
    import os

    from handrail import native
    from handrail.fsio import read_text
    from handrail.policy import protocol as protocols

    policy = protocols.resolve_tool(proto, NAME)
    blocked = "deny" if policy.deny else "ask"
    head = [("*", "ask")] if policy.mode == "guarded" else []  # unlisted commands: in guarded mode, ask
    head += [(p.text, "allow") for p in policy.allow if p.tier == protocols.TIER1 and exact(p.text)]
    tail = [(p.text, blocked) for p in policy.ask + policy.deny]
    edit = [(r, "deny") for p in native.path_denies() for r in path_rules(p)]
    read = [(r, "deny") for p in native.secret_paths() for r in path_rules(p)]
    template = os.path.join(os.path.dirname(os.path.dirname(__file__)), "template", "opencode", "handrail.js")
    return [
        native.JsonFile(CONFIG_FILE, [native.MapSlot(("permission", "bash"), head, tail),
                                      native.MapSlot(("permission", "edit"), [], edit),
                                      native.MapSlot(("permission", "read"), [], read)],
                        defaults=[(("$schema",), SCHEMA)]),
        native.TextFile(HOOK_FILE, read_text(template)),
    ]


def hand_allow_rules(project: str, owned: dict[str, dict[str, list[object]]]) -> list[AllowRule]:
    """The `permission.bash` rules of opencode.json that allow and that handrail did not write.
    OpenCode's `*` is any text and its last matching rule wins, so a rule is judged only on the
    commands no later non-allow rule takes back."""
    from handrail import native
    from handrail.policy.allowrules import EVERYTHING, EXACT, GLOB
    from handrail.policy.allowrules import AllowRule as Rule

    data = native.user_json(project, CONFIG_FILE)
    permission = data.get("permission") if isinstance(data, dict) else None
    fix = f"remove it from permission.bash in {CONFIG_FILE}, or make it ask: handrail's hook allows tier 1 and 2"
    if permission == "allow":
        return [Rule(CONFIG_FILE, 'permission: "allow"', EVERYTHING, fix=fix)]
    bash = permission.get("bash") if isinstance(permission, dict) else None
    if bash == "allow":
        return [Rule(CONFIG_FILE, 'permission.bash: "allow"', EVERYTHING, fix=fix)]
    if not isinstance(bash, dict):
        return []
    mine = owned.get(CONFIG_FILE, {}).get("permission.bash", [])
    keys = list(bash)
    out = []
    for i, (pattern, value) in enumerate(bash.items()):
        if value != "allow" or pattern in mine:
            continue
        later = tuple(k for k in keys[i + 1:] if bash[k] != "allow")
        shape = EVERYTHING if pattern == "*" else GLOB if not exact(pattern) else EXACT
        out.append(Rule(CONFIG_FILE, f'permission.bash: "{pattern}": "allow"', shape, pattern, fix, later))
    return out
