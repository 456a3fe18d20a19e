"""Shell text -> a syntax tree of the POSIX/bash subset that agents write.

shlex is not enough: it knows nothing of operators, heredocs, `$( … )`, backticks,
`<( … )` or reserved words. This parser reads all of them, keeps every nested
command (substitutions become sub-lists of the word they sit in), and raises
ShellSyntaxError on what bash itself would refuse, so that unparseable input is
reported and never silently passed. `handrail.policy.shell.unwrap` turns the tree into the
simple commands that are classified.

A word's `text` is its value after quote removal, with SENT standing for whatever an
expansion produces at run time.
"""

from __future__ import annotations

import re

SENT = "\x00"
MAX_DEPTH = 24

RESERVED = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for",
                      "select", "in", "function", "{", "}", "!", "[[", "time", "coproc"})
_DELIM = " \t\n;&|<>()"
_RUN = re.compile(r"[^ \t\n;&|<>()\\'\"`$*?\[]+")
_DQ_RUN = re.compile(r"[^\"\\$`]+")
_HD_RUN = re.compile(r"[^\\$`]+")
_BARE = re.compile(r"[^ \t\n;&|<>()]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_FD = re.compile(r"(?:\d+|\{[A-Za-z_][A-Za-z0-9_]*\})(?=[<>])")
_REDIR_OPS = ("&>>", "<<<", "<<-", "&>", "<<", "<>", "<&", ">&", ">>", ">|", "<", ">")
_REDIR_START = frozenset("<>&0123456789{")
_BLANK_START = frozenset(" \t\r\\#")
_RESERVED_START = frozenset(w[0] for w in RESERVED)
# Plain words only: no quoting, expansion, operator, comment, glob, tilde or brace.
_PLAIN = re.compile(r"[A-Za-z0-9_./:=@%+,^~*?\[\]&|; \t-]*+")
_SPECIAL_PARAMS = "@*#?-$!0123456789"


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
    subs: list[list[Pipeline]] = []  # never appended to: a word with substitutions gets its own list
    lead_var: str | None = None
    tilde = False

    def __init__(self, text: str, raw: str) -> None:
        self.text = text
        self.raw = raw

    def __repr__(self) -> str:
        return f"Word({self.raw!r})"


class Redir:
    __slots__ = ("op", "fd", "target", "body", "body_quoted", "body_subs", "body_dyn")

    def __init__(self, op: str, fd: str | None, target: Word | None) -> None:
        self.op = op
        self.fd = fd
        self.target = target
        self.body: str | None = None
        self.body_quoted = False
        self.body_subs: list[list[Pipeline]] = []
        self.body_dyn = False


class Simple:
    __slots__ = ("assigns", "words", "redirs")

    def __init__(self) -> None:
        self.assigns: list[Word] = []
        self.words: list[Word] = []
        self.redirs: list[Redir] = []


class Compound:
    """subshell, group, if, while, for, case, func, arith, cond: bodies are lists; words are what
    the construct itself expands (the `for` list, the `case` word, an arithmetic text)."""

    __slots__ = ("kind", "bodies", "words", "redirs", "name")

    def __init__(self, kind: str, bodies: list[list[Pipeline]] | None = None, words: list[Word] | None = None,
                 name: str = "") -> None:
        self.kind = kind
        self.bodies = bodies or []
        self.words = words or []
        self.redirs: list[Redir] = []
        self.name = name


class Pipeline:
    __slots__ = ("cmds",)

    def __init__(self, cmds: list[Simple | Compound]) -> None:
        self.cmds = cmds


def parse(text: str, depth: int = 0) -> list[Pipeline]:
    """The whole text as a list of pipelines. Raises ShellSyntaxError."""
    if depth > MAX_DEPTH:
        raise ShellSyntaxError("commands nested too deeply")
    if len(text) > MAX_INPUT:
        raise ShellSyntaxError(f"{len(text):,} characters, more than the {MAX_INPUT // 1024} KiB handrail judges")
    if _PLAIN.fullmatch(text):
        fast = _plain(text)
        if fast is not None:
            return fast
    if _SIMPLE_TEXT.fullmatch(text):
        fast = _simple_list(text)
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
        if not cmd.words and "=" in raw and _ASSIGN.match(raw):
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
_SIMPLE_TEXT = re.compile(r"""(?:[ \t]++|&&|\|\||\|&|[|;]|[0-9]*(?:>>|>&|&>|[<>])|(?:[A-Za-z0-9_./:=@%+,^~*?\[\]-]++|'[^']*+'|"[^"\\$`!]*+")++)*+""")
_SIMPLE_TOKEN = re.compile(r"""[ \t]*+(?:(&&|\|\||\|&|[|;])|([0-9]*)(>>|>&|&>|[<>])|((?:[A-Za-z0-9_./:=@%+,^~*?\[\]-]++|'[^']*+'|"[^"\\$`!]*+")++))""")
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
            if not cmd.words and "=" in raw and _ASSIGN.match(raw):
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


BRACE_LIMIT = 256
BRACE_WORK = 4 * BRACE_LIMIT  # calls (weighted by length) one word's expansion may take
MAX_INPUT = 128 * 1024  # longer shell text is not judged: a human reads it
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


class _Parser:
    __slots__ = ("s", "n", "i", "depth", "pending")

    def __init__(self, text: str, depth: int) -> None:
        self.s = text
        self.n = len(text)
        self.i = 0
        self.depth = depth
        self.pending: list[tuple[Redir, str]] = []

    def error(self, message: str) -> None:
        raise ShellSyntaxError(message, self.i)

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

    def parse_list(self, terms: frozenset[str], closer: str | None, in_case: bool = False) -> list[Pipeline]:
        out: list[Pipeline] = []
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
            out.append(self.parse_pipeline())
            self.skip_blanks()
            op = self.peek_op()
            if op in ("&&", "||"):
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
            if not cmd.words and _ASSIGN.match(self.s, start):
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

    def read_heredocs(self) -> None:
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
                sub = _Parser(r.body, self.depth)
                w = sub.scan_text(_HD_RUN, None)
                r.body_subs, r.body_dyn = w.subs, w.dyn
        self.pending = []

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
        if self.s.startswith("((", self.i):
            self.i += 2
            words.append(self.scan_until_parens())
        else:
            self.read_word()
            self.skip_newlines()
            if self.peek_reserved() == "in":
                self.i += 2
                while True:
                    self.skip_blanks()
                    if self.i >= self.n or self.peek_op() is not None:
                        break
                    words += self.brace_words(self.read_word())
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
        return Compound("for", [body], words)

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
            if s.startswith("]]", i) and (i + 2 >= self.n or s[i + 2] in _DELIM):
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

    def read_word(self) -> Word:
        s, n = self.s, self.n
        start = i = self.i
        parts: list[str] = []
        w = Word("", "")
        w.subs = []
        w.tilde = i < n and s[i] == "~"
        while i < n:
            m = _RUN.match(s, i)
            if m:
                parts.append(m.group())
                i = m.end()
                continue
            c = s[i]
            if c in "<>" and i + 1 < n and s[i + 1] == "(" and i == start:
                self.i = i + 2
                w.subs.append(self.parse_list(frozenset(), ")"))
                i = self.i + 1
                parts.append(SENT)
                w.dyn = True
                continue
            if c == "(":
                prev = s[i - 1] if i > start else ""
                text = "".join(parts)
                if prev and prev in "@!+*?":
                    self.i = i
                    parts.append(self.balanced_literal())
                    i = self.i
                    w.glob = True
                    continue
                if text.endswith("=") and _ASSIGN.fullmatch(s[start:i]):
                    self.i = i + 1
                    while True:
                        self.skip_newlines()
                        if self.i >= n:
                            self.error("missing ')' in an array")
                        if s[self.i] == ")":
                            break
                        el = self.read_word()
                        w.subs += el.subs
                        w.dyn = w.dyn or el.dyn
                    i = self.i + 1
                    parts.append("(…)")
                    continue
                break
            if c in _DELIM:
                break
            if c == "\\":
                if i + 1 < n:
                    if s[i + 1] == "\n":
                        i += 2
                        continue
                    parts.append(s[i + 1])
                    w.quoted = True
                    i += 2
                else:
                    parts.append("\\")
                    i += 1
                continue
            if c == "'":
                j = s.find("'", i + 1)
                if j < 0:
                    self.i = i
                    self.error("unterminated single quote")
                parts.append(s[i + 1 : j])
                w.quoted = True
                i = j + 1
                continue
            if c == '"':
                self.i = i + 1
                inner = self.scan_text(_DQ_RUN, '"')
                parts.append(inner.text)
                w.subs += inner.subs
                w.dyn = w.dyn or inner.dyn
                if inner.lead_var and i == start:
                    w.lead_var = inner.lead_var
                w.quoted = True
                i = self.i
                continue
            if c == "`":
                self.i = i
                w.subs.append(self.backtick())
                parts.append(SENT)
                w.dyn = w.wild = True
                i = self.i
                continue
            if c == "$":
                self.i = i
                kind = self.dollar(w, parts, quoted=False, at_start=i == start)
                if kind == "quote":
                    w.quoted = True
                i = self.i
                continue
            # glob characters
            parts.append(c)
            w.glob = True
            i += 1
        self.i = i
        if i == start:
            self.error(f"unexpected '{s[i]}'" if i < n else "unexpected end of input")
        w.text = "".join(parts)
        w.raw = s[start:i]
        return w

    def balanced_literal(self) -> str:
        """An extglob group `(…)`, taken as it is."""
        s, depth, start = self.s, 0, self.i
        i = start
        while i < self.n:
            c = s[i]
            if c == "\\":
                i += 2
                continue
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    self.i = i + 1
                    return s[start : i + 1]
            i += 1
        self.error("missing ')'")
        raise AssertionError

    def scan_text(self, run: re.Pattern[str], closer: str | None) -> Word:
        """Double-quoted text (closer '"') or a heredoc body (closer None): only `$`, backticks
        and backslashes are special."""
        s, n = self.s, self.n
        w = Word("", "")
        w.subs = []
        parts: list[str] = []
        start = self.i
        while True:
            i = self.i
            if i >= n:
                if closer is None:
                    break
                self.error("unterminated double quote")
            m = run.match(s, i)
            if m:
                parts.append(m.group())
                self.i = m.end()
                continue
            c = s[i]
            if c == closer:
                self.i = i + 1
                break
            if c == "\\":
                nxt = s[i + 1 : i + 2]
                if nxt == "\n":
                    self.i = i + 2
                elif nxt and nxt in "$`\"\\":
                    parts.append(nxt)
                    self.i = i + 2
                else:
                    parts.append("\\")
                    self.i = i + 1
                continue
            if c == "`":
                w.subs.append(self.backtick(in_quotes=closer == '"'))
                parts.append(SENT)
                w.dyn = True
                continue
            if c == "$":
                self.dollar(w, parts, quoted=True, at_start=i == start)
                continue
            parts.append(c)  # a `"` inside a heredoc body
            self.i = i + 1
        w.text = "".join(parts)
        return w

    def dollar(self, w: Word, parts: list[str], *, quoted: bool, at_start: bool) -> str:
        """One `$…` at self.i. Returns 'quote' for `$'…'`/`$"…"`, 'exp' for an expansion, 'lit' for a `$`."""
        s, n, i = self.s, self.n, self.i
        nxt = s[i + 1] if i + 1 < n else ""
        if nxt == "'" and not quoted:
            j = i + 2
            while j < n and s[j] != "'":
                j += 2 if s[j] == "\\" else 1
            if j >= n:
                self.error("unterminated $'…' string")
            parts.append(ansi_c(s[i + 2 : j]))
            self.i = j + 1
            return "quote"
        if nxt == '"' and not quoted:
            self.i = i + 2
            inner = self.scan_text(_DQ_RUN, '"')
            parts.append(inner.text)
            w.subs += inner.subs
            w.dyn = w.dyn or inner.dyn
            return "quote"
        if s.startswith("((", i + 1):
            self.i = i + 3
            inner = self.scan_until_parens()
            w.subs += inner.subs
        elif nxt == "(":
            self.i = i + 2
            w.subs.append(self.parse_list(frozenset(), ")"))
            self.i += 1
        elif nxt == "[":  # `$[ … ]`: old arithmetic
            j = s.find("]", i)
            if j < 0:
                self.error("missing ']'")
            self.i = j + 1
        elif nxt == "{":
            self.i = i + 2
            m = _NAME.match(s, self.i)
            name = m.group() if m else ""
            inner = self.param_body()
            w.subs += inner.subs
            if at_start and name and s[self.i - 1 - 0] == "}" and self.i == i + 3 + len(name):
                w.lead_var = name
        elif nxt and (nxt in _SPECIAL_PARAMS):
            self.i = i + 2
        else:
            m = _NAME.match(s, i + 1)
            if m is None:
                parts.append("$")
                self.i = i + 1
                return "lit"
            self.i = m.end()
            if at_start:
                w.lead_var = m.group()
        parts.append(SENT)
        w.dyn = True
        if not quoted:
            w.wild = True
        return "exp"

    def param_body(self) -> Word:
        """The inside of `${…}` up to its closing brace; substitutions inside are kept."""
        s, n = self.s, self.n
        w = Word("", "")
        w.subs = []
        depth = 1
        while self.i < n:
            c = s[self.i]
            if c == "\\":
                self.i += 2
            elif c == "'":
                j = s.find("'", self.i + 1)
                if j < 0:
                    self.error("unterminated single quote")
                self.i = j + 1
            elif c == '"':
                self.i += 1
                inner = self.scan_text(_DQ_RUN, '"')
                w.subs += inner.subs
            elif c == "`":
                w.subs.append(self.backtick())
            elif c == "$":
                self.dollar(w, [], quoted=True, at_start=False)
            elif c == "{":
                depth += 1
                self.i += 1
            elif c == "}":
                depth -= 1
                self.i += 1
                if depth == 0:
                    return w
            else:
                self.i += 1
        self.error("missing '}'")
        raise AssertionError

    def scan_until_parens(self) -> Word:
        """Arithmetic text up to the matching `))`; substitutions inside are kept."""
        s, n = self.s, self.n
        w = Word("", "")
        w.subs = []
        start = self.i
        depth = 0
        while self.i < n:
            c = s[self.i]
            if c == "(":
                depth += 1
                self.i += 1
            elif c == ")":
                if depth == 0:
                    if s.startswith("))", self.i):
                        w.raw = s[start : self.i]
                        w.text = SENT
                        w.dyn = True
                        self.i += 2
                        return w
                    self.error("missing '))'")
                depth -= 1
                self.i += 1
            elif c == "$":
                self.dollar(w, [], quoted=True, at_start=False)
            elif c == "`":
                w.subs.append(self.backtick())
            elif c == "\\":
                self.i += 2
            else:
                self.i += 1
        self.error("missing '))'")
        raise AssertionError

    def backtick(self, in_quotes: bool = False) -> list[Pipeline]:
        s, n = self.s, self.n
        i = self.i + 1
        out: list[str] = []
        # Inside "…", bash also drops the backslash of \" in a backquoted command.
        special = "$`\\\"" if in_quotes else "$`\\"
        while i < n:
            c = s[i]
            if c == "\\" and i + 1 < n:
                out.append(s[i + 1] if s[i + 1] in special else s[i : i + 2])
                i += 2
                continue
            if c == "`":
                self.i = i + 1
                return parse("".join(out), self.depth + 1)
            out.append(c)
            i += 1
        self.error("unterminated backquote")
        raise AssertionError
