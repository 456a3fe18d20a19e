"""The temp-folder variables a command inherits: `$TMPDIR`, `$TMP`, `$TEMP`.

A command an agent runs inherits the environment of the process that judges it (the hook runs
in the harness's environment), so `rm -rf "$TMPDIR/cache"` names a folder known now, as `~` does.
That holds only while the command line itself cannot change the variable: where the name
appears other than expanded (`TMPDIR=/ …`, `export TMPDIR`, `read TMPDIR`, `for TMPDIR in`,
`declare -n r=TMPDIR`), where the line runs text handrail does not read (`source`, `.`), or
where a builtin that may assign a name given at run time appears (`declare "$n=/"`,
`printf -v`), the variable stays unknown. A value with blanks or glob characters, which an
unquoted expansion would split or expand, stays unknown too.

`inherited(text, environ)` gives the values to seed the walk's variables with: an unset variable
is UNSET, which `$TMPDIR` expands to nothing and `${TMPDIR:-/tmp}` to its default.
"""

from __future__ import annotations

import re

from handrail.policy.shell.syntax import SENT, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

TEMP_VARS = ("TMPDIR", "TMP", "TEMP")
UNSET = "\x00unset"
# Builtins and keywords that may assign a variable whose name is only known at run time, or run
# text handrail does not read.
_ASSIGNERS = re.compile(r"(?:^|[\s;&|()`{])(?:declare|typeset|export|local|readonly|read|mapfile|readarray|"
                        r"getopts|printf|let|eval|source|\.|unset|select|alias|builtin|command|enable|IFS)"
                        r"(?=[\s;&|()=]|$)")
_SAFE_VALUE = re.compile(r"[^\s*?\[\]{}$`'\"\\]*")
# `${NAME}`, `${NAME-D}`, `${NAME:-D}`, `${NAME=D}`, `${NAME:=D}` at the start of a word, D literal.
_PARAM = re.compile(r'"?\$\{(?P<name>[A-Za-z_]\w*)(?:(?P<colon>:?)(?P<op>[-=])(?P<default>[^}$`"\'\\]*))?\}')


def inherited(text: str, environ: Mapping[str, str]) -> dict[str, str]:
    """The temp-folder variables `text` may use as the environment gives them."""
    if "TMP" not in text and "TEMP" not in text:
        return {}
    if _ASSIGNERS.search(text):
        return {}
    out: dict[str, str] = {}
    for name in TEMP_VARS:
        if name not in text:
            continue
        # every mention must be an expansion: `$NAME` or `${NAME…}`
        mentions = [m.start() for m in re.finditer(rf"(?<![A-Za-z0-9_]){name}(?![A-Za-z0-9_])", text)]
        if any(not (text[max(0, i - 1):i] == "$" or text[max(0, i - 2):i] == "${") for i in mentions):
            continue
        value = environ.get(name)
        if value is None:
            out[name] = UNSET
        elif _SAFE_VALUE.fullmatch(value):
            out[name] = value
    return out


def expand(w: Word, vars: Mapping[str, str]) -> str | None:
    """The text of a word that starts with one inherited variable (`$TMPDIR/x`, `"${TMP:-/tmp}/x"`)
    and holds no other expansion; None otherwise."""
    if not w.dyn or w.subs or w.text.count(SENT) != 1 or not w.text.startswith(SENT):
        return None
    rest = w.text[1:]
    if ".." in rest.split("/"):
        return None  # `$TMPDIR/../etc` climbs out of the folder the variable names: left unknown
    name = w.lead_var
    value: str | None
    if name is not None:
        value = vars.get(name)
        if value is None:
            return None
        value = "" if value == UNSET else value
    else:
        m = _PARAM.match(w.raw)
        if m is None or m.group("name") not in vars or m.group("op") is None:
            return None
        value = vars[m.group("name")]
        unset = value == UNSET
        if unset or (m.group("colon") and not value):
            value = m.group("default")
    out = value + rest
    return out or None  # an empty expansion: no word at all, or an empty one; left unknown
