"""The event log: one SQLite database per repository, written by every layer.

`record()` is the one function every decision goes through. It is best effort: a
broken or locked database never changes a hook's answer, and says so in one line
on stderr.
"""

from __future__ import annotations

import json
import os
import sys

from handrail.fsio import utc_now

RUNTIME_DIR = os.path.join(".handrail", "runtime")
DB_NAME = "events.sqlite"
BUSY_TIMEOUT_MS = 10_000

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
"""


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


def connect(project: str):  # type: ignore[no-untyped-def]
    import sqlite3

    ensure_runtime_dir(project)
    conn = sqlite3.connect(db_path(project), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript(SCHEMA)
    return conn


def record(project: str, event_type: str, *, agent: str | None = None, task: str | None = None,
           topic: str | None = None, message: str = "", payload: dict | None = None) -> dict | None:
    """Append one event; returns it as recorded, or None when recording failed."""
    event = {
        "created_at": utc_now(),
        "event_type": event_type,
        "agent": agent if agent is not None else os.environ.get("HANDRAIL_AGENT"),
        "task": task,
        "topic": topic,
        "message": message,
        "payload_json": json.dumps(payload or {}, ensure_ascii=False, sort_keys=True),
    }
    try:
        conn = connect(project)
        try:
            cur = conn.execute(
                "INSERT INTO agent_events (created_at, event_type, agent, task, topic, message, payload_json)"
                " VALUES (:created_at, :event_type, :agent, :task, :topic, :message, :payload_json)",
                event,
            )
            event["id"] = cur.lastrowid
        finally:
            conn.close()
    except Exception as e:  # noqa: BLE001 - recording must never change a decision
        print(f"handrail: warning: could not record {event_type} in {db_path(project)}: {e}", file=sys.stderr)
        return None
    return event
