"""The shell text as the parser walks it: blanks, comments, operators, reserved words.

Here-document bodies are read here too: they start after the newline that ends their
command, whichever construct that newline sits in.
"""

from __future__ import annotations

import re

from handrail.policy.shell.nodes import RESERVED, ShellSyntaxError

TYPE_CHECKING = False  # typing itself costs milliseconds on the hot path
if TYPE_CHECKING:
    from handrail.policy.shell.nodes import Redir, Word

_HD_RUN = re.compile(r"[^\\$`]+")
_BARE = re.compile(r"[^ \t\n;&|<>()]+")
_FD = re.compile(r"(?:\d+|\{[A-Za-z_][A-Za-z0-9_]*\})(?=[<>])")
_REDIR_OPS = ("&>>", "<<<", "<<-", "&>", "<<", "<>", "<&", ">&", ">>", ">|", "<", ">")
_REDIR_START = frozenset("<>&0123456789{")
_BLANK_START = frozenset(" \t\r\\#")
_RESERVED_START = frozenset(w[0] for w in RESERVED)


class Lexer:
    """Where the reader is in the text, and what comes next there.

    The word reader (words.py) and the parser (parser.py) build on it; the one thing it
    leaves to them is reading a here-document body as text (`scan_text`)."""

    __slots__ = ("depth", "i", "n", "pending", "s")

    def __init__(self, text: str, depth: int) -> None:
        self.s = text
        self.n = len(text)
        self.i = 0
        self.depth = depth
        self.pending: list[tuple[Redir, str]] = []

    def error(self, message: str) -> None:
        raise ShellSyntaxError(message, self.i)

    def scan_text(self, run: re.Pattern[str], closer: str | None) -> Word:
        raise NotImplementedError  # the word reader's

    # ------------------------------------------------------------------ blanks, operators

    def skip_blanks(self) -> None:
        s, n = self.s, self.n
        i = self.i
        if i < n and s[i] not in _BLANK_START:
            return
        while i < n:
            c = s[i]
            if c == " " or c == "\t" or c == "\r":
                i += 1
            elif c == "\\" and i + 1 < n and s[i + 1] == "\n":
                i += 2
            elif c == "#":
                j = s.find("\n", i)
                i = n if j < 0 else j
            else:
                break
        self.i = i

    def skip_newlines(self) -> None:
        while True:
            self.skip_blanks()
            if self.i < self.n and self.s[self.i] == "\n":
                self.i += 1
                self.read_heredocs()
            else:
                return

    def peek_op(self) -> str | None:
        s, i = self.s, self.i
        if i >= self.n:
            return None
        c = s[i]
        if c not in ";&|\n()":
            return None
        if c == "(" or c == ")" or c == "\n":
            return c
        two = s[i : i + 2]
        if two == ";;":
            return ";;&" if s[i + 2 : i + 3] == "&" else ";;"
        if two in (";&", "&&", "||", "|&"):
            return two
        return c

    def peek_redir(self) -> tuple[str | None, str] | None:
        s, i = self.s, self.i
        if i >= self.n or s[i] not in _REDIR_START:
            return None
        fd = None
        m = _FD.match(s, i)
        if m:
            fd = m.group()
            i = m.end()
        if i >= self.n or s[i] not in "<>&":
            return None
        if s[i] in "<>" and i + 1 < self.n and s[i + 1] == "(":
            return None
        for op in _REDIR_OPS:
            if s.startswith(op, i):
                if op in ("&>", "&>>") and fd is not None:
                    return None
                return fd, op
        return None

    def peek_reserved(self) -> str | None:
        if self.i >= self.n or self.s[self.i] not in _RESERVED_START:
            return None
        m = _BARE.match(self.s, self.i)
        if m is None:
            return None
        word = m.group()
        return word if word in RESERVED else None

    def eat_reserved(self, word: str) -> None:
        self.skip_newlines()
        if self.peek_reserved() != word:
            self.error(f"expected '{word}'")
        self.i += len(word)

    # ------------------------------------------------------------------ lists and pipelines
    # ------------------------------------------------------------------ here-documents

    def read_heredocs(self) -> None:
        """The bodies of the here-documents whose commands the newline just read ended."""
        s, n = self.s, self.n
        for r, delim in self.pending:
            start = i = self.i
            strip = r.op == "<<-"
            while True:
                j = s.find("\n", i)
                end = n if j < 0 else j
                line = s[i:end]
                if (line.lstrip("\t") if strip else line) == delim:
                    r.body = s[start:i]
                    self.i = n if j < 0 else j + 1
                    break
                if j < 0:
                    # bash runs a heredoc that reaches the end of input: so do we.
                    r.body = s[start:]
                    self.i = n
                    break
                i = j + 1
            if not r.body_quoted and r.body:
                sub = type(self)(r.body, self.depth)
                w = sub.scan_text(_HD_RUN, None)
                r.body_subs, r.body_dyn = w.subs, w.dyn
        self.pending = []
