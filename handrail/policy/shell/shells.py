"""Shells and the builtins that run shell text: `bash -c`, `sh script.sh`, a script on standard
input (`… | sh`, `sh <<EOF`, `sh < file`), `eval`, `source`, `trap` and `alias`.

Shell text handrail can read is parsed and judged as if typed; a script only known at run
time (a variable, a pipe from a download, a file too large to read) is flagged instead.
"""

from __future__ import annotations

from handrail.policy.shell.argscan import fs
from handrail.policy.shell.codefile import STDIN_PATHS, read_code
from handrail.policy.shell.parts import DOWNLOAD, DYNAMIC, has_download, resolve

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part, State, Walker
    from handrail.policy.shell.syntax import Word

_SHELL_VALUE = fs("-o", "+o", "-O", "+O", "--rcfile", "--init-file")
SCRIPT_LIMIT = 64 * 1024


def _shell_options(words: list[Word]) -> tuple[int, bool, bool]:
    """Where a shell's options end, and whether they say `-c` (text follows) or `-s` (stdin)."""
    i = 1
    n = len(words)
    from_c = from_stdin = False
    while i < n:
        w = words[i]
        t = w.text
        if w.dyn:
            break
        if t == "--":
            i += 1
            break
        if t == "-":
            from_stdin = True
            i += 1
            break
        if t in _SHELL_VALUE:
            i += 2
            continue
        if t.startswith("--"):
            i += 1
            continue
        if len(t) > 1 and t[0] in "-+":
            if t[0] == "-" and "c" in t:
                from_c = True
            if "s" in t:
                from_stdin = True
            i += 1
            continue
        break
    return i, from_c, from_stdin


def shell(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    i, from_c, from_stdin = _shell_options(words)
    rest = words[i:]
    label = f"{name} -c" if from_c else name
    if from_c:
        if not rest:
            return []
        part.name = name
        flat.shell_text(part, rest[0].text, rest[0].dyn, has_download(rest[0]), label, st, words)
        return None
    if rest and not from_stdin and rest[0].text in STDIN_PATHS:
        rest, from_stdin = rest[1:], True
    if rest and not from_stdin:
        script = rest[0]
        if script.dyn or script.raw[:2] == "<(":
            rule = DOWNLOAD if has_download(script) else DYNAMIC
            part.flags.append((rule, f"{name} runs a script only known at run time"))
            return words
        written = resolve(script, part.cwd, flat.home) in flat.files
        text = None if written else _read_script(script, name, part, flat.home)  # written earlier: note_run judges it
        if text is not None and part.script_text is None:
            # the script is code handrail can read: its commands are judged as if typed
            flat.shell_text(part, text, False, False, f"{name} {script.raw}", st, words)
            return None
        return words
    return stdin_script(flat, part, name, words, st)


def stdin_script(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """A shell (or ssh) that reads its script from standard input."""
    feed = part.feed
    if feed in ("heredoc", "herestring"):
        if part.stdin_text is None:
            part.flags.append((DYNAMIC, f"{name} runs a {feed} built at run time"))
            return words
        flat.shell_text(part, part.stdin_text, False, False, f"{name} <<{feed}", st)
        return None
    if feed == "download":
        part.flags.append((DOWNLOAD, f"{name} runs code downloaded from the network"))
        return words
    if feed == "file":
        return _file_script(flat, part, name, words, st)
    if feed == "pipe":
        if part.stdin_text is not None:
            flat.shell_text(part, part.stdin_text, False, False, f"… | {name}", st)
            return None
        part.flags.append((DYNAMIC, f"{name} runs a script read from a pipe"))
        return words
    if feed is None:
        # an interactive shell: what is typed into it later reaches no hook
        part.flags.append((DYNAMIC, f"{name} starts an interactive shell: commands typed into it escape every "
                                    "hook"))
    return words


def _file_script(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`sh < script.sh`: the script on standard input is a file."""
    for r in part.redirs:
        t = r.target
        if r.op != "<" or r.fd not in (None, "0") or t is None:
            continue
        if t.dyn:
            # `sh < "$F"`: the script's name is only known at run time
            rule = DOWNLOAD if has_download(t) else DYNAMIC
            part.flags.append((rule, f"{name} runs a script only known at run time"))
            break
        # `sh < script.sh`, `source /dev/stdin < payload`: the script is a file handrail reads
        text = _read_script(t, name, part, flat.home)
        if text is not None:
            flat.shell_text(part, text, False, False, f"{name} < {t.raw}", st)
            return None
        part.flags.append((DYNAMIC, f"{name} runs {t.raw}, a script handrail cannot read"))
        break
    return words


def _read_script(script: Word, name: str, part: Part, home: str) -> str | None:
    """The text of a shell script file that exists and is small enough to read; None otherwise
    (a missing script fails to run; one too large or unreadable is judged by the patterns)."""
    path = resolve(script, part.cwd, home)
    if path is None:
        return None
    data = read_code(path, SCRIPT_LIMIT)
    if isinstance(data, str):
        part.flags.append((DYNAMIC, f"{name} runs {script.raw}, {data}"))
        return None
    if data is None:  # missing: the run fails
        return None
    if len(data) > SCRIPT_LIMIT or b"\0" in data:
        part.flags.append((DYNAMIC, f"{name} runs {script.raw}, more than handrail reads"))
        return None
    return data.decode("utf-8", "replace")


def eval_(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    rest = words[1:]
    if not rest:
        return []
    text = " ".join(w.text for w in rest)
    part.name = "eval"
    flat.shell_text(part, text, any(w.dyn for w in rest), any(has_download(w) for w in rest), "eval", st, words)
    return None


def source(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`source FILE`, `. FILE`: a script run by this shell (`source /dev/stdin` reads its input)."""
    if len(words) > 1 and words[1].text in STDIN_PATHS:
        return stdin_script(flat, part, name, words, st)
    if len(words) > 1 and (words[1].dyn or words[1].raw[:2] == "<("):
        rule = DOWNLOAD if has_download(words[1]) else DYNAMIC
        part.flags.append((rule, f"{name} runs a script only known at run time"))
    elif len(words) > 1 and resolve(words[1], part.cwd, flat.home) not in flat.files:
        # the script is read and its commands judged, as `bash FILE` is (written earlier: note_run judges it)
        # (the `source` part stays: what it reads is judged too, `source .env` being a secret read)
        text = _read_script(words[1], name, part, flat.home)
        if text is not None and part.script_text is None:
            flat.shell_text(flat.new_part(part.context, part.via, part.pipe, part.index, st), text, False, False,
                            f"{name} {words[1].raw}", st, words)
    return words


def trap(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`trap 'CMD' EXIT`: the command runs later, on a signal; judged now."""
    if len(words) > 2 and not words[1].text.startswith("-"):
        flat.shell_text(flat.new_part(part.context, part.via, part.pipe, part.index, st), words[1].text,
                        words[1].dyn, False, "trap", st, words)
        part.func = True
    return words


def alias(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`alias ll='rm -rf'`: remembered, so a later `ll` runs its text; the text is judged now too."""
    for w in words[1:]:
        if "=" in w.text:
            key, value = w.text.split("=", 1)
            if w.dyn:
                st.aliases.pop(key, None)
                part.flags.append((DYNAMIC, f"alias {key} is text built at run time"))
                continue
            st.aliases[key] = value
            flat.shell_text(flat.new_part(part.context, part.via, part.pipe, part.index, st),
                            value, w.dyn, False, "alias", st)
    return words
