"""Reading a file whose text handrail judges as code: a script, an SQL file, a sed script, a patch.

handrail reads the file in its own process, not in the one that will run the command. The
two see the same text only for a regular file: `/dev/stdin`, `/proc/self/fd/0` or `/dev/fd/0`
are handrail's own input (a hook's payload, already consumed), a FIFO or a device yields
whatever its writer sends later, and opening a FIFO blocks. So a name that reaches, through
any link, into `/dev`, `/proc` or `/sys`, or a file that is not a regular one, is never read:
its text is unknown, and the caller judges unknown code as code only known at run time.
"""

from __future__ import annotations

import os
import stat

# Names a program reads as its own standard input: the text is what the command line feeds it.
STDIN_PATHS = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
_KERNEL = ("/dev", "/proc", "/sys")
_MAX_LINKS = 40


def _kernel(path: str) -> bool:
    return any(path == k or path.startswith(k + "/") for k in _KERNEL)


def _reaches_kernel(path: str) -> bool:
    """The path, or any link on the way to the file, names something under /dev, /proc or /sys.
    Each hop is checked, not only the end: `/proc/self/fd/3` resolves to a file handrail itself
    holds open, which the command's own process would not see there."""
    todo = path.split("/")
    cur = "/"
    hops = 0
    while todo:
        name = todo.pop(0)
        if name in ("", "."):
            continue
        nxt = os.path.dirname(cur) if name == ".." else os.path.join(cur, name)
        if _kernel(nxt):
            return True
        try:
            target = os.readlink(nxt)
        except (OSError, ValueError):
            cur = nxt
            continue
        hops += 1
        if hops > _MAX_LINKS:
            return True
        if target.startswith("/"):
            cur = "/"
        todo = target.split("/") + todo
    return False


def regular_file(path: str) -> bool:
    """A regular file handrail may open without blocking and read as the command would."""
    if not os.path.isabs(path) or _reaches_kernel(path):
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_code(path: str, limit: int) -> bytes | str | None:
    """Up to `limit` + 1 bytes of the regular file at the absolute `path`; None when no file has
    that name (the command fails to run it); otherwise the reason it is not read."""
    if not os.path.isabs(path):
        return "a path handrail cannot place"
    if _reaches_kernel(path):
        return "a device or process file, whose text the command's own process sees, not handrail"
    from handrail.fsio import read_regular

    return read_regular(path, limit)


def read_code_text(path: str, limit: int) -> str | None:
    """The text of a regular file, cut at `limit` characters' worth of bytes; None for anything
    else (missing, unreadable, a device, a FIFO): callers that cannot tell those apart."""
    data = read_code(path, limit)
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else None
