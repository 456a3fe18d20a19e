"""A tier-3 pattern's flags in the spellings a command line gives them, as argv prefixes.

handrail reads `git clean -fd`, `git clean -d -f` and `git clean --force` as the pattern
`git clean -f *` (tokens.py splits groups of short flags and maps long forms to short
ones), but Codex compares a command with a `prefix_rule` word for word: a rule on
`git clean -f` alone lets the other spellings run without asking. A position of a
`prefix_rule` may list alternatives, so such a pattern becomes a few rules of the form

    head, up to MAX_BEFORE other options, one word carrying the flags still missing, tail

(`git clean`, `-x`, `-fd`; `rm`, `-r`, `--force`, `/`). A word is listed only where
handrail's own tokens read it as carrying those flags, so every command a rule matches
begins like one the pattern itself claims; an option that takes a value never stands
before the flags (its value could be any word, which no prefix can say).
"""

from __future__ import annotations

from itertools import combinations, permutations

from handrail.policy.shell import tokens
from handrail.policy.shell.parts import prog_name
from handrail.prefixes import is_flag, is_wild, literal_prefix

MAX_BEFORE = 2  # other options before the tier-3 flags
MAX_GROUP = 3  # distinct letters in one group of short flags (besides a DOUBLED one: -ffdx)

# The short options that group with the flags of the default tier-3 patterns, as they are
# written (`git clean -fdx`, `git commit -anm msg`, `rm -rfv`): (letters that stand alone,
# letters that take a value). Another command gets the letters its pattern names. A
# letter whose value may be glued or left out (`git commit -u[mode]`) is in neither: a
# group holding one is read differently by git and by handrail.
SHORT_OPTIONS: dict[str, tuple[str, str]] = {
    "git clean": ("dfnqxX", "e"),
    "git commit": ("anqsv", "m"),
    "git branch": ("dDfr", ""),
    "git tag": ("dfl", ""),
    "git update-ref": ("d", "m"),
    "git restore": ("WSpq", "s"),
    "git reset": ("q", ""),
    "git worktree remove": ("f", ""),
    "rm": ("rRfv", ""),
    "chmod": ("Rcfv", ""),
    "chown": ("Rcfvh", ""),
    "crontab": ("ri", ""),
    "docker compose down": ("v", "t"),
    "docker-compose down": ("v", "t"),
}

# Letters a command reads twice, and that agents write twice (`git clean -ffdx` also
# removes nested repositories).
DOUBLED = {"git clean": "f"}

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    Rule = list[list[str]]  # one prefix_rule pattern: the alternatives at each position


class Spelling:
    """One word of the command line and what handrail reads in it."""

    __slots__ = ("carries", "takes_value", "word")

    def __init__(self, word: str, carries: frozenset[str], takes_value: bool) -> None:
        self.word = word
        self.carries = carries
        self.takes_value = takes_value


def split(pattern: str) -> tuple[list[str], list[str], list[str]] | None:
    """A pattern's literal words as (head, flags, tail), where the flags are the words
    from the first flag up to the next word that is not one; None where the pattern
    names no flag before its first wildcard."""
    lp = literal_prefix(pattern)
    at = next((i for i, w in enumerate(lp) if is_flag(w)), None)
    if at is None or at == 0:
        return None
    end = at
    while end < len(lp) and is_flag(lp[end]):
        end += 1
    return lp[:at], lp[at:end], lp[end:]


def _read(head: list[str], word: str) -> frozenset[str] | None:
    """The flags handrail reads in `word` after `head`; None where it reads anything else
    in it too (a value glued to a letter, an operand)."""
    base = len(tokens.normalize(head)[0])
    toks = tokens.normalize(head + [word])[0][base:]
    if not toks or not all(tokens.is_flag(t) and "=" not in t for t in toks):
        return None
    return frozenset(toks)


def _letters(head: list[str], flags: list[str]) -> tuple[str, str]:
    alone, value = SHORT_OPTIONS.get(" ".join(head), ("", ""))
    named = "".join(w[1:] for w in flags if not w.startswith("--"))
    return "".join(dict.fromkeys(alone + named)), value


def _groups(alone: str, value: str, twice: str) -> Iterable[tuple[str, bool]]:
    """Groups of short flags: up to MAX_GROUP distinct letters, a letter of `twice` maybe
    doubled, a value letter only last. Yields (word, ends with a value letter)."""
    for n in range(1, MAX_GROUP + 1):
        for chosen in combinations(alone, n):
            for order in permutations(chosen):
                text = "".join(order)
                yield "-" + text, False
                for c in twice:
                    if c in text:
                        yield "-" + text.replace(c, c + c, 1), False
                if n < MAX_GROUP:
                    for v in value:
                        yield "-" + text + v, True


def _long_forms(head: list[str]) -> list[tuple[str, bool, bool]]:
    """The long options handrail maps for this command and the abbreviations it expands:
    (word, whether the command's own table names it rather than the one every program
    shares, whether it is an abbreviation)."""
    name = head[0]
    key = " ".join(head[:2]) if name in tokens.SUBCOMMANDS and len(head) > 1 else name
    own = {**tokens.ALIASES.get(name, {}), **tokens.ALIASES.get(key, {})}
    out: list[tuple[str, bool, bool]] = []
    for flag in {**tokens.COMMON, **own}:
        if flag.startswith("--"):
            out += [(flag[:n], flag in own, True) for n in range(5, len(flag))] + [(flag, flag in own, False)]
    return out


def _value_letters(head: list[str]) -> str:
    value = SHORT_OPTIONS.get(" ".join(head), ("", ""))[1]
    return value + tokens.VALUE_LETTERS.get(" ".join(head[:2]), tokens.VALUE_LETTERS.get(head[0], ""))


def spellings(head: list[str], flags: list[str]) -> list[Spelling]:
    """Every word offered after `head`, with the flags handrail reads in it: groups of the
    command's letters, and long options (abbreviated only where they carry a flag the
    pattern names). A long form of an option the command has not (`--recursive` after
    `git clean`) is left out, unless it carries one of the pattern's flags."""
    alone, value = _letters(head, flags)
    known = {"-" + c for c in alone}
    valued = {"-" + c for c in _value_letters(head)}
    out: dict[str, Spelling] = {}
    for word, ends_valued in _groups(alone, value, DOUBLED.get(" ".join(head), "")):
        carries = _read(head, word)
        if carries is not None and word not in out:
            out[word] = Spelling(word, carries, ends_valued)
    for word in flags:  # the pattern's own spelling, whatever the tables know of it
        carries = _read(head, word)
        if carries is not None and word not in out:
            out[word] = Spelling(word, carries, False)
    wanted = frozenset().union(*(_read(head, f) or frozenset({f}) for f in flags))
    for word, own, short in _long_forms(head):
        carries = _read(head, word)
        if carries is None or word in out:
            continue
        if carries & wanted or (not short and (own or carries <= known)):
            out[word] = Spelling(word, carries, bool(carries & valued))
    return list(out.values())


def rules(pattern: str) -> list[Rule] | None:
    """The prefix rules that hold `pattern`'s flags however they are spelt; None where
    the pattern's flags cannot be respelt (a flag that takes a value, a command that
    does not group short flags, a wildcard among the flags)."""
    parts = split(pattern)
    if parts is None:
        return None
    head, flags, tail = parts
    if prog_name(head[0]) in tokens.NO_CLUSTER or any(is_wild(w) or "=" in w for w in flags):
        return None
    vletters = _value_letters(head)
    if any(not f.startswith("--") and any(c in vletters for c in f[1:]) for f in flags):
        return None
    need: frozenset[str] = frozenset()
    for f in flags:
        read = _read(head, f)
        if read is None:
            return None
        need |= read
    words = spellings(head, flags)
    before = [w for w in words if not w.takes_value]
    out: list[Rule] = []
    # Each rule is a sequence of what the words before the last one carry of `need`.
    seqs: list[tuple[frozenset[str], ...]] = [()]
    classes = sorted({w.carries & need for w in before if not need <= w.carries}, key=sorted)
    for n in range(MAX_BEFORE):
        seqs += [s + (c,) for s in seqs if len(s) == n for c in classes
                 if not need <= frozenset().union(c, *s)]
    for seq in seqs:
        got = frozenset().union(*seq)
        last = sorted(w.word for w in words if need <= got | w.carries and not (tail and w.takes_value))
        positions = [sorted(w.word for w in before if w.carries & need == c) for c in seq]
        rule = [[h] for h in head] + positions + [last] + [[t] for t in tail]
        if all(rule) and rule not in out:
            out.append(rule)
    # A rule that is the pattern's own words again says nothing new.
    return [r for r in out if any(len(ws) > 1 for ws in r)]
