"""The files sqlite3 writes: the database it opens when its SQL is not read-only, and the files
its SQL names: `ATTACH 'F'` (created when missing), `VACUUM INTO 'F'`, and the dot-commands
that open a file for writing (`.trace F`, `.log F`, `.iotrace F`, `.output F`, `.once F`,
`.excel`, `.save F`, `.backup F`, `.clone F`). `.trace F` writes the SQL text itself, which the
command line chooses: a hook or a shell rc file can be planted through it.
"""

from __future__ import annotations

import re

from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part

_VALUED = frozenset({"-cmd", "-init", "-separator", "-newline", "-nullvalue", "-vfs", "-maxsize", "-pagecache",
                     "-lookaside", "-mmap", "-heap", "-escape"})
_DOTS = re.compile(r"(?:^|[\n;])[ \t]*\.(?:trace|log|iotrace|output|once|excel|save|backup|clone)\b([^\n;]*)", re.I)
_STRING = r"('(?:[^']|'')*'|\"[^\"]*\")(\s*\|\|)?"
_ATTACH = re.compile(r"\battach\s+(?:database\s+)?" + _STRING, re.I)
_VACUUM = re.compile(r"\bvacuum\b(?:\s+[\w\"]+)?\s+into\s+" + _STRING, re.I)
_NO_FILE = frozenset({"stdout", "stderr", "off", "on", ""})


def _operands(words: list[Word]) -> list[Word]:
    out: list[Word] = []
    i = 1
    while i < len(words):
        t = words[i].text
        if t.startswith("-") and len(t) > 1:
            i += 2 if t.lstrip("-") in {v.lstrip("-") for v in _VALUED} else 1
            continue
        out.append(words[i])
        i += 1
    return out


def _file(text: str, raw: str, *, dyn: bool = False) -> Word:
    if text.lower().startswith("file:"):  # a URI filename: `file:x.db?mode=rwc`
        text = text[5:].split("?", 1)[0]
    w = Word(text, raw)
    w.dyn = dyn
    w.tilde = text.startswith("~")
    return w


def _named(sql: str) -> list[Word]:
    out: list[Word] = []
    for m in _DOTS.finditer(sql):
        args = [a for a in m.group(1).split() if not a.startswith("-")]
        if args and args[-1].strip("'\"").lower() not in _NO_FILE and not args[-1].startswith("|"):
            out.append(_file(args[-1].strip("'\""), m.group(0).strip()))
    for rx in (_ATTACH, _VACUUM):
        for m in rx.finditer(sql):
            quoted = m.group(1)
            # `'.hand' || 'rail/…'`: a name built as the statement runs
            out.append(_file(quoted[1:-1].replace("''", "'"), m.group(0).strip(), dyn=bool(m.group(2))))
    return out


def written(part: Part) -> list[Word]:
    """What `sqlite3 [options] DB [SQL…]` writes, as words (resolved by the write rules)."""
    from handrail.policy.shell.code import _read_only_sql

    ops = _operands(part.words)
    sql = [w.text for w in ops[1:]] + ([part.stdin_text] if part.stdin_text else [])
    out = [f for text in sql for f in _named(text)]
    readonly = any(w.text in ("-readonly", "--readonly", "-safe", "--safe") for w in part.words[1:])
    in_memory = bool(ops) and ops[0].text in (":memory:", "") and not ops[0].dyn  # no file at all
    if ops and not in_memory and not readonly and not (sql and all(_read_only_sql(t) for t in sql)):
        out.insert(0, ops[0])  # the database it opens, and may change
    return out
