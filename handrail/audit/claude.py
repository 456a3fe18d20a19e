"""Claude Code's transcripts: `~/.claude/projects/<slug>/<session id>.jsonl` (CLAUDE_CONFIG_DIR
stands for `~/.claude` when set).

Field names as Claude Code 2.1.197 writes them (seen in transcripts it made, offline, under
tests/audit/sessions.py):
- every line has `type`; "assistant" and "user" lines carry `message`, `timestamp`, `cwd`,
  `sessionId`; "attachment" lines carry `attachment` {type, toolUseID, …};
- a call is an assistant `message.content` block {"type": "tool_use", id, name, input};
- its result is a user `message.content` block {"type": "tool_result", tool_use_id, content,
  is_error}, paired by id (it may come many lines later, or never);
- a pre-tool hook that allows writes an attachment `hook_success` for the call; one that denies
  (`permissionDecision: deny`) leaves no attachment: the result is `is_error: true` with the
  hook's reason as its whole text (`Blocked by hook` when it gave none). A hook that exits 2
  writes `hook_blocking_error` (hookEvent "PreToolUse") and the result `PreToolUse:<tool> hook
  error: …`; `continue: false` gives `Execution stopped by PreToolUse hook…`. Claude's own
  failures are told apart by their text: a tool's error is wrapped in `<tool_use_error>`, a
  failed Bash command opens with `Exit code N` (or `Command timed out after …`, or the
  interruption's `[Request interrupted by user for tool use]`), the person's refusal and a
  settings rule's are the sentences in USER_DENIED.

A denial is only what is recognised as one, by what only Claude Code writes: the shape of a
refusal's result (the reason as the whole string content, `toolUseResult` "Error: " and it)
opening with handrail's own reason (`handrail: …`) or one of Claude's marks above
(HOOK_DENIED), for a call no hook let through. Text a command prints cannot make one: Claude
opens a failed command's result with `Exit code N`, read first as a tool's error. Any other
error result is an error: another hook's free text and a tool's failure look alike, and
taking a failure for a denial would hide a call that may have run.

The slug: `cwd.replace(/[^a-zA-Z0-9]/g, "-")`, cut at 200 characters plus `-` and the base-36
of a string hash when longer (Claude Code's `$E`). It is lossy (`/a/b-c` and `/a/b/c` meet), so
the finder reads each session's own `cwd` before it keeps one.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

from handrail.audit.calls import Call, Problem, Record, Unknown
from handrail.audit.jsonl import first_records, records, related, text_of, unreadable

HARNESS = "claude"
SLUG_MAX = 200
# Line types that hold no tool call: the prompt queue, titles, summaries, snapshots of edited
# files, system notes. Any other type is counted as unknown.
QUIET = frozenset({"queue-operation", "last-prompt", "summary", "file-history-snapshot", "system", "custom-title",
                   "progress", "permission-mode", "agent-name", "tag"})
USER_DENIED = ("The user doesn't want to proceed with this tool use", "The user doesn't want to take this action",
               "Permission to use ", "Permission to edit ", "Permission to read ")
# An interruption (Esc) can come while the tool runs: it is no refusal, the call may have run.
TOOL_ERROR = ("<tool_use_error>", "Exit code ", "Command timed out after ",
              "[Request interrupted by user for tool use]")
# Where a result's text opens so, a pre-tool hook refused the call: handrail's reason, and the
# texts Claude Code 2.1.197 writes itself (its bundle: `${hookName} hook error: `, the default
# reason of a deny, `continue: false`, a PermissionRequest hook's deny).
HOOK_DENIED = ("handrail: ", "Blocked by hook", "Execution stopped by PreToolUse hook",
               "Permission denied by hook")
HOOK_ERROR = re.compile(r"PreToolUse:\S+ hook error: ")
MOST_PENDING = 10_000  # calls awaiting their result; past this the oldest is given as unknown


def slug(path: str) -> str:
    """Claude Code's folder name for a working directory."""
    # JavaScript replaces per UTF-16 code unit: a character past U+FFFF becomes two dashes.
    out = "".join(c if c.isascii() and c.isalnum() else "--" if ord(c) > 0xFFFF else "-" for c in path)
    if len(out) <= SLUG_MAX:
        return out
    return f"{out[:SLUG_MAX]}-{_base36(abs(_java_hash(path)))}"


def _java_hash(text: str) -> int:
    h = 0
    data = text.encode("utf-16-le", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (h * 31 + int.from_bytes(data[i:i + 2], "little")) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def config_dir(home: str, env: Mapping[str, str]) -> str:
    """Where Claude Code keeps its files: CLAUDE_CONFIG_DIR when set (its bundle:
    `process.env.CLAUDE_CONFIG_DIR ?? join(homedir(), ".claude")`), else `~/.claude`."""
    given = env.get("CLAUDE_CONFIG_DIR")
    return given if given and os.path.isabs(given) else os.path.join(home, ".claude")


def find_claude(project: str, home: str, env: Mapping[str, str]) -> list[str]:
    """The transcripts whose session ran inside `project` or in a folder above it: the folders
    whose slug begins with the project's (a session started in a subfolder has a longer one) or
    is that of a folder above it, each file kept only when its own `cwd` says so."""
    base = os.path.join(config_dir(home, env), "projects")
    try:
        folders = os.listdir(base)
    except OSError:
        return []
    heads = {slug(os.path.abspath(project))[:SLUG_MAX], slug(os.path.realpath(project))[:SLUG_MAX]}
    found = []
    for name in sorted(folders):
        if not any(name == h or name.startswith(h + "-") or h.startswith(name + "-") or
                   (len(h) == SLUG_MAX and name.startswith(h)) for h in heads):
            continue
        found += _sessions_in(os.path.join(base, name), project)
    return found


def _sessions_in(folder: str, project: str) -> list[str]:
    """The transcripts of one slug folder that ran inside `project`, or above it. One that cannot be read (a
    FIFO, a link into a loop, no permission), or a folder that cannot be listed, is kept: the
    reader reports it, one line, rather than the audit passing over it in silence."""
    import errno

    try:
        os.listdir(folder)
    except OSError as e:
        return [] if e.errno == errno.ENOTDIR else [folder]
    found = []
    for path in sorted(glob.glob(os.path.join(glob.escape(folder), "*.jsonl")) +
                       glob.glob(os.path.join(glob.escape(folder), "*", "subagents", "*.jsonl"))):
        if unreadable(path) is not None:
            found.append(path)
            continue
        cwd = next((r["cwd"] for r in first_records(path, 50) if isinstance(r.get("cwd"), str)), None)
        if cwd is not None and related(cwd, project):
            found.append(path)
    return found


def read_claude(path: str) -> Iterator[Record]:
    """Each tool call of one transcript, with the outcome its result shows, in the order the
    results came (a call never answered comes last, as unknown)."""
    pending: dict[str, Call] = {}
    allowed: set[str] = set()  # calls a hook let through (hook_success)
    blocked: dict[str, str] = {}  # calls a hook refused by exiting 2, with its text
    session = os.path.splitext(os.path.basename(path))[0]
    for item in records(path):
        if isinstance(item, Problem):
            yield item
            continue
        number, rec = item
        kind = rec.get("type")
        if isinstance(rec.get("sessionId"), str):
            session = rec["sessionId"]
        if kind == "assistant":
            for block in _blocks(rec):
                if block.get("type") != "tool_use":
                    continue
                made = _call(block, rec, session, path, number)
                if isinstance(made, Problem):
                    yield made
                elif made is not None:
                    pending[str(block.get("id"))] = made
                    if len(pending) > MOST_PENDING:
                        yield pending.pop(next(iter(pending)))
        elif kind == "user":
            for block in _blocks(rec):
                if block.get("type") == "tool_result":
                    call = pending.pop(str(block.get("tool_use_id")), None)
                    if call is not None:
                        yield _answered(call, block, rec.get("toolUseResult"), allowed, blocked)
        elif kind == "attachment":
            att = rec.get("attachment")
            if isinstance(att, dict) and isinstance(att.get("toolUseID"), str):
                if att.get("type") == "hook_success":
                    allowed.add(att["toolUseID"])
                elif att.get("type") == "hook_blocking_error" and _before_the_call(att):
                    err = att.get("blockingError")
                    blocked[att["toolUseID"]] = str(err.get("blockingError", "")) if isinstance(err, dict) else ""
        elif kind not in QUIET:
            yield Unknown(str(kind)[:80] if kind is not None else "(no type)")
    yield from pending.values()


def _blocks(rec: dict[str, Any]) -> list[dict[str, Any]]:
    message = rec.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _call(block: dict[str, Any], rec: dict[str, Any], session: str, path: str, number: int) -> Call | Problem | None:
    """The call a tool_use block makes, read by the hook adapter itself (one reading of Claude's
    tools: harnesses/claude.py); None for a tool that is no shell, edit, read or search."""
    from handrail.harnesses import claude as adapter
    from handrail.hooks.pretool import EDIT, OTHER, SHELL, BadPayload

    name = block.get("name")
    cwd = rec.get("cwd") if isinstance(rec.get("cwd"), str) else None
    payload = {"tool_name": name, "tool_input": block.get("input"), "cwd": cwd or ""}
    try:
        q = adapter.question(payload)
    except BadPayload as e:
        return Problem(path, number, f"tool_use {str(name)[:60]}: {e}")
    if q is None or q.kind == OTHER:
        return None
    kind = "write" if q.kind == EDIT and name == "Write" else q.kind
    time = rec.get("timestamp") if isinstance(rec.get("timestamp"), str) else None
    return Call(HARNESS, session, path, number, time, cwd, kind, q.command if q.kind == SHELL else None,
                tuple(q.paths), "unknown", None, tuple(q.globs))


def _answered(call: Call, block: dict[str, Any], result: object, allowed: set[str], blocked: dict[str, str]) -> Call:
    use = str(block.get("tool_use_id"))
    content = block.get("content")
    text = text_of(content)
    if use in blocked:
        return call._replace(outcome="hook_denied", reason=blocked[use] or text[:2000])
    if block.get("is_error") is not True:
        return call._replace(outcome="ok")
    if text.startswith(USER_DENIED):
        return call._replace(outcome="user_denied", reason=text[:2000])
    if text.startswith(TOOL_ERROR) or use in allowed:
        return call._replace(outcome="error", reason=text[:2000])
    if _shaped_as_denial(content, result) and (text.startswith(HOOK_DENIED) or HOOK_ERROR.match(text)):
        return call._replace(outcome="hook_denied", reason=text[:2000])
    # An error in no shape known: a failure or another hook's refusal, which cannot be told
    # apart. It is an error, so a call that may have run is still judged.
    return call._replace(outcome="error", reason=text[:2000])


def _shaped_as_denial(content: object, result: object) -> bool:
    """Whether a result has the shape Claude Code gives a refusal before the call (its bundle:
    the block's content is the reason as one string, the line's toolUseResult `Error: ` and
    that string). A command's own output never opens such a result: a failed Bash command's
    opens with `Exit code N` (TOOL_ERROR, checked before), and a tool's blocks are a list."""
    return isinstance(content, str) and (result is None or result == f"Error: {content}")


def _before_the_call(att: dict[str, Any]) -> bool:
    """Whether a hook's blocking error came before the call ran: a pre-tool hook's, not a
    post-tool one's (those block after the tool has run)."""
    name = att.get("hookName")
    return att.get("hookEvent") == "PreToolUse" or (isinstance(name, str) and name.startswith("PreToolUse:"))
