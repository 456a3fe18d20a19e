"""Which variables shell text may change, and the values a loop gives its variable.

The walk knows a variable's value only while nothing it does not follow can have changed it:
`f=src/app.py; read f; cat "$f"` reads what the user typed, `f=.env; false && f=x; cat "$f"`
reads `.env`. So a builtin that assigns names given to it (`read`, `printf -v`, `declare`), an
arithmetic or `${f:=…}` expansion, and text that may or may not run (a branch, a loop body, the
right of `&&`) make what they may change unknown (`State.forget`, `State.settle`). Text whose
assignments handrail does not follow at all (a function, `eval`, `source`, a run-time command name,
`declare -n`) makes every variable unknown from there on.

A `for NAME in WORDS` (or `select`) loop over literal words and globs gives NAME each of those
values in turn, and its body is judged once per value (`walk_loop`); a list known only at run
time (`$(ls)`, `"$@"`, `$list`) leaves NAME unknown, as does a list past LOOP_VALUES words or a
command line past LOOP_WALKS judged iterations (nested loops multiply).
"""

from __future__ import annotations

import re

from handrail.policy.shell.parts import GLOB
from handrail.policy.shell.syntax import SENT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import State, Walker
    from handrail.policy.shell.syntax import Compound, Pipeline, Word

_NONE: frozenset[str] = frozenset()
LOOP_VALUES = 64
LOOP_WALKS = 256

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
DECLARERS = frozenset({"declare", "typeset", "local", "export", "readonly"})
# Options of the declarers that change no more than a value's export, read-only or array state.
_PLAIN_DECLARE = frozenset("xrgpaAfF")
# Builtins whose operands (all of them, to be safe) name variables they assign; and what they
# assign when given none.
_ASSIGNING = {"read": ("REPLY",), "mapfile": ("MAPFILE",), "readarray": ("MAPFILE",),
              "getopts": ("OPTARG", "OPTIND"), "unset": (), "wait": (), "let": (), "printf": ()}
_WHOLESALE = frozenset({"eval", "source", ".", "enable"})  # text or builtins handrail does not follow
_DEFAULTING = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):?=")  # `${f:=x}` assigns f when it is empty
_ARITH = re.compile(r"\$\(\(|\$\[")
_ARITH_SET = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\])?\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)"
                        r"|([A-Za-z_][A-Za-z0-9_]*)\s*(?:\+\+|--)|(?:\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*)")


def by_command(words: list[Word], st: State) -> frozenset[str] | None:
    """The variables one simple command (its words as the shell expands them) may assign in this
    shell; None when it may assign any."""
    i = 0
    while i < len(words) and not words[i].dyn and words[i].text in ("command", "builtin"):
        i += 1
        while i < len(words) and words[i].text.startswith("-") and not words[i].dyn:
            i += 1
    if i >= len(words):
        return _NONE
    head = words[i]
    name = head.text
    if head.dyn or name in st.funcs or name in st.aliases or name in _WHOLESALE:
        return None
    if name not in _ASSIGNING and name not in DECLARERS:
        return _NONE
    args = words[i + 1 :]
    if name in ("printf", "wait"):
        # they assign only the name given to `printf -v NAME` and `wait -p NAME`
        flag = "-v" if name == "printf" else "-p"
        at = next((k for k, a in enumerate(args) if a.text == flag and not a.dyn), None)
        args = args[at + 1 : at + 2] if at is not None else []
    if any(SENT in a.text.split("=", 1)[0] if name in DECLARERS else a.dyn for a in args):
        return None  # `read "$n"`, `declare "$x=1"`: a name known only at run time
    if name in DECLARERS and any(set(a.text[1:]) - _PLAIN_DECLARE for a in args if a.text[:1] in "-+"):
        return None  # `declare -n r=f` makes `r=x` assign f; `-i`, `-l`, `-u` change what later ones assign
    out = set(_ASSIGNING.get(name, ()))
    for a in args:
        m = _NAME.match(a.text)
        if m is not None:
            out.add(m.group())
        if name == "let" and arith_sets(a.text, st) is None:
            return None
    return frozenset(out)


def arith_sets(text: str, st: State) -> frozenset[str] | None:
    """The variables arithmetic text assigns (`i=1`, `i++`, `n+=2`); None when it reads a variable
    whose value is not a known number, which bash evaluates as arithmetic in turn (`x='f=1'; $((x))`)."""
    out = frozenset(n for m in _ARITH_SET.finditer(text) for n in m.groups() if n)
    for m in _NAME.finditer(text):
        if m.group() in out or (m.start() > 0 and text[m.start() - 1].isdigit()):
            continue  # `0x1f`, `2#101` are numbers
        value = st.vars.get(m.group())
        if value is None or not value.strip().lstrip("-").isdigit():
            return None
    return out


def in_words(raws: list[str], st: State) -> frozenset[str] | None:
    """What the expansions in these raw words assign: `${f:=x}`, `$((i++))`."""
    out: set[str] = set()
    for raw in raws:
        out.update(_DEFAULTING.findall(raw))
        m = _ARITH.search(raw)
        if m is not None:
            # from the first `$((` to the last `))`: what lies between two of them is read too, to be safe
            end = max(raw.rfind("))"), raw.rfind("]"))
            found = arith_sets(raw[m.end() : end if end > m.end() else len(raw)], st)
            if found is None:
                return None
            out |= found
    return frozenset(out)


def in_tree(pipelines: list[Pipeline], st: State) -> frozenset[str] | None:
    """The variables shell text may assign in this shell (not in its subshells); None: any."""
    from handrail.policy.shell.syntax import Compound

    out: set[str] = set()
    for pl in pipelines:
        if len(pl.cmds) > 1:
            continue  # each command of a pipeline runs in a subshell of its own
        node = pl.cmds[0]
        raws = [w.raw for w in node.words] + [r.target.raw for r in node.redirs if r.target is not None]
        if isinstance(node, Compound):
            found = _compound(node, st)
        else:
            raws += [w.raw for w in node.assigns]
            found = by_command(node.words, st)
            out.update(m.group() for w in node.assigns if (m := _NAME.match(w.raw)) is not None)
        more = in_words(raws, st)
        if found is None or more is None:
            return None
        out |= found | more
    return frozenset(out)


def _compound(node: Compound, st: State) -> frozenset[str] | None:
    if node.kind in ("subshell", "func"):
        return frozenset()
    if node.kind == "arith":
        return arith_sets(node.words[0].raw, st) if node.words else frozenset()
    out: set[str] = {node.name} if node.kind in ("for", "select") and node.name else set()
    if node.kind == "select":
        out.add("REPLY")
    for body in node.bodies:
        found = in_tree(body, st)
        if found is None:
            return None
        out |= found
    return frozenset(out)


def loop_values(node: Compound, home: str) -> list[str] | None:
    """The values a `for`/`select` loop gives its variable, each a literal or GLOB and a glob;
    None when any is known only at run time, or they are too many."""
    if not _NAME.fullmatch(node.name) or len(node.words) > LOOP_VALUES:
        return None
    out: list[str] = []
    for w in node.words:
        text = w.text
        if w.dyn or (w.tilde and not (text == "~" or text.startswith("~/"))):
            return None
        if w.tilde:
            text = home + text[1:]
        if w.glob:
            if w.quoted or any(c.isspace() for c in text):
                return None  # `'[a]'*`, `"my dir"/*`: a pattern handrail would read otherwise than bash
            text = GLOB + text
        out.append(text)
    if node.kind == "select":
        out.append("")  # an answer that is not one of the numbers leaves the variable empty
    return out


def walk_loop(flat: Walker, node: Compound, st: State, ctx: str, via: list[str]) -> None:
    """Judge a `for`/`select` body once per value of its variable (see the module's docstring)."""
    before = dict(st.vars)
    st.forget(in_tree([pl for body in node.bodies for pl in body], st))
    known = loop_values(node, flat.home) if node.name and not st.blind else None
    values: list[str | None] = [None]  # judged once, the variable unknown
    if known and len(known) <= flat.walks:
        flat.walks -= len(known)
        values = list(known)
    for value in values:
        if node.name:
            st.put(node.name, value)
        for body in node.bodies:
            flat.lists(body, st, ctx, via)
    if node.name:
        st.put(node.name, None)
    st.settle(before)


def walk_bodies(flat: Walker, node: Compound, st: State, ctx: str, via: list[str]) -> None:
    """The bodies of a compound command, each judged; what a body that may not run, or may run
    again, assigns is unknown after it (and, in a loop, from its start)."""
    if node.kind in ("for", "select"):
        walk_loop(flat, node, st, ctx, via)
        return
    inner = st.copy() if node.kind == "subshell" else st
    before = dict(inner.vars)
    if node.kind in ("while", "until"):
        inner.forget(in_tree([pl for body in node.bodies for pl in body], inner))
    for i, body in enumerate(node.bodies):
        flat.lists(body, inner, ctx, via)
        if i == 0 and node.kind == "if":
            before = dict(inner.vars)  # the first condition always runs
    if node.kind in ("if", "while", "until", "case"):
        inner.settle(before)
