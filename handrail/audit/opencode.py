"""OpenCode's sessions: its SQLite database, read without ever writing or locking it.

Where (OpenCode 1.18.33, read from its binary): `$XDG_DATA_HOME/opencode/opencode.db`
(`~/.local/share/opencode/` by default); a release channel other than latest, beta or prod
writes `opencode-<channel>.db` beside it, and OPENCODE_DB names another file. One database
holds every project's sessions: the finder names each of the project's as `DATABASE#SESSION`
(the session's `directory` inside the project), and the reader reads that session alone; given
a database's own path, it reads every session in it.

What is read (tables and JSON fields as OpenCode 1.18.33 writes them):
  session   id, directory (where `opencode` ran), time_created (ms), version
  message   id, data: {"role", "path": {"cwd"}}       the folder of an assistant turn
  part      rowid, id, message_id, session_id, time_created (ms), data: one part of a
            turn; a tool call is {"type": "tool", "tool", "callID", "state": {"status":
            "pending|running|completed|error", "input", "output"|"error", "time":
            {"start", "end"}}}
  session_message   rows of a newer message store: counted by their `type`, not read

A call's outcome is its state's status; an error is told apart by its text, as OpenCode
and handrail's plugin write it: the plugin throws `handrail: …` (template/opencode/
handrail.js), OpenCode's own rules refuse with "The user has specified a rule which
prevents you from using this specific tool call", a person with "The user rejected
permission to use this specific tool call". Both refusals by a rule count as a guard's
(`hook_denied`): handrail writes OpenCode's permission rules too.

The database is opened read-only (`mode=ro`), and read a page of rows at a time, each
page its own short read, so that OpenCode, writing the same file, never waits on the
audit, and memory stays bounded whatever the size of the database.
"""

from __future__ import annotations

import glob
import json
import os
import sqlite3
import urllib.parse
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime

from handrail.audit.calls import Call, Problem, Record, Unknown
from handrail.audit.jsonl import related
from handrail.hooks.pretool import EDIT, SHELL, Question

HARNESS = "opencode"
SESSION_MARK = "#"  # DATABASE#SESSION: one session of a database
PAGE = 500  # rows per read: bounded memory, and no read held open while OpenCode writes
# Part types OpenCode 1.18 writes that are no tool call: known, and skipped without a count.
NOT_CALLS = frozenset({"text", "reasoning", "file", "step-start", "step-finish", "snapshot", "patch", "agent",
                       "retry", "compaction", "subtask"})
HOOK_PREFIX = "handrail: "  # every refusal handrail's plugin throws starts so
RULE_DENIED = "The user has specified a rule which prevents you from using this specific tool call"
USER_DENIED = "The user rejected permission to use this specific tool call"


def data_dirs(home: str, env: Mapping[str, str]) -> list[str]:
    """OpenCode's data folders for `home`: XDG_DATA_HOME's when it is set, and the default."""
    dirs = [os.path.join(home, ".local", "share", "opencode")]
    xdg = env.get("XDG_DATA_HOME")
    if xdg and os.path.isabs(xdg):
        dirs.insert(0, os.path.join(xdg, "opencode"))
    return list(dict.fromkeys(dirs))


def databases(home: str, env: Mapping[str, str]) -> list[str]:
    """Every OpenCode database under `home`: each channel's, and the one OPENCODE_DB names."""
    found = [p for d in data_dirs(home, env) for p in sorted(glob.glob(os.path.join(glob.escape(d), "opencode*.db")))]
    named = env.get("OPENCODE_DB")
    if named and os.path.isabs(named):
        found.append(named)
    return [p for p in dict.fromkeys(found) if os.path.isfile(p)]


def is_sqlite(path: str) -> bool:
    """Whether `path` is an SQLite database, by the header every one opens with."""
    try:
        with open(path, "rb") as f:
            return f.read(16) == b"SQLite format 3\0"
    except OSError:
        return False


# The tables and columns the reader reads: a database without them is not OpenCode's.
SCHEMA = {"session": ("id", "directory"), "message": ("id", "data"),
          "part": ("id", "message_id", "session_id", "time_created", "data")}


def missing(path: str) -> str | None:
    """What `path` lacks to be an OpenCode database the reader can read (a table, a column,
    or its being a database at all), or None when it has all of SCHEMA."""
    try:
        conn = connect(path)
        try:
            for table, columns in SCHEMA.items():
                have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
                if not have:
                    return f"no table '{table}'"
                lacking = [c for c in columns if c not in have]
                if lacking:
                    return f"table '{table}' has no column '{lacking[0]}'"
        finally:
            conn.close()
    except sqlite3.Error as e:
        return f"cannot be read as SQLite: {e}"
    return None


def connect(path: str) -> sqlite3.Connection:
    """The database, read-only: no write, no journal, no lock held past one statement."""
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=2.0, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA query_only = ON")
    return conn


def find_opencode(project: str, home: str, env: Mapping[str, str]) -> list[str]:
    """The OpenCode sessions that ran inside `project`, each as `DATABASE#SESSION`: one database
    holds every project's sessions, and a session is what the report tells apart."""
    out = []
    for path in databases(home, env):
        try:
            conn = connect(path)
            try:
                rows = conn.execute("SELECT id, directory FROM session ORDER BY time_created, id").fetchall()
            finally:
                conn.close()
        except sqlite3.Error:
            out.append(path)  # the reader reports what is wrong with it, rather than hide it
            continue
        out += [f"{path}{SESSION_MARK}{sid}" for sid, folder in rows
                if isinstance(sid, str) and isinstance(folder, str) and related(folder, project)]
    return out


def split(path: str) -> tuple[str, str | None]:
    """(database, session) of what `find_opencode` gives, or of a database's own path (every session)."""
    if not os.path.isfile(path) and SESSION_MARK in path:
        db, _, session = path.rpartition(SESSION_MARK)
        if os.path.isfile(db):
            return db, session
    return path, None


def iso(ms: object) -> str | None:
    """A time OpenCode keeps in milliseconds since the epoch, as ISO 8601 UTC."""
    if isinstance(ms, bool) or not isinstance(ms, int | float):
        return None
    try:
        stamp = datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def read_opencode(path: str) -> Iterator[Record]:
    """The tool calls of one session (`DATABASE#SESSION`, as the finder names it) or of every
    session in a database, in the order OpenCode wrote them."""
    path, session = split(path)
    try:
        conn = connect(path)
        try:
            conn.execute("SELECT 1 FROM part LIMIT 1").fetchall()
        except sqlite3.Error:
            conn.close()
            raise
    except sqlite3.Error as e:
        yield Problem(path, None, f"not an OpenCode database OpenCode 1.18 writes: {e}")
        return
    try:
        yield from _read(conn, path, session)
    except sqlite3.Error as e:
        yield Problem(path, None, f"the database could not be read to the end: {e}")
    finally:
        conn.close()


def _read(conn: sqlite3.Connection, path: str, session: str | None) -> Iterator[Record]:
    sessions = {sid: folder for sid, folder in conn.execute("SELECT id, directory FROM session")}
    folders: dict[str, str | None] = {}  # message id -> its turn's folder, for the messages of one page
    which = "" if session is None else "session_id = ? AND "
    last = 0
    while True:
        rows = conn.execute("SELECT rowid, id, message_id, session_id, time_created, data FROM part "
                            f"WHERE {which}rowid > ? ORDER BY rowid LIMIT ?",
                            (*((session,) if session is not None else ()), last, PAGE)).fetchall()
        if not rows:
            break
        last = rows[-1][0]
        folders.clear()
        for rowid, part_id, message_id, session_id, created, data in rows:
            if message_id not in folders:
                folders[message_id] = _message_cwd(conn, message_id)
            cwd = folders[message_id] or sessions.get(session_id)
            yield from _part(path, rowid, str(part_id), str(session_id), created, data, cwd)
    yield from _newer_store(conn, session)


def _message_cwd(conn: sqlite3.Connection, message_id: object) -> str | None:
    row = conn.execute("SELECT data FROM message WHERE id = ?", (message_id,)).fetchone()
    try:
        data = json.loads(row[0]) if row else None
    except (TypeError, ValueError):
        return None  # the part's own row still says what ran; the session's folder stands in
    where = data.get("path") if isinstance(data, dict) else None
    cwd = where.get("cwd") if isinstance(where, dict) else None
    return cwd if isinstance(cwd, str) and cwd else None


def _newer_store(conn: sqlite3.Connection, session: str | None) -> Iterator[Record]:
    """Rows of `session_message`, a store OpenCode 1.18 creates and leaves empty: counted."""
    which = "" if session is None else " WHERE session_id = ?"
    try:
        counts = conn.execute(f"SELECT type, COUNT(*) FROM session_message{which} GROUP BY type",
                              (session,) if session is not None else ()).fetchall()
    except sqlite3.Error:
        return  # an older database without the table
    for kind, n in counts:
        for _ in range(n):
            yield Unknown(f"session_message {kind}")


def _part(path: str, rowid: int, part_id: str, session: str, created: object, data: object,
          cwd: str | None) -> Iterator[Record]:
    try:
        part = json.loads(data) if isinstance(data, str | bytes) else None
    except ValueError:
        part = None
    if not isinstance(part, dict):
        yield Problem(path, rowid, f"part {part_id}: data is not a JSON object")
        return
    kind = part.get("type")
    if kind in NOT_CALLS:
        return
    if kind != "tool":
        yield Unknown(f"part {kind}" if isinstance(kind, str) else "part without a type")
        return
    tool, state = part.get("tool"), part.get("state")
    if not isinstance(tool, str) or not isinstance(state, dict) or not isinstance(state.get("input"), dict):
        yield Problem(path, rowid, f"part {part_id}: a tool part without its tool, state or state.input")
        return
    args: dict[str, object] = state["input"]
    q = _shape(tool, args, cwd)
    if q is None:
        return
    if isinstance(q, str):
        yield Problem(path, rowid, f"part {part_id}: {tool}: {q}")
        return
    kind = "write" if q.kind == EDIT and tool == "write" else q.kind
    if q.kind == SHELL and q.cwd:
        cwd = q.cwd
    times = state.get("time")
    start = times.get("start") if isinstance(times, dict) else None
    outcome, reason = _outcome(state)
    yield Call(HARNESS, session, path, rowid, iso(start) or iso(created), cwd, kind,
               q.command if q.kind == SHELL else None, tuple(q.paths), outcome, reason, tuple(q.globs))


def _shape(tool: str, args: dict[str, object], cwd: str | None) -> Question | str | None:
    """The call as the hook adapter reads it (harnesses/opencode.py: one reading of OpenCode's
    tools), a string saying what is wrong with it, or None for a tool that is no shell, edit,
    read or search."""
    from handrail.harnesses import opencode as adapter
    from handrail.hooks.pretool import OTHER, BadPayload

    try:
        q = adapter.question({"tool": tool, "args": args, "directory": cwd or ""})
    except BadPayload as e:
        return str(e)
    return None if q is None or q.kind == OTHER else q


def _outcome(state: dict[str, object]) -> tuple[str, str | None]:
    status = state.get("status")
    if status == "completed":
        return "ok", None
    if status != "error":
        return "unknown", None  # pending or running: the session stopped before the call ended
    error = state.get("error")
    reason = error[:2000] if isinstance(error, str) else None
    if reason is None:
        return "error", None
    if reason.startswith(HOOK_PREFIX) or reason.startswith(RULE_DENIED):
        return "hook_denied", reason
    if reason.startswith(USER_DENIED):
        return "user_denied", reason
    return "error", reason
