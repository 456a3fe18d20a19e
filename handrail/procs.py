"""The processes this one runs under, and the environment each was started with.

A program can start another with an agent's markers removed (`env -u CLAUDECODE …`)
or under a fresh pseudo-terminal (`script`, `pty.spawn`, `setsid`), but it cannot
rewrite what its ancestors were started with: on Linux `/proc/PID/environ` keeps each
process's initial environment. `gates.human_absent()` reads it to see an agent
behind a fake terminal. Where there is no `/proc` (macOS, Windows), or a process
belongs to another user, nothing is known of it and nothing is claimed.
"""

from __future__ import annotations

import os
from typing import NamedTuple

MAX_DEPTH = 64  # a process tree deeper than this is not one a person sits at


class Ancestor(NamedTuple):
    pid: int
    program: str
    env: dict[str, str]


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as f:
            stat = f.read()
    except OSError:
        return None
    # `pid (comm) state ppid …`: comm may hold spaces and parentheses, so split after the last ')'.
    fields = stat[stat.rfind(")") + 2:].split()
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None


def _environ(pid: int) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            raw = f.read()
    except OSError:
        return {}
    out: dict[str, str] = {}
    for item in raw.split(b"\0"):
        key, sep, value = item.partition(b"=")
        if sep and key:
            out[key.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
    return out


def _program(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return "?"


def ancestors(pid: int | None = None) -> list[Ancestor]:
    """This process (or `pid`) itself, then its parent, … up to pid 1: each with the
    environment it was started with. [] where /proc cannot be read."""
    out: list[Ancestor] = []
    current: int | None = os.getpid() if pid is None else pid
    while current is not None and current > 1 and len(out) < MAX_DEPTH:
        out.append(Ancestor(current, _program(current), _environ(current)))
        current = _parent(current)
    return out
