"""The one record every transcript reader yields, whatever the harness.

A reader streams a session file and yields, per tool call it finds, a `Call`; per line it
cannot read, a `Problem` (skipped, never a crash: transcripts are untrusted input); per
record of a type it does not model, an `Unknown` (counted, never guessed at).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

KINDS = ("shell", "edit", "write", "read", "search")
OUTCOMES = ("ok", "error", "hook_denied", "user_denied", "unknown")


class Call(NamedTuple):
    harness: str  # "claude" | "codex" | "opencode" | "gemini"
    session: str  # the harness's session id
    file: str  # the transcript/db file it came from
    line: int | None  # the line number in that file (JSON Lines), or a row id
    time: str | None  # ISO 8601 UTC, as the transcript says
    cwd: str | None  # the session's working directory at that call
    kind: str  # one of KINDS
    command: str | None  # for shell
    paths: tuple[str, ...]  # for edit/write/read/search (as the tool was given them)
    outcome: str  # one of OUTCOMES
    reason: str | None  # the hook's or error's text, where the transcript has it


class Problem(NamedTuple):
    """A line that could not be read: reported with its place, then skipped."""

    file: str
    line: int | None
    what: str


class Unknown(NamedTuple):
    """A record of a type the reader does not model: counted by `kind`."""

    kind: str


Record = Call | Problem | Unknown
Reader = Callable[[str], Iterator[Record]]
Finder = Callable[[str, str], list[str]]
