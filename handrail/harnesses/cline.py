"""Cline: its PreToolUse hook protocol (and, below, its native files)."""

from __future__ import annotations

# ---- hook protocol
# `handrail hook cline`, run by an executable `.clinerules/hooks/PreToolUse`. Two clients
# send it:
# - Cline CLI 3 (`hookName: "tool_call"`): `{tool_call: {name, input}, preToolUse: {toolName,
#   parameters}, workspaceRoots}`. `tool_call.input` is what the tool runs; `parameters` is
#   a copy with every non-string value JSON-encoded (`commands: "[\"ls\"]"`). It reads
#   `{cancel, contextModification, errorMessage, overrideInput}`, and `cancel: true` ends
#   the whole run, its message shown to nobody. So a refusal replaces the call's input
#   (refused_input) by one that makes the tool itself answer with handrail's reason and
#   touch nothing, and hands the reason to the model as context too: the agent reads it
#   in the tool's result and goes on. Such a result is no failed call to Cline, which
#   ends a run after 3 turns in a row whose every call failed (`--retries`).
# - the VS Code extension (`hookName: "PreToolUse"`): `{preToolUse: {toolName, parameters}}`,
#   string parameters, and `{cancel, errorMessage, contextModification}`; it knows no
#   overrideInput, so its refusal stays `cancel`.
# Cline cannot ask a human from a hook: tier 3 is a refusal with the way forward.
# This module is imported before every tool call: keep its top-level imports light.
import json
import sys

from handrail.hooks.pretool import (
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
    need_dict,
    need_str,
    opt_roots,
    opt_str,
    reason_json,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME = "cline"
CAN_ASK = False
# Cline CLI 3's tools (@cline/core's default tools), then the VS Code extension's.
SHELL_TOOLS = frozenset({"run_commands", "execute_command"})
EDIT_TOOLS = frozenset({"editor", "write_to_file", "replace_in_file", "new_rule", "edit_file"})
PATCH_TOOLS = frozenset({"apply_patch"})
READ_TOOLS = frozenset({"read_files", "read_file"})
SEARCH_TOOLS = frozenset({"search_codebase", "search_files"})
# The Cline CLI 3 tools refused by replacing their input (refused_input); any other is cancelled.
CLI_TOOLS = frozenset({"run_commands", "editor", "apply_patch", "read_files", "search_codebase"})
REFUSED_INPUT_KEY = "handrail"
EDITOR_LIMIT = 6000  # @cline/core's editor refuses, before touching the file, a text longer than this
HELP = """
Cline's PreToolUse hook: allow or refuse one tool call before it runs.
Run by the executable .clinerules/hooks/PreToolUse that `handrail permissions` writes.

Reads stdin, in one of two shapes:
  Cline CLI 3 (hookName "tool_call"): {"tool_call": {"name", "input"}, "preToolUse":
    {"toolName", "parameters"}, "workspaceRoots"}
  the VS Code extension (hookName "PreToolUse"): {"preToolUse": {"toolName", "parameters"}}
  run_commands, execute_command {commands|command}   each command judged, the strictest answers
  editor, write_to_file, replace_in_file, apply_patch, ...   judged as edits
  read_files, read_file   refused when a file holds secrets
  search_codebase, search_files   refused when the search reaches a secret file
  any other tool   no opinion
A refusal of a Cline CLI 3 tool replaces the call's input (overrideInput) with one that
makes the tool answer with handrail's reason and touch nothing, rather than cancelling
the whole run; any other refusal is {"cancel": true, "errorMessage"}.
"""

_refused_tool = ""  # set per call by question(): one hook process judges one call


def question(payload: object) -> Question | list[Question] | None:
    global _refused_tool
    _refused_tool = ""
    data = need_dict(payload, "payload")
    call = need_dict(data.get("preToolUse"), "preToolUse")
    tool = need_str(call, "toolName", "preToolUse")
    sdk = data.get("tool_call")
    if sdk is not None:  # Cline CLI 3: the input the tool runs
        sdk = need_dict(sdk, "tool_call")
        if "name" in sdk and need_str(sdk, "name", "tool_call") != tool:  # which one runs? cancel
            raise BadPayload("tool_call.name: differs from preToolUse.toolName")
        _refused_tool = tool if tool in CLI_TOOLS else ""
        args: object = sdk.get("input", {})
    else:
        args = _decoded(need_dict(call.get("parameters", {}), "parameters"))
    cwd = opt_str(data, "cwd") or opt_roots(data, "workspaceRoots")
    project = opt_roots(data, "workspaceRoots")  # the harness's project folder, never the call's cwd
    asked = _question(tool, args, cwd)
    for q in asked if isinstance(asked, list) else [asked]:
        if q.kind != OTHER:
            q.project = project
    return asked


def _question(tool: str, args: object, cwd: str) -> Question | list[Question]:
    if tool in SHELL_TOOLS:
        return [Question(SHELL, tool, command=c, cwd=cwd) for c in _commands(args)]
    if tool in EDIT_TOOLS:
        return Question(EDIT, tool, paths=[need_str(_object(args), "path", "input")], cwd=cwd)
    if tool in PATCH_TOOLS:
        from handrail.harnesses.patch import patch_question

        return patch_question(tool, args if isinstance(args, str) else _object(args).get(
            "input", _object(args).get("patch")), cwd)
    if tool in READ_TOOLS:
        return Question(READ, tool, paths=_read_paths(args), cwd=cwd)
    if tool == "search_codebase":  # a regex over the whole workspace, hidden files included
        return Question(SEARCH, tool, cwd=cwd)
    if tool == "search_files":  # the extension's: one folder, one file glob
        params = _object(args)
        glob = opt_str(params, "file_pattern", "input")
        return Question(SEARCH, tool, paths=[need_str(params, "path", "input")], globs=[glob] if glob else [],
                        cwd=cwd)
    return Question(OTHER, tool)


def _object(args: object) -> dict[str, Any]:
    return need_dict(args, "input")


def _decoded(params: dict[str, Any]) -> dict[str, Any]:
    """`parameters` as the tool reads them: a string that opens a JSON array or object is
    that value (as Cline parses it before the tool runs); one that does not parse is refused."""
    out = {}
    for key, value in params.items():
        if isinstance(value, str) and value.lstrip()[:1] in ("[", "{"):
            try:
                value = json.loads(value)
            except ValueError:
                raise BadPayload(f"parameters.{key}: not valid JSON") from None
        out[key] = value
    return out


def _commands(args: object) -> list[str]:
    """Every command `run_commands` runs, as one shell line each, in the shapes its schema
    accepts: a string, a list, `{commands}`, `{command[, args]}`, `{cmd}`. A `{command,
    args}` entry runs the program without a shell: it is judged as that argv quoted."""
    if isinstance(args, dict):
        if "commands" in args:
            args = args["commands"]
        elif "command" in args:
            args = [args] if "args" in args else [args["command"]]
        elif "cmd" in args:
            args = [args["cmd"]]
        else:
            raise BadPayload("input: run_commands without commands")
    entries = args if isinstance(args, list) else [args]
    lines: list[str | list[str]] = []
    for n, entry in enumerate(entries):
        if isinstance(entry, str):
            lines.append(entry)
            continue
        item = need_dict(entry, f"input.commands[{n}]")
        program = need_str(item, "command", f"input.commands[{n}]")
        argv = item.get("args") or []
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            raise BadPayload(f"input.commands[{n}].args: expected a list of strings")
        lines.append([program, *argv])
    out = []
    for line in _heredocs(lines):
        if isinstance(line, list):
            import shlex

            line = shlex.join(line)
        if not line.strip():
            raise BadPayload("input.commands: an empty command")
        out.append(line)
    return out


def _heredocs(lines: list[str | list[str]]) -> list[str | list[str]]:
    """Cline joins a here-document's body, given as the entries after its `<<WORD`, up to
    the one that is WORD, into the command that opened it: judged as it runs."""
    import re

    opener = re.compile(r"""(?<![<])<<-?\s*(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_./-]+))""")
    out: list[str | list[str]] = []
    n = 0
    while n < len(lines):
        line = lines[n]
        match = opener.search(line) if isinstance(line, str) else None
        if match:
            word = next(g for g in match.groups() if g)
            end = next((k for k in range(n + 1, len(lines)) if isinstance(lines[k], str)
                        and str(lines[k]).strip() == word), None)
            if end is not None:
                out.append("\n".join(str(x) for x in lines[n:end + 1]))
                n = end + 1
                continue
        out.append(line)
        n += 1
    return out


def _read_paths(args: object) -> list[str]:
    """Every path `read_files` reads, in the shapes its schema accepts: a path, a list,
    `{files}`, `{file_paths}`, `{paths}`, or one `{path | file_path | filePath}`."""
    if isinstance(args, dict):
        for key in ("files", "file_paths", "paths"):
            if key in args:
                args = args[key]
                break
    entries = args if isinstance(args, list) else [args]
    out = []
    for n, entry in enumerate(entries):
        if isinstance(entry, str):
            path = entry
        else:
            item = need_dict(entry, f"input.files[{n}]")
            key = next((k for k in ("path", "file_path", "filePath") if k in item), "path")
            path = need_str(item, key, f"input.files[{n}]")
        if not path.strip():
            raise BadPayload(f"input.files[{n}]: an empty path")
        out.append(path)
    if not out:
        raise BadPayload("input: read_files names no file")
    return out


def reply(answer: Answer) -> tuple[str, int]:
    """Every answer, a broken one included, is Cline's JSON."""
    if answer.verdict in (DENY, ASK):  # ASK never reaches here (CAN_ASK is False); refuse it if it does
        if _refused_tool:
            return reason_json({"cancel": False, "contextModification": answer.message,
                                "overrideInput": refused_input(_refused_tool, answer.message)}), 0
        return reason_json({"cancel": True, "errorMessage": answer.message}), 0
    if answer.verdict == NOTIFY:
        return reason_json({"cancel": False, "contextModification": answer.message}), 0
    return reason_json({"cancel": False}), 0


def refused_input(tool: str, reason: str) -> object:
    """The input that makes Cline CLI 3's `tool` answer with `reason` and do nothing else.
    Each is checked by the tool before it acts (@cline/core 0.0.86):
    - run_commands: this Python, with no shell, prints the reason and exits 1;
    - read_files: a line range that ends before it starts, named by the reason;
    - editor: an old_text over the editor's size limit, in a file named by the reason (were
      the check gone, an old_text matches nothing in a file that does not exist);
    - search_codebase: the reason as a pattern that cannot match (`[^\\s\\S]`);
    - apply_patch, any other: an input its schema rejects (a failed call, the reason as context)."""
    if tool == "run_commands":
        return {"commands": [{"command": sys.executable,
                              "args": ["-c", "import sys; sys.exit(sys.argv[1])", reason]}]}
    if tool == "read_files":
        return {"files": [{"path": reason, "start_line": 2, "end_line": 1}]}
    if tool == "editor":
        return {"path": reason, "old_text": reason + " " * EDITOR_LIMIT, "new_text": ""}
    if tool == "search_codebase":
        return {"queries": [reason + "[^\\s\\S]"]}
    return {REFUSED_INPUT_KEY: reason}


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


# Cline CLI 3 runs a workspace's hooks with no trust step: its hooks are on by default
# (@cline/shared's DEFAULT_RUNTIME_CONFIG_EXTENSIONS) and it starts the file through its
# shebang. The VS Code extension runs them only with its Enable Hooks setting, kept in
# VS Code's own state, which handrail does not read.
TRUST = "in the VS Code extension, turn on its Enable Hooks setting (Cline CLI 3 needs no step)"


def trust_state(project: str, home: str) -> bool | None:
    """None: the CLI needs nothing, and the extension's setting lives where handrail does not read."""
    return None


def native_files(proto: Protocol) -> list[JsonFile | TextFile]:
    from handrail import native

    return [native.TextFile(HOOK_FILE, SCRIPT, executable=True)]
