"""Programs that run a command on a pseudo-terminal of their own: `script`, `expect`.

A fresh terminal is what handrail's human-only commands look for, so these are how an
agent would fake a person. `script -c CMD` runs CMD through a shell: the walk reads it
like `sh -c`. Without a command, `script` starts an interactive shell. `expect` runs a
Tcl program that starts programs and types into them: what it makes them do cannot be
read from its command line.
"""

from __future__ import annotations

from handrail.policy.shell.argscan import fs
from handrail.policy.shell.parts import DYNAMIC

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part, State, Walker
    from handrail.policy.shell.syntax import Word

_SCRIPT_VALUED = fs("-E", "--echo", "-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing",
                    "-m", "--logging-format", "-o", "--output-limit")


def _command(words: list[Word]) -> tuple[int, str | None]:
    """Where `script`'s command is: (index of its word, text glued to the option) or (-1, None)."""
    for i, w in enumerate(words[1:], 1):
        t = w.text
        if t == "--":
            break
        if t in ("-c", "--command"):
            return i + 1, None
        if t.startswith("--command="):
            return i, t.split("=", 1)[1]
        if t.startswith("-") and not t.startswith("--") and "c" in t[1:]:
            rest = t[t.index("c", 1) + 1:]
            return (i, rest) if rest else (i + 1, None)
    return -1, None


# Options whose value is a file `script` writes its log to (util-linux).
_LOG_FILES = fs("-O", "--log-out", "-B", "--log-io", "-T", "--log-timing", "-I", "--log-in")


def typescripts(words: list[Word], command_at: int) -> list[Word]:
    """The files `script` writes: its typescript (the first operand, `typescript` when none is
    given), and the logs its options name. The command's own word is none of them."""
    from handrail.policy.shell.syntax import Word

    out: list[Word] = []
    positional = False
    i = 1
    while i < len(words):
        w, t = words[i], words[i].text
        if i == command_at:
            i += 1
            continue
        if t.startswith("--") and "=" in t and t.split("=", 1)[0] in _LOG_FILES:
            value = Word(t.split("=", 1)[1], w.raw)
            value.dyn = w.dyn
            out.append(value)
        elif t in _LOG_FILES and i + 1 < len(words):
            out.append(words[i + 1])
            i += 1
        elif t in _SCRIPT_VALUED:
            i += 1
        elif not (t.startswith("-") and len(t) > 1) and not positional:
            out.append(w)
            positional = True
        i += 1
    if not positional:
        out.append(Word("typescript", "typescript"))
    return out


def written(part: Part) -> list[Word]:
    """What a `script` part writes (the write table's entry for it)."""
    return typescripts(part.words, -1)


def _log_part(flat: Walker, part: Part, words: list[Word], at: int, st: State) -> None:
    """`script -c CMD FILE` writes FILE whatever CMD does: a part of its own for the write rules."""
    log = flat.new_part(part.context, part.via, part.pipe, part.index, st)
    log.words, log.name, log.side = [words[0], *typescripts(words, at)], "script", True
    flat.out.append(log)


def script(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`script -qec CMD FILE` (util-linux), `script -q FILE CMD…` (BSD)."""
    at, glued = _command(words)
    if glued is not None:
        _log_part(flat, part, words, at, st)
        flat.shell_text(part, glued, words[at].dyn, False, "script -c", st, words)
        return None
    if 0 < at < len(words):
        _log_part(flat, part, words, at, st)
        flat.shell_text(part, words[at].text, words[at].dyn, False, "script -c", st, words)
        return None
    if at > 0:
        return words  # `-c` with nothing after it: script refuses to run
    if any(w.text.startswith("-") and not w.text.startswith("--") and "p" in w.text for w in words[1:]):
        return words  # BSD `script -p FILE`: plays a recorded session back, runs nothing
    i, positionals = 1, []
    while i < len(words):
        t = words[i].text
        if t.startswith("-") and len(t) > 1 and t != "--":
            i += 2 if t in _SCRIPT_VALUED else 1
            continue
        positionals.append(i)
        i += 1
    if len(positionals) > 1:  # BSD: the words after the file are the command
        part.via.append("script")
        return words[positionals[1]:]
    part.flags.append((DYNAMIC, "script starts an interactive shell on a new terminal: commands typed into it "
                                "escape every hook"))
    return words


def expect(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    if len(words) == 2 and words[1].text in ("-v", "--version"):
        return words
    part.flags.append((DYNAMIC, "expect runs a Tcl program that starts programs and types into them: what they "
                                "run cannot be read"))
    return words
