"""Gitignore-style path patterns compiled to regular expressions.

The semantics are those of pathspec's `GitIgnoreSpec`, which the tests use as the
reference: a pattern without an inner slash matches at any depth, a leading or inner
slash anchors it at the root, a trailing slash matches only directories, `**` spans
directories, and a pattern that matches a directory matches everything inside it.
A bracket expression never matches `/`, and a pattern with an unclosed `[` matches
nothing (git discards it).

Which pattern decides: a pattern *names* a path when it matches the path itself, and
*covers* it when it matches only one of its parent directories. The last pattern that
names the path decides; where none names it, the last pattern that covers it decides.
So `secrets/` then `!secrets/README.md` leaves the README out, while `*` then
`!docs/` does not bring `docs/a.md` back (`*` names it; `!docs/` only covers it).

pathspec itself is not imported here: its import alone costs more than the whole
budget of a pre-tool hook.
"""

from __future__ import annotations

import re


class _Unclosed(ValueError):
    """A `[` without its `]`: git discards the whole pattern."""


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
                raise _Unclosed(seg)
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


def _parse(pattern: str) -> tuple[bool, list[str], bool, bool] | None:
    """(negated, segments, anchored, dir_only), or None for a pattern that matches nothing."""
    # Trailing blanks are dropped unless escaped; leading ones are part of the name.
    p = pattern if pattern.endswith("\\ ") else pattern.rstrip()
    if not p or p.startswith("#"):
        return None
    negated = p.startswith("!")
    if negated:
        p = p[1:]
    dir_only = p.endswith("/")
    anchored = "/" in p.rstrip("/")
    segs = p.strip("/").split("/")
    if segs == [""]:
        return None
    # `**/**` is `**`.
    segs = [s for k, s in enumerate(segs) if not (s == "**" and k > 0 and segs[k - 1] == "**")]
    if dir_only:
        # `a/**/` is the directory a and everything below it: the same as `/a/`.
        while len(segs) > 1 and segs[-1] == "**":
            segs.pop()
            anchored = True
    return negated, segs, anchored, dir_only


def pattern_regex(pattern: str) -> tuple[bool, str, bool, bool] | None:
    """(negated, regex, names, covers) for one pattern; None for blank lines, comments
    and patterns that match nothing.

    The regular expression is over a relative `/`-separated path, to be matched in
    full: against the path itself where the pattern can name it (`names`), against each
    parent folder of the path where it can cover it (`covers`).
    """
    parsed = _parse(pattern)
    if parsed is None:
        return None
    negated, segs, anchored, dir_only = parsed
    if segs == ["**"]:
        # `**` names everything; `**/` covers everything below the root.
        return negated, ".+", not dir_only, dir_only
    try:
        pieces = []
        last = len(segs) - 1
        for k, seg in enumerate(segs):
            if seg == "**":
                pieces.append(".+" if k == last else "(?:[^/]+/)*")
            else:
                pieces.append(_translate_segment(seg) + ("" if k == last else "/"))
    except _Unclosed:
        return None
    body = ("" if anchored else "(?:.*/)?") + "".join(pieces)
    if segs[-1] == "**":
        # `a/**` names everything inside a; nothing is left for it to cover.
        return negated, body, True, False
    return negated, body, not dir_only, True


def pattern_regexes(pattern: str) -> tuple[bool, str | None, str | None] | None:
    """(negated, regex naming the path, regex covering it through a parent folder).

    For callers that fold many patterns into one regular expression: the first is
    matched against the whole path, the second at the start of the path only.
    """
    rx = pattern_regex(pattern)
    if rx is None:
        return None
    negated, body, names, covers = rx
    return negated, body if names else None, body + "/" if covers else None


class PatternSet:
    """Patterns in order: the last one that names a path decides, else the last that covers it."""

    __slots__ = ("_compiled", "patterns")

    def __init__(self, patterns: list[str] | tuple[str, ...], *, ignore_case: bool = False) -> None:
        self.patterns = tuple(patterns)
        flags = re.DOTALL | (re.IGNORECASE if ignore_case else 0)
        compiled = []
        for idx, pat in enumerate(self.patterns):
            rx = pattern_regex(pat)
            if rx is None:
                continue
            negated, body, names, covers = rx
            compiled.append((idx, negated, re.compile(body, flags).fullmatch, names, covers))
        # Last pattern first: the first one that names the path decides at once.
        self._compiled = tuple(reversed(compiled))

    def match(self, path: str) -> str | None:
        """The pattern that includes `path`, or None when none does (or a negation won)."""
        covered: tuple[int, bool] | None = None
        parents: list[int] | None = None
        for idx, negated, fullmatch, names, covers in self._compiled:
            if names and fullmatch(path):
                return None if negated else self.patterns[idx]
            if covers and covered is None:
                if parents is None:
                    parents = [k for k, c in enumerate(path) if c == "/"]
                if any(fullmatch(path, 0, k) for k in parents):
                    covered = (idx, negated)
        if covered is None or covered[1]:
            return None
        return self.patterns[covered[0]]

    def __bool__(self) -> bool:
        return bool(self._compiled)
