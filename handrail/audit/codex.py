"""Codex CLI's rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` (and
`archived_sessions/`), indexed in its state database `~/.codex/state_<n>.sqlite`.

Field names as Codex 0.171.0 writes them (seen in rollouts it made, offline, under
tests/audit/sessions.py): every line is {timestamp, type, payload};
- "session_meta": payload {id, cwd, cli_version, …}; "turn_context": payload {cwd, …} when a
  turn starts (the folder may change between turns);
- "response_item" with payload.type "function_call" {name, arguments (JSON text), call_id}
  (`exec_command` {cmd, workdir}; `shell_command` {command: the script, workdir}; older builds
  `shell` and `container.exec` {command: argv, workdir}; `write_stdin` {session_id, chars}: what
  is typed into a command exec_command left running; `view_image` {path} and the experimental
  `read_file` {file_path} and `grep_files` {pattern, include, path}: reads; MCP tools by the
  names their servers give, which no reader here can judge), the tools of codex-rs/core's
  tools/handlers;
  "custom_tool_call" {name: "apply_patch", input: the patch, call_id}, "local_shell_call"
  {action: {command, working_directory}, call_id}; their results "function_call_output" and
  "custom_tool_call_output" {call_id, output}, paired by call_id;
- a pre-tool hook's denial is the output `Command blocked by PreToolUse hook: <reason>.
  Command: <command>` (`Tool call blocked by PreToolUse hook: <reason>. Tool: <name>` for
  another tool); a shell's failure `Process exited with code N` (exec_command) or `Exit code:
  N`; a refusal by the person or its approval settings the texts in USER_DENIED (the binary's
  own strings). Only these are denials: any other output is what the call did;
- "event_msg" and the bookkeeping lines (token counts, world state) hold no call of their own.
`$CODEX_HOME` stands for `~/.codex` when set (Codex resolves its home so).
The state database's `threads` table (id, rollout_path, cwd) lists every session with its
folder; where it is absent or unreadable, each rollout's first line says it.
"""

from __future__ import annotations

import glob
import json
import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

from handrail.audit.calls import Call, Problem, Record, Unknown
from handrail.audit.jsonl import first_records, records, related, unreadable

HARNESS = "codex"
READ_TYPES = frozenset({"session_meta", "turn_context", "response_item"})
QUIET = frozenset({"event_msg", "world_state", "token_usage_record", "compacted"})
QUIET_ITEMS = frozenset({"message", "reasoning", "web_search_call", "image_generation_call"})
# Codex's own tools that neither run a command nor open a file of the project: a plan, a
# question to the person, a web search, MCP resource listings, sub-agents (whose calls are in
# rollouts of their own), a folder listing (names, never contents). Any other name is counted.
QUIET_TOOLS = frozenset({"update_plan", "request_user_input", "web_search", "list_mcp_resources",
                         "list_mcp_resource_templates", "spawn_agent", "send_input", "resume_agent", "wait",
                         "close_agent", "list_dir"})
STDIN_TOOLS = frozenset({"write_stdin"})
# A file tool: (the argument naming the file or folder, the one holding its glob; the kind).
FILE_TOOLS = {"view_image": ("path", None, "read"), "read_file": ("file_path", None, "read"),
              "grep_files": ("path", "include", "search")}
CALL_ITEMS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
OUTPUT_ITEMS = frozenset({"function_call_output", "custom_tool_call_output"})
# A hook's denial: the text before the reason, and the one after it (what was refused).
HOOK_DENIED = {"Command blocked by PreToolUse hook: ": ". Command: ",
               "Tool call blocked by PreToolUse hook: ": ". Tool: "}
USER_DENIED = ("exec command rejected by user", "patch rejected by user",
               "writing is blocked by read-only sandbox; rejected by user approval settings",
               "writing outside of the project; rejected by user approval settings")
_EXIT = re.compile(r"(?:Process exited with code|Exit code:) (-?\d+)")
MOST_PENDING = 10_000


def codex_home(home: str, env: Mapping[str, str]) -> str:
    given = env.get("CODEX_HOME")
    return given if given and os.path.isabs(given) else os.path.join(home, ".codex")


def find_codex(project: str, home: str, env: Mapping[str, str]) -> list[str]:
    """The rollouts whose session ran inside `project`, from the state database where it
    lists them, and from each rollout's own first line for those it does not."""
    base = codex_home(home, env)
    found: dict[str, None] = {}
    known: set[str] = set()
    for path, cwd in _indexed(base):
        known.add(os.path.abspath(path))
        if related(cwd, project) and os.path.isfile(path):
            found[path] = None
    for folder in ("sessions", "archived_sessions"):
        for path in _rollouts(os.path.join(base, folder)):
            if os.path.abspath(path) in known:
                continue
            if unreadable(path) is not None:
                found[path] = None  # the reader says what is wrong with it, rather than hide it
                continue
            started = next((_meta_cwd(r) for r in first_records(path, 5) if _meta_cwd(r)), None)
            if started is not None and related(started, project):
                found[path] = None
    return list(found)


def _rollouts(top: str) -> list[str]:
    """Every `rollout-*.jsonl` below `top`. Links to folders are not followed: two links back up
    the tree make a recursive glob walk without end; Codex itself writes plain folders."""
    out = []
    for folder, dirs, files in os.walk(top):
        dirs.sort()
        out += [os.path.join(folder, f) for f in files if f.startswith("rollout-") and f.endswith(".jsonl")]
    return sorted(out)


def _meta_cwd(rec: dict[str, Any]) -> str | None:
    payload = rec.get("payload")
    if rec.get("type") == "session_meta" and isinstance(payload, dict) and isinstance(payload.get("cwd"), str):
        return str(payload["cwd"])
    return None


def _indexed(base: str) -> list[tuple[str, str]]:
    """(rollout path, cwd) of every thread in the newest state database; none when unreadable."""
    import sqlite3

    dbs = sorted(glob.glob(os.path.join(glob.escape(base), "state_*.sqlite")),
                 key=lambda p: int(re.sub(r"\D", "", os.path.basename(p)) or 0))
    if not dbs:
        return []
    try:
        con = sqlite3.connect(f"file:{dbs[-1]}?mode=ro", uri=True)
        try:
            rows = con.execute("SELECT rollout_path, cwd FROM threads").fetchall()
        finally:
            con.close()
    except sqlite3.Error:
        return []
    return [(r[0], r[1]) for r in rows if isinstance(r[0], str) and isinstance(r[1], str)]


def read_codex(path: str) -> Iterator[Record]:
    """Each shell and apply_patch call of one rollout, with the outcome its output shows."""
    pending: dict[str, tuple[Call, dict[str, str]]] = {}  # call id -> the call, and what a denial would name
    session = os.path.splitext(os.path.basename(path))[0]
    cwd: str | None = None
    for item in records(path):
        if isinstance(item, Problem):
            yield item
            continue
        number, rec = item
        kind, payload = rec.get("type"), rec.get("payload")
        if not isinstance(payload, dict):
            if kind in READ_TYPES:
                yield Problem(path, number, f"{kind}: no payload object")
            elif kind not in QUIET:
                yield Unknown(str(kind)[:80] if kind is not None else "(no type)")
            continue
        if kind == "session_meta":
            session = str(payload.get("id") or session)
            cwd = payload["cwd"] if isinstance(payload.get("cwd"), str) else cwd
        elif kind == "turn_context":
            cwd = payload["cwd"] if isinstance(payload.get("cwd"), str) else cwd
        elif kind == "response_item":
            what = payload.get("type")
            if what in CALL_ITEMS:
                made = _call(payload, rec, session, path, number, cwd)
                if isinstance(made, (Problem, Unknown)):
                    yield made
                elif made is not None:
                    pending[str(payload.get("call_id"))] = made
                    if len(pending) > MOST_PENDING:
                        yield pending.pop(next(iter(pending)))[0]
            elif what in OUTPUT_ITEMS:
                waiting = pending.pop(str(payload.get("call_id")), None)
                if waiting is not None:
                    yield _answered(*waiting, payload.get("output"))
            elif what not in QUIET_ITEMS:
                yield Unknown(f"response_item/{str(what)[:60]}")
        elif kind not in QUIET:
            yield Unknown(str(kind)[:80] if kind is not None else "(no type)")
    yield from (call for call, _subject in pending.values())


def _call(payload: dict[str, Any], rec: dict[str, Any], session: str, path: str, number: int,
          cwd: str | None) -> tuple[Call, dict[str, str]] | Problem | Unknown | None:
    """The call, read by the hook adapter itself (harnesses/codex.py: one reading of Codex's tools)."""
    from handrail.harnesses import codex as adapter
    from handrail.hooks.pretool import OTHER, SHELL, BadPayload

    name = payload.get("name")
    item = str(payload.get("type"))
    if payload.get("type") == "local_shell_call":
        action = payload.get("action")
        args: object = {"command": action.get("command"), "workdir": action.get("working_directory")} \
            if isinstance(action, dict) else None
        name = "local_shell"
    elif payload.get("type") == "custom_tool_call":
        args = {"input": payload.get("input")}
    else:
        try:
            args = json.loads(payload["arguments"]) if isinstance(payload.get("arguments"), str) else None
        except ValueError:
            return Problem(path, number, f"function_call {str(name)[:60]}: arguments are not JSON")
    if name in QUIET_TOOLS:
        return None
    if name not in adapter.SHELL_TOOLS and name not in adapter.PATCH_TOOLS and name not in STDIN_TOOLS \
            and name not in FILE_TOOLS:
        return Unknown(f"{item}:{str(name)[:60]}")  # an MCP server's tool, or one of a newer Codex
    if not isinstance(args, dict):
        return Problem(path, number, f"function_call {str(name)[:60]}: no arguments object")
    workdir = args.get("workdir") if isinstance(args.get("workdir"), str) else cwd
    time = rec.get("timestamp") if isinstance(rec.get("timestamp"), str) else None
    if name in STDIN_TOOLS or name in FILE_TOOLS:
        return _other(str(name), args, Call(HARNESS, session, path, number, time, workdir, "shell", None, (),
                                            "unknown", None), path, number)
    try:
        q = adapter.question({"tool_name": name, "tool_input": args, "cwd": workdir or ""})
    except BadPayload as e:
        return Problem(path, number, f"{str(name)[:60]}: {e}")
    if q is None or q.kind == OTHER:
        return None
    return (Call(HARNESS, session, path, number, time, workdir, q.kind, q.command if q.kind == SHELL else None,
                 tuple(q.paths), "unknown", None, tuple(q.globs)), _named(str(name), args))


def _other(name: str, args: dict[str, Any], call: Call, path: str,
           number: int) -> tuple[Call, dict[str, str]] | Problem | None:
    """write_stdin: what it types is judged as a command line, as a shell left running would read
    it (a program that reads other input makes it an unlisted command, no finding); typing
    nothing only polls the output. A file tool: the file it opens, as a read or a search."""
    named = {"Tool call blocked by PreToolUse hook: ": name}
    if name in STDIN_TOOLS:
        chars = args.get("chars", "")
        if not isinstance(chars, str) or "\0" in chars:
            return Problem(path, number, f"{name}: chars: expected the text typed")
        return (call._replace(command=chars), named) if chars.strip() else None
    key, globs, kind = FILE_TOOLS[name]
    given = args.get(key) if key in args else call.cwd if kind == "search" else None
    glob = args.get(globs) if globs is not None else None
    if not isinstance(given, str) or "\0" in given or (glob is not None and not isinstance(glob, str)):
        return Problem(path, number, f"{name}: {key}: expected a path")
    return call._replace(kind=kind, paths=(given,), globs=(glob,) if glob else ()), named


def _named(name: str, args: dict[str, Any]) -> dict[str, str]:
    """What Codex names after a denial's reason, per kind of denial: the command (exec_command's
    `cmd` as given, apply_patch's patch), or the tool. Unknown for another shell's argv: then
    only the words before it are checked."""
    command = args.get("cmd") if name == "exec_command" else args.get("input") if name == "apply_patch" else None
    out = {"Tool call blocked by PreToolUse hook: ": name}
    if isinstance(command, str) and command:
        out["Command blocked by PreToolUse hook: "] = command
    return out


def _answered(call: Call, named: dict[str, str], output: object) -> Call:
    text = str(output.get("content", "")) if isinstance(output, dict) else output if isinstance(output, str) else ""
    for head, tail in HOOK_DENIED.items():
        # Codex writes the whole text, what it refused last; what a command prints comes after
        # a header of Codex's own (`Chunk ID: …`, `Exit code: …`), never first.
        subject = named.get(head)
        end = tail + subject if subject else tail
        if isinstance(output, str) and text.startswith(head) and (text.endswith(end) if subject else end in text):
            reason = text[len(head):len(text) - len(end)] if subject else text[len(head):].split(tail, 1)[0]
            return call._replace(outcome="hook_denied", reason=reason[:2000])
    if text.startswith(USER_DENIED):
        return call._replace(outcome="user_denied", reason=text[:2000])
    if isinstance(output, dict) and output.get("success") is False:  # some builds write {content, success}
        return call._replace(outcome="error", reason=text[:2000])
    code = _EXIT.search(text[:400])
    if code is not None and code.group(1) != "0":
        return call._replace(outcome="error", reason=text[:2000])
    return call._replace(outcome="ok")
