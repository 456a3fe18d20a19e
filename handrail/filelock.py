"""Advisory file locks: the one place handrail calls `flock`.

A lock taken with `flock` is dropped by the kernel when its holder dies, so a killed
run never leaves a project locked, and a lock found held always means a live holder.
A lock file holds its holder's pid, for the message a run that cannot get it prints.
Where there is no `fcntl` (not POSIX), every lock is had at once: the checks each
writer makes on what it read stay its only guard there.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple


class Lock(NamedTuple):
    had: bool     # whether the lock was had within the wait
    holder: str   # the pid written in the lock file: ours when had, the other run's (or "?") when not


def acquire(fd: int, wait: float | None, *, shared: bool = False) -> bool:
    """Lock the open file `fd`; whether it was had within `wait` seconds (None: wait
    as long as it takes, 0: only if free now)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return True
    kind = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    if wait is None:
        fcntl.flock(fd, kind)
        return True
    deadline = time.monotonic() + wait
    pause = 0.01
    while True:
        try:
            fcntl.flock(fd, kind | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(pause)
            pause = min(pause * 2, 0.2)


def open_lock(path: str) -> int:
    """The lock file `path`, opened (created where absent) for `locked()`. Raises OSError."""
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)


@contextmanager
def held(path: str, wait: float | None = 0.0) -> Iterator[Lock]:
    """Open (creating it) and lock the lock file `path` while the block runs; the
    block sees whether it had the lock. Raises OSError when the file cannot be made."""
    with locked(open_lock(path), wait) as lock:
        yield lock


@contextmanager
def locked(fd: int, wait: float | None = 0.0) -> Iterator[Lock]:
    """Lock the lock file open as `fd` while the block runs, writing our pid in it once
    had; the block sees whether it had the lock. Closes `fd` (which releases it)."""
    try:
        if not acquire(fd, wait):
            yield Lock(False, holder(fd))
            return
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield Lock(True, str(os.getpid()))
    finally:
        os.close(fd)


def holder(fd: int) -> str:
    return os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"


def busy(path: str) -> bool:
    """Whether some run holds the lock on `path` now (read only: creates nothing)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        return not acquire(fd, 0, shared=True)
    finally:
        os.close(fd)
