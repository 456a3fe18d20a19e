"""OpenCode: the hook its handrail plugin calls (and, below, its native permission files)."""

from __future__ import annotations

# ---- hook protocol
# `handrail hook opencode`, run by the plugin handrail/template/opencode/handrail.js
# (laid into .opencode/plugin/) from its `tool.execute.before` with
# `{"tool", "args", "directory"}` on stdin. The answer is one JSON line,
# `{"decision": "allow|notify|deny|none", "message"}`; the plugin throws an Error on
# anything but allow, notify and none, so a refusal reaches the agent as the tool's
# error. The plugin cannot ask a human: tier 3 is a deny with the way forward.
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
        from handrail.harnesses.patch import patch_paths

        try:
            return Question(EDIT, tool, paths=patch_paths(need_str(need_dict(data.get("args"), "args"), "patchText",
                                                                   "args")), cwd=cwd)
        except ValueError as e:
            if isinstance(e, BadPayload):
                raise
            raise BadPayload(f"{tool}: {e}") from None
    if tool in READ_TOOLS:
        args = need_dict(data.get("args"), "args")
        paths = args.get("filePaths")
        if "filePath" in args or not isinstance(paths, list):
            paths = [need_str(args, "filePath", "args")]
        elif not paths or not all(isinstance(p, str) and p.strip() for p in paths):
            raise BadPayload("args.filePaths: expected a list of paths")
        return Question(READ, tool, paths=paths, cwd=cwd)
    return Question(OTHER, tool)


def reply(answer: Answer) -> tuple[str, int]:
    if answer.verdict in (DENY, ASK):  # ASK never reaches here (CAN_ASK is False); refuse it if it does
        return reason_json({"decision": "deny", "message": answer.message}), 2 if answer.broken else 0
    word = {ALLOW: "allow", NOTIFY: "notify", NONE: "none"}.get(answer.verdict, "deny")
    return reason_json({"decision": word, "message": answer.message}), 0


def main(argv: list[str]) -> int:
    from handrail.hooks.pretool import run

    return run(sys.modules[__name__], argv)


# ---- native files
# `opencode.json` `permission` (merged with the user's) and the plugin
# `.opencode/plugin/handrail.js` (handrail's own, from handrail/template/opencode/).
# OpenCode's *last* matching rule wins, so each rule map runs: `"*"` first, tier 1
# and 2 `allow`, the user's own rules, then tier 3 (`ask`, or `deny`) and the path
# denies last, where nothing after them can loosen them. OpenCode's `*` matches any
# characters, `/` included, and paths are relative to the project.
# Imported only by `handrail permissions` and `doctor`.

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.native import JsonFile, TextFile
    from handrail.policy.protocol import Protocol

CONFIG_FILE = "opencode.json"
HOOK_FILE = ".opencode/plugin/handrail.js"
HOOK_MARK = "hook opencode"


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
    head += [(p.text, "allow") for p in policy.allow]
    tail = [(p.text, blocked) for p in policy.ask + policy.deny]
    edit = [(r, "deny") for p in native.path_denies() for r in path_rules(p)]
    read = [(r, "deny") for p in native.secret_paths() for r in path_rules(p)]
    template = os.path.join(os.path.dirname(os.path.dirname(__file__)), "template", "opencode", "handrail.js")
    return [
        native.JsonFile(CONFIG_FILE, [native.MapSlot(("permission", "bash"), head, tail),
                                      native.MapSlot(("permission", "edit"), [], edit),
                                      native.MapSlot(("permission", "read"), [], read)]),
        native.TextFile(HOOK_FILE, read_text(template)),
    ]
