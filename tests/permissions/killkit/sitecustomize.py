"""Imported at start-up by any Python with this folder on PYTHONPATH (the real
`handrail` console script included). With HANDRAIL_TEST_KILL_AT=N the process sends
itself SIGKILL just before its Nth rename (os.replace or os.rename), as a crash, an
out-of-memory kill or a `kill -9` would: nothing after it runs, no `finally`, no
atexit. Without the variable it changes nothing."""

from __future__ import annotations

import os
import signal

_AT = int(os.environ.get("HANDRAIL_TEST_KILL_AT") or 0)

if _AT:
    _seen = [0]
    _real_replace, _real_rename = os.replace, os.rename

    def _maybe_die() -> None:
        _seen[0] += 1
        if _seen[0] == _AT:
            os.kill(os.getpid(), signal.SIGKILL)

    def _replace(src, dst, *args, **kwargs):  # type: ignore[no-untyped-def]
        _maybe_die()
        return _real_replace(src, dst, *args, **kwargs)

    def _rename(src, dst, *args, **kwargs):  # type: ignore[no-untyped-def]
        _maybe_die()
        return _real_rename(src, dst, *args, **kwargs)

    os.replace, os.rename = _replace, _rename
