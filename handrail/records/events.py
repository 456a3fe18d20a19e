"""The event log: one SQLite database per repository, written by every layer.

`record()` is the one function every decision goes through. It is best effort: a
broken or locked database never changes a hook's answer, and says so in one line
on stderr. A locked log is waited for at most `WRITE_WAIT_MS`: a hook runs before
every tool call, and an event is worth less than the agent's time. `handrail doctor`
proves the log works (see `records/logcheck.py`).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Mapping, Sequence

from handrail.errors import HandrailError
from handrail.records import clock

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

RUNTIME_DIR = os.path.join(".handrail", "runtime")
DB_NAME = "events.sqlite"
NO_PROJECT = "no_project"
# A lock nobody releases costs a decision this long, then its event. Writers that take
# turns are told apart from one that hangs by the log's files changing: while other
# events land the lock is moving, and the wait goes on (up to CONTENDED_WAIT_MS), so
# many hooks at once lose nothing.
WRITE_WAIT_MS = 100
CONTENDED_WAIT_MS = 2_000
ATTEMPT_WAIT_MS = 20  # SQLite's own busy wait per attempt, between looks at the files
READ_WAIT_MS = 2_000  # `handrail events` is a person waiting, and WAL readers rarely wait
# `handrail doctor` writes one event of this type to prove the log works; reading skips it.
PROBE_TYPE = "doctor_probe"

SCHEMA = """
CREATE TABLE IF NOT EXISTS agent_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    event_type TEXT NOT NULL,
    agent TEXT,
    task TEXT,
    topic TEXT,
    message TEXT NOT NULL DEFAULT '',
    payload_json TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS agent_events_created ON agent_events (created_at);
CREATE INDEX IF NOT EXISTS agent_events_type ON agent_events (event_type);
CREATE INDEX IF NOT EXISTS agent_events_task ON agent_events (task);
CREATE INDEX IF NOT EXISTS agent_events_agent ON agent_events (agent);
"""
# The dashboard pages newest first by id within a task, an agent or a type: each of these
# indexes holds the rowid after its column, so `task = ? AND id < ? ORDER BY id DESC` is
# one index range. A log created before the last two existed still answers, by a scan.


def db_path(project: str) -> str:
    return os.path.join(project, RUNTIME_DIR, DB_NAME)


def ensure_runtime_dir(project: str) -> str:
    """The runtime folder, created git-ignored (a `.gitignore` of `*` ignores itself too)."""
    path = os.path.join(project, RUNTIME_DIR)
    os.makedirs(path, exist_ok=True)
    ignore = os.path.join(path, ".gitignore")
    if not os.path.exists(ignore):
        with open(ignore, "w", encoding="utf-8") as f:
            f.write("# handrail runtime state: never committed\n*\n")
    return path


def connect(project: str, *, wait_ms: int = WRITE_WAIT_MS):  # type: ignore[no-untyped-def]
    import sqlite3

    path = db_path(project)
    fresh = not os.path.exists(path)
    if fresh:
        from handrail.projectroot import keeps_records

        if not keeps_records(project, os.environ):
            raise HandrailError(f"{project} is no project (no git repository, no .handrail/ folder): "
                                "nothing is written there", reason=NO_PROJECT)
        ensure_runtime_dir(project)
    conn = sqlite3.connect(path, timeout=wait_ms / 1000, isolation_level=None)
    # With WAL, NORMAL still never corrupts; it only skips an fsync per event, which
    # matters when many hooks record at once.
    conn.execute("PRAGMA synchronous = NORMAL")
    # WAL mode, the table and its indexes persist in the file: a hook that records into an
    # existing log (the common case, before every tool call) skips setting them up again.
    # A log from before the newest index gets it once, from the first write after.
    if fresh or not _has_schema(conn):
        conn.execute("PRAGMA journal_mode = WAL")
        conn.executescript(SCHEMA)
    return conn


def _has_schema(conn) -> bool:  # type: ignore[no-untyped-def]
    """The table and the newest index of SCHEMA are there (the others came before it)."""
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'agent_events_agent'").fetchone()
    return row is not None


def record(project: str, event_type: str, *, agent: str | None = None, task: str | None = None,
           topic: str | None = None, message: str = "", payload: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """Append one event; returns it as recorded, or None when recording failed."""
    event: dict[str, Any] = {
        "created_at": stamp(),
        "event_type": event_type,
        "agent": _utf8(agent if agent is not None else acting_agent()),
        "task": _utf8(task),
        "topic": _utf8(topic),
        "message": _utf8(message),
        "payload_json": _utf8(json.dumps(payload or {}, ensure_ascii=False, sort_keys=True), in_json=True),
    }
    try:
        event["id"] = insert(project, event)
    except Exception as e:  # noqa: BLE001 - recording must never change a decision
        if isinstance(e, HandrailError) and e.reason == NO_PROJECT:
            print(f"handrail: note: {event_type} not recorded: {e}", file=sys.stderr)
            return None
        print(f"handrail: warning: could not record {event_type} in {db_path(project)}: {explain(e)}; "
              "the answer stands", file=sys.stderr)
        return None
    return event


def _utf8(text: str | None, *, in_json: bool = False) -> str | None:
    """Text SQLite can store: a lone surrogate (from a command that is not UTF-8) is kept
    as the text of its escape, `\\udcff`, which reads back as text, never as the surrogate."""
    if text is None or text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        import re

        escape = "\\\\u%04x" if in_json else "\\u%04x"
        return re.sub("[\ud800-\udfff]", lambda m: escape % ord(m.group()), text)
    return text


def insert(project: str, event: Mapping[str, object]) -> int:
    """Write one event (the columns `record()` fills); its id. Raises what went wrong."""
    import time

    if not os.path.isdir(project):
        # Never create a project folder just to hold its log.
        raise FileNotFoundError(f"project folder {project} not found")
    path = db_path(project)
    start = quiet_since = time.monotonic()
    seen = _activity(path)
    while True:
        try:
            return _insert_once(project, event)
        except Exception as e:
            if not is_locked(e):
                raise
            now, current = time.monotonic(), _activity(path)
            if current != seen:
                seen, quiet_since = current, now
            if now - quiet_since >= WRITE_WAIT_MS / 1000 or now - start >= CONTENDED_WAIT_MS / 1000:
                raise


def _insert_once(project: str, event: Mapping[str, object]) -> int:
    conn = connect(project, wait_ms=ATTEMPT_WAIT_MS)
    try:
        cur = conn.execute(
            "INSERT INTO agent_events (created_at, event_type, agent, task, topic, message, payload_json)"
            " VALUES (:created_at, :event_type, :agent, :task, :topic, :message, :payload_json)",
            event,
        )
        return int(cur.lastrowid or 0)
    finally:
        conn.close()


def _activity(path: str) -> tuple[tuple[int, int] | None, ...]:
    """What changes whenever a writer commits: the size and time of the log and of its
    WAL (or, before the log is in WAL mode, of its rollback journal)."""
    out: list[tuple[int, int] | None] = []
    for p in (path, path + "-wal", path + "-journal"):
        try:
            st = os.stat(p)
            out.append((st.st_mtime_ns, st.st_size))
        except OSError:
            out.append(None)
    return tuple(out)


def is_locked(e: BaseException) -> bool:
    """SQLite's busy answers: another connection holds the lock past our wait."""
    import sqlite3

    text = str(e)
    return isinstance(e, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def explain(e: BaseException) -> str:
    """One line for a failed write."""
    if is_locked(e):
        return f"another process holds it locked (gave up after {WRITE_WAIT_MS} ms)"
    return " ".join(str(e).split()) or type(e).__name__


def acting_agent() -> str | None:
    """Whom an event is recorded for when the caller names nobody: `policy.agents.acting`."""
    from handrail.policy.agents import acting

    return acting(os.environ)


def stamp() -> str:
    try:
        return clock.now_iso()
    except HandrailError:  # a bad testing clock must not cost an event
        return clock.unpinned_iso()


# ----------------------------------------------------------------------------- reading

COLUMNS = ("id", "created_at", "event_type", "agent", "task", "topic", "message", "payload_json")


def public(event: Mapping[str, Any]) -> dict[str, Any]:
    """An event as `--json` shows it: stable keys, the payload as an object."""
    try:
        payload = json.loads(event.get("payload_json") or "{}")
    except ValueError:
        payload = {"unparsed": event.get("payload_json")}
    return {
        "id": event.get("id"),
        "created_at": event["created_at"],
        "event_type": event["event_type"],
        "agent": event.get("agent"),
        "task": event.get("task"),
        "topic": event.get("topic"),
        "message": event.get("message", ""),
        "payload": payload,
    }


class Filters:
    """What `handrail events` narrows to; every part is optional."""

    __slots__ = ("agent", "since", "task", "types")

    def __init__(self, *, since: str | None = None, types: Sequence[str] = (), agent: str | None = None,
                 task: str | None = None) -> None:
        self.since = since  # stored form, `YYYY-MM-DDTHH:MM:SSZ`
        self.types = tuple(types)
        self.agent = agent
        self.task = task

    def where(self) -> tuple[list[str], list[object]]:
        clauses: list[str] = []
        args: list[object] = []
        if self.since:
            clauses.append("created_at >= ?")
            args.append(self.since)
        if self.types:
            # `notify_*` matches every notice: GLOB where a wildcard is written, else equality.
            parts = ["event_type GLOB ?" if any(c in t for c in "*?[") else "event_type = ?" for t in self.types]
            clauses.append("(" + " OR ".join(parts) + ")")
            args.extend(self.types)
        if self.agent:
            clauses.append("agent = ?")
            args.append(self.agent)
        if self.task:
            clauses.append("task = ?")
            args.append(self.task)
        return clauses, args


def parse_since(text: str) -> str:
    """`30s`, `30m`, `2h`, `1d`, `1w` back from now, or an ISO 8601 date or time (UTC when
    no offset is written), in the stored form. Raises ValueError."""
    import re
    from datetime import timedelta

    m = re.fullmatch(r"\s*(\d+)\s*([smhdw])\s*", text)
    if m:
        unit = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}[m.group(2)]
        return clock.iso(clock.now() - timedelta(**{unit: int(m.group(1))}))
    return clock.iso(clock.parse_iso(text))


def read_conn(project: str):  # type: ignore[no-untyped-def]
    """A connection for reading, or None when nothing was ever recorded. Never creates,
    never writes: opened read-only, and in WAL mode a reader never holds up a hook's write."""
    import sqlite3
    from urllib.parse import quote

    path = db_path(project)
    if not os.path.exists(path):
        return None
    try:
        conn = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True,
                               timeout=READ_WAIT_MS / 1000, isolation_level=None)
    except sqlite3.Error as e:
        raise HandrailError(f"{path}: cannot open the event log: {e}") from None
    return conn


def _rows(conn, path: str, sql: str, args: Sequence[object] = ()) -> list[tuple[Any, ...]] | None:  # type: ignore[no-untyped-def]
    """The rows of one read; None when nothing was ever recorded (no table yet); a log
    that cannot be read is one line naming it."""
    import sqlite3

    try:
        return list(conn.execute(sql, args).fetchall())
    except sqlite3.OperationalError as e:
        if "no such table" in str(e):
            return None
        raise HandrailError(f"{path}: cannot read the event log: {e}") from None
    except sqlite3.DatabaseError as e:
        raise HandrailError(f"{path}: cannot read the event log: {e}") from None


def _select(conn, filters: Filters, *, after_id: int | None = None,  # type: ignore[no-untyped-def]
            until_id: int | None = None, limit: int | None = None, path: str = "") -> list[dict[str, Any]]:
    """Matching rows as public events, oldest first (with `limit`: the newest N)."""
    clauses, args = filters.where()
    clauses.append("event_type != ?")
    args.append(PROBE_TYPE)
    if after_id is not None:
        clauses.append("id > ?")
        args.append(after_id)
    if until_id is not None:
        clauses.append("id <= ?")
        args.append(until_id)
    sql = f"SELECT {', '.join(COLUMNS)} FROM agent_events"
    if clauses:
        sql += " WHERE " + " AND ".join(clauses)
    # The newest N, shown oldest first, as a log reads.
    sql += " ORDER BY id DESC" if limit is not None else " ORDER BY id"
    if limit is not None:
        sql += " LIMIT ?"
        args.append(limit)
    rows = _rows(conn, path, sql, args) or []
    if limit is not None:
        rows.reverse()
    return [public(dict(zip(COLUMNS, row))) for row in rows]


def query(project: str, filters: Filters | None = None, *, limit: int | None = None) -> list[dict[str, Any]]:
    """Matching events, oldest first; with `limit`, only the newest `limit` of them."""
    conn = read_conn(project)
    if conn is None:
        return []
    try:
        return _select(conn, filters or Filters(), limit=limit, path=db_path(project))
    finally:
        conn.close()


def page(project: str, filters: Filters | None = None, *, before: int | None = None, after: int | None = None,
         limit: int = 50) -> list[dict[str, Any]]:
    """One page of matching events, newest first, by id (keyset, so a page costs the
    same at the end of a large log as at its start): the newest `limit` older than
    `before`, or newer than `after`."""
    conn = read_conn(project)
    if conn is None:
        return []
    try:
        found = _select(conn, filters or Filters(), after_id=after, until_id=None if before is None else before - 1,
                        limit=limit, path=db_path(project))
    finally:
        conn.close()
    found.reverse()
    return found


def distinct(project: str, column: str) -> list[str]:
    """The values one column (`agent`, `task`, `event_type`) takes in the log, sorted."""
    assert column in ("agent", "task", "event_type"), column
    conn = read_conn(project)
    if conn is None:
        return []
    try:
        # Each column's own index answers this without reading a row.
        rows = _rows(conn, db_path(project), f"SELECT DISTINCT {column} FROM agent_events WHERE {column} IS NOT NULL"
                     f" ORDER BY {column}") or []
    finally:
        conn.close()
    return [r[0] for r in rows if r[0] != PROBE_TYPE]


def _max_id(conn, path: str) -> int:  # type: ignore[no-untyped-def]
    rows = _rows(conn, path, "SELECT COALESCE(MAX(id), 0) FROM agent_events")
    return int(rows[0][0]) if rows else 0


def follow(project: str, filters: Filters | None = None, *, backlog: int = 10,
           interval: float = 0.5) -> Iterator[dict[str, Any]]:
    """The newest `backlog` matching events, then every new one as it is recorded.

    Polls by id, so nothing is shown twice or skipped; runs until the caller stops
    (Ctrl-C). A database that does not exist yet is waited for.
    """
    import time

    filters = filters or Filters()
    path = db_path(project)
    last: int | None = None
    while True:
        conn = read_conn(project)
        if conn is None:
            last = 0 if last is None else last
            time.sleep(interval)
            continue
        try:
            if last is None:
                # Fix the boundary first: what is older is backlog, what is newer streams.
                last = _max_id(conn, path)
                yield from _select(conn, filters, until_id=last, limit=backlog, path=path)
            while True:
                batch = _select(conn, filters, after_id=last, path=path)
                if batch:
                    last = batch[-1]["id"]
                    yield from batch
                else:
                    time.sleep(interval)
        finally:
            conn.close()
