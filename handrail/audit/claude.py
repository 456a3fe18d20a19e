"""Reader and finder for claude session files."""

from __future__ import annotations

from collections.abc import Iterator

from handrail.audit.calls import Record


def find_claude(project: str, home: str) -> list[str]:
    """The claude session files whose working directory lies inside `project`."""
    return []


def read_claude(path: str) -> Iterator[Record]:
    """Stream the calls of one claude session file."""
    return iter(())
