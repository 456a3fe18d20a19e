"""Where an interpreter's command line holds its code: `python -c CODE`, `node -e CODE`,
`perl -e CODE`, `awk 'PROGRAM'`, or standard input (`python -`, a bare `node`).

One reader per interpreter family, because each spells "here is code" its own way, and a
cluster like `python -Bc CODE` or `perl -ne CODE` must be read as the interpreter reads it.
"""

from __future__ import annotations

from handrail.policy.shell.codefile import STDIN_PATHS

# `-` and the names of standard input, as the script operand: the code is what stdin carries
_STDIN_SCRIPT = STDIN_PATHS | {"-"}

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part
    from handrail.policy.shell.syntax import Word


def _python_code(name: str, words: list[Word]) -> tuple[str, list[tuple[str, bool]], bool]:
    codes: list[tuple[str, bool]] = []
    n = len(words)
    i = 1
    while i < n:
        t = words[i].text
        if t == "-":
            return "python", codes, True
        if t in STDIN_PATHS:
            return "python", codes, True
        if t in ("-m",) or (not t.startswith("-")):
            return "python", codes, False
        if t == "--check-hash-based-pycs":
            i += 2
            continue
        # a cluster (`-Sc CODE`, `-IBc CODE`, `-Wonce`) is read letter by letter, as python does: the
        # first of c, m, W, X takes the rest of the word, or the next word, as its value
        at = next((j for j, ch in enumerate(t) if ch in "cmWX"), None) if not t.startswith("--") else None
        if at is None:
            i += 1
            continue
        value = t[at + 1 :] if at + 1 < len(t) else (words[i + 1].text if i + 1 < n else "")
        if t[at] == "c":
            codes.append((value, words[i].dyn if at + 1 < len(t) else i + 1 < n and words[i + 1].dyn))
            return "python", codes, False
        if t[at] == "m":
            return "python", codes, False
        i += 1 if at + 1 < len(t) else 2
    return "python", codes, True


def _js_code_cluster(t: str) -> bool:
    """`-e`, `-p`, and a cluster holding either (`-pe`, `-ep`, `-pi`): the next word is the code."""
    return len(t) > 1 and t[0] == "-" and t[1] != "-" and t[1:].isalpha() and bool(set(t[1:]) & {"e", "p"})


def _js_code(name: str, words: list[Word]) -> tuple[str, list[tuple[str, bool]], bool]:
    codes: list[tuple[str, bool]] = []
    n = len(words)
    i = 1
    if name == "deno" and n > 1:
        if words[1].text == "eval" and n > 2:
            return "js", [(words[2].text, words[2].dyn)], False
        return "js", codes, False
    while i < n:
        t = words[i].text
        if (t in ("--eval", "--print") or _js_code_cluster(t)) and i + 1 < n:
            codes.append((words[i + 1].text, words[i + 1].dyn))
            i += 2
            continue
        if t.startswith(("--eval=", "--print=")):
            codes.append((t.split("=", 1)[1], words[i].dyn))
        elif t in _STDIN_SCRIPT and not codes:
            return "js", codes, True
        elif t in ("-r", "--require", "--import", "--loader"):
            i += 2
            continue
        elif not t.startswith("-"):
            return "js", codes, False
        i += 1
    return "js", codes, not codes and name == "node"


def _script_code(name: str, words: list[Word]) -> tuple[str, list[tuple[str, bool]], bool]:
    """perl, ruby and php: the code follows `-e` (perl's `-E`, php's `-r`), glued on or not."""
    codes: list[tuple[str, bool]] = []
    n = len(words)
    i = 1
    flag = {"perl": "eE", "ruby": "e", "php": "rR"}[name]
    while i < n:
        t = words[i].text
        if name != "php" and t[:2] in ("-I", "-M", "-m", "-r") and (name == "perl") == (t[1] in "IMm"):
            i += 1 if len(t) > 2 else 2  # `-Ilib`, `-MPOSIX=exit`, `-rjson`: a value, not a cluster
            continue
        if t.startswith("-") and not t.startswith("--") and len(t) > 1:
            hit = next((j for j in range(1, len(t)) if t[j] in flag), None)
            if hit is not None:
                if hit + 1 < len(t):
                    codes.append((t[hit + 1 :], words[i].dyn))
                elif i + 1 < n:
                    codes.append((words[i + 1].text, words[i + 1].dyn))
                    i += 1
            elif t[1] in "IMrdl" and len(t) == 2 and name != "php":
                i += 1
            i += 1
            continue
        if t == "--":
            i += 1
        break
    return name, codes, not codes and (i >= n or words[i].text in _STDIN_SCRIPT)


def _awk_code(name: str, words: list[Word]) -> tuple[str, list[tuple[str, bool]], bool]:
    codes: list[tuple[str, bool]] = []
    n = len(words)
    i = 1
    while i < n:
        t = words[i].text
        if t in ("-f", "--file"):
            return "awk", codes, False
        if t in ("-v", "-F", "--assign", "--field-separator"):
            i += 2
            continue
        if t.startswith("-") and len(t) > 1:
            i += 1
            continue
        codes.append((t, words[i].dyn))
        break
    return "awk", codes, False


# Each interpreter's options, read for the code it is given: (language, [(code, built at run
# time)], reads code from stdin).
_INLINE_READERS = {
    "python": _python_code, **dict.fromkeys(("node", "bun", "deno"), _js_code),
    **dict.fromkeys(("perl", "ruby", "php"), _script_code),
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"), _awk_code),
}


def inline_code(part: Part) -> tuple[str, list[tuple[str, bool]], bool]:
    """(language, [(code, built at run time)], reads code from stdin)."""
    reader = _INLINE_READERS.get(part.name)
    return ("", [], False) if reader is None else reader(part.name, part.words)


# Options whose value is the next word, so that word is not the script (`python3 -W ignore x.py`).
_VALUED = {
    "python": frozenset({"-W", "-X", "--check-hash-based-pycs"}),
    "js": frozenset({"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions",
                     "--input-type", "--title", "--env-file", "--disable-warning", "--inspect-port"}),
    "perl": frozenset({"-I"}),
    "ruby": frozenset({"-I", "-r", "-C", "-E", "--encoding", "--external-encoding", "--internal-encoding"}),
    "php": frozenset({"-c", "-d", "-z"}),
}


def script_operand(lang: str, words: list[Word]) -> tuple[Word | None, bool]:
    """The word an interpreter runs as its script, and whether an option stands right before it
    (an option handrail does not know may take that word as its value, the script coming later)."""
    valued = _VALUED.get(lang, frozenset())
    i, n = 1, len(words)
    while i < n:
        t = words[i].text
        if t == "--":
            return (words[i + 1] if i + 1 < n else None), False
        if not t.startswith("-") or t == "-":
            return words[i], i > 1 and words[i - 1].text.startswith("-") and words[i - 1].text != "--"
        at = next((j for j, ch in enumerate(t) if ch in "cmWX"), None) if lang == "python" and t[1] != "-" else None
        if at is not None and t[at] in "cm":
            return None, False  # `-c CODE`, `-m MODULE`, `-Bm MODULE`: no script file
        i += 2 if t in valued or (at is not None and at + 1 == len(t)) else 1
    return None, False
