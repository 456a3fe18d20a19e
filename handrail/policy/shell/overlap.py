"""Whether a glob could name a secret: the overlap of a shell glob (`~/.ssh/*`) with the secret
patterns of reads.py (`**/.ssh/**`), decided on the patterns themselves, so that a glob over
a folder that is empty today, or one handrail does not list, is judged by what it could read.

Both sides are read as paths of `/`-separated components; `**` is any number of components,
`*` any run of characters in one, `?` one character, `[…]` one character of a set (taken as
any character: a set that might not meet is counted as meeting). Case is ignored, as reads.py
ignores it. A shell glob does not match a leading dot with a wildcard (bash without `dotglob`):
`~/*` does not name `~/.netrc`, a run-time value (`$F`) does.
"""

from __future__ import annotations

from functools import cache, lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

_WILD = frozenset("*?[")


def _tokens(comp: str) -> tuple[str, ...]:
    """A component as tokens: `*`, `?` (also a `[…]` set), or one literal character."""
    out: list[str] = []
    i, n = 0, len(comp)
    while i < n:
        c = comp[i]
        if c == "[":
            j = comp.find("]", i + 2)
            if j > 0:
                out.append("?")
                i = j + 1
                continue
        if c == "\\" and i + 1 < n:
            out.append("\\" + comp[i + 1])  # an escaped wildcard is that character
            i += 2
            continue
        if c == "*" and out and out[-1] == "*":
            i += 1
            continue
        out.append(c if c in "*?" else "\\" + c)
        i += 1
    return tuple(out)


@lru_cache(maxsize=4096)
def _meets(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Some string matches both token sequences."""

    @cache
    def f(i: int, j: int) -> bool:
        if i == len(a) and j == len(b):
            return True
        if i < len(a) and a[i] == "*" and (f(i + 1, j) or (j < len(b) and f(i, j + 1))):
            return True
        if j < len(b) and b[j] == "*" and (f(i, j + 1) or (i < len(a) and f(i + 1, j))):
            return True
        if i < len(a) and j < len(b) and a[i] != "*" and b[j] != "*":
            same = a[i] == "?" or b[j] == "?" or a[i] == b[j]
            return same and f(i + 1, j + 1)
        return False

    return f(0, 0)


def _dot_led(comp: tuple[str, ...]) -> bool:
    return bool(comp) and comp[0] == "\\."


def _split(path: str) -> tuple[tuple[str, ...], ...]:
    return tuple(("**",) if c == "**" else _tokens(c) for c in path.lower().strip("/").split("/") if c)


@lru_cache(maxsize=2048)
def _paths_meet(glob: tuple[tuple[str, ...], ...], pattern: tuple[tuple[str, ...], ...], dot_rule: bool) -> bool:
    """Some path matches both, with at least one of the pattern's plain components (`.ssh`, `etc`)
    spelled out by the glob: `/tmp/*` could name `/tmp/_netrc`, but only a glob that goes into
    a credential's own folder, or names its file, is taken for a read of it."""

    @cache
    def f(i: int, j: int, anchored: bool) -> bool:
        if i == len(glob) and j == len(pattern):
            return anchored
        g = glob[i] if i < len(glob) else None
        p = pattern[j] if j < len(pattern) else None
        if g == ("**",):
            if f(i + 1, j, anchored):
                return True
            if p is not None and (p == ("**",) or not (dot_rule and _dot_led(p))) and f(i, j + 1, anchored):
                return True
        if p == ("**",) and (f(i, j + 1, anchored) or (g is not None and f(i + 1, j, anchored))):
            return True
        if g is None or p is None or g == ("**",) or p == ("**",):
            return False
        if dot_rule and g[:1] in (("*",), ("?",)) and _dot_led(p):
            return False  # `*` and `?` do not match a leading dot
        plain = "*" not in g and "?" not in g and "*" not in p and "?" not in p
        return _meets(g, p) and f(i + 1, j + 1, anchored or plain)

    return f(0, 0, False)


def _pattern_path(pattern: str) -> str:
    """A reads.py pattern as a path from the root, gitignore-style: a pattern without a slash matches
    at any depth, and a folder that matches takes what is below it."""
    body = pattern.rstrip("/")
    if "/" not in body:
        body = "**/" + body
    return body + "/**"


def meeting(glob: str, patterns: Iterable[str], *, dot_rule: bool = True) -> str | None:
    """The first of `patterns` that some path the absolute `glob` names could match, or None."""
    g = _split(glob)
    from handrail.policy.shell.reads import public_ssh

    public = public_ssh(glob)  # a public key is meant to be shared (reads.py)
    for pattern in patterns:
        if public and ".ssh/" in pattern:
            continue
        if _paths_meet(g, _split(_pattern_path(pattern)), dot_rule):
            return pattern
    return None


def name_meeting(name: str, patterns: Iterable[str]) -> str | None:
    """The first of `patterns` whose file name a file name with wildcards (`*nv`, `notes-*.txt`)
    could be; patterns that name a folder (`**/secrets/**`) are left to the folder's check."""
    n = _tokens(name.lower())
    for pattern in patterns:
        last = pattern.rstrip("/").rsplit("/", 1)[-1].lower()
        if last != "**" and _meets(n, _tokens(last)):
            return pattern
    return None


def is_glob(text: str) -> bool:
    return any(c in _WILD for c in text)
