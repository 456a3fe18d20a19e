"""Reading a wrapper's own options, so that what follows them is the command it runs.

Every wrapper's handler asks the same questions: where do its options end (`opt_end`), was
one of these letters given (`has_short`), which `NAME=value` words come before the command
(`take_assigns`), and what is its subcommand (`sub`).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part
    from handrail.policy.shell.syntax import Word


def fs(*names: str) -> frozenset[str]:
    return frozenset(names)


def opt_end(words: list[Word], i: int, value_opts: frozenset[str]) -> int:
    """Index of the first word after the options that start at `i` (`--` is consumed)."""
    n = len(words)
    while i < n:
        t = words[i].text
        if t == "--":
            return i + 1
        if len(t) < 2 or t[0] != "-" or words[i].dyn:
            return i
        if t.startswith("--"):
            i += 2 if ("=" not in t and t in value_opts) else 1
            continue
        takes_next = False
        for j in range(1, len(t)):
            if "-" + t[j] in value_opts:
                takes_next = j == len(t) - 1
                break
        i += 2 if takes_next else 1
    return i


def run_time_option(words: list[Word], i: int, value_opts: frozenset[str], letters: str, *,
                    cluster: bool = True) -> Word | None:
    """The first word from `i` on that is known only at run time and stands where an option could:
    not after `--`, not the value of the option before it. `"$o"` may be `-o FILE` as well as a
    file name, `-n$x` may be `-no FILE`; `--output="$f"` names its option, and `"$HOME/x"`
    (a path handrail resolves) is a path. A loop's glob value that may name `-o` (`optlike`) is
    such a word too. `letters`: the short options that take a value."""
    n = len(words)
    while i < n:
        w = words[i]
        t = w.text
        if w.optlike or (w.dyn and _unknown_name(w, letters, cluster)):
            return w
        if t == "--" and not w.dyn:
            return None
        if len(t) > 1 and t[0] == "-":
            if t.startswith("--") or not cluster:
                i += 1 if "=" in t or t not in value_opts else 2
                continue
            for j in range(1, len(t)):
                if t[j] in letters or "-" + t[j] in value_opts:
                    i += 1 if j == len(t) - 1 else 0  # the next word is its value
                    break
        i += 1
    return None


def _unknown_name(w: Word, letters: str, cluster: bool) -> bool:
    """Is the option this run-time word may be, or may start, unknown until it runs?"""
    from handrail.policy.shell.syntax import SENT

    t = w.text
    if t.startswith(SENT):
        return w.lead_var not in ("HOME", "PWD") or t.count(SENT) != 1 or t[1:2] not in ("", "/")
    if len(t) < 2 or t[0] != "-":
        return False
    if t.startswith("--") or not cluster:
        return SENT in t.split("=", 1)[0]
    for c in t[1:]:
        if c == SENT:
            return True
        if c in letters or not c.isalpha():
            return False  # what follows is the value of the letter before
    return False


def has_short(words: list[Word], end: int, letters: str, longs: tuple[str, ...] = ()) -> bool:
    for w in words[1:end]:
        t = w.text
        if t.startswith("--"):
            if t.split("=", 1)[0] in longs:
                return True
        elif t.startswith("-") and any(c in t[1:] for c in letters):
            return True
    return False


def sub(words: list[Word]) -> str:
    return words[1].text if len(words) > 1 else ""


def take_assigns(part: Part, words: list[Word], i: int) -> int:
    while i < len(words):
        t = words[i].text
        eq = t.find("=")
        if eq <= 0 or not (t[0].isalpha() or t[0] == "_") or not t[:eq].replace("_", "a").isalnum():
            break
        part.assigns.append((t[:eq], words[i]))
        i += 1
    return i


def long_option(t: str, longs: frozenset[str]) -> str:
    """`t` with its long option spelt out as getopt_long reads it: an unambiguous prefix of one
    of `longs` is that option (`--uns=X` is `--unset=X`); anything else is left as it is."""
    if not t.startswith("--") or len(t) < 3:
        return t
    name, eq, value = t.partition("=")
    if name in longs:
        return t
    hits = [o for o in longs if o.startswith(name)]
    return hits[0] + eq + value if len(hits) == 1 else t


def option_values(words: list[Word], end: int, letter: str, long: str, longs: frozenset[str],
                  letters: str) -> list[Word]:
    """The values given to one option among a wrapper's options (`words[1:end]`): `-aFILE`,
    `-a FILE`, `-0a FILE`, `--arg-file=FILE`, `--arg FILE`. `letters`: its short options that
    take a value; `longs`: all its long options, for their prefixes."""
    out: list[Word] = []
    i = 1
    while i < end:
        w = words[i]
        t = long_option(w.text, longs)
        nxt = words[i + 1] if i + 1 < len(words) else None
        if t.startswith("--"):
            if t.startswith(long + "="):
                out.append(_part_of(w, t.split("=", 1)[1]))
            elif t == long and nxt is not None:
                out.append(nxt)
        elif t.startswith("-") and not w.dyn:
            for j, c in enumerate(t[1:], 1):
                if c in letters:
                    if c == letter:
                        rest = t[j + 1 :]
                        out += [_part_of(w, rest)] if rest else [nxt] if nxt is not None else []
                    break
        i += 1
    return out


def _part_of(w: Word, text: str) -> Word:
    """A word for the value part of `w` (`-a.env`, `--arg-file=.env`)."""
    from handrail.policy.shell import syntax

    v = syntax.Word(text, text if not w.dyn else w.raw)
    v.dyn = w.dyn
    return v


def file_values(words: list[Word], opts: tuple[str, ...]) -> list[Word]:
    """The values of `opts` anywhere in `words`: `-o F`, `-oF`, `--output F`, `--output=F`."""
    from handrail.policy.shell.syntax import Word

    out: list[Word] = []
    for i, w in enumerate(words[1:], 1):
        t = w.text
        for o in opts:
            if t == o and i + 1 < len(words):
                if words[i + 1].text != "-":
                    out.append(words[i + 1])
            elif o.startswith("--") and t.startswith(o + "="):
                v = Word(t[len(o) + 1:], w.raw)
                v.dyn = w.dyn
                out.append(v)
            elif len(o) == 2 and t.startswith(o) and len(t) > 2 and not t.startswith("--"):
                v = Word(t[2:], w.raw)
                v.dyn = w.dyn
                out.append(v)
    return out
