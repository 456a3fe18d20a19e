"""`handrail audit`: past agent sessions, read from each harness's own files.

One reader and one finder per harness (see calls.py for the record they share); the
table below is the only place that lists them.
"""

from __future__ import annotations

from handrail.audit import claude, codex, gemini, opencode
from handrail.audit.calls import Finder, Reader

READERS: dict[str, tuple[Finder, Reader]] = {
    "claude": (claude.find_claude, claude.read_claude),
    "codex": (codex.find_codex, codex.read_codex),
    "opencode": (opencode.find_opencode, opencode.read_opencode),
    "gemini": (gemini.find_gemini, gemini.read_gemini),
}
