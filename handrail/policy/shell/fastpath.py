"""The fast paths: most agent commands are plain words and operators, read without the parser.

Each returns None when in doubt, and the full parser decides; a property test holds them
to the parser's answer.
"""

from __future__ import annotations

import re

from handrail.policy.shell.nodes import (
    ASSIGN,
    RESERVED,
    Compound,
    Pipeline,
    Redir,
    Simple,
    Word,
)

# Plain words only: no quoting, expansion, operator, comment, glob, tilde or brace.
_PLAIN = re.compile(r"[A-Za-z0-9_./:=@%+,^~*?\[\]&|; \t-]*+")


def fast_parse(text: str) -> list[Pipeline] | None:
    """`text` as a list of pipelines when a fast path can read it, else None."""
    if "[" in text and "]=" in text:
        return None  # `a[1 + 1]=x`: bash reads blanks inside an assignment's subscript; the parser does too
    if _PLAIN.fullmatch(text):
        fast = _plain(text)
        if fast is not None:
            return fast
    if _SIMPLE_TEXT.fullmatch(text):
        return _simple_list(text)
    return None


def _plain(text: str) -> list[Pipeline] | None:
    """The common case, `git status --short` or `npm ci && npm test | tail`: plain words, and
    operators that stand alone between blanks. None when in doubt (the full parser decides)."""
    out: list[Pipeline] = []
    cmds: list[Simple | Compound] = []
    cmd = Simple()
    op = ""
    for raw in text.split():
        if raw in _PLAIN_OPS:
            if not (cmd.words or cmd.assigns):
                return None
            cmds.append(cmd)
            cmd = Simple()
            if raw != "|":
                out.append(Pipeline(cmds))
                cmds = []
            op = raw
            continue
        if "&" in raw or "|" in raw or ";" in raw:
            return None
        op = ""
        w = Word(raw, raw)
        if "*" in raw or "?" in raw or "[" in raw:
            w.glob = True
        if raw[0] == "~":
            w.tilde = True
        if not cmd.words and "=" in raw and ASSIGN.match(raw):
            cmd.assigns.append(w)
        elif not cmd.words and raw in RESERVED:
            return None
        else:
            cmd.words.append(w)
    if op and op != ";":
        return None
    if cmd.words or cmd.assigns:
        cmds.append(cmd)
    if cmds:
        out.append(Pipeline(cmds))
    return out


_PLAIN_OPS = frozenset({"&&", "||", "|", ";"})


# Words (plain, '…', or "…" without expansion), &&, ||, |, ; and plain redirections: what
# most agent commands are made of, read by one regular expression.
_SIMPLE_TEXT = re.compile(r"""(?:[ \t]++|&&|\|\||\|&|[|;]|[0-9]*(?:>>|>&|&>|[<>])|(?:[A-Za-z0-9_./:=@%+,^~*?\[\]-]++|'[^']*+'|"[^"\\$`!]*+")++)*+""")  # noqa: E501 - one regex, read whole
_SIMPLE_TOKEN = re.compile(r"""[ \t]*+(?:(&&|\|\||\|&|[|;])|([0-9]*)(>>|>&|&>|[<>])|((?:[A-Za-z0-9_./:=@%+,^~*?\[\]-]++|'[^']*+'|"[^"\\$`!]*+")++))""")  # noqa: E501 - one regex, read whole
_QUOTED_PART = re.compile(r"'[^']*'|\"[^\"]*\"")


def _simple_word(raw: str) -> Word:
    w = Word(raw, raw)
    if "'" in raw or '"' in raw:
        w.quoted = True
        w.text = _QUOTED_PART.sub(lambda m: m.group()[1:-1], raw)
        bare = _QUOTED_PART.sub("", raw)
    else:
        bare = raw
    if "*" in bare or "?" in bare or "[" in bare:
        w.glob = True
    if raw[0] == "~":
        w.tilde = True
    return w


def _simple_list(text: str) -> list[Pipeline] | None:
    """Text that _SIMPLE_TEXT accepts, parsed without the general machinery; None when in doubt."""
    if ";&" in text or ";;" in text:
        return None
    out: list[Pipeline] = []
    cmds: list[Simple | Compound] = []
    cmd = Simple()
    redir: Redir | None = None
    last_op = ""
    for op, fd, rop, raw in _SIMPLE_TOKEN.findall(text):
        last_op = op
        if raw:
            if redir is not None:
                redir.target = _simple_word(raw)
                redir = None
                continue
            if not cmd.words and not cmd.assigns and raw in RESERVED:
                return None
            if not cmd.words and "=" in raw and ASSIGN.match(raw):
                cmd.assigns.append(_simple_word(raw))
            else:
                cmd.words.append(_simple_word(raw))
        elif rop:
            if redir is not None or (fd and rop == "&>"):
                return None
            redir = Redir(rop, fd or None, None)
            cmd.redirs.append(redir)
        elif op:
            if redir is not None or not (cmd.words or cmd.assigns or cmd.redirs):
                return None
            cmds.append(cmd)
            cmd = Simple()
            if op != "|" and op != "|&":
                out.append(Pipeline(cmds))
                cmds = []
    if redir is not None or last_op in ("&&", "||", "|", "|&"):
        return None
    if cmd.words or cmd.assigns or cmd.redirs:
        cmds.append(cmd)
    elif cmds:
        if text.rstrip().endswith(";") and cmds:
            out.append(Pipeline(cmds))
            return out
        return None
    if cmds:
        out.append(Pipeline(cmds))
    return out

