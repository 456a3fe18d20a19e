"""The structure of shell text: lists, pipelines, commands, compound commands, redirections.

`parse` reads the whole text; the fast paths (fastpath.py) take the common case, and
`_Parser` (the word reader of words.py, with the structure here) the rest.
"""

from __future__ import annotations

from handrail.policy.shell.expand import brace_expand
from handrail.policy.shell.fastpath import fast_parse
from handrail.policy.shell.nodes import (
    ASSIGN,
    MAX_DEPTH,
    MAX_INPUT,
    SENT,
    Compound,
    Pipeline,
    Redir,
    ShellSyntaxError,
    Simple,
    Word,
)
from handrail.policy.shell.words import DELIM, WordReader


def parse(text: str, depth: int = 0) -> list[Pipeline]:
    """The whole text as a list of pipelines. Raises ShellSyntaxError."""
    if depth > MAX_DEPTH:
        raise ShellSyntaxError("commands nested too deeply")
    if len(text) > MAX_INPUT:
        raise ShellSyntaxError(f"{len(text):,} characters, more than the {MAX_INPUT // 1024} KiB handrail judges")
    fast = fast_parse(text)
    if fast is not None:
        return fast
    p = _Parser(text.replace(SENT, ""), depth)
    try:
        out = p.parse_list(frozenset(), None)
    except RecursionError:
        raise ShellSyntaxError("commands nested too deeply") from None
    if p.i < p.n:
        p.error(f"unexpected '{p.s[p.i]}'")
    return out


class _Parser(WordReader):
    __slots__ = ()

    def nested(self, text: str) -> list[Pipeline]:
        return parse(text, self.depth + 1)

    # ------------------------------------------------------------------ lists and pipelines

    def parse_list(self, terms: frozenset[str], closer: str | None, in_case: bool = False) -> list[Pipeline]:
        out: list[Pipeline] = []
        cond = False
        while True:
            self.skip_newlines()
            if self.i >= self.n:
                if closer is not None:
                    self.error(f"missing '{closer}'")
                return out
            if closer is not None and self.s[self.i] == closer:
                return out
            kw = self.peek_reserved()
            if kw is not None and kw in terms:
                return out
            op = self.peek_op()
            if op in (";;", ";&", ";;&") and in_case:
                return out
            if op is not None and op != "(" and self.peek_redir() is None:
                self.error(f"unexpected '{op.strip() or 'newline'}'")
            pl = self.parse_pipeline()
            pl.cond = cond
            out.append(pl)
            cond = False
            self.skip_blanks()
            op = self.peek_op()
            if op in ("&&", "||"):
                cond = True
                self.i += 2
                self.skip_newlines()
                if self.i >= self.n:
                    self.error(f"a command must follow '{op}'")
            elif op in (";", "&", "\n"):
                self.i += 1
                if op == "\n":
                    self.read_heredocs()
            elif op in (";;", ";&", ";;&"):
                if not in_case:
                    self.error(f"unexpected '{op}'")
                return out
            elif op == ")":
                if closer != ")":
                    self.error("unexpected ')'")
                return out
            elif self.i < self.n:
                kw = self.peek_reserved()
                if kw is None or kw not in terms:
                    self.error(f"unexpected '{self.s[self.i]}'")

    def parse_pipeline(self) -> Pipeline:
        while True:
            self.skip_blanks()
            kw = self.peek_reserved()
            if kw in ("!", "time", "coproc"):
                self.i += len(kw)
                if kw == "time":
                    self.skip_blanks()
                    if self.s.startswith("-p", self.i) and self.s[self.i + 2 : self.i + 3] in ("", " ", "\t"):
                        self.i += 2
                continue
            break
        cmds = [self.parse_command()]
        while True:
            self.skip_blanks()
            op = self.peek_op()
            if op not in ("|", "|&"):
                return Pipeline(cmds)
            self.i += len(op)
            self.skip_newlines()
            if self.i >= self.n:
                self.error("a command must follow '|'")
            cmds.append(self.parse_command())

    # ------------------------------------------------------------------ commands

    def parse_command(self) -> Simple | Compound:
        self.skip_blanks()
        s, i = self.s, self.i
        if i >= self.n:
            self.error("expected a command")
        node: Simple | Compound
        kw = self.peek_reserved()
        if s.startswith("((", i):
            self.i += 2
            node = Compound("arith", words=[self.scan_until_parens()])
        elif s[i] == "(":
            self.i += 1
            body = self.parse_list(frozenset(), ")")
            self.i += 1
            node = Compound("subshell", [body])
        elif kw == "{":
            self.i += 1
            body = self.parse_list(frozenset({"}"}), None)
            self.eat_reserved("}")
            node = Compound("group", [body])
        elif kw == "if":
            node = self.parse_if()
        elif kw in ("while", "until"):
            self.i += len(kw)
            cond = self.parse_list(frozenset({"do"}), None)
            self.eat_reserved("do")
            body = self.parse_list(frozenset({"done"}), None)
            self.eat_reserved("done")
            node = Compound("while", [cond, body])
        elif kw in ("for", "select"):
            node = self.parse_for(kw)
        elif kw == "case":
            node = self.parse_case()
        elif kw == "function":
            self.i += len(kw)
            self.skip_blanks()
            name = self.read_word()
            self.skip_blanks()
            if self.s.startswith("()", self.i):
                self.i += 2
            self.skip_newlines()
            node = Compound("func", [[Pipeline([self.parse_command()])]], name=name.text)
        elif kw == "[[":
            node = self.parse_cond()
        elif kw is not None and kw not in ("!", "time", "coproc"):
            self.error(f"unexpected '{kw}'")
            raise AssertionError  # unreachable
        else:
            return self.parse_simple()
        self.read_redirs(node)
        return node

    def read_redirs(self, node: Simple | Compound) -> None:
        while True:
            self.skip_blanks()
            r = self.peek_redir()
            if r is None:
                return
            node.redirs += self.parse_redirs(*r)

    def parse_simple(self) -> Simple | Compound:
        cmd = Simple()
        while True:
            self.skip_blanks()
            if self.i >= self.n:
                break
            r = self.peek_redir()
            if r is not None:
                cmd.redirs += self.parse_redirs(*r)
                continue
            op = self.peek_op()
            if op == "(" and len(cmd.words) == 1 and not cmd.assigns:
                j = self.i + 1
                while j < self.n and self.s[j] in " \t":
                    j += 1
                if j < self.n and self.s[j] == ")":
                    self.i = j + 1
                    self.skip_newlines()
                    body = self.parse_command()
                    return Compound("func", [[Pipeline([body])]], name=cmd.words[0].text)
                self.error("unexpected '('")
            if op is not None:
                if op == "(":
                    self.error("unexpected '('")
                break
            start = self.i
            w = self.read_word()
            if not cmd.words and ASSIGN.match(self.s, start):
                cmd.assigns.append(w)
            else:
                cmd.words += self.brace_words(w)
        if not cmd.words and not cmd.assigns and not cmd.redirs:
            self.error("expected a command")
        return cmd

    def brace_words(self, w: Word) -> list[Word]:
        """The words bash's brace expansion makes of `w`: `rm -rf {x,/}` removes `/`."""
        if "{" not in w.raw:
            return [w]
        alts = brace_expand(w.raw)
        if alts is None:
            return [w]
        out = []
        for alt in alts:
            if not alt:
                continue  # an unquoted empty word is dropped
            sub = _Parser(alt, self.depth)
            try:
                one = sub.read_word()
            except ShellSyntaxError:
                return [w]
            if sub.i != sub.n:
                return [w]
            out.append(one)
        return out or [w]

    def parse_redirs(self, fd: str | None, op: str) -> list[Redir]:
        """One redirection; one for each word its target expands to (`> {.git/config,}`)."""
        r = self.parse_redir(fd, op)
        if op in ("<<", "<<-", "<<<") or r.target is None:
            return [r]  # bash does not brace-expand a here-document's delimiter or a here-string
        targets = self.brace_words(r.target)
        if len(targets) == 1 and targets[0] is r.target:
            return [r]
        return [Redir(op, fd, t) for t in targets]

    def parse_redir(self, fd: str | None, op: str) -> Redir:
        self.i += (len(fd) if fd else 0) + len(op)
        self.skip_blanks()
        if self.i >= self.n or self.peek_op() is not None or self.peek_redir() is not None:
            self.error(f"a file name must follow '{op}'")
        start = self.i
        target = self.read_word()
        r = Redir(op, fd, target)
        if op in ("<<", "<<-"):
            raw = self.s[start : self.i]
            r.body_quoted = any(c in raw for c in "'\"\\")
            self.pending.append((r, target.text))
        return r

    def parse_if(self) -> Compound:
        bodies: list[list[Pipeline]] = []
        self.i += 2
        while True:
            bodies.append(self.parse_list(frozenset({"then"}), None))
            self.eat_reserved("then")
            bodies.append(self.parse_list(frozenset({"elif", "else", "fi"}), None))
            self.skip_newlines()
            kw = self.peek_reserved()
            if kw == "elif":
                self.i += 4
                continue
            if kw == "else":
                self.i += 4
                bodies.append(self.parse_list(frozenset({"fi"}), None))
            self.eat_reserved("fi")
            return Compound("if", bodies)

    def parse_for(self, kw: str) -> Compound:
        self.i += len(kw)
        self.skip_blanks()
        words: list[Word] = []
        name = ""
        if self.s.startswith("((", self.i):
            self.i += 2
            words.append(self.scan_until_parens())
        else:
            name = self.read_word().raw
            self.skip_newlines()
            if self.peek_reserved() == "in":
                self.i += 2
                while True:
                    self.skip_blanks()
                    if self.i >= self.n or self.peek_op() is not None:
                        break
                    words += self.brace_words(self.read_word())
            else:
                # `for f; do …`: the loop runs over "$@", the arguments known only at run time
                every = Word(SENT, '"$@"')
                every.dyn = every.quoted = True
                words.append(every)
        self.skip_blanks()
        if self.peek_op() in (";", "\n"):
            self.i += 1
            if self.s[self.i - 1] == "\n":
                self.read_heredocs()
        self.skip_newlines()
        if self.peek_reserved() == "{":
            self.i += 1
            body = self.parse_list(frozenset({"}"}), None)
            self.eat_reserved("}")
        else:
            self.eat_reserved("do")
            body = self.parse_list(frozenset({"done"}), None)
            self.eat_reserved("done")
        return Compound(kw, [body], words, name)

    def parse_case(self) -> Compound:
        self.i += 4
        self.skip_blanks()
        words = [self.read_word()]
        self.eat_reserved("in")
        bodies: list[list[Pipeline]] = []
        while True:
            self.skip_newlines()
            if self.i >= self.n:
                self.error("missing 'esac'")
            if self.peek_reserved() == "esac":
                self.i += 4
                return Compound("case", bodies, words)
            if self.s[self.i] == "(":
                self.i += 1
            while True:
                self.skip_blanks()
                words.append(self.read_word())
                self.skip_blanks()
                if self.i < self.n and self.s[self.i] == "|":
                    self.i += 1
                    continue
                break
            if self.i >= self.n or self.s[self.i] != ")":
                self.error("expected ')' in a case pattern")
            self.i += 1
            bodies.append(self.parse_list(frozenset({"esac"}), None, in_case=True))
            op = self.peek_op()
            if op in (";;", ";&", ";;&"):
                self.i += len(op)

    def parse_cond(self) -> Compound:
        self.i += 2
        words: list[Word] = []
        while True:
            self.skip_blanks()
            if self.i >= self.n:
                self.error("missing ']]'")
            s, i = self.s, self.i
            if s.startswith("]]", i) and (i + 2 >= self.n or s[i + 2] in DELIM):
                self.i += 2
                return Compound("cond", words=words)
            if s[i] == "\n":
                self.i += 1
                continue
            if s[i] in "&|<>()":
                j = i + 1
                if j < self.n and s[j] == s[i] and s[i] in "&|":
                    j += 1
                self.i = j
                continue
            words.append(self.read_word())

    # ------------------------------------------------------------------ words
