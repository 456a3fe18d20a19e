"""Cline: its PreToolUse hook protocol (and, below, its native files)."""

from __future__ import annotations

# ---- hook protocol
# `handrail hook cline`, run by an executable `.clinerules/hooks/PreToolUse`. Cline
# sends `{preToolUse: {toolName, parameters}, workspaceRoots, …}` and reads
# `{"cancel": bool, "errorMessage", "contextModification"}`. Cline cannot ask a human
# from a hook: tier 3 is a cancel with the way forward.
# This module is imported before every tool call: keep its top-level imports light.
import sys

from handrail.hooks.pretool import (
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
    need_dict,
    need_str,
    opt_roots,
    opt_str,
    reason_json,
)

NAME = "cline"
CAN_ASK = False
SHELL_TOOLS = frozenset({"execute_command"})
EDIT_TOOLS = frozenset({"write_to_file", "replace_in_file", "new_rule", "edit_file"})
PATCH_TOOLS = frozenset({"apply_patch"})
READ_TOOLS = frozenset({"read_file"})


def question(payload: object) -> Question | None:
    q = _question(payload)
    if q is not None:  # the folder the harness names as the project: it, not the call's cwd, picks the root
        data = need_dict(payload, "payload")
        q.project = opt_roots(data, "workspaceRoots")
    return q


def _question(payload: object) -> Question | None:
    data = need_dict(payload, "payload")
    call = need_dict(data.get("preToolUse"), "preToolUse")
    tool = need_str(call, "toolName", "preToolUse")
    params = call.get("parameters", {})
    cwd = opt_str(data, "cwd") or opt_roots(data, "workspaceRoots")
    if tool in SHELL_TOOLS:
        return Question(SHELL, tool, command=need_str(need_dict(params, "parameters"), "command", "parameters"),
                        cwd=cwd)
    if tool in EDIT_TOOLS:
        return Question(EDIT, tool, paths=[need_str(need_dict(params, "parameters"), "path", "parameters")], cwd=cwd)
    if tool in PATCH_TOOLS:
        from handrail.harnesses.patch import patch_paths

        args = need_dict(params, "parameters")
        text = args.get("input", args.get("patch"))
        if not isinstance(text, str):
            raise BadPayload("parameters.input: expected the patch text")
        try:
            return Question(EDIT, tool, paths=patch_paths(text), cwd=cwd)
        except ValueError as e:
            raise BadPayload(f"apply_patch: {e}") from None
    if tool in READ_TOOLS:
        return Question(READ, tool, paths=[need_str(need_dict(params, "parameters"), "path", "parameters")], cwd=cwd)
    return Question(OTHER, tool)


def reply(answer: Answer) -> tuple[str, int]:
    """Every answer, a broken one included, is Cline's JSON: `cancel` is its only way to refuse."""
    if answer.verdict in (DENY, ASK):  # ASK never reaches here (CAN_ASK is False); refuse it if it does
        return reason_json({"cancel": True, "errorMessage": answer.message}), 0
    if answer.verdict == NOTIFY:
        return reason_json({"cancel": False, "contextModification": answer.message}), 0
    return reason_json({"cancel": False}), 0


def main(argv: list[str]) -> int:
    from handrail.hooks.pretool import run

    return run(sys.modules[__name__], argv)


# ---- native files
# `.clinerules/hooks/PreToolUse`, handrail's own executable: it hands Cline's event to
# `handrail hook cline`. Where handrail cannot start, it cancels the call itself:
# a guard that cannot answer must not let the call through.
# Imported only by `handrail permissions` and `doctor`.

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.native import JsonFile, TextFile
    from handrail.policy.protocol import Protocol

HOOK_FILE = ".clinerules/hooks/PreToolUse"
HOOK_MARK = "handrail hook cline"
SCRIPT = """#!/bin/sh
# handrail-managed Cline hook, written by `handrail permissions`: edit the protocol, not this file.
if command -v handrail >/dev/null 2>&1; then
  exec handrail hook cline
fi
cat >/dev/null
echo '{"cancel": true, "errorMessage": "handrail: refused: handrail is not on PATH, so this call cannot be checked; install handrail, then retry"}'
"""  # noqa: E501 - one shell line: the answer Cline reads


def native_files(proto: Protocol) -> list[JsonFile | TextFile]:
    from handrail import native

    return [native.TextFile(HOOK_FILE, SCRIPT, executable=True)]
