"""Running one command in its own process group, with a deadline, keeping the head and
tail of its output. Whatever it leaves running goes down with it: at the deadline,
and also when it ends normally (a background `sleep 1000 &` must not outlive the
criterion that started it, nor hold its output pipe open).

A process that leaves the group on purpose (`setsid`) escapes; the pipe is then
read for a short while more and given up.
"""

from __future__ import annotations

import codecs
import os
import selectors
import signal
import subprocess
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import NamedTuple

GRACE_SECONDS = 0.5    # between SIGTERM and SIGKILL
DRAIN_SECONDS = 1.0    # reading on after the command ended, for what it already wrote
KEEP_CHARS = 64_000


class Ran(NamedTuple):
    exit_code: int | None   # None: killed at the deadline
    timed_out: bool
    output: str             # head and tail, a marker where the middle was dropped
    chars: int              # characters of the whole output
    seconds: float


class Capture:
    """The first and the last `keep` characters of a stream."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.head: list[str] = []
        self.head_len = 0
        self.tail: deque[str] = deque()
        self.tail_len = 0
        self.chars = 0

    def add(self, text: str) -> None:
        self.chars += len(text)
        if self.head_len < self.keep:
            take = text[: self.keep - self.head_len]
            self.head.append(take)
            self.head_len += len(take)
            text = text[len(take):]
        if text:
            self.tail.append(text)
            self.tail_len += len(text)
            while self.tail and self.tail_len - len(self.tail[0]) >= self.keep:
                self.tail_len -= len(self.tail.popleft())

    def text(self) -> str:
        head, tail = "".join(self.head), "".join(self.tail)[-self.keep:]
        dropped = self.chars - len(head) - len(tail)
        if dropped <= 0:
            return head + tail
        return f"{head}\n[... {dropped} characters dropped: head and tail kept ...]\n{tail}"


def kill_group(proc: subprocess.Popen[bytes], grace: float = GRACE_SECONDS) -> None:
    """SIGTERM to the whole group, SIGKILL to what is left after `grace`; returns once
    the group is gone (or after a last second of waiting)."""
    pgid = proc.pid
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 1.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        end = time.monotonic() + wait
        while time.monotonic() < end:
            proc.poll()  # reap the leader, or its zombie keeps the group alive
            if not group_alive(pgid):
                return
            time.sleep(0.02)


def group_alive(pgid: int) -> bool:
    """Whether a process of the group still runs. Zombies do not count: an orphan's
    zombie waits for init to reap it, which can take a while and harms no one."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True  # no /proc: trust the signal
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue
        fields = data[data.rfind(b")") + 2:].split()  # state, ppid, pgrp, ...
        if len(fields) > 2 and fields[2] == str(pgid).encode() and fields[0] != b"Z":
            return True
    return False


def run(argv: list[str], *, cwd: str, env: Mapping[str, str], timeout: float | None,
        on_text: Callable[[str], None] | None = None, keep: int = KEEP_CHARS) -> Ran:
    """Run `argv` (stdin closed, stderr into stdout) in a new process group."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    sel = selectors.DefaultSelector()
    sel.register(fd, selectors.EVENT_READ)
    reading = True
    capture = Capture(keep)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    deadline = None if timeout is None else start + timeout
    timed_out = False
    ended: float | None = None

    def take(data: bytes, final: bool = False) -> None:
        text = decoder.decode(data, final)
        if text:
            capture.add(text)
            if on_text is not None:
                on_text(text)

    try:
        while reading or ended is None:
            now = time.monotonic()
            if ended is None:
                if proc.poll() is not None:
                    ended = now
                    kill_group(proc)
                elif deadline is not None and now >= deadline:
                    timed_out = True
                    kill_group(proc)
                    ended = time.monotonic()
            elif now - ended > DRAIN_SECONDS:
                break  # something that left the group still holds the pipe
            wait = 0.05 if ended is not None else 0.2 if deadline is None else max(0.0, min(0.2, deadline - now))
            if not reading:
                try:
                    proc.wait(timeout=wait)
                except subprocess.TimeoutExpired:
                    pass
                continue
            if not sel.select(wait):
                continue
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if chunk:
                take(chunk)
            else:
                reading = False  # every writer closed the pipe
                sel.unregister(fd)
    finally:
        if ended is None:  # interrupted (Ctrl-C): the group goes too
            kill_group(proc)
        sel.close()
        proc.stdout.close()
        proc.wait()
    take(b"", final=True)
    code = None if timed_out else proc.returncode
    return Ran(code, timed_out, capture.text(), capture.chars, time.monotonic() - start)
