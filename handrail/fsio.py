"""Reading JSON with errors a person can act on, and atomic writes that keep backups.

Imported on the hot path: standard library only, nothing heavy.
"""

from __future__ import annotations

import json
import os
import time

from handrail.errors import HandrailError, PolicyError


def utc_now() -> str:
    """UTC time as ISO 8601 with a `Z`, without importing datetime."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


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


def parse_json(text: str, path: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise PolicyError(f"{path}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None


def read_json(path: str) -> object:
    return parse_json(read_text(path), path)


def read_json_object(path: str) -> dict:
    data = read_json(path)
    if not isinstance(data, dict):
        raise PolicyError(f"{path}: expected a JSON object at the top level, found {type(data).__name__}")
    return data


def atomic_write(path: str, text: str, *, backup_dir: str | None = None, mode: int | None = None) -> str | None:
    """Write `text` to `path` through a temporary file and a rename.

    When `path` exists with other content and `backup_dir` is given, the old file is
    copied there first (same base name); the backup's path is returned.
    """
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    backup = None
    try:
        with open(path, "rb") as f:
            old = f.read()
    except FileNotFoundError:
        old = None
    new = text.encode("utf-8")
    if old == new:
        return None
    if old is not None and backup_dir is not None:
        os.makedirs(backup_dir, exist_ok=True)
        backup = os.path.join(backup_dir, os.path.basename(path))
        _write_bytes(backup, old)
    tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        _write_bytes(tmp, new)
        if mode is not None:
            os.chmod(tmp, mode)
        elif old is not None:
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return backup


def _write_bytes(path: str, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def dump_json(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
