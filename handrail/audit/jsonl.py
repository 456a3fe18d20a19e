"""JSON Lines read as untrusted input, one line at a time.

A transcript can be hundreds of megabytes: it is never read whole. A line that is not
JSON, not an object, or longer than MAX_LINE is a Problem with its line number, and the
reader goes on with the next line. Only a regular file is read: a FIFO would wait for a
writer forever and a device (`/dev/zero`) never ends, and a session folder can hold either
(or a link to either) put there by anyone who can write to it.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from typing import IO, Any

from handrail.audit.calls import Problem

MAX_LINE = 32 * 1024 * 1024  # one record past this is skipped: a tool result is never this large
_CHUNK = 1024 * 1024


def open_regular(path: str) -> IO[bytes] | str:
    """`path` open for reading when it is a regular file (after links), else why it is not read.
    Opened without blocking, so that a FIFO is seen for what it is rather than waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        return f"cannot be read: {e.strerror or e}"
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else \
                "a socket" if stat.S_ISSOCK(mode) else "a device"
            os.close(fd)
            return f"not a regular file ({kind}): not read"
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except OSError as e:
        os.close(fd)
        return f"cannot be read: {e.strerror or e}"


def unreadable(path: str) -> str | None:
    """Why `path` cannot be read as a session file, or None when it can."""
    f = open_regular(path)
    if isinstance(f, str):
        return f
    f.close()
    return None


def records(path: str) -> Iterator[tuple[int, dict[str, Any]] | Problem]:
    """(line number, object) per line of `path`; a Problem for each line that is no JSON object.
    Blank lines are skipped. A file that cannot be read, or is no regular file, is one Problem."""
    f = open_regular(path)
    if isinstance(f, str):
        yield Problem(path, None, f)
        return
    try:
        number = 0
        while True:
            raw = f.readline(MAX_LINE + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                _skip_rest(f)
                yield Problem(path, number, f"a line longer than {MAX_LINE} bytes: skipped")
                continue
            if not raw.strip():
                continue
            try:
                data = json.loads(raw.decode("utf-8", "surrogateescape"))
            except RecursionError:
                yield Problem(path, number, "nested too deeply to read")
                continue
            except ValueError as e:
                yield Problem(path, number, f"not JSON ({str(e)[:120]})")
                continue
            if not isinstance(data, dict):
                yield Problem(path, number, f"expected a JSON object, found {type(data).__name__}")
                continue
            yield number, data
    finally:
        f.close()


def _skip_rest(f: Any) -> None:
    while True:
        chunk = f.readline(_CHUNK)
        if not chunk or chunk.endswith(b"\n"):
            return


def first_records(path: str, most: int) -> Iterator[dict[str, Any]]:
    """The first `most` readable objects of `path` (a finder's look at a session's head)."""
    for n, item in enumerate(records(path)):
        if n >= most:
            return
        if not isinstance(item, Problem):
            yield item[1]


def text_of(value: object) -> str:
    """A tool result's content as text: a string, or the text blocks of a list of blocks."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(b.get("text", "")) for b in value if isinstance(b, dict) and b.get("type") == "text")
    return ""


def inside(path: str, project: str) -> bool:
    """Whether the folder `path` is `project` or lies below it (both absolute)."""
    for root in {os.path.abspath(project), os.path.realpath(project)}:
        rel = os.path.relpath(os.path.abspath(path), root)
        if rel == os.curdir or not (rel == os.pardir or rel.startswith(os.pardir + os.sep)):
            return True
    return False


def related(cwd: str, project: str) -> bool:
    """Whether a session in `cwd` may have touched `project`: it ran inside it, or in a folder
    above it (`cd project && …`, or a path into it), where only its calls that reach into the
    project are judged (`replay.Policy.reaches`)."""
    return inside(cwd, project) or inside(project, cwd)
