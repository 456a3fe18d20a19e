"""Brace expansion and `$'…'` strings, as bash reads them."""

from __future__ import annotations

import re

from handrail.policy.shell.nodes import ShellSyntaxError

BRACE_LIMIT = 256
BRACE_WORK = 4 * BRACE_LIMIT  # calls (weighted by length) one word's expansion may take
_SEQ = re.compile(r"(?:(-?\d+)\.\.(-?\d+)|([A-Za-z])\.\.([A-Za-z]))(?:\.\.(-?\d+))?")


def _skip_quoted(raw: str, i: int) -> int:
    """The index after the quoted, escaped or substituted piece that starts at `i` (or `i`
    itself). Quotes nest inside `$( … )` and `"…"` holds `$( … )`, as the word reader has it."""
    c = raw[i]
    n = len(raw)
    if c == "\\":
        return i + 2
    if c == "'":
        j = raw.find("'", i + 1)
        return n if j < 0 else j + 1
    if c == "`":
        j = i + 1
        while j < n and raw[j] != "`":
            j += 2 if raw[j] == "\\" else 1
        return j + 1
    if c == '"':
        j = i + 1
        while j < n and raw[j] != '"':
            if raw[j] == "\\":
                j += 2
                continue
            k = _skip_quoted(raw, j) if raw[j] in "$`" else j
            j = k if k != j else j + 1
        return j + 1
    if c == "$" and raw[i + 1 : i + 2] in ("{", "("):
        opener = raw[i + 1]
        close = "}" if opener == "{" else ")"
        depth, j = 0, i + 1
        while j < n:
            ch = raw[j]
            if ch in "'\"\\`" or (ch == "$" and raw[j + 1 : j + 2] in ("{", "(")):
                j = _skip_quoted(raw, j)
                continue
            if ch == opener:
                depth += 1
            elif ch == close:
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return n
    return i


def brace_expand(raw: str, _budget: list[int] | None = None) -> list[str] | None:
    """The raw words bash's brace expansion makes of the raw word `raw`, or None when it
    has no brace expression. Bounded: at most BRACE_LIMIT words."""
    budget = _budget if _budget is not None else [BRACE_LIMIT, BRACE_WORK]
    budget[1] -= 1 + len(raw) // 64
    if budget[1] <= 0:
        # counted as it expands, not at the leaves: `{a,b}{a,b}…` doubles with each group
        raise ShellSyntaxError(f"brace expansion makes more than {BRACE_LIMIT} words")
    i, n = 0, len(raw)
    while i < n:
        j = _skip_quoted(raw, i)
        if j != i:
            i = j
            continue
        if raw[i] != "{":
            i += 1
            continue
        depth, k, commas, end = 0, i + 1, [], -1
        while k < n:
            q = _skip_quoted(raw, k)
            if q != k:
                k = q
                continue
            c = raw[k]
            if c == "{":
                depth += 1
            elif c == "}":
                if depth == 0:
                    end = k
                    break
                depth -= 1
            elif c == "," and depth == 0:
                commas.append(k)
            k += 1
        if end < 0:
            i += 1
            continue
        body = raw[i + 1 : end]
        if commas:
            bounds = [i, *commas, end]
            alts = [raw[bounds[m] + 1 : bounds[m + 1]] for m in range(len(bounds) - 1)]
        else:
            m = _SEQ.fullmatch(body)
            if m is None:
                i += 1
                continue
            incr = abs(int(m.group(5) or 1)) or 1
            if m.group(1) is not None:
                a, b = int(m.group(1)), int(m.group(2))
                step = incr if b >= a else -incr
                if abs(b - a) // incr >= BRACE_LIMIT:
                    raise ShellSyntaxError(f"brace expansion makes more than {BRACE_LIMIT} words")
                # `{01..10}`: a zero-padded end pads every number to its width
                width = max(len(m.group(1)), len(m.group(2))) if m.group(1).lstrip("-").startswith("0") or \
                    m.group(2).lstrip("-").startswith("0") else 0
                alts = [str(x).zfill(width) for x in range(a, b + step, step)]
            else:
                a, b = ord(m.group(3)), ord(m.group(4))
                step = incr if b >= a else -incr
                alts = [chr(x) for x in range(a, b + step, step)]
        pre, post = raw[:i], raw[end + 1 :]
        out: list[str] = []
        for alt in alts:
            more = brace_expand(pre + alt + post, budget)
            for one in more if more is not None else [pre + alt + post]:
                if budget[0] <= 0:
                    raise ShellSyntaxError(f"brace expansion makes more than {BRACE_LIMIT} words")
                budget[0] -= 1
                out.append(one)
        return out
    return None


def ansi_c(body: str) -> str:
    """The value of a `$'…'` string (bash's escapes)."""
    out: list[str] = []
    i, n = 0, len(body)
    simple = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
              "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        i += 2
        if e in simple:
            out.append(simple[e])
        elif e in "01234567":
            j = i
            while j < n and j < i + 2 and body[j] in "01234567":
                j += 1
            out.append(chr(int(body[i - 1 : j], 8) & 0xFF))
            i = j
        elif e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            j = i
            while j < n and j < i + width and body[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i:
                out.append("\\" + e)
            else:
                out.append(chr(min(int(body[i:j], 16), 0x10FFFF)))
                i = j
        elif e == "c" and i < n:
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + e)
    return "".join(out)

