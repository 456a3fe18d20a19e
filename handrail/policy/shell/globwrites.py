"""Globs among the files a command writes or removes (`rm .e*`, `cp x .h*/p.json`, `chmod -x .g*/hooks/*`):
the shell hands the command what the glob names on disk, so each of those is judged as a written
word; and a glob that could name a protected path (`.h*/x` when `.handrail` holds no `x` yet) is
taken as touching it, since what it names is decided when the command runs."""

from __future__ import annotations

import re
from functools import cache

from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

GLOB_LIMIT = 2000
# A zsh qualifier or an extended glob's group (`*(D)`, `@(a|b)`, `!(x)`): any run of characters.
_GROUP = re.compile(r"[?*+@!]?\([^)]*\)")


def names(pattern: str, dots: bool = False) -> list[str] | None:
    """The paths an absolute glob names on disk, as the shell expands it: hidden files only where
    the glob spells the dot, or where `dots` says the shell names them (globdots); a group becomes
    `*`, which names at least what it does, dotfiles included. None past GLOB_LIMIT: too many to
    look through."""
    import glob
    import itertools

    if "(" in pattern:
        pattern, dots = _GROUP.sub("*", pattern), True
    try:
        hits = list(itertools.islice(glob.iglob(pattern, include_hidden=dots, recursive=True), GLOB_LIMIT + 1))
    except (OSError, ValueError):  # a pattern no file name can match (a lone surrogate, a NUL)
        return []
    return None if len(hits) > GLOB_LIMIT else hits


def with_hits(words: list[Word], cwd: str | None, home: str,
              dots: bool = False) -> Iterator[tuple[Word, Word | None]]:
    """(word, the glob word it came from or None) for every word and each file its glob names
    (`dots`: the shell's globs name dotfiles too); a glob past the bound is given once more as
    (glob, glob)."""
    from handrail.policy.shell.parts import resolve

    for w in words:
        yield w, None
        if not w.glob or w.dyn or cwd is None:
            continue
        pattern = resolve(w, cwd, home)
        if pattern is None:
            continue
        hits = names(pattern, dots)
        if hits is None:
            yield w, w
            continue
        for hit in hits:
            h = Word(hit, f"{w.raw} (names {hit})")
            yield h, w


def could_name(rel: str) -> tuple[str, str] | None:
    """(pattern, why) of a protected or default-forbidden path that the glob `rel` (relative to the work
    tree) could name once the command runs: `.h*/x` could be `.handrail/x`, `.g?t/hooks/*` a hook.
    The glob must spell the start of the component that meets one of the pattern's named
    folders or files (`.h*` meets `.handrail`; a bare `*` over `build/` is not taken for
    `secrets/`), and `*` does not match a leading dot."""
    from handrail.policy import scope
    from handrail.policy.shell.overlap import _pattern_path, _split

    g = _split(rel)
    for pattern, _who, why in scope.DEFAULT_FORBIDDEN + scope.PROTECTED:
        if _led_meet(g, _split(_pattern_path(pattern))):
            source = scope.BUILTIN_FORBIDDEN if any(p == pattern for p, _, _ in scope.DEFAULT_FORBIDDEN) \
                else scope.BUILTIN_PROTECTED
            return pattern, f"{source}: {why}"
    return None


@cache
def _led_meet(glob: tuple[tuple[str, ...], ...], pattern: tuple[tuple[str, ...], ...]) -> bool:
    from handrail.policy.shell.overlap import _dot_led, _meets

    @cache
    def f(i: int, j: int, anchored: bool) -> bool:
        if i == len(glob) and j == len(pattern):
            return anchored
        g = glob[i] if i < len(glob) else None
        p = pattern[j] if j < len(pattern) else None
        if p == ("**",) and (f(i, j + 1, anchored) or (g is not None and g != ("**",) and f(i + 1, j, anchored))):
            return True
        if g == ("**",) and (f(i + 1, j, anchored) or (p is not None and not _dot_led(p) and f(i, j + 1, anchored))):
            return True
        if g is None or p is None or g == ("**",) or p == ("**",):
            return False
        if g[:1] in (("*",), ("?",)) and _dot_led(p):
            return False  # `*` and `?` do not match a leading dot
        named = "*" not in p and "?" not in p and g[:1] not in (("*",), ("?",))
        return _meets(g, p) and f(i + 1, j + 1, anchored or named)

    return f(0, 0, False)
