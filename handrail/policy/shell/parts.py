"""The vocabulary of the walk from syntax tree to commands: one simple command as it will run
(`Part`), what the shell knows as it goes (`State`), and how a program's name and a path are
read (`prog_name`, `fold`, `resolve`).

The wrappers' handlers and the walk (`unwrap.Flat`) both speak it; neither imports the other
for it, so the walk can import the handlers' table without a loop.
"""

from __future__ import annotations

import os

from handrail.policy.shell.syntax import SENT, Simple, Word

TYPE_CHECKING = False  # typing itself costs milliseconds on the hot path
if TYPE_CHECKING:
    from typing import Protocol

    from handrail.policy.shell.syntax import Pipeline, Redir

    class Walker(Protocol):
        """What a wrapper's handler may ask of the walk (`unwrap.Flat`)."""

        home: str
        out: list[Part]
        files: dict[str, str]  # what this command line wrote so far, by path
        walks: int  # how many more times loop bodies may be judged once per value

        def lists(self, pipelines: list[Pipeline], st: State, ctx: str, via: list[str]) -> None: ...

        def new_part(self, ctx: str, via: list[str], pid: int, idx: int, st: State) -> Part: ...

        def shell_text(self, part: Part, text: str, dyn: bool, subs_download: bool, label: str, st: State,
                       words: list[Word] | None = None) -> None: ...

        def unwrap(self, part: Part, words: list[Word], st: State) -> None: ...

        def emit(self, part: Part, words: list[Word], st: State) -> None: ...

SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "posh",
                    "rbash", "ksh93", "pdksh", "oksh", "loksh"})
DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request", "get", "httpie",
                         "invoke-webrequest", "iwr"})
DYNAMIC, DOWNLOAD = "dynamic", "download-to-shell"


class Part:
    """One simple command as it will run."""

    __slots__ = (
        "arg_files",
        "assigns",
        "context",
        "cwd",
        "effects",
        "extra",
        "feed",
        "feeder",
        "flags",
        "func",
        "git_config",
        "git_paths",
        "index",
        "lead",
        "name",
        "pipe",
        "redirs",
        "script_text",
        "side",
        "stdin_text",
        "via",
        "words",
    )

    def __init__(self) -> None:
        self.words: list[Word] = []
        self.name = ""
        self.effects: object = None  # effects.of_part fills it, once
        self.assigns: list[tuple[str, Word]] = []
        self.redirs: list[Redir] = []
        self.via: list[str] = []
        self.context = ""
        self.pipe = 0
        self.index = 0
        self.cwd: str | None = None
        self.feed: str | None = None  # pipe, download, heredoc, herestring, file
        self.stdin_text: str | None = None
        self.extra = False  # run with arguments only known at run time (xargs, find -exec)
        self.feeder: Part | None = None  # the command whose output xargs or parallel turns into arguments
        self.arg_files: list[Word] = []  # files xargs or parallel read the arguments from (`xargs -a F`)
        self.git_config: list[str] = []
        self.git_paths: list[tuple[str, Word]] = []  # git's `--git-dir`/`--work-tree` and their values
        self.flags: list[tuple[str, str]] = []
        self.func = False
        # A part that stands for what a program writes beside the command it runs (`script -c
        # CMD FILE` writes FILE): the write rules judge it, no pattern does.
        self.side = False
        self.lead = False  # the command a pipeline element runs (not a substitution or an -exec inside it)
        self.script_text: str | None = None  # the text of a script file this command line wrote and runs

    @property
    def text(self) -> str:
        if self.words:
            return " ".join(w.raw for w in self.words)
        return " ".join([w.raw for _, w in self.assigns]
                        + [r.op + (r.target.raw if r.target else "") for r in self.redirs])

    def __repr__(self) -> str:
        return f"Part({self.text!r})"


# The value of a loop variable that a glob gives (`for f in src/*.py`): one file the glob names.
GLOB = "\x00glob:"


class State:
    """What the shell knows as it runs the command line: its folder, the functions and aliases
    defined so far, and the variables given a literal value (`f=.env; cat $f` reads `.env`).
    `blind`: a variable may have changed in a way handrail does not follow (`declare -n`,
    `source`), so no value is known from here on."""

    __slots__ = ("aliases", "blind", "cwd", "funcs", "touched", "vars")

    def __init__(self, cwd: str | None, funcs: set[str] | None = None, aliases: dict[str, str] | None = None,
                 vars: dict[str, str] | None = None) -> None:
        self.cwd = cwd
        self.funcs = funcs if funcs is not None else set()
        self.aliases = aliases if aliases is not None else {}
        self.vars = vars if vars is not None else {}
        self.blind = False
        # Every name the line has given a value, with each value it was given (None: one not
        # known): a rule that cares what a variable may hold (the editor git runs) still sees
        # one whose value was lost where the line branched (`test -n x && export V=true`).
        self.touched: dict[str, set[str | None]] = {}

    def copy(self) -> State:
        out = State(self.cwd, set(self.funcs), dict(self.aliases), dict(self.vars))
        out.blind = self.blind
        out.touched = {name: set(values) for name, values in self.touched.items()}
        return out

    def put(self, name: str, value: str | None) -> None:
        """`name` now holds `value` (None: a value handrail does not know)."""
        self.touched.setdefault(name, set()).add(None if self.blind else value)
        if value is None or self.blind:
            self.vars.pop(name, None)
        else:
            self.vars[name] = value

    def forget(self, names: frozenset[str] | None) -> None:
        """These variables (None: any variable at all) may have been given a value handrail does not know."""
        if names is None:
            self.vars.clear()
            self.blind = True
            for values in self.touched.values():
                values.add(None)
        for name in names or ():
            self.touched.setdefault(name, set()).add(None)
            self.vars.pop(name, None)

    def settle(self, before: dict[str, str]) -> None:
        """After text that may or may not have run (`a && f=x`, an `if` branch, a loop body), a
        variable it changed holds either value: neither is known."""
        for name in set(before) | set(self.vars):
            if before.get(name) != self.vars.get(name):
                self.vars.pop(name, None)


_PROG_CACHE: dict[str, str] = {}


def prog_name(text: str) -> str:
    """`/usr/bin/git` -> git, `GIT.EXE` -> git, `python3.12` -> python, `pip3` -> pip."""
    hit = _PROG_CACHE.get(text)
    if hit is None:
        hit = _prog_name(text)
        if len(_PROG_CACHE) < 4096:
            _PROG_CACHE[text] = hit
    return hit


# Dashes and spaces that look like `-` and ` ` but are other code points, folded before comparing.
_LOOKALIKES = {ord(c): "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d\u00ad"}
_LOOKALIKES.update({ord(c): " " for c in "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
                    "\u2008\u2009\u200a\u202f\u205f\u3000"})
_LOOKALIKES.update({ord(c): "" for c in "\u200b\u200c\u200d\u2060\ufeff"})


def fold(text: str) -> str:
    """A name as a case-insensitive disk and a Unicode-minded reader see it: NFKC, dashes and
    spaces folded, invisible characters dropped, case-folded (`ＧＩＴ`, `GIT` and `git` are one)."""
    if text.isascii():
        return text.lower()
    import unicodedata

    return unicodedata.normalize("NFKC", text).translate(_LOOKALIKES).casefold()


def _prog_name(text: str) -> str:
    name = fold(text.rsplit("/", 1)[-1].rsplit("\\", 1)[-1])
    name = name.removesuffix(".exe")
    if name.startswith("python") and (name[6:] == "" or name[6:7].isdigit()):
        return "python"
    if name.startswith("pip") and (name[3:] == "" or name[3:4].isdigit()):
        return "pip"
    if name == "nodejs":
        return "node"
    return name


def resolve(word: Word, cwd: str | None, home: str) -> str | None:
    """An absolute, normalised path for a word, or None when it is only known at run time."""
    text = word.text
    if word.dyn:
        if word.lead_var in ("HOME", "PWD") and text.startswith(SENT) and text.count(SENT) == 1:
            base = home if word.lead_var == "HOME" else cwd
            if base is None:
                return None
            text = base + text[1:]
        else:
            return None
    elif word.tilde and (text == "~" or text.startswith("~/")):
        text = home + text[1:]
    elif text.startswith("~"):
        return None
    if len(word.raw) > 2 and word.raw[1] == ":" and word.raw[0].isalpha() and word.raw[2] in "\\/":
        # `C:\Users\…` (Git Bash, WSL): a drive of its own, never inside the work tree
        text = "/" + word.raw[0].lower() + "/" + word.raw[3:].replace("\\", "/").strip("'\"")
    if not text.startswith("/"):
        if cwd is None:
            return None
        text = os.path.join(cwd, text)
    out = os.path.normpath(text)
    return "/" + out.lstrip("/") if out.startswith("//") else out


def word(text: str) -> Word:
    return Word(text, text)


def has_download(word: Word) -> bool:
    """Does a substitution inside this word call a downloader?"""
    stack = list(word.subs)
    while stack:
        for pl in stack.pop():
            for node in pl.cmds:
                if isinstance(node, Simple):
                    if node.words and prog_name(node.words[0].text) in DOWNLOADERS:
                        return True
                    for w in node.words:
                        stack.extend(w.subs)
                else:
                    stack.extend(node.bodies)
    return False
