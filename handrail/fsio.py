"""Reading JSON with errors a person can act on, and atomic writes that keep backups.

Imported on the hot path: standard library only, nothing heavy.

Temporary files. An atomic write needs its temporary file on the target's filesystem,
so beside the target, often in a folder git tracks; a write killed before its rename
leaves the file behind. So each temporary file lives in a folder of its own,
`.handrail-tmp.<pid>.<random>/`, beside the target, holding a `.gitignore` of `*`:
that ignores the folder's every file, itself included, so git never sees a leftover
(`git status` is clean even after `kill -9`). Every new temporary file first removes
the leftovers of dead processes in its folder, and the `.NAME.PID.tmp` files earlier
versions left.
"""

from __future__ import annotations

import errno
import json
import os
import re
import time

from handrail.errors import HandrailError, PolicyError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise HandrailError(f"{path}: file not found", reason="file_not_found") from None
    except UnicodeDecodeError as e:
        raise PolicyError(f"{path}: not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise HandrailError(f"{path}: cannot read: {e.strerror}") from None


def read_bytes(path: str) -> bytes | None:
    """The file's bytes, or None where there is none; a folder in its place is an error
    (handrail writes nothing there)."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise HandrailError(f"{path}: is a folder, not a file; move it away first", reason="in_the_way") from None


def read_regular(path: str, limit: int) -> bytes | str | None:
    """Up to `limit` + 1 bytes of the regular file at `path`; None when no file has that name;
    otherwise the reason it is not read. For the files an agent can put in handrail's way (git's
    HEAD or commondir, a script): O_NONBLOCK makes a FIFO open at once instead of waiting for a
    writer, and fstat then refuses it, as it refuses a device."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        return f"which handrail cannot read ({e.strerror})"
    except ValueError:  # a lone surrogate or a NUL: no file has that name
        return "a name handrail cannot look up"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "not a regular file: what it yields is only known at run time"
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError as e:
        return f"which handrail cannot read ({e.strerror})"
    finally:
        os.close(fd)


def parse_json(text: str, path: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise PolicyError(f"{path}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except RecursionError:
        # a planted `[[[…]]]` a hundred thousand deep: a broken file like any other, never a crash
        raise PolicyError(f"{path}: invalid JSON: nested too deeply to read") from None


def read_json(path: str) -> object:
    return parse_json(read_text(path), path)


def read_json_object(path: str) -> dict[str, Any]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise PolicyError(f"{path}: expected a JSON object at the top level, found {type(data).__name__}")
    return data


TEMP_PREFIX = ".handrail-tmp."
TEMP_IGNORE = "# a temporary file of handrail's: git never sees it\n*\n"
# A temporary folder older than this is a leftover even where its PID is alive again
# (PIDs are reused); no write takes this long.
STALE_AFTER_S = 3600
_TEMP_NAME = re.compile(r"\.handrail-tmp\.(\d+)\.[0-9a-f]+")
_OLD_TEMP_NAME = re.compile(r"\.(.+)\.(\d+)\.tmp")  # what earlier versions left beside NAME


def temp_path(path: str) -> str:
    """A new temporary file name for writing `path` (the file is not created): on the
    same filesystem, so `os.replace(tmp, path)` is atomic, and in a folder git never
    sees. Removes dead processes' leftovers beside `path` first. Hand it back to
    `discard_temp()` once renamed or given up."""
    directory = os.path.dirname(os.path.abspath(path))
    clean_stale_temps(directory)
    holder = os.path.join(directory, f"{TEMP_PREFIX}{os.getpid()}.{os.urandom(4).hex()}")
    os.mkdir(holder, 0o700)
    try:
        with open(os.path.join(holder, ".gitignore"), "w", encoding="utf-8") as f:
            f.write(TEMP_IGNORE)
    except BaseException:
        _remove_holder(holder)
        raise
    return os.path.join(holder, os.path.basename(path))


def discard_temp(tmp: str) -> None:
    """Remove a `temp_path()` file (when it is still there) and its folder."""
    _remove_holder(os.path.dirname(tmp))


def clean_stale_temps(directory: str) -> list[str]:
    """Remove the temporary files in `directory` whose writer is gone; their names."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    names = {e.name for e in entries}
    removed = []
    for e in entries:
        m = _TEMP_NAME.fullmatch(e.name)
        if m and e.is_dir(follow_symlinks=False) and _stale(int(m.group(1)), e):
            _remove_holder(e.path)
            removed.append(e.name)
            continue
        m = _OLD_TEMP_NAME.fullmatch(e.name)
        # Only where the file it was written for is there, so no file of the user's goes.
        if m and m.group(1) in names and e.is_file(follow_symlinks=False) and _stale(int(m.group(2)), e):
            try:
                os.unlink(e.path)
                removed.append(e.name)
            except OSError:
                pass
    return removed


def _stale(pid: int, entry: os.DirEntry[str]) -> bool:
    if pid != os.getpid():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except (PermissionError, OverflowError, ValueError):
            pass  # another user's live process (or a PID out of range: not ours)
    try:
        return time.time() - entry.stat(follow_symlinks=False).st_mtime > STALE_AFTER_S
    except OSError:
        return False


def _remove_holder(holder: str) -> None:
    try:
        names = os.listdir(holder)
    except OSError:
        return
    for name in names:
        try:
            os.unlink(os.path.join(holder, name))
        except OSError:
            pass
    try:
        os.rmdir(holder)
    except OSError:
        pass


def atomic_write(path: str, text: str | bytes, *, backup_dir: str | Callable[[], str] | None = None,
                 mode: int | None = None) -> str | None:
    """Write `text` (str: as UTF-8; bytes: as they are) to `path` through a temporary file and a rename.

    When `path` exists with other content and `backup_dir` is given, the old file is
    copied there first (same base name); the backup's path is returned. A callable
    `backup_dir` (`backups.Backup.under()`) is called only then, so a write that
    replaces nothing claims no backup folder.
    """
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    backup = None
    try:
        with open(path, "rb") as f:
            old = f.read()
    except FileNotFoundError:
        old = None
    new = text.encode("utf-8") if isinstance(text, str) else text
    if old == new:
        return None
    if old is not None and backup_dir is not None:
        folder = backup_dir if isinstance(backup_dir, str) else backup_dir()
        os.makedirs(folder, exist_ok=True)
        backup = os.path.join(folder, os.path.basename(path))
        _write_bytes(backup, old)
    tmp = temp_path(path)
    try:
        _write_bytes(tmp, new)
        if mode is not None:
            os.chmod(tmp, mode)
        elif old is not None:
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        os.replace(tmp, path)
    finally:
        discard_temp(tmp)
    return backup


def move(src: str, dst: str) -> None:
    """Move a file (or a symlink, as a link) to `dst`, which must not exist: a move sets
    a file aside or puts it back, and never replaces one (FileExistsError). Across file
    systems (a `core.hooksPath` elsewhere) it is copied, then removed."""
    if os.path.lexists(dst):
        raise FileExistsError(errno.EEXIST, "already exists", dst)
    try:
        os.rename(src, dst)
    except OSError as e:
        if e.errno != errno.EXDEV:
            raise
        import shutil

        shutil.move(src, dst)


def replace_with(staged: str, path: str) -> None:
    """Rename a file staged on `path`'s file system onto it, and make that durable: the
    one step of a multi-file write (handrail/txn.py) that changes a target."""
    os.replace(staged, path)
    sync_dir(os.path.dirname(os.path.abspath(path)))


def sync_dir(path: str) -> None:
    """Make the renames in `path` durable (POSIX; elsewhere a folder cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_bytes(path: str, data: bytes) -> None:
    """Write and fsync `path` in place: for files no reader sees half written (staging,
    backups); `atomic_write` for the rest."""
    _write_bytes(path, data)


def _write_bytes(path: str, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def dump_json(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
