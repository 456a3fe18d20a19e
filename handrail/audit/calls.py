"""The one record every transcript reader yields, whatever the harness.

A reader streams a session file and yields, per tool call it finds, a `Call`; per line it
cannot read, a `Problem` (skipped, never a crash: transcripts are untrusted input); per
record of a type it does not model, an `Unknown` (counted, never guessed at).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
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
    # For a search: the tool's own file globs (`!x` excluding) as the hook adapter reads them
    # from the call (Grep's `glob`, grep's `include`, grep_search's `include_pattern`): the
    # search is judged over the files they let it read, as the live hooks judge it.
    globs: tuple[str, ...] = ()


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
# find(project, home, env): where a harness keeps its sessions follows the variables that move
# it (CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_DATA_HOME, GEMINI_CLI_HOME), read from `env` alone.
Finder = Callable[[str, str, Mapping[str, str]], list[str]]
