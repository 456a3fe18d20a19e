"""Protocol patterns as argv prefixes, for harnesses that match a command by its first
words: Codex's `prefix_rule`s and Gemini CLI's `tools.allowed`.

A prefix is coarser than a protocol pattern (`*` there stands for any words, a word
with `*` in it is a glob, tier-3 flags may stand anywhere among the options), so the
translation leans one way only:

- a rule that asks or forbids may be *wider* than its pattern (never narrower than
  the words it starts with), but never so wide that it catches a tier-1 command;
- a rule that allows is written only where its pattern is exactly `WORDS *`, and only
  where no command it admits could be one that a stricter pattern claims.

What cannot be written under these rules is left out, and said so in the file: the
harness's pre-tool hook judges every command by the full rules anyway.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from handrail.policy import protocol as protocols
from handrail.policy.protocol import Pattern, Protocol, ToolPolicy

OPERATORS = frozenset({"|", "||", "&&", ";", "&", ">", ">>", "<", "<<", "2>", "&>"})
_WILD = frozenset("*?[")


def words(pattern: str) -> list[str]:
    return pattern.split()


def is_wild(word: str) -> bool:
    return any(c in _WILD for c in word)


def is_flag(word: str) -> bool:
    return word.startswith("-") and word != "-"


def literal_prefix(pattern: str) -> list[str]:
    """The words before the first wildcard, glob or shell operator."""
    out: list[str] = []
    for w in words(pattern):
        if is_wild(w) or w in OPERATORS:
            break
        out.append(w)
    return out


def exact_prefix(pattern: str) -> list[str] | None:
    """The words of a pattern of the form `WORDS *`, whose matches are exactly the
    commands that start with those words; None for any other pattern. An exact
    pattern (`git`, `npm audit`) is not one: as a prefix it would admit every
    command that starts with it."""
    ws = words(pattern)
    if len(ws) < 2 or ws[-1] != "*":
        return None
    head = ws[:-1]
    if any(is_wild(w) or w in OPERATORS for w in head):
        return None
    return head


def could_start(prefix: list[str], pattern: str, *, floating_flags: bool = False, star_spans: bool = True) -> bool:
    """Could a command matching `pattern` begin with the words `prefix`?

    `floating_flags`: the pattern's flags may stand anywhere among the command's
    options (how tier-3 patterns match), so they constrain nothing here and only the
    other words are compared, in order. `star_spans=False` reads a `*` between words
    as one word: an ordinary command rather than every command the pattern admits
    (`aws * list-* *` admits `aws s3 rm list-x`, which no one runs)."""
    pat = words(pattern)
    pre = prefix
    if floating_flags:
        pat = [w for w in pat if not is_flag(w)]
        pre = [w for w in prefix if not is_flag(w)]
    for i, word in enumerate(pre):
        if i >= len(pat):
            return False
        p = pat[i]
        if p == "*" and (star_spans or i == len(pat) - 1):
            return True  # any words follow: this one and every later one fit
        if p == "*":
            continue
        if p in OPERATORS:
            return False  # the command ends here; the prefix goes on
        if is_wild(p):
            if not fnmatchcase(word, p):
                return False
        elif p != word:
            return False
    return True


def _tier1(proto: Protocol) -> list[Pattern]:
    return [p for p in protocols.patterns(proto) if p.tier == protocols.TIER1]


def blocking_prefixes(proto: Protocol,
                      policy: ToolPolicy) -> tuple[list[tuple[list[str], list[Pattern]]], list[Pattern]]:
    """The tier-3 patterns as argv prefixes: ([(words, patterns that became them)], the
    patterns that cannot be written as one). A prefix that an ordinary tier-1 command
    would begin with would make that command stricter, so its pattern is left out
    instead."""
    silent = _tier1(proto)
    rules: dict[tuple[str, ...], list[Pattern]] = {}
    left_out: list[Pattern] = []
    for p in policy.ask + policy.deny:
        prefix = literal_prefix(p.text)
        if not prefix or any(could_start(prefix, t.text, star_spans=False) for t in silent):
            left_out.append(p)
            continue
        rules.setdefault(tuple(prefix), []).append(p)
    return [(list(k), v) for k, v in rules.items()], left_out


def widened(prefix: list[str], pattern: str) -> bool:
    """Whether a rule on `prefix` covers more than `pattern` says (for its justification)."""
    return words(pattern) not in (prefix, prefix + ["*"])


def allow_prefixes(proto: Protocol, policy: ToolPolicy) -> list[tuple[list[str], Pattern]]:
    """The tool's allowed patterns that can be written as a prefix rule, without
    admitting a command a stricter pattern claims: any tier-3 command at all, or a
    command of a narrower pattern the tool is not allowed (`sed *` allowed, `sed -i *`
    not: the prefix `sed` would admit `sed -i`)."""
    allowed = {p.text for p in policy.allow}
    blocking = policy.ask + policy.deny
    narrower = [p for p in protocols.patterns(proto) if p.tier != protocols.TIER3 and p.text not in allowed]
    out: list[tuple[list[str], Pattern]] = []
    seen: set[tuple[str, ...]] = set()
    for p in policy.allow:
        prefix = exact_prefix(p.text)
        if prefix is None or tuple(prefix) in seen:
            continue
        if any(could_start(prefix, b.text, floating_flags=True) for b in blocking):
            continue
        if any(len(lp) > len(prefix) and lp[:len(prefix)] == prefix
               for lp in (literal_prefix(n.text) for n in narrower)):
            continue
        seen.add(tuple(prefix))
        out.append((prefix, p))
    return out
