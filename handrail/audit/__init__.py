"""`handrail audit`: past agent sessions, read from each harness's own files.

One reader and one finder per harness (see calls.py for the record they share); the
tables below are the only places that list them.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from handrail.audit import claude, codex, gemini, opencode
from handrail.audit.calls import Finder, Reader

READERS: dict[str, tuple[Finder, Reader]] = {
    "claude": (claude.find_claude, claude.read_claude),
    "codex": (codex.find_codex, codex.read_codex),
    "opencode": (opencode.find_opencode, opencode.read_opencode),
    "gemini": (gemini.find_gemini, gemini.read_gemini),
}


def _claude_file(path: str) -> bool:
    return path.endswith(".jsonl") and f"{os.sep}.claude{os.sep}projects{os.sep}" in os.path.abspath(path)


def _codex_file(path: str) -> bool:
    return os.path.basename(path).startswith("rollout-") and path.endswith(".jsonl")


def _opencode_file(path: str) -> bool:
    name = os.path.basename(path)
    return name.startswith("opencode") and name.endswith(".db")


def _gemini_file(path: str) -> bool:
    name = os.path.basename(path)
    return name.startswith("session-") and name.endswith((".jsonl", ".json")) and \
        f"{os.sep}.gemini{os.sep}tmp{os.sep}" in os.path.abspath(path)


# Which harness wrote a file named on the command line (--harness auto): by where the
# harness keeps its sessions, or how it names them. First match wins.
KNOWN_FILES: list[tuple[str, Callable[[str], bool]]] = [
    ("codex", _codex_file),
    ("claude", _claude_file),
    ("opencode", _opencode_file),
    ("gemini", _gemini_file),
]


def harness_of(path: str) -> str | None:
    """The harness whose session file `path` is, by its name and place; None when unsure."""
    for name, test in KNOWN_FILES:
        if test(path):
            return name
    from handrail.audit.jsonl import first_records

    if opencode.is_sqlite(path):  # the only harness here whose sessions are a database
        return "opencode"
    # Named otherwise (a copy): the first lines say it. Codex's open with session_meta, Gemini's with a
    # header holding sessionId and projectHash, Claude's carry sessionId.
    for rec in first_records(path, 5):
        if rec.get("type") == "session_meta" and "payload" in rec:
            return "codex"
        if "sessionId" in rec and "projectHash" in rec:
            return "gemini"
        if "sessionId" in rec:
            return "claude"
    return None
