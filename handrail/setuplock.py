"""One `handrail permissions` or `handrail init` at a time per project.

Two runs that interleave their writes leave each file from one run and the record of
what handrail owns from the other, so the next run takes handrail's rules for the
user's and keeps them. The runs serialise on an advisory lock,
`.handrail/runtime/permissions.lock` (git-ignored, with the rest of runtime/),
taken with `flock`: the kernel drops it when its holder dies, so a killed run never
leaves the project locked. A run waits for the lock a bounded time (`WAIT` seconds,
or `HANDRAIL_LOCK_WAIT`), then stops with one line naming the holder's pid.

The lock is re-entrant within one process: `init` holds it across its steps and
calls `permissions.run`, which takes it again.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from handrail import filelock
from handrail.errors import HandrailError

LOCK_FILE = os.path.join(".handrail", "runtime", "permissions.lock")  # runtime/ ignores itself
WAIT = 60.0
WAIT_ENV = "HANDRAIL_LOCK_WAIT"
_held: dict[str, int] = {}  # lock path -> depth, for this process


def wait_seconds() -> float:
    raw = os.environ.get(WAIT_ENV)
    if raw is None or not raw.strip():
        return WAIT
    try:
        value = float(raw)
    except ValueError:
        raise HandrailError(f"{WAIT_ENV}={raw}: expected a number of seconds", reason="bad_arguments") from None
    if value < 0:
        raise HandrailError(f"{WAIT_ENV}={raw}: expected a number of seconds, 0 or more", reason="bad_arguments")
    return value


@contextmanager
def held(project: str, what: str) -> Iterator[None]:
    """Hold the project's lock while the block runs; `what` names the command for the
    message a run that cannot get it prints."""
    path = os.path.realpath(os.path.join(project, LOCK_FILE))
    if path in _held:
        _held[path] += 1
        try:
            yield
        finally:
            _held[path] -= 1
        return
    from handrail.records.events import ensure_runtime_dir

    shown = os.path.relpath(path, os.path.realpath(project))
    wait = wait_seconds()
    try:
        ensure_runtime_dir(project)
        fd = filelock.open_lock(path)
    except OSError as e:
        raise HandrailError(f"{shown}: cannot create the lock: {e.strerror}; `{what}` wrote nothing",
                            reason="io_error") from None
    with filelock.locked(fd, wait) as got:
        if not got.had:
            raise HandrailError(f"{shown}: another `handrail permissions` or `handrail init` (pid {got.holder}) "
                                f"still holds it after {wait:g}s; `{what}` wrote nothing: run it again once "
                                f"that one has finished", reason="busy")
        _held[path] = 1
        try:
            yield
        finally:
            del _held[path]


def busy(project: str) -> bool:
    """Whether a run holds the lock now (read only: creates nothing)."""
    return filelock.busy(os.path.join(project, LOCK_FILE))
