"""The syntax tree the parser builds: words, redirections, simple and compound commands.

A word's `text` is its value after quote removal, with SENT standing for whatever an
expansion produces at run time.
"""

from __future__ import annotations

import re

SENT = "\x00"
MAX_DEPTH = 24
MAX_INPUT = 128 * 1024  # longer shell text is not judged: a human reads it

RESERVED = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for",
                      "select", "in", "function", "{", "}", "!", "[[", "time", "coproc"})
ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")


class ShellSyntaxError(Exception):
    def __init__(self, message: str, pos: int = -1) -> None:
        super().__init__(message)
        self.pos = pos


class Word:
    """One shell word. `wild`: an unquoted expansion, which may split into several words or flags.

    The flags are class attributes until set: most words are plain, and cheap to make."""

    quoted = False
    dyn = False
    wild = False
    glob = False
    subs: list[list[Pipeline]] = []  # noqa: RUF012 - never appended to: a word with substitutions gets its own list
    lead_var: str | None = None
    tilde = False
    optlike = False  # a glob put in for a loop variable that may name a file such as `-o`: maybe an option

    def __init__(self, text: str, raw: str) -> None:
        self.text = text
        self.raw = raw

    def __repr__(self) -> str:
        return f"Word({self.raw!r})"


class Redir:
    __slots__ = ("body", "body_dyn", "body_quoted", "body_subs", "fd", "op", "target")

    def __init__(self, op: str, fd: str | None, target: Word | None) -> None:
        self.op = op
        self.fd = fd
        self.target = target
        self.body: str | None = None
        self.body_quoted = False
        self.body_subs: list[list[Pipeline]] = []
        self.body_dyn = False


class Simple:
    __slots__ = ("assigns", "redirs", "words")

    def __init__(self) -> None:
        self.assigns: list[Word] = []
        self.words: list[Word] = []
        self.redirs: list[Redir] = []


class Compound:
    """subshell, group, if, while, for, select, case, func, arith, cond: bodies are lists; words are
    what the construct itself expands (the `for` list, the `case` word, an arithmetic text); `name`
    is a function's name or the variable of `for NAME in …` (empty for `for ((…))`)."""

    __slots__ = ("bodies", "kind", "name", "redirs", "words")

    def __init__(self, kind: str, bodies: list[list[Pipeline]] | None = None, words: list[Word] | None = None,
                 name: str = "") -> None:
        self.kind = kind
        self.bodies = bodies or []
        self.words = words or []
        self.redirs: list[Redir] = []
        self.name = name


class Pipeline:
    """`cond`: it runs only as the pipeline before it succeeds or fails (after `&&` or `||`)."""

    __slots__ = ("cmds", "cond")

    def __init__(self, cmds: list[Simple | Compound], cond: bool = False) -> None:
        self.cmds = cmds
        self.cond = cond
