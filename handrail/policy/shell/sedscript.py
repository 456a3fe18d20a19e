"""The files a sed script reads and writes, as GNU sed reads the script ("Commands", "The s
command" in its manual): `r FILE` and `R FILE` read one, `w FILE`, `W FILE` and the `w FILE`
flag of `s` write one. A file name runs to the end of its line (`;` and `}` are part of it).

Addresses (`1`, `$`, `/re/I`, `\\%re%`, `first~step`, `addr,+N`), `!`, `{…}` blocks and `;`
or newline separated commands are stepped over; `a`, `i`, `c` text and labels are skipped.
"""

from __future__ import annotations

from handrail.policy.shell.syntax import Word

_NO_ARG = frozenset("=dDgGhHxnNpPzF")
_FILE_CMDS = {"r": "read", "R": "read", "w": "write", "W": "write"}
_TO_EOL = frozenset(":btTvaic#eqQlL")  # label, text, command or number: up to the end of the line (or `;`)
_STD = frozenset({"/dev/stdout", "/dev/stderr", "/dev/stdin"})


def sed_files(script: str) -> tuple[list[str], list[str]]:
    """(files read, files written) by a sed script; a part it cannot read is left there."""
    reads: list[str] = []
    writes: list[str] = []
    s, n = script, len(script)
    i = 0
    while i < n:
        c = s[i]
        if c in " \t\n;{}!":
            i += 1
            continue
        i = _address(s, i)
        while i < n and s[i] in " \t!":
            i += 1
        if i >= n:
            break
        c = s[i]
        i += 1
        if c in _FILE_CMDS:
            name, i = _rest_of_line(s, i)
            if name and name not in _STD:
                (reads if _FILE_CMDS[c] == "read" else writes).append(name)
        elif c in ("s", "y"):
            i, flagged = _substitution(s, i, c == "s")
            if flagged and flagged not in _STD:
                writes.append(flagged)
        elif c in _TO_EOL:
            i = _skip_arg(s, i, c)
        elif c not in _NO_ARG and c not in "{}":
            break  # not a command sed knows: sed refuses the script
    return reads, writes


def _address(s: str, i: int) -> int:
    """The index after an address or a range of two (`1,/x/`, `0~4`, `/a/,+3`), or `i`."""
    j = _one_address(s, i)
    if j == i:
        return i
    k = j
    while k < len(s) and s[k] in " \t":
        k += 1
    if s[k : k + 1] != ",":
        return j
    k += 1
    while k < len(s) and s[k] in " \t":
        k += 1
    return _one_address(s, k)


def _one_address(s: str, i: int) -> int:
    n = len(s)
    if i < n and s[i] in "+~" and i + 1 < n and s[i + 1].isdigit():
        i += 1
    if i < n and s[i].isdigit():
        while i < n and (s[i].isdigit() or s[i] == "~"):
            i += 1
        return i
    if i < n and s[i] == "$":
        return i + 1
    if i < n and (s[i] == "/" or (s[i] == "\\" and i + 1 < n)):
        delim = s[i] if s[i] == "/" else s[i + 1]
        i = _delimited(s, i + (1 if s[i] == "/" else 2), delim)
        while i < n and s[i] in "IM":
            i += 1
    return i


def _delimited(s: str, i: int, delim: str) -> int:
    """The index after the unescaped `delim` that closes the piece starting at `i`."""
    n = len(s)
    while i < n and s[i] != delim:
        i += 2 if s[i] == "\\" else 1
    return i + 1


def _substitution(s: str, i: int, flags: bool) -> tuple[int, str | None]:
    """Past `s/re/repl/flags` (or `y/a/b/`): the index after it, and the file of its `w` flag."""
    if i >= len(s):
        return i, None
    delim = s[i]
    i = _delimited(s, i + 1, delim)
    i = _delimited(s, i, delim)
    if not flags:
        return i, None
    while i < len(s) and (s[i] in "gpiImMe" or s[i].isdigit()):
        i += 1
    if s[i : i + 1] == "w":
        name, i = _rest_of_line(s, i + 1)
        return i, name or None
    return i, None


def _rest_of_line(s: str, i: int) -> tuple[str, int]:
    while i < len(s) and s[i] in " \t":
        i += 1
    end = s.find("\n", i)
    end = len(s) if end < 0 else end
    return s[i:end], end


def _skip_arg(s: str, i: int, c: str) -> int:
    """Past a command's argument: text (`a`, `i`, `c`, with `\\`-continued lines), a comment or a
    command (`e`) runs to the end of the line; a label or a number to the end of the line or `;`."""
    n = len(s)
    if c in "aic#e":
        while i < n and s[i] != "\n":
            i += 2 if s[i] == "\\" else 1
        return i
    while i < n and s[i] not in "\n;}":
        i += 1
    return i


SCRIPT_LIMIT = 64 * 1024  # a `-f` script longer than this is not read


class ScriptFile(Word):
    """A file a sed script names: written, it is a local change as a redirection is."""


def script_files(words: list[Word], kind: str, cwd: str | None) -> list[Word]:
    """The files (`kind`: "read" or "write") that the scripts of a sed command line name: `-e`,
    `--expression`, `-f FILE` (read from disk), or the first operand. `--sandbox` refuses them all."""
    if any(w.text == "--sandbox" for w in words[1:]):
        return []
    texts, files, first = _scripts(words)
    read = [None if f.dyn else _script_text(f.text, cwd) for f in files]
    texts += [t for t in read if t]
    if not texts and not files and first is not None:
        texts = [first.text]
    out: list[Word] = []
    for f, text in zip(files, read, strict=True):
        if text is None or (text == "" and not _empty_file(f.text, cwd)):
            # a script handrail cannot read (made on the same line, named at run time) may read
            # or write any file: the target is unknown
            unknown = ScriptFile(f"$({f.text})", f"what the script {f.raw} names (not on disk yet)")
            unknown.dyn = True
            out.append(unknown)
    for text in texts:
        reads, writes = sed_files(text)
        out += [ScriptFile(t, t) for t in (reads if kind == "read" else writes)]
    return out


def _scripts(words: list[Word]) -> tuple[list[str], list[Word], Word | None]:
    """(`-e` scripts, `-f` files, the first operand) as sed's option parser reads them: `-n`, `-E`, `-s`,
    `-z`, `-u` alone or bundled (`-ne 'r x'`), `-i` with its suffix in the same word, `-l N`."""
    texts: list[str] = []
    files: list[Word] = []
    i, n = 1, len(words)
    while i < n:
        t = words[i].text
        if t == "--":
            return texts, files, words[i + 1] if i + 1 < n else None
        if t.startswith("--"):
            name, eq, val = t.partition("=")
            if name in ("--expression", "--file", "--line-length") and not eq and i + 1 < n:
                i += 1
                val = words[i].text
            if name == "--expression":
                texts.append(val)
            elif name == "--file":
                files.append(words[i] if not eq else Word(val, val))
        elif t.startswith("-") and len(t) > 1:
            for j, c in enumerate(t[1:], 1):
                if c == "i":
                    break  # its suffix is the rest of the word
                if c in "efl":
                    val = t[j + 1 :]
                    if not val and i + 1 < n:
                        i += 1
                        val = words[i].text
                    if c == "e":
                        texts.append(val)
                    elif c == "f":
                        files.append(words[i] if not t[j + 1 :] else Word(val, val))
                    break
        else:
            return texts, files, words[i]
        i += 1
    return texts, files, None


def _script_text(path: str, cwd: str | None) -> str:
    import os

    if not os.path.isabs(path):
        if cwd is None:
            return ""
        path = os.path.join(cwd, path)
    from handrail.policy.shell.codefile import read_code_text

    return (read_code_text(path, SCRIPT_LIMIT) or "")[:SCRIPT_LIMIT]


def _empty_file(path: str, cwd: str | None) -> bool:
    import os

    from handrail.policy.shell.codefile import regular_file

    full = path if os.path.isabs(path) or cwd is None else os.path.join(cwd, path)
    try:
        return regular_file(os.path.abspath(full)) and os.path.getsize(full) == 0
    except (OSError, ValueError):
        return False
