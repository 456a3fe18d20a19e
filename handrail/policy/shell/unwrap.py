"""Syntax tree -> the simple commands that will run, every wrapper looked through.

`sudo env X=1 timeout 5 bash -c 'git push -f'` becomes one part, `git push -f`, reached
via sudo, env, timeout and `bash -c`. Shell text handed to another shell (`-c`, eval,
heredocs and here-strings fed to a shell, `echo … | sh`, `watch`, `ssh`) is parsed in
turn; text that only exists at run time is flagged `dynamic`, never trusted.
Each part carries what the rules need: its redirections, its assignments, where its
standard input comes from, the directory it runs in (`cd` is followed), and git's
`-c` settings.

`Flat` walks the tree; each wrapper is looked through by its handler in `handlers.HANDLERS`,
which is handed the walk itself to parse the shell text it finds.
"""

from __future__ import annotations

from handrail.policy.shell import shvars
from handrail.policy.shell.cmdopts import command_options, exec_env
from handrail.policy.shell.effects import of_part
from handrail.policy.shell.envvars import inherited
from handrail.policy.shell.handlers import step
from handrail.policy.shell.literal import (
    DASHES,
    assigned,
    feed,
    known_redir,
    known_split,
    literal_output,
    literal_text,
    script_word,
    undashed,
)
from handrail.policy.shell.parts import (
    DOWNLOAD,
    DOWNLOADERS,
    DYNAMIC,
    SHELLS,
    Part,
    State,
    prog_name,
    resolve,
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
from handrail.policy.shell.targets import WRITERS

# Read from here by the rules and the tests: a part, its program's name, a path, the walk.
__all__ = ["Flat", "Part", "State", "prog_name", "resolve", "split"]

DOWNLOADED, UNKNOWN = "\x00downloaded", "\x00unknown"
FORK_BOMB = "fork-bomb"
MAX_STEPS = 48

# A word followed by another word or an option: `((git push -f))` is a command line, `((i += 1))` is not.
_COMMAND_LIKE = __import__("re").compile(r"^\s*[A-Za-z_./][\w./-]*\s+(?:-|[A-Za-z_./])|^\s*[A-Za-z_./][\w./-]*\s*$")


def split(text: str, cwd: str | None, home: str, depth: int = 0) -> list[Part]:
    """Every simple command in `text`, in order. Raises ShellSyntaxError."""
    flat = Flat(home, depth)
    import os

    # what the command inherits from the environment it runs in, as `~` is the home folder
    flat.lists(parse(text, depth), State(cwd, vars=inherited(text, os.environ)), "", [])
    return flat.out


class Flat:
    __slots__ = ("depth", "files", "home", "out", "pipes", "walks")

    def __init__(self, home: str, depth: int) -> None:
        self.home = home
        self.depth = depth
        self.out: list[Part] = []
        self.pipes = 0
        self.walks = shvars.LOOP_WALKS  # loop bodies judged once per value, at most this many times in all
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
            before = dict(st.vars) if pl.cond else None
            for idx, node in enumerate(pl.cmds):
                start = len(self.out)
                self.node(node, st.copy() if many else st, ctx, via, pid, idx, producers)
                if many:
                    download = any(p.name in DOWNLOADERS for p in self.out[start:])
                    literal = literal_output(node) if isinstance(node, Simple) else None
                    producers.append((download, literal))
            if before is not None:
                st.settle(before)  # `a && f=x`: f may keep its old value

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
                if p.name == node.name.lower() or (p.func and p.words and p.words[0].text == node.name):
                    p.flags.append((FORK_BOMB, f"function '{node.name}' calls itself"))
            return
        shvars.walk_bodies(self, node, st, ctx, via)
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
        part.redirs = [known_redir(r, st) for r in node.redirs] if st.vars else node.redirs
        if node.redirs or idx:
            feed(part, idx, producers)
        raws = [w.raw for w in node.words + node.assigns if "$" in w.raw] + \
            [r.target.raw for r in node.redirs if r.target is not None and "$" in r.target.raw]
        if raws:
            st.forget(shvars.in_words(raws, st))
        if not node.words:
            for name, w in part.assigns:
                # a plain assignment: later words that are only `$name` are its value
                st.put(name, None if "[" in name else assigned(w, st))
            self.out.append(part)
            return
        words = [k for w in node.words for k in known_split(w, st)] if st.vars else list(node.words)
        changed = shvars.by_command(words, st)
        if words[0].text in st.aliases and not words[0].quoted:
            # an alias is text put in place of the command's first word, then read again
            text = st.aliases[words[0].text] + " " + " ".join(w.raw for w in words[1:])
            part.via.append(f"alias {words[0].text}")
            self.shell_text(part, text, False, False, f"alias {words[0].text}", st)
        else:
            self.unwrap(part, words, st)
        literal: dict[str, str] = {}
        if changed and words[0].text in shvars.DECLARERS:
            # `export NAME=VALUE` with a literal value gives NAME that value, as a plain assignment
            # does; `f=x; export f` (and readonly) names a variable without changing its value
            for w in words[1:]:
                name, eq, value = w.text.partition("=")
                if eq and not w.dyn and name in changed:
                    literal[name] = value
                elif not eq and not w.dyn and name in st.vars and words[0].text in ("export", "readonly"):
                    literal[name] = st.vars[name]
        st.forget(None if changed is None else changed - literal.keys())
        for name, value in literal.items():
            st.put(name, value)

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
        if any(w.text[:1] in DASHES for w in words[1:]):
            # `rm –rf`: a dash look-alike is read as the dash it imitates
            part.words = words = [words[0]] + [undashed(w) for w in words[1:]]
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
            literal = literal_text(part)
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
        if name in WRITERS and not targets:
            # a copy, a move, a link, an unpacked archive: what the file will hold is not known here
            for w in of_part(part).writes:  # computed once: the write rules read the same effects
                path = resolve(w, part.cwd, self.home) if not w.dyn else None
                if path is not None:
                    self.files.setdefault(path, UNKNOWN)

    def note_run(self, part: Part, st: State) -> None:
        """A part that runs a script this command line wrote: judge what was written."""
        script = script_word(part)
        if script is None:
            return
        path = resolve(script, part.cwd, self.home)
        content = self.files.get(path) if path is not None else None
        if content is None:
            return
        if content == DOWNLOADED:
            part.flags.append((DOWNLOAD, f"{part.name} runs {script.raw}, downloaded earlier in this command"))
        elif content == UNKNOWN:
            part.flags.append((DYNAMIC, (f"{part.name} runs {script.raw}, written earlier in this command from "
                                        "output only known at run time")))
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


def _join(ctx: str, label: str) -> str:
    return f"{ctx} > {label}" if ctx else label


def _found_file() -> Word:
    w = Word(SENT, "{}")
    w.dyn = True
    return w
