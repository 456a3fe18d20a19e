"""Gitignore-style path patterns compiled to regular expressions.

The semantics are git's (and pathspec's `GitIgnoreSpec`, which the tests use as the
reference): a pattern without an inner slash matches at any depth, a leading or inner
slash anchors it at the root, a trailing slash matches only directories, `**` spans
directories, and a pattern that matches a directory matches everything inside it.
pathspec itself is not imported here: its import alone costs more than the whole
budget of a pre-tool hook.
"""

from __future__ import annotations

import re


def _translate_segment(seg: str) -> str:
    out = []
    i, n = 0, len(seg)
    while i < n:
        c = seg[i]
        if c == "\\" and i + 1 < n:
            out.append(re.escape(seg[i + 1]))
            i += 2
            continue
        if c == "*":
            while i < n and seg[i] == "*":
                i += 1
            out.append("[^/]*")
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            if j < n and seg[j] in "!^":
                j += 1
            if j < n and seg[j] == "]":
                j += 1
            while j < n and seg[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(c))
            else:
                body = seg[i + 1 : j]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                body = body.replace("\\", "\\\\")
                out.append(f"(?!/)[{body}]")
                i = j + 1
                continue
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def pattern_regex(pattern: str) -> str | None:
    """The regular expression (over a `/`-separated relative path) for one pattern.

    Returns None for blank lines and comments. Negation is handled by the caller.
    """
    p = pattern.strip() if not pattern.endswith("\\ ") else pattern.lstrip()
    if not p or p.startswith("#"):
        return None
    if p.startswith("!"):
        p = p[1:]
    dir_only = p.endswith("/")
    p = p.rstrip("/")
    if not p:
        return None
    anchored = "/" in p
    p = p.lstrip("/")
    parts = p.split("/")
    pieces: list[str] = []
    # Each piece is "a segment followed by a slash", so `**` can stand for zero segments.
    for idx, seg in enumerate(parts):
        last = idx == len(parts) - 1
        if seg == "**":
            if last:
                pieces.append(".+")
            else:
                pieces.append("(?:[^/]+/)*")
            continue
        pieces.append(_translate_segment(seg) + ("" if last else "/"))
    body = "".join(pieces)
    if parts[-1] == "**":
        # `a/**` matches everything inside a; `**` alone matches everything.
        tail = ""
    elif dir_only:
        tail = "/.*"
    else:
        tail = "(?:/.*)?"
    prefix = "" if anchored else "(?:.*/)?"
    return f"^{prefix}{body}{tail}$"


class PatternSet:
    """Patterns in order; the last one that matches decides (negation re-includes)."""

    __slots__ = ("patterns", "_compiled")

    def __init__(self, patterns: list[str] | tuple[str, ...], *, ignore_case: bool = False) -> None:
        self.patterns = tuple(patterns)
        flags = re.IGNORECASE if ignore_case else 0
        compiled = []
        for idx, pat in enumerate(self.patterns):
            rx = pattern_regex(pat)
            if rx is None:
                continue
            compiled.append((idx, pat.lstrip().startswith("!"), re.compile(rx, flags | re.DOTALL).match))
        self._compiled = tuple(compiled)

    def match(self, path: str) -> str | None:
        """The pattern that includes `path`, or None when none does (or a negation won)."""
        hit = None
        for idx, negated, match in self._compiled:
            if match(path):
                hit = None if negated else self.patterns[idx]
        return hit

    def __bool__(self) -> bool:
        return bool(self._compiled)
