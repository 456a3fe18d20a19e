"""How many lines a change adds and removes: what `max_diff_lines` holds a change to.

git's own count (`git diff --numstat`) is the count for ordinary text, and can be dodged
two ways: a file git calls binary (a NUL byte in its head) counts no lines at all, and
text whose lines end in a bare `\\r` is one line however long it runs. So content that
holds a NUL anywhere, or a `\\r` not followed by `\\n`, is counted here rather than by
git: every `\\n`, `\\r\\n` and bare `\\r` ends a line, and in content with a NUL each line
counts once per 80 bytes it holds (rounded up). Separators alone would leave a blob of
packed data with few of them at a handful of lines; bytes alone would count an ordinary
file of short lines behind a NUL as less than its lines. The larger of the two is what a
reviewer has to take in, and neither form can be made smaller than its content.

The pre-commit and pre-push hooks, `handrail ci` and the loop runner all count here.
"""

from __future__ import annotations

import re

import pygit2
from pygit2.enums import DiffOption

WIDTH = 80                       # bytes of binary content that count as one line
DIFF_LIMIT = 1 << 20             # larger binary sides count as replaced whole, not diffed
_BARE_CR = re.compile(rb"\r(?!\n)")


def _own_count(data: bytes) -> bool:
    """Content git would undercount: a NUL anywhere, or a bare `\\r`."""
    return b"\0" in data or (b"\r" in data and _BARE_CR.search(data) is not None)


def _units(line: bytes) -> int:
    return max(1, -(-len(line) // WIDTH))


def count(data: bytes | None) -> int:
    """The lines a whole blob counts for (added, or deleted)."""
    if not data:
        return 0
    if not _own_count(data):
        return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    text = _BARE_CR.sub(b"\n", data)
    if b"\0" not in data:
        return text.count(b"\n") + (0 if text.endswith(b"\n") else 1)
    lines = text.split(b"\n")
    if not lines[-1]:
        lines.pop()
    return sum(_units(line) for line in lines)


def changed(old: bytes | None, new: bytes | None) -> tuple[int, int]:
    """(added, removed) lines from `old` to `new` (None: the file is not there)."""
    if old is None or new is None:
        return count(new), count(old)
    if old == new:
        return 0, 0
    if not (_own_count(old) or _own_count(new)):
        _context, plus, minus = pygit2.Patch.create_from(old, new, context_lines=0).line_stats
        return plus, minus
    binary = b"\0" in old or b"\0" in new
    if binary and max(len(old), len(new)) > DIFF_LIMIT:
        return count(new), count(old)  # never less than the diff, and no diff of packed data to wait for
    patch = pygit2.Patch.create_from(_BARE_CR.sub(b"\n", old), _BARE_CR.sub(b"\n", new),
                                     flag=DiffOption.FORCE_TEXT, context_lines=0)
    if not binary:
        _context, plus, minus = patch.line_stats
        return plus, minus
    added = removed = 0
    for hunk in patch.hunks:
        for line in hunk.lines:
            if line.origin == "+":
                added += _units(line.raw_content.removesuffix(b"\n"))
            elif line.origin == "-":
                removed += _units(line.raw_content.removesuffix(b"\n"))
    return added, removed
