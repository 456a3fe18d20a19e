"""Gemini CLI's sessions: the chat files it records under `~/.gemini/tmp/`.

Where (Gemini CLI 0.61.0, packages/core/src/config/storage.ts and projectRegistry.ts in its
bundle): `~/.gemini/tmp/<id>/chats/session-<time>-<short id>.jsonl` (`.json` in older
versions), where GEMINI_CLI_HOME, when set, stands for `~`. `<id>` is a slug of the project
folder's name that `~/.gemini/projects.json` maps the folder to (`{"projects": {FOLDER: ID}}`),
and `<id>/.project_root` holds the folder; versions before the registry used the SHA-256 of
the folder, hex, as `<id>` (the registry copies such a folder to its slug, the old one stays).

A `.jsonl` file holds one JSON record a line (chatRecordingService.ts):
  {"sessionId", "projectHash", "startTime", "lastUpdated", "kind"}   the session's header
  {"id", "timestamp", "type": "user|gemini|info|error|warning", "content", "toolCalls"?}
                     a message; written again, same id, each time it changes: a model turn
                     first without its calls, then with them and their results
  {"$set": {...}}    metadata updates; `$set.messages` replaces the whole conversation
  {"$rewindTo": ID}  the conversation rewound to before message ID (what ran still ran)
A tool call: {"id", "name", "args", "status": "success|error|cancelled", "timestamp",
"result": [{"functionResponse": {"response": {"output"|"error"}}}], "resultDisplay"}.
An older `.json` file is the whole conversation as one object, {"sessionId", …, "messages"}.

A call's outcome is its status; an error is told apart by the text Gemini writes for it:
"Tool execution blocked: REASON" when a BeforeTool hook refused it, "Tool execution denied by
policy." when a policy rule did (handrail writes Gemini's policy file too: both are a guard's
refusal), and status "cancelled" with "User denied execution." when a person said no.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from handrail.audit.calls import Call, Problem, Record, Unknown
from handrail.audit.jsonl import inside, open_regular, records
from handrail.hooks.pretool import EDIT, SHELL, Question

HARNESS = "gemini"
LEGACY_LIMIT = 64 * 1024 * 1024  # an older `.json` session is one object: read whole only below this size
MESSAGE_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
HOOK_BLOCKED = "Tool execution blocked: "
POLICY_DENIED = "Tool execution denied by policy."
USER_DENIED = "User denied execution."
SKIPPED_DIRS = frozenset({".git", "node_modules"})


def gemini_home(home: str, env: Mapping[str, str]) -> str:
    """`~/.gemini`, where GEMINI_CLI_HOME stands for `~` when set (storage.ts: `homedir()`)."""
    given = env.get("GEMINI_CLI_HOME")
    return os.path.join(given if given and os.path.isabs(given) else home, ".gemini")


def digest(folder: str) -> str:
    return hashlib.sha256(folder.encode()).hexdigest()


def project_folders(project: str, limit: int = 20000) -> Iterator[str]:
    """The project's folder and those below it (not .git, not node_modules), for the SHA-256
    folder ids of older versions: a hash can only be matched by hashing its candidates."""
    yield os.path.normpath(project)
    seen = 0
    for top, dirs, _files in os.walk(project):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for d in dirs:
            seen += 1
            if seen > limit:
                return
            yield os.path.join(top, d)


def registry(gemini: str) -> dict[str, str]:
    """projects.json: id -> folder, for the ids it names (an unreadable file names none)."""
    try:
        with open(os.path.join(gemini, "projects.json"), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {v: k for k, v in projects.items() if isinstance(k, str) and isinstance(v, str)}


def folder_of(session_dir: str, known: dict[str, str] | None = None) -> str | None:
    """The project folder Gemini ran in for `~/.gemini/tmp/<id>`: its `.project_root`, else
    what projects.json maps `<id>` to, else (an older hash id) nothing that can be read."""
    try:
        with open(os.path.join(session_dir, ".project_root"), encoding="utf-8") as f:
            root = f.read().strip()
        if root:
            return root
    except OSError:
        pass
    if known is None:
        known = registry(os.path.dirname(os.path.dirname(session_dir)))
    return known.get(os.path.basename(session_dir))


def session_files(chats: str) -> list[str]:
    return sorted(p for p in glob.glob(os.path.join(glob.escape(chats), "session-*"))
                  if p.endswith((".jsonl", ".json")) and os.path.isfile(p))


def find_gemini(project: str, home: str, env: Mapping[str, str]) -> list[str]:
    """The Gemini CLI session files whose project folder lies inside `project`."""
    gemini = gemini_home(home, env)
    tmp = os.path.join(gemini, "tmp")
    try:
        ids = sorted(os.listdir(tmp))
    except OSError:
        return []
    known = registry(gemini)
    hashes: set[str] | None = None
    out: list[str] = []
    for ident in ids:
        session_dir = os.path.join(tmp, ident)
        chats = os.path.join(session_dir, "chats")
        if not os.path.isdir(chats):
            continue
        root = folder_of(session_dir, known)
        if root is not None:
            if inside(root, project):
                out.extend(session_files(chats))
            continue
        if len(ident) == 64:
            if hashes is None:
                hashes = {digest(f) for f in project_folders(project)}
            if ident in hashes:
                out.extend(session_files(chats))
    return out


def _cwd_of(path: str) -> str | None:
    """The project folder of a session file at `…/tmp/<id>/chats/session-….jsonl`; None for a
    copy kept elsewhere, or an older hash id (the folder is known only to who hashed it)."""
    chats = os.path.dirname(os.path.abspath(path))
    if os.path.basename(chats) != "chats":
        return None
    session_dir = os.path.dirname(chats)
    root = folder_of(session_dir)
    if root is None and len(os.path.basename(session_dir)) == 64:
        return None
    return root


def read_gemini(path: str) -> Iterator[Record]:
    """Every tool call in one Gemini CLI session file, each once, with its final status."""
    cwd = _cwd_of(path)
    if path.endswith(".json"):
        yield from _read_legacy(path, cwd)
        return
    reader = _Session(path, cwd)
    for item in records(path):
        if isinstance(item, Problem):
            yield from reader.flush()
            yield item
            continue
        yield from reader.take(*item)
    yield from reader.flush()


def _read_legacy(path: str, cwd: str | None) -> Iterator[Record]:
    try:
        size = os.path.getsize(path)
        if size > LEGACY_LIMIT:
            yield Problem(path, None, f"an older whole-JSON session of {size} bytes: larger than "
                                      f"{LEGACY_LIMIT} bytes, not read")
            return
        f = open_regular(path)
        if isinstance(f, str):
            yield Problem(path, None, f)
            return
        with f:
            data = json.loads(f.read(LEGACY_LIMIT + 1).decode("utf-8", "replace"))
    except OSError as e:
        yield Problem(path, None, f"cannot be read: {e.strerror or e}")
        return
    except ValueError:
        yield Problem(path, None, "not a JSON document")
        return
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        yield Problem(path, None, "not a Gemini CLI session (no messages list)")
        return
    reader = _Session(path, cwd)
    if isinstance(data.get("sessionId"), str):
        reader.session = data["sessionId"]
    yield from reader.messages(data["messages"], None)
    yield from reader.flush()


class _Session:
    """The state of one file's reading: its session id, which calls were told already, and
    the latest version of the message being written (a message's versions come together)."""

    def __init__(self, path: str, cwd: str | None) -> None:
        self.path = path
        self.cwd = cwd
        name = os.path.basename(path).rsplit(".", 1)[0]
        self.session = name
        self.told: set[str] = set()
        self.pending: _Pending | None = None

    def take(self, number: int, record: dict[str, Any]) -> Iterator[Record]:
        if isinstance(record.get("sessionId"), str) and "projectHash" in record:
            self.session = str(record["sessionId"])
            return
        if isinstance(record.get("$rewindTo"), str):
            return  # the calls before it still ran: nothing to take back
        if "$set" in record:
            update = record["$set"]
            if not isinstance(update, dict):
                yield Problem(self.path, number, "$set is not an object")
                return
            if isinstance(update.get("messages"), list):
                yield from self.messages(update["messages"], number)
            return
        if isinstance(record.get("id"), str):
            yield from self.messages([record], number)
            return
        yield Unknown("record without id, $set or $rewindTo")

    def messages(self, messages: Iterable[object], number: int | None) -> Iterator[Record]:
        for message in messages:
            if not isinstance(message, dict) or not isinstance(message.get("id"), str):
                yield Problem(self.path, number, "a message without an id")
                continue
            kind = message.get("type")
            if kind not in MESSAGE_TYPES:
                yield Unknown(f"message {str(kind)[:60]}" if isinstance(kind, str) else "message without a type")
                continue
            if self.pending is not None and self.pending.id != message["id"]:
                yield from self.flush()
            if self.pending is None:
                self.pending = _Pending(message["id"])
            yield from self.pending.take(message, number, self.path)

    def flush(self) -> Iterator[Record]:
        """The calls of the message whose versions have all been read."""
        if self.pending is None:
            return
        pending, self.pending = self.pending, None
        for key, (call, stamp, number) in pending.calls.items():
            if key in self.told:
                continue  # a conversation replaced whole ($set.messages) repeats calls told before
            self.told.add(key)
            made = self.call(call, stamp, number)
            if made is not None:
                yield made

    def call(self, call: dict[str, Any], stamp: object, number: int | None) -> Record | None:
        name = str(call["name"])
        args = call.get("args")
        if not isinstance(args, dict):
            return Problem(self.path, number, f"tool call {name[:60]}: args is not an object")
        q = _question(name, args, self.cwd)
        if q is None:
            return None
        if isinstance(q, str):
            return Problem(self.path, number, f"tool call {name[:60]}: {q}")
        kind = "write" if q.kind == EDIT and name == "write_file" else q.kind
        cwd = (q.cwd or self.cwd) if q.kind == SHELL else self.cwd
        stamp = call.get("timestamp") or stamp
        outcome, reason = _outcome(call)
        return Call(HARNESS, self.session, self.path, number, stamp if isinstance(stamp, str) else None, cwd, kind,
                    q.command if q.kind == SHELL else None, tuple(q.paths), outcome, reason, tuple(q.globs))


class _Pending:
    """The tool calls of one message over its versions, by call id: the last version of each
    call wins (its final status), and the line it was read on is the call's."""

    def __init__(self, ident: str) -> None:
        self.id = ident
        self.calls: dict[str, tuple[dict[str, Any], object, int | None]] = {}

    def take(self, message: dict[str, Any], number: int | None, path: str) -> Iterator[Record]:
        calls = message.get("toolCalls")
        if calls is None:
            return
        if not isinstance(calls, list):
            yield Problem(path, number, f"message {self.id[:60]}: toolCalls is not a list")
            return
        for n, call in enumerate(calls):
            if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                yield Problem(path, number, f"message {self.id[:60]}: a tool call without a name")
                continue
            key = call["id"] if isinstance(call.get("id"), str) else f"{self.id}:{n}"
            self.calls[key] = (call, message.get("timestamp"), number)


def _question(tool: str, args: dict[str, object], cwd: str | None) -> Question | str | None:
    """The call as the hook adapter reads it (harnesses/gemini.py: one reading of Gemini's
    tools), a string saying what is wrong with it, or None for a tool that is no shell, edit,
    read or search. `replace` and `edit` are read as `write_file` (the same path keys): the
    adapter's extra check, that the file exists, is about the disk at the time of the call,
    which a transcript read later cannot see."""
    from handrail.harnesses import gemini as adapter
    from handrail.hooks.pretool import OTHER, BadPayload

    asked = "write_file" if tool in adapter.EDIT_TOOLS else tool
    payload = {"hook_event_name": adapter.EVENT, "tool_name": asked, "tool_input": args, "cwd": cwd or ""}
    try:
        q = adapter.question(payload)
    except BadPayload as e:
        return str(e)
    return None if q is None or q.kind == OTHER else q


def _outcome(call: dict[str, object]) -> tuple[str, str | None]:
    status = call.get("status")
    error = _error_text(call)
    if status == "success":
        return "ok", None
    if status == "cancelled":
        return ("user_denied" if error and USER_DENIED in error else "error"), error
    if status != "error":
        return "unknown", error
    if error is None:
        return "error", None
    if error.startswith(HOOK_BLOCKED):
        return "hook_denied", error[len(HOOK_BLOCKED):][:2000]
    if error.startswith(POLICY_DENIED):
        return "hook_denied", error
    return "error", error[:2000]


def _error_text(call: dict[str, object]) -> str | None:
    """The error Gemini told the model (functionResponse.response.error), else what it showed."""
    result = call.get("result")
    for part in result if isinstance(result, list) else ():
        response = part.get("functionResponse") if isinstance(part, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, str) and error:
            return error
    shown = call.get("resultDisplay")
    return shown if isinstance(shown, str) and shown and call.get("status") != "success" else None
