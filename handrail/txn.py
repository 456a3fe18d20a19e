"""Writing several files all-or-nothing, even when the process is killed: the one place.

Each writer names an `Area`: its staging folder, `.handrail/runtime/<name>-txn/`
(git-ignored, and checked to be on the same file system as every target, so a rename
is atomic), and the paths it may change. A write:

1. stages every new content in `new/<i>` (with the mode the target will have) and
   saves every old one in `old/<i>` (with its mode), each fsynced;
2. claims the run's backup folder (handrail/backups.py) when it replaces anything,
   and names it in `backup-claimed` before the journal exists;
3. writes `journal.json` whole (a temporary file and a rename): each target with the
   SHA-256 of its old and new content (None: absent, or to be removed), its mode, and
   where in the backup folder its old content goes; the folder; the writer's own data.
   This rename is the moment the write is decided;
4. copies the old contents to the backup folder, renames each staged file onto its
   target (`fsio.replace_with`: the rename and its folder fsynced) or removes it
   (with the folders that leaves empty);
5. runs the area's `done` step (an event, a record of its own), then removes the
   journal and the staging folder.

Nothing touches a target before the journal exists, so `recover()` (which the writer
runs first, under its own lock) has three cases: no journal, drop the staging; every
target holding its old or its new content, finish; a target holding anything else
(someone edited it meanwhile), leave theirs alone and either put the rest back
(`undo_foreign`) or finish the rest. Every step is safe to repeat, so a kill during
recovery is recovered the same way.

A journal is a file on disk: before it steers a single rename, each path it names is
checked to be relative, normalised, inside the project (symbolic links resolved) and
one the area allows, and its backup folder one of backups.py's names.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import posixpath
import shutil
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from handrail.backups import BACKUPS, Backup, backups_root
from handrail.backups import is_name as is_backup_name
from handrail.errors import HandrailError
from handrail.fsio import replace_with, sync_dir, write_bytes

RUNTIME = os.path.join(".handrail", "runtime")
JOURNAL = "journal.json"
CLAIMED = "backup-claimed"  # in the staging folder: the backup folder claimed before the journal
VERSION = 2
Journal = dict[str, Any]  # as written to journal.json


class Area(NamedTuple):
    """One writer's multi-file writes. The writer holds its own lock around `write` and
    `recover`: a journal found under it is always an interrupted write."""
    name: str                                  # the staging folder: .handrail/runtime/<name>-txn/
    allowed: Callable[[str], bool]             # the paths (relative, `/`) a journal may name
    what: str                                  # in messages: "memory write"
    undo_foreign: bool = True                  # a target edited meanwhile: put the rest back, or finish it
    done: Callable[[str, Journal, bool], None] | None = None        # (project, journal, recovered)
    undone: Callable[[str, Journal, list[str]], None] | None = None  # (project, journal, kept)
    extra_problem: Callable[[object], str | None] | None = None     # why the writer's own data is unusable

    @property
    def staging(self) -> str:
        """The staging folder, relative to the project."""
        return os.path.join(RUNTIME, f"{self.name}-txn")

    @property
    def journal(self) -> str:
        return os.path.join(self.staging, JOURNAL)


class Change(NamedTuple):
    path: str                 # relative to the project, `/`-separated
    data: bytes | None        # the new content; None: remove the file
    mode: int | None = None   # the new file's permission bits; None: the old file's (a new file: the default)


class Recovered(NamedTuple):
    action: str          # "finished": completed; "undone": put back; "cleaned": nothing had moved
    journal: Journal | None
    kept: list[str]      # targets left as someone else edited them
    what: str            # the area's `what`

    def line(self) -> str:
        if self.action == "finished" and self.journal is not None:
            done = ", ".join(t["path"] for t in self.journal["targets"] if t["path"] not in self.kept)
            left = f" ({', '.join(self.kept)} changed since it began: left as it is)" if self.kept else ""
            return f"completed an interrupted {self.what}: {done}{left}"
        if self.action == "undone":
            return (f"undid an interrupted {self.what}: {', '.join(self.kept)} changed since it began"
                    if self.kept else f"undid an interrupted {self.what}")
        return f"removed what an interrupted {self.what} had staged (no file had changed)"


def digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def pending(project: str, area: Area) -> bool:
    """Whether something of an interrupted write (a journal, or only its staging) waits for `recover()`."""
    return os.path.lexists(os.path.join(project, area.staging))


def unfinished(project: str, area: Area) -> str | None:
    """When the write that left a journal began (`?` where the journal cannot be read), or
    None when none waits: a write decided and not finished, whose targets may be half new."""
    path = os.path.join(project, area.journal)
    raw = read(path)
    if raw is None:
        return None
    try:
        since = json.loads(raw).get("since")
    except (ValueError, AttributeError):
        return "?"
    return since if isinstance(since, str) else "?"


# --------------------------------------------------------------------------- writing


def write(project: str, area: Area, changes: Sequence[Change], *, backup: Backup | None = None,
          backup_as: Callable[[str], str] = lambda rel: rel, extra: Mapping[str, Any] | None = None) -> Journal:
    """Write every change or none; call with the area's lock held, after `recover()`.

    `backup`: the run's backup folder, claimed only where a change replaces content;
    each old content goes to `backup_as(path)` in it. `extra`: the writer's own data,
    kept in the journal for its `done` and `undone` steps. Returns the journal. Raises
    OSError when the staging fails or a rename is refused: then nothing was changed.
    """
    txn = os.path.join(project, area.staging)
    if os.path.lexists(txn):
        raise HandrailError(f"{area.staging}: an interrupted {area.what} is still there", reason="busy")
    for c in changes:
        problem = _path_problem(project, area, c.path)
        if problem is not None:
            raise ValueError(f"{c.path}: {problem}")
    ensure_runtime(project)
    fresh = backup is not None and backup.path is None
    folder: str | None = None
    try:
        targets = _stage(project, area, txn, changes)
        if backup is not None and any(t["old"] is not None and t["old"] != t["new"] for t in targets):
            folder = backup.claim()
            for t in targets:
                if t["old"] is not None and t["old"] != t["new"]:
                    t["saved_as"] = backup_as(t["path"])
            if fresh:
                # Named at once (no fsync: nothing may come between), so that a kill before the
                # journal exists lets `recover()` remove the folder, still empty, with the staging.
                with open(os.path.join(txn, CLAIMED), "w", encoding="utf-8") as f:
                    f.write(os.path.basename(folder))
        from handrail.records.clock import now_iso

        journal: Journal = {"version": VERSION, "id": uuid.uuid4().hex, "since": now_iso(), "targets": targets,
                            "backup": None if folder is None else os.path.basename(folder),
                            "extra": dict(extra or {})}
        write_bytes(os.path.join(txn, JOURNAL + ".tmp"), json.dumps(journal, indent=2).encode("utf-8"))
        replace_with(os.path.join(txn, JOURNAL + ".tmp"), os.path.join(project, area.journal))
    except BaseException:
        # Nothing has been renamed onto a target yet: dropping the staging (and the
        # backup folder claimed for it, still empty) is the whole undo.
        shutil.rmtree(txn, ignore_errors=True)
        if folder is not None and fresh and backup is not None:
            with contextlib.suppress(OSError):
                os.rmdir(folder)
                backup.path = None
        raise
    try:
        _forward(project, area, journal, [])
    except BaseException as e:
        # A rename refused (not a kill): put back what had moved, so that "nothing was
        # changed" stays true; where even that fails, the next run retries.
        try:
            _back(project, area, journal)
        except OSError as again:
            raise HandrailError(f"{e}; and undoing it: {again}: the half-done write stays in {area.staging}, and "
                                f"the next run finishes or undoes it", reason="write_failed") from None
        shutil.rmtree(txn, ignore_errors=True)
        raise
    with contextlib.suppress(OSError):  # the files are written; the next run tidies up
        _finish(project, area, journal, recovered=False)
    return journal


def recover(project: str, area: Area) -> Recovered | None:
    """Finish or undo an interrupted write; None when there was none. Call with the area's lock held."""
    txn = os.path.join(project, area.staging)
    if not os.path.lexists(txn):
        return None
    try:
        raw = read(os.path.join(project, area.journal))
        journal = None if raw is None else json.loads(raw)
    except (OSError, ValueError) as e:
        raise _unreadable(area, f"cannot be read ({e})") from None
    if journal is None:
        _unclaim(project, txn)
        shutil.rmtree(txn, ignore_errors=True)
        return Recovered("cleaned", None, [], area.what)
    trouble = problem(project, area, journal)
    if trouble is not None:
        raise _unreadable(area, trouble)
    foreign = _foreign(project, area, journal)
    if foreign and area.undo_foreign:
        _back(project, area, journal)
        shutil.rmtree(txn, ignore_errors=True)
        if area.undone is not None:
            area.undone(project, journal, foreign)
        return Recovered("undone", journal, foreign, area.what)
    _forward(project, area, journal, foreign)
    _finish(project, area, journal, recovered=True)
    return Recovered("finished", journal, foreign, area.what)


def problem(project: str, area: Area, journal: object) -> str | None:
    """Why a journal read from disk cannot be acted on (`key: what is wrong`), or None."""
    if not isinstance(journal, dict) or journal.get("version") != VERSION or not isinstance(journal.get("id"), str):
        return f"version: not a version {VERSION} journal"
    targets = journal.get("targets")
    if not isinstance(targets, list):
        return "targets: expected a list"
    for i, t in enumerate(targets):
        if not isinstance(t, dict):
            return f"targets[{i}]: expected an object"
        path = t.get("path")
        why = _path_problem(project, area, path)
        if why is not None:
            return f"targets[{i}].path: {path!r}: {why}"
        if not all(t.get(k) is None or isinstance(t.get(k), str) for k in ("old", "new")):
            return f"targets[{i}]: old and new: expected hashes"
        if t.get("mode") is not None and not (isinstance(t["mode"], int) and 0 <= t["mode"] <= 0o7777):
            return f"targets[{i}].mode: {t['mode']!r} is not a file mode"
        saved = t.get("saved_as")
        if saved is not None and not _relative(saved):
            return f"targets[{i}].saved_as: {saved!r} is not a path inside the backup folder"
    backup = journal.get("backup")
    if backup is not None and not is_backup_name(backup):
        return f"backup: {backup!r} is not a backup folder's name"
    if not isinstance(journal.get("extra"), dict):
        return "extra: expected an object"
    if area.extra_problem is not None:
        return area.extra_problem(journal["extra"])
    return None


def _path_problem(project: str, area: Area, path: object) -> str | None:
    if not isinstance(path, str) or not _relative(path):
        return "not a relative path inside the project"
    if not area.allowed(path):
        return f"not a file a {area.what} may change"
    root = os.path.realpath(project)
    parent = os.path.realpath(os.path.dirname(os.path.join(root, path)))
    if parent != root and not parent.startswith(root + os.sep):
        return "leads outside the project (through a symbolic link)"
    return None


def _relative(path: object) -> bool:
    """A normalised relative `/` path that stays below where it starts."""
    return (isinstance(path, str) and path != "" and "\\" not in path and "\0" not in path
            and not posixpath.isabs(path) and posixpath.normpath(path) == path and path.split("/")[0] != "..")


def _unreadable(area: Area, why: str) -> HandrailError:
    return HandrailError(f"{area.journal}: {why}; the files it names may be half written: compare them with "
                         f"{area.staging}/old/ and {area.staging}/new/, then remove {area.staging}",
                         reason="invalid_journal")


def _stage(project: str, area: Area, txn: str, changes: Sequence[Change]) -> list[dict[str, Any]]:
    os.makedirs(os.path.join(txn, "new"))
    os.makedirs(os.path.join(txn, "old"))
    device = os.stat(txn).st_dev
    targets: list[dict[str, Any]] = []
    for i, c in enumerate(changes):
        path = os.path.join(project, c.path)
        if _device(path) != device:
            raise OSError(errno.EXDEV, f"{c.path} is on another file system than {area.staging}", c.path)
        old = read(path)
        old_mode = os.stat(path).st_mode & 0o7777 if old is not None else None
        if old is not None:
            saved = os.path.join(txn, "old", str(i))
            write_bytes(saved, old)
            os.chmod(saved, old_mode or 0o644)
        mode = c.mode if c.mode is not None else old_mode
        if c.data is not None:
            staged = os.path.join(txn, "new", str(i))
            write_bytes(staged, c.data)
            if mode is not None:
                os.chmod(staged, mode)
        targets.append({"path": c.path, "old": digest(old), "new": digest(c.data),
                        "mode": None if c.data is None else c.mode})
    sync_dir(os.path.join(txn, "new"))
    sync_dir(os.path.join(txn, "old"))
    return targets


def _mode(path: str) -> int | None:
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return None


def _foreign(project: str, area: Area, journal: Journal) -> list[str]:
    """The targets holding neither their old nor their new content, or whose new content
    is lost: the write cannot be finished there."""
    txn = os.path.join(project, area.staging)
    out = []
    for i, t in enumerate(journal["targets"]):
        now = digest(read(os.path.join(project, t["path"])))
        if now == t["new"]:
            continue
        lost = t["new"] is not None and digest(read(os.path.join(txn, "new", str(i)))) != t["new"]
        if lost or now != t.get("old"):
            out.append(t["path"])
    return out


def _forward(project: str, area: Area, journal: Journal, skip: list[str]) -> None:
    txn = os.path.join(project, area.staging)
    if journal.get("backup"):
        folder = os.path.join(backups_root(project), journal["backup"])
        for i, t in enumerate(journal["targets"]):
            if t.get("saved_as") is None or t.get("old") is None or t["path"] in skip:
                continue
            dest = os.path.join(folder, t["saved_as"])
            saved = os.path.join(txn, "old", str(i))
            data = read(saved)
            if digest(read(dest)) != t["old"] and digest(data) == t["old"]:
                assert data is not None
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                write_bytes(dest, data)
                with contextlib.suppress(OSError):
                    os.chmod(dest, os.stat(saved).st_mode & 0o7777)
    for i, t in enumerate(journal["targets"]):
        if t["path"] in skip:
            continue
        path = os.path.join(project, t["path"])
        now = digest(read(path))
        if t["new"] is None:
            if now is not None and now == t.get("old"):
                os.unlink(path)
                sync_dir(os.path.dirname(path))
                _prune(project, os.path.dirname(path))
        elif now != t["new"]:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            replace_with(os.path.join(txn, "new", str(i)), path)
        elif t.get("mode") is not None and _mode(path) != t["mode"]:
            os.chmod(path, t["mode"])  # the content was right already: only its mode changes


def _prune(project: str, folder: str) -> None:
    """The folders a removal left empty go too, up to the project."""
    top = os.path.abspath(project)
    folder = os.path.abspath(folder)
    while folder != top and folder.startswith(top + os.sep):
        try:
            os.rmdir(folder)
        except OSError:
            return
        folder = os.path.dirname(folder)


def _finish(project: str, area: Area, journal: Journal, *, recovered: bool) -> None:
    if area.done is not None:
        area.done(project, journal, recovered)
    txn = os.path.join(project, area.staging)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(os.path.join(project, area.journal))
    shutil.rmtree(txn, ignore_errors=True)


def _back(project: str, area: Area, journal: Journal) -> None:
    """Put back what this write replaced, where the target still holds this write's content."""
    txn = os.path.join(project, area.staging)
    for i, t in enumerate(journal["targets"]):
        path = os.path.join(project, t["path"])
        if digest(read(path)) != t["new"]:
            continue
        saved = os.path.join(txn, "old", str(i))
        if t.get("old") is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        elif digest(read(saved)) == t["old"]:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            replace_with(saved, path)


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


def ensure_runtime(project: str) -> None:
    """`.handrail/runtime/`, git-ignored: also where a kill left its `.gitignore` empty,
    or git would see the staging folder."""
    from handrail.records.events import ensure_runtime_dir

    path = ensure_runtime_dir(project)
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
