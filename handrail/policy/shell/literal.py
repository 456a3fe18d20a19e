"""What a command line fixes before it runs: the text `echo`, `printf` and `cat <<EOF` write,
where a part's standard input comes from (and its text when that is fixed), which script file a
part runs, and the words whose variables were given a literal value earlier on the line.

The walk uses these to judge what a shell will really read: `echo 'rm -rf x' | sh` runs
`rm -rf x`; `c="rm -rf"; $c src` runs `rm -rf src`.
"""

from __future__ import annotations

from handrail.policy.shell.envvars import TEMP_VARS, UNSET, expand
from handrail.policy.shell.parts import GLOB, SHELLS, has_download, prog_name
from handrail.policy.shell.syntax import Simple, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part, State
    from handrail.policy.shell.syntax import Redir

SCRIPT_RUNNERS = frozenset({"python", "node", "perl", "ruby", "php", "bun", "deno", "source", "."})
DASHES = frozenset("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d")


def undashed(w: Word) -> Word:
    if w.text[:1] not in DASHES:
        return w
    text = w.text
    i = 0
    while i < len(text) and text[i] in DASHES:
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
    text = expand(w, st.vars)  # an inherited variable (`$TMPDIR/x`) first
    if text is None:
        if ".." in w.text.split("/") and any(v in w.raw for v in TEMP_VARS):
            return w  # `$TMPDIR/../x` climbs out of the folder the variable names: left unknown
        name = _var_name(w)
        text = st.vars.get(name) if name is not None else substituted(w.raw, st.vars)
        if text is None or UNSET in text:
            return w
    if GLOB in text:
        return _globbed(w, text)
    out = Word(text, w.raw)
    out.quoted = w.quoted
    if w.wild and any(c in text for c in "*?["):
        out.glob = True  # `f='.e*'; cat $f`: an unquoted expansion is globbed as it is split
    return out


def _globbed(w: Word, text: str) -> Word:
    """`"$f"` where `for f in src/*.py` gave f its value: a file the glob names, judged as the glob
    is. Anything else made of it (`$f` split and globbed again, `"$f.bak"`) is left unknown."""
    if w.wild or _var_name(w) is None or not text.startswith(GLOB) or text.count(GLOB) != 1:
        return w
    out = Word(text[len(GLOB) :], w.raw)
    out.quoted, out.glob = w.quoted, True
    # `for f in *`: a file named `-o` is an option to the program handed it; `./*` or `src/*` is not
    out.optlike = out.text[:1] in "-*?[@!+"
    return out


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def substituted(raw: str, values: dict[str, str]) -> str | None:
    """The text of the raw word `raw` once its `$name` and `${name}` expansions take their known
    values (`f=.e; cat ${f}nv` reads `.env`); None when any part of it is only known at run time:
    another expansion, a substitution, a glob or an unknown variable."""
    out: list[str] = []
    i, n, quoted = 0, len(raw), False
    while i < n:
        c = raw[i]
        if c == "'" and not quoted:
            j = raw.find("'", i + 1)
            if j < 0:
                return None
            out.append(raw[i + 1 : j])
            i = j + 1
        elif c == '"':
            quoted = not quoted
            i += 1
        elif c == "\\":
            nxt = raw[i + 1 : i + 2]
            out.append(nxt if not quoted or nxt in '$`"\\' else c + nxt)
            i += 2
        elif c == "$":
            j = i + 1
            if raw[j : j + 1] == "{":
                k = raw.find("}", j)
                name = raw[j + 1 : k] if k > 0 else ""
                i = k + 1
            else:
                k = j
                while k < n and raw[k] in _NAME_CHARS:
                    k += 1
                name = raw[j:k]
                i = k
            if not name or name[0].isdigit() or not set(name) <= _NAME_CHARS or name not in values:
                return None  # `${f:-x}`, `$(…)`, `$1`, `$'…'`, a variable with no known value
            out.append(values[name])
        elif c == "`" or (not quoted and (c in "*?[" or (c == "~" and i == 0))):
            return None
        else:
            out.append(c)
            i += 1
    return None if quoted else "".join(out)


def assigned(w: Word, st: State) -> str | None:
    """The value `name=value` or `name+=value` gives its variable, when it is known."""
    head, _, value = w.raw.partition("=")
    if not w.dyn:
        value = w.text.split("=", 1)[1]
    else:
        known = substituted(value, st.vars)
        if known is None:
            return None
        value = known
    if head.endswith("+"):
        old = st.vars.get(head[:-1])
        return None if old is None else old + value
    return value


def known_split(w: Word, st: State) -> list[Word]:
    """`c="rm -rf"; $c src`: an unquoted expansion splits into words where its value has blanks."""
    out = _known(w, st)
    if out is w or not w.wild or not out.text.split() or len(out.text.split()) == 1:
        return [out]
    pieces = [Word(t, w.raw) for t in out.text.split()]
    for p in pieces:
        p.glob = out.glob and any(c in p.text for c in "*?[")
    return pieces


def known_redir(r: Redir, st: State) -> Redir:
    if r.target is None or not r.target.dyn:
        return r
    target = _known(r.target, st)
    if target is r.target:
        return r
    from handrail.policy.shell import syntax

    out = syntax.Redir(r.op, r.fd, target)
    out.body, out.body_quoted, out.body_subs, out.body_dyn = r.body, r.body_quoted, r.body_subs, r.body_dyn
    return out


def _echoed(name: str, args: list[Word]) -> str | None:
    """What `echo ARGS` or `printf FORMAT` prints, without echo's newline; None when not fixed."""
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
    return None


def literal_text(part: Part) -> str | None:
    """What `echo`/`printf`/`cat <<EOF` in a part writes, when it is fixed text."""
    name = part.name
    args = part.words[1:]
    if any(w.dyn for w in args):
        return None
    if name == "echo" and not (args and args[0].text in ("-e", "-ne", "-en")):
        out = _echoed(name, args)
        return None if out is None else out + "\n"
    if name in ("echo", "printf"):
        return _echoed(name, args)
    if name == "cat" and not args and part.feed in ("heredoc", "herestring"):
        return part.stdin_text
    return None


def literal_output(node: Simple) -> str | None:
    """What `echo`/`printf`/`cat <<EOF` writes, when it is fixed text."""
    if not node.words:
        return None
    name = prog_name(node.words[0].text)
    args = node.words[1:]
    if any(w.dyn for w in args):
        return None
    if name in ("echo", "printf"):
        return _echoed(name, args)
    if name == "cat" and not args:
        for r in node.redirs:
            if r.op in ("<<", "<<-") and r.body is not None and (r.body_quoted or not r.body_dyn):
                return r.body
            if r.op == "<<<" and r.target is not None and not r.target.dyn:
                return r.target.text
    return None


def script_word(part: Part) -> Word | None:
    """The script file a part runs, if it runs one."""
    words = part.words
    name = part.name
    if "/" in words[0].text and not words[0].dyn:
        return words[0]
    if name not in SHELLS and name not in SCRIPT_RUNNERS:
        return None
    for w in words[1:]:
        t = w.text
        if (name == "python" and t in ("-m", "-c")) or (name in ("node", "bun") and t in ("-e", "-p", "--eval")):
            return None
        if t.startswith(("-", "+")) and len(t) > 1:
            if name in SHELLS and "c" in t and t[0] == "-" and not t.startswith("--"):
                return None
            continue
        if name == "deno" and t in ("run", "eval"):
            continue
        return w
    return None


def feed(part: Part, idx: int, producers: list[tuple[bool, str | None]]) -> None:
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
                part.feed = "download" if has_download(target) else "pipe"
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
