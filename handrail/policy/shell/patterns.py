"""Protocol patterns matched against simple commands, word by word.

A pattern is split and normalised exactly like a command, so spellings meet:
short-flag clusters are split (`-rf` = `-r -f` = `-fr`), the long forms of common
flags become their short ones (`--recursive --force` = `-rf`; `git branch -D` =
`-d -f`), unambiguous abbreviations of known long options are expanded (`--forc`),
`python3.12` is `python` and `npm i` is `npm install`. Words after `--` are never flags.

`*` stands for any words, none included; a word with `*`, `?` or `[` inside is a glob
over one word. Consecutive flags in a pattern are a set: for a tier-3 pattern they may
stand anywhere among the command's options (git and GNU tools take options after
operands) and an unquoted expansion may stand for any of them; for tiers 1 and 2 the
command's flags there must be exactly those, so that an allow pattern never lends its
trust to a flag it does not name.
"""

from __future__ import annotations

import re

from handrail.policy.shell.syntax import SENT
from handrail.policy.shell.tokens import flag_name, is_flag, normalize

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from handrail.policy.shell.syntax import Word

    # (kind, value): None (STAR), a word (LIT), a compiled glob (GLOB) or a set of flag names (FLAGS)
    Element = tuple[int, Any]

STAR, LIT, GLOB, FLAGS = 0, 1, 2, 3
_GLOB_CHARS = re.compile(r"[*?\[]")


class Compiled:
    """One protocol pattern, ready to match."""

    __slots__ = ("deny", "open", "pattern", "prefix", "segs", "spec", "tier")

    def __init__(self, pattern: object, tier: str, segs: list[list[Element]], deny: bool) -> None:
        self.pattern = pattern
        self.tier = tier
        self.segs = segs
        self.deny = deny
        # Most patterns are words then `*` (or words alone): matched by one comparison.
        els = segs[0]
        body = els[:-1] if els and els[-1][0] == STAR else els
        simple = len(segs) == 1 and all(kind == LIT for kind, _ in body)
        self.prefix: list[str] | None = [v for _, v in body] if simple else None
        self.open = len(body) < len(els)
        spec = 0
        for seg in segs:
            for kind, val in seg:
                # named words count; a `*` makes a pattern a little less specific than its exact form
                spec += 2 * len(val) if kind == FLAGS else 2 if kind != STAR else -1
        self.spec = spec


def _glob(word: str) -> re.Pattern[str]:
    out = []
    for c in word:
        out.append(".*" if c == "*" else "." if c == "?" else re.escape(c))
    return re.compile("".join(out), re.DOTALL)


def compile_segment(text: str) -> list[Element]:
    words = text.split()
    if not words:
        raise ValueError("a pipeline part of the pattern is empty")
    first = words[0]
    els: list[Element] = []
    if first == "*":
        els.append((STAR, None))
        toks = [t for t in words[1:]]
        [False] * len(toks)
    else:
        toks, _toks_wild = normalize([first.replace("*", "\x01")] + words[1:])
        toks[0] = toks[0].replace("\x01", "*")
    for t in toks:
        if t == "*":
            if not els or els[-1][0] != STAR:
                els.append((STAR, None))
        elif is_flag(t):
            if els and els[-1][0] == FLAGS:
                els[-1] = (FLAGS, els[-1][1] | {flag_name(t)})
            else:
                els.append((FLAGS, frozenset({flag_name(t)})))
        elif _GLOB_CHARS.search(t):
            els.append((GLOB, _glob(t)))
        else:
            els.append((LIT, t))
    return els


def _flag_ok(need: frozenset[str], names: set[str]) -> bool:
    for f in need:
        if f in names:
            continue
        if "*" in f and any(_glob(f).fullmatch(n) for n in names):
            continue
        return False
    return True


def match(els: list[Element], toks: list[str], wild: list[bool], deny: bool) -> bool:
    return _m(els, 0, toks, 0, wild, deny)


def match_one(c: Compiled, toks: list[str], wild: list[bool], any_wild: bool) -> bool:
    """`c` (a one-part pattern) against a command's tokens."""
    prefix = c.prefix
    if prefix is not None and not (c.deny and any_wild):
        n = len(prefix)
        return toks[:n] == prefix and (c.open or len(toks) == n)
    return _m(c.segs[0], 0, toks, 0, wild, c.deny)


def _m(els: list[Element], ei: int, toks: list[str], ti: int, wild: list[bool], deny: bool) -> bool:
    ne, nt = len(els), len(toks)
    while ei < ne:
        kind, val = els[ei]
        if kind == STAR:
            if ei == ne - 1:
                return True
            for k in range(ti, nt + 1):
                # In an allow pattern a `*` before more words stands for operands: it may not swallow
                # an option or a word known only at run time (`aws * list-* *` must not match
                # `aws s3 sync . s3://b --delete --exclude list-x`).
                if k > ti and not deny and (wild[k - 1] or is_flag(toks[k - 1])):
                    return False
                if _m(els, ei + 1, toks, k, wild, deny):
                    return True
            return False
        if kind == FLAGS:
            k = ti
            while k < nt and not wild[k] and is_flag(toks[k]):
                k += 1
            names = {flag_name(t) for t in toks[ti:k]}
            if deny:
                if not _flag_ok(val, names):
                    later = set(names)
                    for j in range(k, nt):
                        t = toks[j]
                        if t == "--":
                            break
                        if is_flag(t) and not wild[j]:
                            later.add(flag_name(t))
                    if not (_flag_ok(val, later) or any(wild[ti:])):
                        return False
            elif names != val and not (any("*" in f for f in val) and _flag_ok(val, names)
                                       and len(names) == len(val)):
                return False
            ti = k
            ei += 1
            continue
        if ti >= nt:
            return False
        t = toks[ti]
        if deny and wild[ti]:
            pass
        elif kind == LIT:
            if t != val:
                return False
        elif not val.fullmatch(t):
            return False
        ti += 1
        ei += 1
    return ti == nt or (deny and all(wild[ti:]))


def stands_in(c: Compiled, toks: list[str], wild: list[bool]) -> list[int]:
    """The words known only at run time that a tier-3 pattern matched because they may be
    anything: none when the pattern matches the words as they are written."""
    if not c.deny or True not in wild or len(c.segs) != 1 or _m(c.segs[0], 0, toks, 0, [False] * len(toks), True):
        return []
    return [i for i, w in enumerate(wild) if w]


class Index:
    """A protocol's patterns, found by program and first word."""

    __slots__ = ("anywhere", "by_key", "by_prog", "pipelines")

    def __init__(self) -> None:
        self.by_key: dict[tuple[str, str | None], list[Compiled]] = {}
        self.by_prog: dict[str, list[Compiled]] = {}
        self.anywhere: list[Compiled] = []
        self.pipelines: list[Compiled] = []

    def add(self, c: Compiled) -> None:
        if len(c.segs) > 1:
            self.pipelines.append(c)
            return
        els = c.segs[0]
        if els[0][0] != LIT:
            self.anywhere.append(c)
            return
        sub = els[1][1] if len(els) > 1 and els[1][0] == LIT else None
        self.by_key.setdefault((els[0][1], sub), []).append(c)
        self.by_prog.setdefault(els[0][1], []).append(c)

    def candidates(self, toks: list[str], wild: list[bool]) -> list[Compiled]:
        name = toks[0]
        if len(toks) > 1 and wild[1]:
            # `git $SUB …` may be any subcommand
            found = self.by_prog.get(name, [])
            return found + self.anywhere if self.anywhere else found
        found = self.by_key.get((name, None), [])
        if len(toks) > 1:
            more = self.by_key.get((name, toks[1]))
            if more:
                found = found + more
        return found + self.anywhere if self.anywhere else found


def compile_pattern(text: str, tier: str, pattern: object, deny: bool) -> Compiled:
    segs = [compile_segment(seg) for seg in text.split("|")]
    return Compiled(pattern, tier, segs, deny)


def command_tokens(words: list[Word], extra: bool) -> tuple[list[str], list[bool]]:
    """Tokens of a part's argv; `extra` appends a stand-in for arguments only known at run time."""
    texts = [w.text for w in words]
    wild = [w.wild for w in words]
    if extra:
        # paths handed over by xargs or find: unknown, but one operand each
        texts.append(SENT)
        wild.append(False)
    return normalize(texts, wild)
