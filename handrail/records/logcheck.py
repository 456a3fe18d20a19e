"""Does the event log work? `handrail doctor`'s proof, and its repair.

Recording is best effort (see `events.record()`), so a broken log loses every event in
silence but for a warning on stderr that agents' harnesses often swallow. The doctor
therefore does not trust how the log looks: it looks for the shapes a broken log takes,
each named with its fix, and where it finds none it proves the log by writing one probe
event, reading it back as `handrail events` reads, and deleting it. Probe events never
show in `handrail events`, not even in the moment between writing and deleting.

Shapes, in the order they are looked for (the first one found is the one reported,
since it makes the later ones moot):

1. `.handrail` or `.handrail/runtime` is not a folder (a file, a dangling link);
2. the log, or its `-wal` / `-shm` companion, is a dangling link, a folder, or not a
   regular file;
3. the log or a companion cannot be opened for writing (mode, or an immutable flag);
4. the runtime folder is not writable (SQLite keeps its journal files there);
5. the log is not an SQLite database, or its `agent_events` is not the table handrail
   writes (a view, missing columns);
6. the probe fails: locked by another process, or anything else SQLite says.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import NamedTuple

from handrail.errors import HandrailError
from handrail.fsio import move
from handrail.records import events

SQLITE_MAGIC = b"SQLite format 3\x00"
COMPANIONS = ("-wal", "-shm")
REQUIRED_COLUMNS = ("id", "created_at", "event_type", "agent", "task", "topic", "message", "payload_json")
# What `doctor --fix` does about a shape: set the broken thing aside, or remove a link.
SET_ASIDE, UNLINK = "set-aside", "unlink"


class Problem(NamedTuple):
    path: str               # what is broken, relative to the project
    what: str               # what is wrong with it
    fix: str                # what a person does about it
    repair: str | None = None  # what `doctor --fix` does about it, if anything

    def finding(self) -> str:
        return f"event log: {self.path} {self.what}, so every decision goes unrecorded"


def check(project: str) -> Problem | None:
    """What is wrong with the project's event log, or None once a probe went through."""
    db = events.db_path(project)
    runtime = os.path.dirname(db)
    for folder in (os.path.dirname(runtime), runtime):
        if os.path.lexists(folder) and not os.path.isdir(folder):
            return _not_a_folder(project, folder)
    for path in (db, *(db + s for s in COMPANIONS)):
        found = _shape(project, path) or _writable(project, path)
        if found:
            return found
    return _folder_writable(project, runtime) or _content(project, db) or _probe(project, db)


def _show(project: str, path: str) -> str:
    return os.path.relpath(path, project)


def _new_log(shown: str) -> str:
    return f"move it away (`mv {shown} {shown}.broken`); handrail starts a new log at the next decision " \
           "(or run `handrail doctor --fix`)"


def _not_a_folder(project: str, folder: str) -> Problem:
    shown = _show(project, folder)
    if os.path.islink(folder):
        what = f"is a symbolic link to {os.readlink(folder)}, which is not a folder"
        return Problem(shown, what, f"remove the link (`rm {shown}`), or make its target a folder")
    return Problem(shown, "is a file, not a folder", f"move it away (`mv {shown} {shown}.old`)")


def _shape(project: str, path: str) -> Problem | None:
    if not os.path.lexists(path):
        return None
    shown = _show(project, path)
    if os.path.islink(path) and not os.path.exists(path):
        return Problem(shown, f"is a symbolic link to {os.readlink(path)}, which does not exist",
                       f"remove the link (`rm {shown}`), or restore what it points to; handrail starts a new "
                       "log at the next decision (or run `handrail doctor --fix`)", UNLINK)
    if os.path.isdir(path):
        return Problem(shown, "is a folder, not a file", _new_log(shown), SET_ASIDE)
    if not stat.S_ISREG(os.stat(path).st_mode):
        return Problem(shown, "is not a regular file", _new_log(shown), SET_ASIDE)
    return None


def _writable(project: str, path: str) -> Problem | None:
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return None
    except OSError as e:
        shown = _show(project, path)
        if e.errno == errno.EPERM:  # the immutable or append-only flag, which even root obeys
            return Problem(shown, f"cannot be opened for writing ({e.strerror}: an immutable or append-only flag)",
                           f"clear the flag: `chattr -i -a {shown}` (`lsattr {shown}` shows it)")
        mode = stat.S_IMODE(os.stat(path).st_mode)
        return Problem(shown, f"is read-only (mode {mode:04o}; {e.strerror})", f"make it writable: `chmod u+w {shown}`")
    os.close(fd)
    return None


def _folder_writable(project: str, runtime: str) -> Problem | None:
    here = runtime
    while not os.path.exists(here) and os.path.dirname(here) != here:
        here = os.path.dirname(here)
    if os.access(here, os.W_OK | os.X_OK):
        return None
    shown = _show(project, here) + "/"
    if here == runtime:
        what = "is not writable, so SQLite cannot keep the log's journal files (-wal, -shm) there"
    else:
        what = f"is not writable, so the log cannot be created in {_show(project, runtime)}/"
    return Problem(shown, what, f"make it writable: `chmod u+w {shown}` (`lsattr -d {shown}` shows an immutable flag)")


def _content(project: str, db: str) -> Problem | None:
    import sqlite3

    shown = _show(project, db)
    try:
        with open(db, "rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        return None
    if not head:
        return None  # an empty file is a database SQLite fills in
    if head != SQLITE_MAGIC:
        return Problem(shown, "is not an SQLite database", _new_log(shown), SET_ASIDE)
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=events.WRITE_WAIT_MS / 1000)
        try:
            row = conn.execute("SELECT type FROM sqlite_master WHERE name = 'agent_events'").fetchone()
            columns = {r[1] for r in conn.execute("PRAGMA table_info(agent_events)")}
        finally:
            conn.close()
    except sqlite3.Error as e:
        if events.is_locked(e):
            return None  # the probe says so, with the fix
        return Problem(shown, f"cannot be read as a database ({e})", _new_log(shown), SET_ASIDE)
    if row is None:
        return None  # a log never written to: the first event creates the table
    if row[0] != "table":
        return Problem(shown, f"has the wrong schema: agent_events is a {row[0]}, not a table", _new_log(shown),
                       SET_ASIDE)
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        return Problem(shown, f"has the wrong schema: table agent_events has no column {', '.join(missing)}",
                       _new_log(shown), SET_ASIDE)
    return None


def _probe(project: str, db: str) -> Problem | None:
    """Write one event through `events.insert()`, as every decision does; read it back;
    delete it."""
    import sqlite3

    shown = _show(project, db)
    message = "handrail doctor proves that events can be recorded"
    event = {"created_at": events.stamp(), "event_type": events.PROBE_TYPE, "agent": None, "task": None,
             "topic": "doctor", "message": message, "payload_json": "{}"}
    try:
        rowid = events.insert(project, event)
    except Exception as e:  # noqa: BLE001 - whatever stops a decision's event stops this one
        if events.is_locked(e):
            return Problem(shown, f"is locked: {events.explain(e)}",
                           f"find the process with `fuser {shown}` and let it finish, or end it")
        return Problem(shown, f"cannot be written ({events.explain(e)})", _new_log(shown), SET_ASIDE)
    try:
        conn = events.read_conn(project)
        if conn is None:
            return Problem(shown, "was written but is gone", "look for what removes .handrail/runtime/")
        try:
            row = conn.execute("SELECT event_type, message FROM agent_events WHERE id = ?", (rowid,)).fetchone()
        finally:
            conn.close()
    except (sqlite3.Error, HandrailError) as e:
        return Problem(shown, f"takes events but cannot be read back ({e})", _new_log(shown), SET_ASIDE)
    if row != (events.PROBE_TYPE, message):
        return Problem(shown, "takes events but does not give them back", _new_log(shown), SET_ASIDE)
    try:
        conn = events.connect(project)
        try:
            conn.execute("DELETE FROM agent_events WHERE id = ? AND event_type = ?", (rowid, events.PROBE_TYPE))
        finally:
            conn.close()
    except sqlite3.Error:
        pass  # a probe left behind never shows: reading skips its type
    return None


def repair(project: str, problem: Problem, backup_root: str) -> str:
    """Do `problem.repair`; what was done. Raises OSError when it cannot be done.

    A broken log is set aside (under `backup_root`, with its companions), never deleted:
    its events may still be read by hand. The next decision starts a new log.
    """
    path = os.path.join(project, problem.path)
    if problem.repair == UNLINK:
        target = os.readlink(path)
        os.unlink(path)
        return f"removed {problem.path}, a link to {target} that did not exist"
    assert problem.repair == SET_ASIDE
    db = events.db_path(project)
    aside = os.path.join(backup_root, events.RUNTIME_DIR.split(os.sep, 1)[1])
    os.makedirs(aside, exist_ok=True)
    moved = []
    for p in (db, *(db + s for s in COMPANIONS)):
        if os.path.lexists(p):
            move(p, os.path.join(aside, os.path.basename(p)))
            moved.append(os.path.basename(p))
    return (f"set the broken log aside ({', '.join(moved)} in {_show(project, aside)}/); "
            "the next decision starts a new one")
