"""One shell word: quotes, escapes, `$…` expansions, backticks and `$( … )`.

A substitution holds a whole command list, which is the parser's to read: the word reader
asks for it through `parse_list` and `nested`, which the parser provides, so that this
module never imports the parser.
"""

from __future__ import annotations

import re

from handrail.policy.shell.expand import ansi_c
from handrail.policy.shell.lexer import Lexer
from handrail.policy.shell.nodes import ASSIGN, SENT, Word

TYPE_CHECKING = False  # typing itself costs milliseconds on the hot path
if TYPE_CHECKING:
    from handrail.policy.shell.nodes import Pipeline

DELIM = " \t\n;&|<>()"
_RUN = re.compile(r"[^ \t\n;&|<>()\\'\"`$*?\[]+")
DQ_RUN = re.compile(r"[^\"\\$`]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL_PARAMS = "@*#?-$!0123456789"


class WordReader(Lexer):
    __slots__ = ()

    def parse_list(self, terms: frozenset[str], closer: str | None, in_case: bool = False) -> list[Pipeline]:
        raise NotImplementedError  # the parser's: `$( … )` and `<( … )` hold a command list

    def nested(self, text: str) -> list[Pipeline]:
        raise NotImplementedError  # the parser's: a backquoted command, parsed one level deeper

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
            if c in "<>(":
                j = self.word_paren(w, parts, start, i)
                if j < 0:
                    break
                i = j
                continue
            if c in DELIM:
                break
            i = self.word_part(w, parts, start, i)
        self.i = i
        if i == start:
            self.error(f"unexpected '{s[i]}'" if i < n else "unexpected end of input")
        w.text = "".join(parts)
        w.raw = s[start:i]
        return w

    def word_paren(self, w: Word, parts: list[str], start: int, i: int) -> int:
        """A `<( … )`, an extglob group or an array `a=( … )` at `i` in the word that starts at
        `start`: the index after it, or -1 when the `(`, `<` or `>` ends the word."""
        s, n = self.s, self.n
        c = s[i]
        if c in "<>" and i + 1 < n and s[i + 1] == "(" and i == start:
            self.i = i + 2
            w.subs.append(self.parse_list(frozenset(), ")"))
            parts.append(SENT)
            w.dyn = True
            return self.i + 1
        if c != "(":
            return -1
        prev = s[i - 1] if i > start else ""
        text = "".join(parts)
        if prev and prev in "@!+*?":
            self.i = i
            parts.append(self.balanced_literal())
            w.glob = True
            return self.i
        if text.endswith("=") and ASSIGN.fullmatch(s[start:i]):
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
            parts.append("(…)")
            return self.i + 1
        return -1

    def word_part(self, w: Word, parts: list[str], start: int, i: int) -> int:
        """The quoted, escaped, substituted or glob piece at `i`: the index after it."""
        s, n = self.s, self.n
        c = s[i]
        if c == "\\":
            if i + 1 >= n:
                parts.append("\\")
                return i + 1
            if s[i + 1] == "\n":
                return i + 2
            parts.append(s[i + 1])
            w.quoted = True
            return i + 2
        if c == "'":
            j = s.find("'", i + 1)
            if j < 0:
                self.i = i
                self.error("unterminated single quote")
            parts.append(s[i + 1 : j])
            w.quoted = True
            return j + 1
        if c == '"':
            self.i = i + 1
            inner = self.scan_text(DQ_RUN, '"')
            parts.append(inner.text)
            w.subs += inner.subs
            w.dyn = w.dyn or inner.dyn
            if inner.lead_var and i == start:
                w.lead_var = inner.lead_var
            w.quoted = True
            return self.i
        if c == "`":
            self.i = i
            w.subs.append(self.backtick())
            parts.append(SENT)
            w.dyn = w.wild = True
            return self.i
        if c == "$":
            self.i = i
            if self.dollar(w, parts, quoted=False, at_start=i == start) == "quote":
                w.quoted = True
            return self.i
        # glob characters
        parts.append(c)
        w.glob = True
        return i + 1

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
            inner = self.scan_text(DQ_RUN, '"')
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
                inner = self.scan_text(DQ_RUN, '"')
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
                return self.nested("".join(out))
            out.append(c)
            i += 1
        self.error("unterminated backquote")
        raise AssertionError
