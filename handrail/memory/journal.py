"""Writing several description files all-or-nothing, even when the process is killed.

A write goes through `.handrail/runtime/memory-txn/` (git-ignored, and on the same
file system as the targets, so a rename is atomic):

1. every new content is staged in `new/<i>`, and every old one saved in `old/<i>`;
2. `journal.json` names each target with the SHA-256 of its old and new content, the
   backup folder to fill and the manifest to remove; written whole (a temporary file
   and a rename), it is the moment the write is decided;
3. the old contents are copied to the backup folder, each staged file is renamed onto
   its target, the manifest is removed;
4. the journal becomes `memory-committed.json` (what a retry is compared with), and the
   staging folder is removed.

Nothing is renamed onto a target before the journal exists, so `recover()` (which
every memory command runs first, under the lock) only has three cases: no journal,
drop the staging folder; a journal whose every target holds its old or its new
content, finish it; a target that holds anything else (someone edited it meanwhile),
put back what this write had replaced and leave theirs alone. Every step is safe to
repeat, so a kill during recovery is recovered the same way.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import shutil
import uuid
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from handrail import filelock
from handrail.backups import BACKUPS, backups_root, claim_backup_dir
from handrail.backups import is_name as is_backup_name
from handrail.errors import HandrailError
from handrail.fsio import replace_with, sync_dir, write_bytes
from handrail.memory import store
from handrail.policy import memory as rules
from handrail.records import events

TXN_DIR = os.path.join(store.RUNTIME, "memory-txn")
JOURNAL = os.path.join(TXN_DIR, "journal.json")
DONE = os.path.join(store.RUNTIME, "memory-committed.json")
LOCK = os.path.join(store.RUNTIME, "memory.lock")
CLAIMED = "backup-claimed"  # in the staging folder: the backup folder claimed before the journal
VERSION = 1
Journal = dict[str, Any]  # as written to journal.json
# Every path a journal may name as a target: a journal is a file on disk, and it must
# never steer a rename anywhere else.
TARGETS = frozenset(f"{folder}/{name}" for folder in rules.BOOTSTRAP_DIRS for name in rules.BOOTSTRAP_FILES)
# What an interrupted `atomic_write` leaves next to a bootstrap file (`.<name>.<pid>.tmp`).
_STRAY = re.compile(r"^\.(" + "|".join(re.escape(n) for n in rules.BOOTSTRAP_FILES) + r")\.\d+\.tmp$")


class Recovered(NamedTuple):
    action: str          # "finished": the interrupted write completed; "undone": put back; "cleaned": nothing had moved
    journal: Journal | None
    kept: list[str]      # targets left as someone else edited them (when undone)

    def line(self) -> str:
        if self.action == "finished" and self.journal is not None:
            return f"completed an interrupted memory write: {', '.join(t['path'] for t in self.journal['targets'])}"
        if self.action == "undone":
            return (f"undid an interrupted memory write: {', '.join(self.kept)} changed since it began"
                    if self.kept else "undid an interrupted memory write")
        return "removed what an interrupted memory write had staged (no file had changed)"


def digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except (FileNotFoundError, NotADirectoryError):
        return None


@contextlib.contextmanager
def locked(project: str, wait: float = 5.0) -> Iterator[bool]:
    """One memory write at a time; yields whether the lock was had within `wait`
    seconds. The kernel drops the lock of a killed process, so a held lock always
    means a live writer, and a journal found under the lock is always an interrupted one."""
    if not os.path.isdir(project):  # nothing to guard; the caller says what is wrong
        yield True
        return
    _runtime(project)
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
    return os.path.lexists(os.path.join(project, TXN_DIR))


def last_committed(project: str) -> Journal | None:
    """The journal of the last write that finished with `keep=True`, or None."""
    try:
        data = store.read_json(os.path.join(project, DONE))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and _problem(data) is None else None


def write(project: str, updates: Mapping[str, bytes], *, backup: bool = False,
          remove: Mapping[str, bytes] | None = None, event: dict[str, Any] | None = None,
          keep: bool = False) -> Journal:
    """Write every file of `updates` (relative path -> new bytes) or none; call with
    the lock held, after `recover()`.

    `backup`: copy the contents replaced to `bootstrap/` in a backup folder of its own
    (handrail/backups.py), claimed before the journal names it. `remove`: files (path -> the content they must
    still have) to delete with the write. `event`: recorded once the write is done,
    even when `recover()` is the one to finish it. `keep`: remember the write in
    `memory-committed.json`. Returns the journal. Raises OSError when the staging
    fails: then nothing was changed.
    """
    txn = os.path.join(project, TXN_DIR)
    if os.path.lexists(txn):
        raise HandrailError(f"{TXN_DIR}: an interrupted memory write is still there", reason="busy")
    for rel in updates:
        if rel not in TARGETS:
            raise ValueError(f"{rel}: not a bootstrap file")
    _runtime(project)
    folder: str | None = None
    try:
        targets = _stage(project, txn, updates)
        folder = claim_backup_dir(project) if backup and any(t["old"] is not None for t in targets) else None
        if folder is not None:
            # Named at once (no fsync: nothing may come between), so that a kill before the
            # journal exists lets `recover()` remove the folder, still empty, with the staging.
            with open(os.path.join(txn, CLAIMED), "w", encoding="utf-8") as f:
                f.write(os.path.basename(folder))
        journal = {"version": VERSION, "id": uuid.uuid4().hex, "targets": targets, "keep": keep, "event": event,
                   "backup": None if folder is None else os.path.basename(folder),
                   "remove": [{"path": p.replace(os.sep, "/"), "sha256": digest(data)}
                              for p, data in (remove or {}).items()]}
        write_bytes(os.path.join(txn, "journal.json.tmp"), json.dumps(journal, indent=2).encode("utf-8"))
        replace_with(os.path.join(txn, "journal.json.tmp"), os.path.join(project, JOURNAL))
    except BaseException:
        # Nothing has been renamed onto a target yet: dropping the staging (and the
        # backup folder claimed for it, still empty) is the whole undo.
        shutil.rmtree(txn, ignore_errors=True)
        if folder is not None:
            with contextlib.suppress(OSError):
                os.rmdir(folder)
        raise
    try:
        _forward(project, journal)
    except BaseException as e:
        # A rename refused (not a kill): put back what had moved, so that "nothing was
        # changed" stays true; where even that fails, the next memory command retries.
        try:
            _back(project, journal)
        except OSError as again:
            raise HandrailError(f"{e}; and undoing it: {again}: the half-done write stays in {TXN_DIR}, and the "
                                "next memory command finishes or undoes it", reason="write_failed") from None
        shutil.rmtree(txn, ignore_errors=True)
        raise
    with contextlib.suppress(OSError):  # the files are written; the next memory command tidies up
        _finish(project, journal, recovered=False)
    return journal


def recover(project: str) -> Recovered | None:
    """Finish or undo an interrupted write; None when there was none. Call with the lock held."""
    _remove_strays(project)
    txn = os.path.join(project, TXN_DIR)
    if not os.path.lexists(txn):
        return None
    path = os.path.join(project, JOURNAL)
    try:
        raw = read(path)
        journal = None if raw is None else json.loads(raw)
    except (OSError, ValueError) as e:
        raise _unreadable(f"cannot be read ({e})") from None
    if journal is None:
        _unclaim(project, txn)
        shutil.rmtree(txn, ignore_errors=True)
        return Recovered("cleaned", None, [])
    problem = _problem(journal)
    if problem is not None:
        raise _unreadable(problem)
    foreign = _foreign(project, journal)
    if not foreign:
        _forward(project, journal)
        _finish(project, journal, recovered=True)
        return Recovered("finished", journal, [])
    _back(project, journal)
    shutil.rmtree(txn, ignore_errors=True)
    ev = journal.get("event")
    if ev:
        events.record(project, "memory_reflect_failed", agent=ev.get("agent"), topic="memory",
                      message=f"an interrupted memory commit was undone: {', '.join(foreign)} changed since it began",
                      payload={"rules": [rules.SNAPSHOT_HASH], "txn": journal["id"], "kept": foreign,
                               "session_id": (ev.get("payload") or {}).get("session_id")})
    return Recovered("undone", journal, foreign)


def _unclaim(project: str, txn: str) -> None:
    """Remove the backup folder a write that never reached its journal claimed (only
    while empty: then it holds nothing, and nothing names it)."""
    try:
        with open(os.path.join(txn, CLAIMED), encoding="utf-8") as f:
            name = f.read().strip()
    except OSError:
        return
    if is_backup_name(name):
        with contextlib.suppress(OSError):
            os.rmdir(os.path.join(project, BACKUPS, name))


def _unreadable(why: str) -> HandrailError:
    return HandrailError(f"{JOURNAL}: {why}; the bootstrap files may be half written: compare them with "
                         f"{TXN_DIR}/old/ and {TXN_DIR}/new/, then remove {TXN_DIR}", reason="invalid_journal")


def _problem(journal: object) -> str | None:
    """Why a journal read from disk cannot be acted on, or None."""
    if not isinstance(journal, dict) or journal.get("version") != VERSION or not isinstance(journal.get("id"), str):
        return f"not a version {VERSION} journal"
    targets, remove = journal.get("targets"), journal.get("remove")
    if not isinstance(targets, list) or not isinstance(remove, list):
        return "targets and remove: expected lists"
    for t in targets:
        if not isinstance(t, dict) or t.get("path") not in TARGETS or not isinstance(t.get("new"), str):
            return f"targets: {t!r} is not a bootstrap file with its new hash"
    for r in remove:
        if not isinstance(r, dict) or r.get("path") != store.MANIFEST.replace(os.sep, "/"):
            return f"remove: {r!r} is not the manifest"
    backup = journal.get("backup")
    if backup is not None and not is_backup_name(backup):
        return f"backup: {backup!r} is not a backup folder's name"
    return None


def _stage(project: str, txn: str, updates: Mapping[str, bytes]) -> list[dict[str, Any]]:
    os.makedirs(os.path.join(txn, "new"))
    os.makedirs(os.path.join(txn, "old"))
    targets: list[dict[str, Any]] = []
    for i, (rel, data) in enumerate(updates.items()):
        path = os.path.join(project, rel)
        if _device(path) != os.stat(txn).st_dev:
            raise OSError(errno.EXDEV, f"{rel} is on another file system than {TXN_DIR}", rel)
        old = read(path)
        staged = os.path.join(txn, "new", str(i))
        write_bytes(staged, data)
        with contextlib.suppress(FileNotFoundError):
            os.chmod(staged, os.stat(path).st_mode & 0o7777)
        if old is not None:
            write_bytes(os.path.join(txn, "old", str(i)), old)
        targets.append({"path": rel, "old": digest(old), "new": digest(data)})
    sync_dir(os.path.join(txn, "new"))
    sync_dir(os.path.join(txn, "old"))
    return targets


def _foreign(project: str, journal: Journal) -> list[str]:
    """The targets holding neither their old nor their new content, or whose new content
    is lost: the write cannot be finished."""
    txn = os.path.join(project, TXN_DIR)
    out = []
    for i, t in enumerate(journal["targets"]):
        now = digest(read(os.path.join(project, t["path"])))
        if now == t["new"]:
            continue
        if now != t.get("old") or digest(read(os.path.join(txn, "new", str(i)))) != t["new"]:
            out.append(t["path"])
    return out


def _forward(project: str, journal: Journal) -> None:
    txn = os.path.join(project, TXN_DIR)
    if journal.get("backup"):
        folder = os.path.join(backups_root(project), journal["backup"], "bootstrap")
        os.makedirs(folder, exist_ok=True)
        for i, t in enumerate(journal["targets"]):
            if t.get("old") is None:
                continue
            dest = os.path.join(folder, os.path.basename(t["path"]))
            saved = read(os.path.join(txn, "old", str(i)))
            if digest(read(dest)) != t["old"] and digest(saved) == t["old"]:
                assert saved is not None
                write_bytes(dest, saved)
    for i, t in enumerate(journal["targets"]):
        path = os.path.join(project, t["path"])
        if digest(read(path)) != t["new"]:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            replace_with(os.path.join(txn, "new", str(i)), path)
    for r in journal["remove"]:
        path = os.path.join(project, r["path"])
        # Only the file the write was checked against: a newer one (a later prepare) stays.
        if digest(read(path)) == r.get("sha256"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


def _finish(project: str, journal: Journal, *, recovered: bool) -> None:
    ev = journal.get("event")
    if ev and not _recorded(project, journal["id"]):
        payload = {**(ev.get("payload") or {}), "txn": journal["id"], "backup": backup_path(journal)}
        if recovered:
            payload["recovered"] = True
        events.record(project, ev["kind"], agent=ev.get("agent"), topic="memory", message=ev.get("message", ""),
                      payload=payload)
    txn = os.path.join(project, TXN_DIR)
    if journal.get("keep"):
        replace_with(os.path.join(project, JOURNAL), os.path.join(project, DONE))
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(project, JOURNAL))
    shutil.rmtree(txn, ignore_errors=True)


def _back(project: str, journal: Journal) -> None:
    """Put back what this write replaced, where the target still holds this write's content."""
    txn = os.path.join(project, TXN_DIR)
    for i, t in enumerate(journal["targets"]):
        path = os.path.join(project, t["path"])
        if digest(read(path)) != t["new"]:
            continue
        if t.get("old") is None:
            os.unlink(path)
            continue
        saved = os.path.join(txn, "old", str(i))
        if digest(read(saved)) == t["old"]:
            replace_with(saved, path)


def backup_path(journal: Journal) -> str | None:
    """The backup folder a journal fills, relative to the project."""
    return None if not journal.get("backup") else f"{BACKUPS}/{journal['backup']}/bootstrap".replace(os.sep, "/")


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


def _runtime(project: str) -> None:
    """`.handrail/runtime/`, git-ignored: also where a kill left its `.gitignore` empty,
    or git would see the staging folder."""
    path = events.ensure_runtime_dir(project)
    ignore = os.path.join(path, ".gitignore")
    if not read(ignore):
        with open(ignore, "w", encoding="utf-8") as f:
            f.write("# handrail runtime state: never committed\n*\n")


def _device(path: str) -> int:
    """The device of the nearest folder of `path` that exists."""
    folder = os.path.dirname(os.path.abspath(path))
    while not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    return os.stat(folder).st_dev
