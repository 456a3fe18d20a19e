"""Syntax tree -> the simple commands that will run, every wrapper looked through.

`sudo env X=1 timeout 5 bash -c 'git push -f'` becomes one part, `git push -f`, reached
via sudo, env, timeout and `bash -c`. Shell text handed to another shell (`-c`, eval,
heredocs and here-strings fed to a shell, `echo … | sh`, `watch`, `ssh`) is parsed in
turn; text that only exists at run time is flagged `dynamic`, never trusted.
Each part carries what the rules need: its redirections, its assignments, where its
standard input comes from, the directory it runs in (`cd` is followed), and git's
`-c` settings.
"""

from __future__ import annotations

import os

from handrail.policy.shell.handlers import (
    DOWNLOAD,
    DOWNLOADERS,
    DYNAMIC,
    SHELLS,
    command_options,
    exec_env,
    step,
)
from handrail.policy.shell.syntax import (
    SENT,
    Compound,
    Pipeline,
    ShellSyntaxError,
    Simple,
    Word,
    parse,
)

TYPE_CHECKING = False  # typing itself costs milliseconds on the hot path
if TYPE_CHECKING:
    from handrail.policy.shell.syntax import Redir

DOWNLOADED, UNKNOWN = "\x00downloaded", "\x00unknown"
SCRIPT_RUNNERS = frozenset({"python", "node", "perl", "ruby", "php", "bun", "deno", "source", "."})
FORK_BOMB = "fork-bomb"
MAX_STEPS = 48


class Part:
    """One simple command as it will run."""

    __slots__ = ("words", "name", "assigns", "redirs", "via", "context", "pipe", "index", "cwd", "feed",
                 "stdin_text", "extra", "git_config", "flags", "func", "lead", "script_text")

    def __init__(self) -> None:
        self.words: list[Word] = []
        self.name = ""
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
        self.git_config: list[str] = []
        self.flags: list[tuple[str, str]] = []
        self.func = False
        self.lead = False  # the command a pipeline element runs (not a substitution or an -exec inside it)
        self.script_text: str | None = None  # the text of a script file this command line wrote and runs

    @property
    def text(self) -> str:
        if self.words:
            return " ".join(w.raw for w in self.words)
        return " ".join([w.raw for _, w in self.assigns] + [r.op + (r.target.raw if r.target else "") for r in self.redirs])

    def __repr__(self) -> str:
        return f"Part({self.text!r})"


# A word followed by another word or an option: `((git push -f))` is a command line, `((i += 1))` is not.
_COMMAND_LIKE = __import__("re").compile(r"^\s*[A-Za-z_./][\w./-]*\s+(?:-|[A-Za-z_./])|^\s*[A-Za-z_./][\w./-]*\s*$")
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
    if name.endswith(".exe"):
        name = name[:-4]
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


class State:
    """What the shell knows as it runs the command line: its folder, the functions and aliases
    defined so far, and the variables given a literal value (`f=.env; cat $f` reads `.env`)."""

    __slots__ = ("cwd", "funcs", "aliases", "vars")

    def __init__(self, cwd: str | None, funcs: set[str] | None = None, aliases: dict[str, str] | None = None,
                 vars: dict[str, str] | None = None) -> None:
        self.cwd = cwd
        self.funcs = funcs if funcs is not None else set()
        self.aliases = aliases if aliases is not None else {}
        self.vars = vars if vars is not None else {}

    def copy(self) -> State:
        return State(self.cwd, set(self.funcs), dict(self.aliases), dict(self.vars))


def split(text: str, cwd: str | None, home: str, depth: int = 0) -> list[Part]:
    """Every simple command in `text`, in order. Raises ShellSyntaxError."""
    flat = Flat(home, depth)
    flat.lists(parse(text, depth), State(cwd), "", [])
    return flat.out


class Flat:
    __slots__ = ("home", "depth", "out", "pipes", "files")

    def __init__(self, home: str, depth: int) -> None:
        self.home = home
        self.depth = depth
        self.out: list[Part] = []
        self.pipes = 0
        # Files this command line writes, by path: their text when it is fixed, or DOWNLOADED / UNKNOWN.
        # A script written and then run (`curl … > x.sh; sh x.sh`) is judged by what was written.
        self.files: dict[str, str] = {}

    # ------------------------------------------------------------------ tree walking

    def lists(self, pipelines: list[Pipeline], st: State, ctx: str, via: list[str]) -> None:
        for pl in pipelines:
            self.pipes += 1
            pid = self.pipes
            many = len(pl.cmds) > 1
            producers: list[tuple[bool, str | None]] = []
            for idx, node in enumerate(pl.cmds):
                start = len(self.out)
                self.node(node, st.copy() if many else st, ctx, via, pid, idx, producers)
                if many:
                    download = any(p.name in DOWNLOADERS for p in self.out[start:])
                    literal = _literal_output(node) if isinstance(node, Simple) else None
                    producers.append((download, literal))

    def subs(self, subs: list[list[Pipeline]], st: State, ctx: str, via: list[str], label: str) -> None:
        for sub in subs:
            self.lists(sub, st.copy(), _join(ctx, label), via)

    def node(self, node: Simple | Compound, st: State, ctx: str, via: list[str], pid: int, idx: int,
             producers: list[tuple[bool, str | None]]) -> None:
        if isinstance(node, Simple):
            self.simple(node, st, ctx, via, pid, idx, producers)
            return
        for w in node.words:
            self.subs(w.subs, st, ctx, via, "$(…)")
        for r in node.redirs:
            if r.target is not None:
                self.subs(r.target.subs, st, ctx, via, "$(…)")
            self.subs(r.body_subs, st, ctx, via, "$(…)")
        if node.kind == "cond" and any("[" in w.raw and ("$(" in w.raw or "`" in w.raw) for w in node.words):
            # `[[ -v 'a[$(cmd)]' ]]`: bash runs the subscript's command when it evaluates the name
            flagged = self.new_part(ctx, via, pid, idx, st)
            flagged.flags.append((DYNAMIC, "[[ … ]] evaluates an array subscript that holds a command"))
            self.out.append(flagged)
        if node.kind == "arith" and node.words and _COMMAND_LIKE.search(node.words[0].raw):
            # bash reads `((…))` as arithmetic, dash (/bin/sh on Debian) as two nested subshells:
            # what would run under the stricter reading is judged
            try:
                tree = parse(node.words[0].raw, self.depth + 1)
            except ShellSyntaxError:
                tree = []
            self.lists(tree, st.copy(), _join(ctx, "((…)) as sh reads it"), via)
        if node.kind == "func":
            st.funcs.add(node.name)
            start = len(self.out)
            for body in node.bodies:
                self.lists(body, st.copy(), _join(ctx, f"function {node.name}"), via)
            for p in self.out[start:]:
                if p.name == node.name.lower() or p.func and p.words and p.words[0].text == node.name:
                    p.flags.append((FORK_BOMB, f"function '{node.name}' calls itself"))
            return
        inner = st.copy() if node.kind == "subshell" else st
        for body in node.bodies:
            self.lists(body, inner, ctx, via)
        if node.redirs:
            part = self.new_part(ctx, via, pid, idx, st)
            part.redirs = node.redirs
            self.out.append(part)

    def new_part(self, ctx: str, via: list[str], pid: int, idx: int, st: State) -> Part:
        p = Part()
        p.context = ctx
        p.via = list(via)
        p.pipe = pid
        p.index = idx
        p.cwd = st.cwd
        return p

    # ------------------------------------------------------------------ simple commands

    def simple(self, node: Simple, st: State, ctx: str, via: list[str], pid: int, idx: int,
               producers: list[tuple[bool, str | None]]) -> None:
        for w in node.assigns:
            if w.subs:
                self.subs(w.subs, st, ctx, via, "$(…)")
        for w in node.words:
            if w.subs:
                self.subs(w.subs, st, ctx, via, "<(…)" if w.raw[:2] in ("<(", ">(") else "$(…)")
        for r in node.redirs:
            if r.target is not None and r.target.subs:
                self.subs(r.target.subs, st, ctx, via, "$(…)")
            if r.body_subs:
                self.subs(r.body_subs, st, ctx, via, "$(…)")
        part = self.new_part(ctx, via, pid, idx, st)
        part.lead = True
        if node.assigns:
            part.assigns = [(w.text.split("=", 1)[0].rstrip("+"), w) for w in node.assigns]
        part.redirs = [_known_redir(r, st) for r in node.redirs] if st.vars else node.redirs
        if node.redirs or idx:
            _feed(part, idx, producers)
        if not node.words:
            for name, w in part.assigns:
                # a plain assignment: later words that are only `$name` are its value
                if w.dyn or "[" in name:
                    st.vars.pop(name, None)
                else:
                    st.vars[name] = w.text.split("=", 1)[1]
            self.out.append(part)
            return
        words = [k for w in node.words for k in _known_split(w, st)] if st.vars else list(node.words)
        if words[0].text in st.aliases and not words[0].quoted:
            # an alias is text put in place of the command's first word, then read again
            text = st.aliases[words[0].text] + " " + " ".join(w.raw for w in words[1:])
            part.via.append(f"alias {words[0].text}")
            self.shell_text(part, text, False, False, f"alias {words[0].text}", st)
            return
        self.unwrap(part, words, st)

    def emit(self, part: Part, words: list[Word], st: State) -> None:
        part.words = words
        if not words:
            self.out.append(part)
            self.note_writes(part)
            return
        w0 = words[0]
        if w0.dyn:
            part.name = ""
            part.flags.append((DYNAMIC, f"the command name '{w0.raw}' is only known at run time"))
            self.out.append(part)
            return
        part.name = prog_name(w0.text)
        if any(w.text[:1] in _DASHES for w in words[1:]):
            # `rm –rf`: a dash look-alike is read as the dash it imitates
            part.words = words = [words[0]] + [_undashed(w) for w in words[1:]]
        if w0.text in st.funcs:
            part.func = True
        if part.assigns or part.name in ("export", "declare", "typeset", "local", "readonly"):
            exec_env(self, part, st)
        command_options(self, part, st)
        if self.files:
            self.note_run(part, st)
        self.out.append(part)
        self.note_writes(part)
        if part.name in ("cd", "pushd", "popd"):
            st.cwd = self.cd_target(part, st)
        elif part.name == "find":
            self.find_exec(part, st)

    def note_writes(self, part: Part) -> None:
        """Remember what this part writes into which file."""
        name = part.name
        if name in DOWNLOADERS:
            content = DOWNLOADED
        elif not part.words:
            content = ""
        else:
            literal = _literal_text(part)
            content = UNKNOWN if literal is None else literal
        targets: list[tuple[Word, str]] = []
        for r in part.redirs:
            if r.target is not None and r.op in (">", ">|", "&>", ">>", "&>>") and r.fd in (None, "1"):
                targets.append((r.target, content if r.op in (">", ">|", "&>") else UNKNOWN))
        if name == "tee":
            fed = DOWNLOADED if part.feed == "download" else part.stdin_text if part.stdin_text is not None \
                else UNKNOWN
            targets += [(w, fed) for w in part.words[1:] if not w.text.startswith("-")]
        elif name in ("curl", "wget"):
            flag = ("-o", "--output") if name == "curl" else ("-O", "--output-document")
            for i, w in enumerate(part.words[:-1]):
                if w.text in flag:
                    targets.append((part.words[i + 1], DOWNLOADED))
        for w, text in targets:
            path = resolve(w, part.cwd, self.home)
            if path is not None:
                self.files[path] = text

    def note_run(self, part: Part, st: State) -> None:
        """A part that runs a script this command line wrote: judge what was written."""
        script = _script_word(part)
        if script is None:
            return
        path = resolve(script, part.cwd, self.home)
        content = self.files.get(path) if path is not None else None
        if content is None:
            return
        if content == DOWNLOADED:
            part.flags.append((DOWNLOAD, f"{part.name} runs {script.raw}, downloaded earlier in this command"))
        elif content == UNKNOWN:
            part.flags.append((DYNAMIC, f"{part.name} runs {script.raw}, written earlier in this command from "
                                        "output only known at run time"))
        elif part.name in SHELLS or part.name in ("source", ".") or "/" in part.words[0].text:
            runner = self.new_part(part.context, part.via, part.pipe, part.index, st)
            self.shell_text(runner, content, False, False, f"script {script.raw}", st)
        else:
            part.script_text = content

    def cd_target(self, part: Part, st: State) -> str | None:
        args = [w for w in part.words[1:] if not (w.text.startswith("-") and len(w.text) > 1 and not w.dyn)]
        if part.name == "popd":
            return None
        if not args:
            return self.home if part.name == "cd" else None
        if args[0].text == "-":
            return None
        return resolve(args[0], st.cwd, self.home)

    def find_exec(self, part: Part, st: State) -> None:
        words = part.words
        i = 1
        while i < len(words):
            if words[i].text in ("-exec", "-execdir", "-ok", "-okdir"):
                label = "find " + words[i].text
                j = i + 1
                while j < len(words) and words[j].text not in (";", "+"):
                    j += 1
                inner = [_found_file() if w.text == "{}" else w for w in words[i + 1 : j]]
                if inner:
                    sub = self.new_part(part.context, part.via + [label], part.pipe, part.index, st)
                    sub.extra = True
                    self.unwrap(sub, inner, st.copy())
                i = j
            i += 1

    def shell_text(self, part: Part, text: str, dyn: bool, subs_download: bool, label: str, st: State,
                   words: list[Word] | None = None) -> None:
        """Parse shell text that another program will run; flag it when it is built at run time."""
        if dyn:
            rule = DOWNLOAD if subs_download else DYNAMIC
            part.flags.append((rule, f"{label} runs shell text built at run time"))
            part.name = part.name or prog_name(label.split()[0])
            if words and not part.words:
                part.words = words
            self.out.append(part)
            return
        if self.depth >= 12:
            raise ShellSyntaxError("shell text nested too deeply")
        try:
            tree = parse(text, self.depth + 1)
        except ShellSyntaxError as e:
            raise ShellSyntaxError(f"{label}: {e}") from None
        if part.flags or part.assigns:
            # what the wrapper itself set (`BASH_ENV=x bash -c …`, `env -u X sh -c …`) is judged too
            carrier = self.new_part(part.context, part.via, part.pipe, part.index, st)
            carrier.assigns, carrier.flags = part.assigns, part.flags
            self.out.append(carrier)
        inner = State(part.cwd, set(st.funcs))
        self.depth += 1
        try:
            self.lists(tree, inner, _join(part.context, label), part.via + [label])
        finally:
            self.depth -= 1

    def unwrap(self, part: Part, words: list[Word], st: State) -> None:
        for _ in range(MAX_STEPS):
            w0 = words[0]
            if w0.dyn:
                break
            name = prog_name(w0.text)
            if w0.text in st.funcs:
                break
            nxt = step(self, part, name, words, st)
            if nxt is None:
                return
            if nxt is words:
                break
            if not nxt:
                part.func = True  # a wrapper that runs nothing (`command -v x`): a lookup
                self.emit(part, [w0], st)
                return
            words = nxt
        self.emit(part, words, st)

_DASHES = frozenset("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d")


def _undashed(w: Word) -> Word:
    if w.text[:1] not in _DASHES:
        return w
    text = w.text
    i = 0
    while i < len(text) and text[i] in _DASHES:
        i += 1
    # an em dash is what typography makes of `--`; the others stand for one `-`
    lead = "".join("--" if c in "\u2014\u2015" else "-" for c in text[:i])[:2]
    out = Word(lead + text[i:], w.raw)
    out.dyn, out.wild, out.glob, out.quoted = w.dyn, w.wild, w.glob, w.quoted
    return out


def _var_name(w: Word) -> str | None:
    """`$name`, `${name}` or `"$name"`: a word that is one variable and nothing else."""
    raw = w.raw.strip('"')
    if raw.startswith("${") and raw.endswith("}"):
        raw = "$" + raw[2:-1]
    name = raw[1:]
    return name if raw.startswith("$") and name.replace("_", "a").isalnum() and not name[:1].isdigit() else None


def _known(w: Word, st: State) -> Word:
    if not w.dyn:
        return w
    name = _var_name(w)
    if name is None or name not in st.vars:
        return w
    out = Word(st.vars[name], w.raw)
    out.quoted = w.quoted
    return out


def _known_split(w: Word, st: State) -> list[Word]:
    """`c="rm -rf"; $c src`: an unquoted expansion splits into words where its value has blanks."""
    out = _known(w, st)
    if out is w or not w.wild or not out.text.split() or len(out.text.split()) == 1:
        return [out]
    return [Word(t, w.raw) for t in out.text.split()]


def _known_redir(r: Redir, st: State) -> Redir:
    if r.target is None or not r.target.dyn:
        return r
    target = _known(r.target, st)
    if target is r.target:
        return r
    from handrail.policy.shell.syntax import Redir as R

    out = R(r.op, r.fd, target)
    out.body, out.body_quoted, out.body_subs, out.body_dyn = r.body, r.body_quoted, r.body_subs, r.body_dyn
    return out


def _join(ctx: str, label: str) -> str:
    return f"{ctx} > {label}" if ctx else label


def _found_file() -> Word:
    w = Word(SENT, "{}")
    w.dyn = True
    return w


def _literal_text(part: Part) -> str | None:
    """What `echo`/`printf`/`cat <<EOF` in a part writes, when it is fixed text."""
    name = part.name
    args = part.words[1:]
    if any(w.dyn for w in args):
        return None
    if name == "echo" and not (args and args[0].text in ("-e", "-ne", "-en")):
        while args and args[0].text in ("-n", "-e", "-E", "-ne", "-en"):
            args = args[1:]
        return " ".join(w.text for w in args) + "\n"
    if name == "printf" and args and "%" not in args[0].text.replace("%%", ""):
        # printf reads its format's escapes as $'…' does: `printf '\x72m -rf x' | sh`
        from handrail.policy.shell.expand import ansi_c

        return ansi_c(args[0].text.replace("%%", "%"))
    if name == "echo" and args and args[0].text in ("-e", "-ne", "-en"):
        from handrail.policy.shell.expand import ansi_c

        return ansi_c(" ".join(w.text for w in args[1:]))
    if name == "cat" and not args and part.feed in ("heredoc", "herestring"):
        return part.stdin_text
    return None


def _script_word(part: Part) -> Word | None:
    """The script file a part runs, if it runs one."""
    words = part.words
    name = part.name
    if "/" in words[0].text and not words[0].dyn:
        return words[0]
    if name not in SHELLS and name not in SCRIPT_RUNNERS:
        return None
    for i, w in enumerate(words[1:], 1):
        t = w.text
        if name == "python" and t in ("-m", "-c") or name in ("node", "bun") and t in ("-e", "-p", "--eval"):
            return None
        if t.startswith(("-", "+")) and len(t) > 1:
            if name in SHELLS and "c" in t and t[0] == "-" and not t.startswith("--"):
                return None
            continue
        if name == "deno" and t in ("run", "eval"):
            continue
        return w
    return None


def _literal_output(node: Simple) -> str | None:
    """What `echo`/`printf`/`cat <<EOF` writes, when it is fixed text."""
    if not node.words:
        return None
    name = prog_name(node.words[0].text)
    args = node.words[1:]
    if any(w.dyn for w in args):
        return None
    if name == "echo" and not (args and args[0].text in ("-e", "-ne", "-en")):
        while args and args[0].text in ("-n", "-e", "-E", "-ne", "-en"):
            args = args[1:]
        return " ".join(w.text for w in args)
    if name == "printf" and args and "%" not in args[0].text.replace("%%", ""):
        # printf reads its format's escapes as $'…' does: `printf '\x72m -rf x' | sh`
        from handrail.policy.shell.expand import ansi_c

        return ansi_c(args[0].text.replace("%%", "%"))
    if name == "echo" and args and args[0].text in ("-e", "-ne", "-en"):
        from handrail.policy.shell.expand import ansi_c

        return ansi_c(" ".join(w.text for w in args[1:]))
    if name == "cat" and not args:
        for r in node.redirs:
            if r.op in ("<<", "<<-") and r.body is not None and (r.body_quoted or not r.body_dyn):
                return r.body
            if r.op == "<<<" and r.target is not None and not r.target.dyn:
                return r.target.text
    return None


def _feed(part: Part, idx: int, producers: list[tuple[bool, str | None]]) -> None:
    """Where a part's standard input comes from; its text when that is fixed."""
    for r in part.redirs:
        if r.fd not in (None, "0"):
            continue
        if r.op in ("<<", "<<-"):
            part.feed = "heredoc"
            body = r.body or ""
            part.stdin_text = body if (r.body_quoted or not r.body_dyn) else None
        elif r.op == "<<<":
            part.feed = "herestring"
            target = r.target
            part.stdin_text = target.text if target is not None and not target.dyn else None
        elif r.op == "<":
            target = r.target
            if target is not None and target.raw[:2] == "<(":
                # `sh < <(curl …)` is `curl … | sh`
                from handrail.policy.shell.handlers import _has_download

                part.feed = "download" if _has_download(target) else "pipe"
            else:
                part.feed = "file"
            part.stdin_text = None
    if part.feed is None and idx > 0:
        if any(d for d, _ in producers):
            part.feed = "download"
        else:
            part.feed = "pipe"
            last = producers[-1][1] if producers else None
            part.stdin_text = last if len(producers) == 1 else None
