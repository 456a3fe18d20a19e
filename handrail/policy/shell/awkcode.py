"""awk programs, read in full: awk is small enough to know every way it reaches outside."""

from __future__ import annotations

from handrail.policy.shell.codefx import CodeEffects, _unknown

_AWK_KEYWORDS = frozenset({"print", "printf", "return", "in", "case"})


def _awk(code: str) -> CodeEffects:
    """awk is small enough to read whole: system(), pipes, redirections, getline < file."""
    found: dict[str, None] = {}
    reasons: dict[str, None] = {}
    reads: dict[str, None] = {}
    writes: dict[str, None] = {}
    unknown_target = {"read": False, "write": False}

    def add(effect: str, reason: str, path: str | None = None, target: bool = False) -> None:
        if target and path is not None and path.startswith("/inet"):
            effect, reason = "network", "opens a network connection"
        found[effect] = None
        reasons[reason] = None
        if target and effect in ("read", "write"):
            if path is None:
                unknown_target[effect] = True
            else:
                (reads if effect == "read" else writes)[path] = None

    toks = _awk_tokens(code)
    if isinstance(toks, str):
        return _unknown(f"awk program {toks}")
    in_print, depth = False, 0
    for k, (kind, text) in enumerate(toks):
        nxt = toks[k + 1] if k + 1 < len(toks) else ("", "")
        after = toks[k + 2] if k + 2 < len(toks) else ("", "")
        lone = nxt[0] == "str" and after[1] in ("", ";", "}", "\n", ")")
        if kind == "word":
            if text == "system":
                add("exec", "calls system()")
            elif text == "getline":
                at = k + 2 if nxt[0] == "word" else k + 1     # getline [var] < file
                if at < len(toks) and toks[at][1] == "<":
                    src = toks[at + 1] if at + 1 < len(toks) else ("", "")
                    end = toks[at + 2][1] if at + 2 < len(toks) else ""
                    add("read", "reads a file with getline",
                        src[1] if src[0] == "str" and end in ("", ";", "}", "\n", ")") else None, True)
            elif text == "ENVIRON" and not (nxt[1] == "[" and after[0] == "str" and
                                            (toks[k + 3][1] if k + 3 < len(toks) else "") == "]"):
                add("env", "reads the whole environment")
            elif text in ("ARGV", "ARGC"):
                add("read", "changes which files awk reads", None, True)
            elif text in ("print", "printf"):
                in_print, depth = True, 0
        elif kind == "op":
            if text in ("|", "|&"):
                add("exec", "pipes to or from a command")
                if nxt[0] == "str" and nxt[1].startswith("/inet"):
                    add("network", "opens a network connection")
            elif text in (">", ">>") and in_print and depth == 0:
                add("write", "print writes to a file", nxt[1] if lone else None, True)
            elif text == "(":
                depth += 1
            elif text == ")":
                depth -= 1
            elif text in (";", "}", "{", "\n"):
                in_print = False
    return CodeEffects(frozenset(found), () if unknown_target["read"] else tuple(reads),
                       () if unknown_target["write"] else tuple(writes), tuple(reasons))


def _awk_tokens(code: str) -> list[tuple[str, str]] | str:
    out: list[tuple[str, str]] = []
    i, n = 0, len(code)

    def operand() -> bool:
        if not out:
            return False
        kind, text = out[-1]
        return kind in ("num", "str") or (kind == "word" and text not in _AWK_KEYWORDS) or text in (")", "]", "$")
    while i < n:
        c = code[i]
        if c == "\n":
            out.append(("op", "\n"))
            i += 1
        elif c.isspace():
            i += 1
        elif c == "\\" and code[i + 1 : i + 2] == "\n":
            i += 2
        elif c == "#":
            j = code.find("\n", i)
            i = n if j < 0 else j
        elif c == '"' or (c == "/" and not operand()):
            j = i + 1
            in_class = False
            while j < n and (code[j] != c or in_class):
                if code[j] == "\\":
                    j += 1
                elif c == "/" and code[j] == "[":
                    in_class = True
                elif c == "/" and code[j] == "]":
                    in_class = False
                elif code[j] == "\n":
                    return "has a string or pattern that does not end on its line"
                j += 1
            if j >= n:
                return "has a string or pattern that does not end"
            out.append(("str" if c == '"' else "re", code[i + 1 : j]))
            i = j + 1
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (code[j].isalnum() or code[j] == "_"):
                j += 1
            out.append(("word", code[i:j]))
            i = j
        elif c.isdigit() or (c == "." and code[i + 1 : i + 2].isdigit()):
            j = i
            while j < n and (code[j].isalnum() or code[j] == "."):
                j += 1
            out.append(("num", code[i:j]))
            i = j
        elif c == "@":
            return "uses a gawk @ directive"
        else:
            two = code[i : i + 2]
            if two in (">>", "|&", "||", "&&", ">=", "<=", "==", "!=", "++", "--", "+=", "-=", "*=", "/=",
                       "%=", "^=", "!~"):
                out.append(("op", two))
                i += 2
            else:
                out.append(("op", c))
                i += 1
    return out
