"""Writing several description files all-or-nothing, even when the process is killed.

The write itself is handrail/txn.py's (staging, journal, recovery); this module is
memory's side of it: the area `.handrail/runtime/memory-txn/`, the only paths it may
change (the bootstrap files), memory's lock, and what happens once a write is done:
the manifest it was checked against is removed (only while it still holds what was
checked: a later prepare's stays), its event is recorded once, and with `keep` its
journal is remembered in `memory-committed.json` (what a retry is compared with).
An edited target undoes the rest (the description must match one snapshot), and that
is recorded as a failed reflection.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

from handrail import filelock, txn
from handrail.backups import BACKUPS, Backup
from handrail.errors import HandrailError
from handrail.fsio import atomic_write
from handrail.memory import store
from handrail.policy import memory as rules
from handrail.records import events

DONE = os.path.join(store.RUNTIME, "memory-committed.json")
LOCK = os.path.join(store.RUNTIME, "memory.lock")
BACKUP_PART = "bootstrap"  # where in a backup folder the replaced description goes
Journal = txn.Journal
Recovered = txn.Recovered
digest, read = txn.digest, txn.read
# Every path a journal may name as a target: a journal is a file on disk, and it must
# never steer a rename anywhere else.
TARGETS = frozenset(f"{folder}/{name}" for folder in rules.BOOTSTRAP_DIRS for name in rules.BOOTSTRAP_FILES)
_MANIFEST = store.MANIFEST.replace(os.sep, "/")
# What an interrupted `atomic_write` of an older handrail left next to a bootstrap file.
_STRAY = re.compile(r"^\.(" + "|".join(re.escape(n) for n in rules.BOOTSTRAP_FILES) + r")\.\d+\.tmp$")


def _extra_problem(extra: object) -> str | None:
    assert isinstance(extra, dict)
    remove = extra.get("remove", [])
    if not isinstance(remove, list):
        return "extra.remove: expected a list"
    for r in remove:
        if not isinstance(r, dict) or r.get("path") != _MANIFEST:
            return f"extra.remove: {r!r} is not the manifest"
    return None


def _done(project: str, journal: Journal, recovered: bool) -> None:
    extra = journal["extra"]
    for r in extra.get("remove", []):
        path = os.path.join(project, r["path"])
        # Only the file the write was checked against: a newer one (a later prepare) stays.
        if digest(read(path)) == r.get("sha256"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
    ev = extra.get("event")
    if ev and not _recorded(project, journal["id"]):
        payload = {**(ev.get("payload") or {}), "txn": journal["id"], "backup": backup_path(journal)}
        if recovered:
            payload["recovered"] = True
        events.record(project, ev["kind"], agent=ev.get("agent"), topic="memory", message=ev.get("message", ""),
                      payload=payload)
    if extra.get("keep"):
        atomic_write(os.path.join(project, DONE), json.dumps(journal, indent=2))


def _undone(project: str, journal: Journal, kept: list[str]) -> None:
    ev = journal["extra"].get("event")
    if ev:
        events.record(project, "memory_reflect_failed", agent=ev.get("agent"), topic="memory",
                      message=f"an interrupted memory commit was undone: {', '.join(kept)} changed since it began",
                      payload={"rules": [rules.SNAPSHOT_HASH], "txn": journal["id"], "kept": kept,
                               "session_id": (ev.get("payload") or {}).get("session_id")})


AREA = txn.Area("memory", TARGETS.__contains__, "memory write", undo_foreign=True, done=_done, undone=_undone,
                extra_problem=_extra_problem)
TXN_DIR = AREA.staging
JOURNAL = AREA.journal


@contextlib.contextmanager
def locked(project: str, wait: float = 5.0) -> Iterator[bool]:
    """One memory write at a time; yields whether the lock was had within `wait`
    seconds. The kernel drops the lock of a killed process, so a held lock always
    means a live writer, and a journal found under the lock is always an interrupted one."""
    if not os.path.isdir(project):  # nothing to guard; the caller says what is wrong
        yield True
        return
    txn.ensure_runtime(project)
    with filelock.held(os.path.join(project, LOCK), wait) as lock:
        yield lock.had


@contextlib.contextmanager
def settled(project: str, wait: float = 5.0) -> Iterator[Recovered | None]:
    """The lock held, and an interrupted write finished or undone first: how every
    memory command that reads or writes the description begins."""
    with locked(project, wait) as had:
        if not had:
            raise HandrailError("another memory command is writing the description right now; try again",
                                reason="busy")
        yield recover(project)


def pending(project: str) -> bool:
    """Whether an interrupted write waits for `recover()`."""
    return txn.pending(project, AREA)


def last_committed(project: str) -> Journal | None:
    """The journal of the last write that finished with `keep=True`, or None."""
    try:
        data = store.read_json(os.path.join(project, DONE))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and txn.problem(project, AREA, data) is None else None


def write(project: str, updates: Mapping[str, bytes], *, backup: bool = False,
          remove: Mapping[str, bytes] | None = None, event: dict[str, Any] | None = None,
          keep: bool = False) -> Journal:
    """Write every file of `updates` (relative path -> new bytes) or none; call with
    the lock held, after `recover()`.

    `backup`: copy the contents replaced to `bootstrap/` in a backup folder of its own
    (handrail/backups.py). `remove`: files (path -> the content they must still have)
    to delete with the write. `event`: recorded once the write is done, even when
    `recover()` is the one to finish it. `keep`: remember the write in
    `memory-committed.json`. Returns the journal. Raises OSError when the staging
    fails: then nothing was changed.
    """
    for rel in updates:
        if rel not in TARGETS:
            raise ValueError(f"{rel}: not a bootstrap file")
    extra = {"keep": keep, "event": event,
             "remove": [{"path": p.replace(os.sep, "/"), "sha256": digest(data)} for p, data in (remove or {}).items()]}
    return txn.write(project, AREA, [txn.Change(rel, data) for rel, data in updates.items()],
                     backup=Backup(project) if backup else None,
                     backup_as=lambda rel: f"{BACKUP_PART}/{os.path.basename(rel)}", extra=extra)


def recover(project: str) -> Recovered | None:
    """Finish or undo an interrupted write; None when there was none. Call with the lock held."""
    _remove_strays(project)
    return txn.recover(project, AREA)


def backup_path(journal: Journal) -> str | None:
    """The backup folder a journal fills, relative to the project."""
    return None if not journal.get("backup") else f"{BACKUPS}/{journal['backup']}/{BACKUP_PART}".replace(os.sep, "/")


def _recorded(project: str, txn_id: str) -> bool:
    """Whether the event of this write is in the log already (a kill between recording
    it and removing the journal must not record it twice)."""
    if not os.path.exists(events.db_path(project)):
        return False
    try:
        conn = events.connect(project)
        try:
            row = conn.execute("SELECT 1 FROM agent_events WHERE topic = 'memory' AND instr(payload_json, ?) > 0",
                               (txn_id,)).fetchone()
        finally:
            conn.close()
    except Exception:  # noqa: BLE001 - an unreadable log: better twice than never
        return False
    return row is not None


def _remove_strays(project: str) -> None:
    """Temporary files an interrupted write of an older handrail left next to the
    bootstrap files, where git sees them (no writer is live: the lock is held)."""
    for folder in rules.BOOTSTRAP_DIRS:
        try:
            names = os.listdir(os.path.join(project, folder))
        except OSError:
            continue
        for name in names:
            if _STRAY.match(name):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(project, folder, name))
