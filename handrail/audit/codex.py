"""Reader and finder for codex session files."""

from __future__ import annotations

from collections.abc import Iterator

from handrail.audit.calls import Record


def find_codex(project: str, home: str) -> list[str]:
    """The codex session files whose working directory lies inside `project`."""
    return []


def read_codex(path: str) -> Iterator[Record]:
    """Stream the calls of one codex session file."""
    return iter(())
