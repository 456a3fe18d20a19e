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
        if t in ("-W", "-X", "--check-hash-based-pycs"):
            i += 2
            continue
        if not t.startswith("--") and "c" in t[1:]:
            at = t.index("c", 1)
            if at + 1 < len(t):
                codes.append((t[at + 1 :], words[i].dyn))
            elif i + 1 < n:
                codes.append((words[i + 1].text, words[i + 1].dyn))
            return "python", codes, False
        if not t.startswith("--") and "m" in t[1:]:
            return "python", codes, False
        i += 1
    return "python", codes, True


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
        if t in ("-e", "--eval", "-p", "--print") and i + 1 < n:
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
