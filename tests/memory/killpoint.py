"""Run the real handrail command line, SIGKILLed at the Nth call of one os function.

    HANDRAIL_TEST_KILL_AT=replace:3 python killpoint.py memory commit --output FILE
    HANDRAIL_TEST_KILL_AT=replace:3:after ...   (killed right after the call returns)
    HANDRAIL_TEST_KILL_AT=replace:3:fail ...    (the call raises PermissionError instead)

The function is looked up on `os` at every call by the code under test, so wrapping
the attribute here sees every rename, fsync or unlink handrail makes; the process dies
as it would to `kill -9`: no finally, no atexit, nothing flushed. Exits 0 as handrail
would when the Nth call never comes (the command ran to its end).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable


def arm(spec: str) -> None:
    name, nth, *when = spec.split(":")
    real: Callable[..., object] = getattr(os, name)
    calls = 0
    after, fail = when == ["after"], when == ["fail"]

    def fatal(*args: object, **kwargs: object) -> object:
        nonlocal calls
        calls += 1
        if calls == int(nth) and fail:
            raise PermissionError(13, "Permission denied", str(args[-1]) if args else None)
        if calls == int(nth) and not after:
            os.kill(os.getpid(), signal.SIGKILL)
        out = real(*args, **kwargs)
        if calls == int(nth):
            os.kill(os.getpid(), signal.SIGKILL)
        return out

    setattr(os, name, fatal)


if __name__ == "__main__":
    from handrail.main import main

    arm(os.environ["HANDRAIL_TEST_KILL_AT"])
    raise SystemExit(main(sys.argv[1:]))
