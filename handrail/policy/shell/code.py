"""Code handed to interpreters and databases, disks, and hook-skipping variables."""

from __future__ import annotations

import re

from handrail.policy.shell.codefile import read_code
from handrail.policy.shell.common import (
    _HOOKS_PATH,
    DISK_TOOLS,
    SHELL_WRITES_HOOKS,
    Ctx,
    rx,
)
from handrail.policy.shell.interp import inline_code, script_operand
from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part

    Finding = tuple[int, str, str]


# --------------------------------------------------------------------------- code given to interpreters

INTERPRETERS = frozenset({"python", "node", "bun", "deno", "perl", "ruby", "php", "awk", "gawk", "mawk", "nawk",
                          "lua", "luajit", "rscript", "julia"})
_LANG = {"js": "node", "python": "python", "perl": "perl", "ruby": "ruby", "php": "php", "awk": "awk"}
# One substitution or transliteration without the `e` flag (which would run its replacement).
_PERL_SUBST = re.compile(r"\s*(?:s|y|tr)([/#|!,])(?:(?!\1)[^\\\n]|\\.)*\1(?:(?!\1)[^\\\n]|\\.)*\1[gimsxcdr]*\s*;?\s*")
SCRIPT_LIMIT = 64 * 1024  # a script file longer than this is code handrail does not read


def check_code(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    """Code given to an interpreter is read for what it does (shell/inline.py): inline
    (`-c`, `-e`, a heredoc), from standard input, or a script file of the project."""
    lang, codes, from_stdin = inline_code(part)
    if part.name in ("lua", "luajit", "rscript", "julia"):
        lang, codes = part.name, [(w2.text, w2.dyn) for w1, w2 in zip(part.words, part.words[1:])
                                  if w1.text in ("-e", "--eval")]
    if not lang:
        return []
    label = part.name
    inline = bool(codes)
    if from_stdin:
        if part.feed == "download":
            return [(3, "download-to-shell", f"{label} runs code downloaded from the network")] \
                if ctx.enabled("download-to-shell") else []
        if part.feed in ("pipe", "heredoc", "herestring"):
            if part.stdin_text is None:
                return [(3, "dynamic", f"{label} runs code only known at run time ({part.feed})")]
            codes.append((part.stdin_text, False))
            inline = True
        elif part.feed == "file":
            fed = _fed_file(part, ctx)
            if fed is None:
                return [(3, "dynamic", f"{label} runs code from its standard input, which handrail cannot read")]
            codes.append((fed, False))
        elif part.feed is None and any(w.text in ("--version", "-V", "--help", "-h", "-version") or (
                w.text == "-v" and part.name in ("node", "bun", "deno", "perl", "php", "ruby"))
                for w in part.words[1:]):
            return []  # prints its version or its help and exits
        elif part.feed is None:
            return [(3, "dynamic", f"{label} starts an interactive interpreter: code typed into it escapes every "
                                   "hook")]
    if part.script_text is not None:
        codes.append((part.script_text, False))
        inline = True
    if part.name == "deno" and len(part.words) > 2 and part.words[1].text == "run" and \
            any(w.text.startswith(("http://", "https://")) for w in part.words[2:]):
        return [(3, "download-to-shell", "deno run executes code from the network")]
    if not codes:
        script = _script_file(part, lang, ctx)
        if isinstance(script, str):
            return [(3, "dynamic", script)]
        if script is None:
            return []
        codes.append((script[1], False))
    out: list[Finding] = []
    for code, dyn in codes:
        if dyn:
            return [(3, "dynamic", f"{label} runs code built at run time")]
        out += _judge(part, lang, code, ctx, inline=inline)
    if not out and lang == "python":
        from handrail.policy.shell import pyshadow

        why = pyshadow.impurity(part, [c for c, _ in codes], pyshadow.script_path(part, ctx.home))
        if why is not None:
            return [(2, "runs-package", why)]
    if not out and part.name == "perl" and any(w.text.startswith(("-M", "-m")) for w in part.words[1:]):
        return [(2, "runs-package", f"{label} loads a module first (-M): an installed package's code runs")]
    if not out and not _in_place(part):
        return [(1, "pure-code", f"{label} code only computes and prints (read whole)")]
    return out


def _in_place(part: Part) -> bool:
    """`perl -pi -e …`, `ruby -i …`: the files it reads are written back."""
    return part.name in ("perl", "ruby") and any(
        w.text.startswith("-") and not w.text.startswith("--") and "i" in w.text.split("e", 1)[0]
        for w in part.words[1:])


def _script_file(part: Part, lang: str, ctx: Ctx) -> tuple[str, str] | str | None:
    """(path, text) of the script an interpreter runs; a reason when it cannot be read; None when
    it runs none (a module, `--version`) or the file does not exist (the run fails)."""
    if lang not in ("python", "js", "perl", "ruby", "php"):
        return None
    from handrail.policy.shell.parts import resolve

    first, after_option = script_operand(lang, part.words)
    if first is None:
        return None
    path = resolve(first, part.cwd, ctx.home)
    if path is None:
        return f"{part.name} runs {first.raw}, a script only known at run time"
    data = read_code(path, SCRIPT_LIMIT)
    if data is None and after_option:
        return f"{part.name} is given {first.raw}, no file: an option may take it, and the script come later"
    if data is None:
        return None
    if isinstance(data, str):
        return f"{part.name} runs {first.raw}, {data}"
    if len(data) > SCRIPT_LIMIT:
        return f"{part.name} runs {first.raw}, longer than {SCRIPT_LIMIT // 1024} KiB: more than handrail reads"
    return path, data.decode("utf-8", "replace")


def _fed_file(part: Part, ctx: Ctx) -> str | None:
    """The text of the file redirected to standard input (`python3 < x.py`), when it is a regular file
    handrail can read whole; None otherwise (named at run time, missing, a device, too large)."""
    from handrail.policy.shell.parts import resolve

    for r in reversed(part.redirs):
        if r.op == "<" and r.fd in (None, "0") and r.target is not None:
            path = resolve(r.target, part.cwd, ctx.home)
            data = None if path is None else read_code(path, SCRIPT_LIMIT)
            if not isinstance(data, bytes) or len(data) > SCRIPT_LIMIT:
                return None
            return data.decode("utf-8", "replace")
    return None


def _judge(part: Part, lang: str, code: str, ctx: Ctx, *, inline: bool) -> list[Finding]:
    from handrail.policy.shell import inline as inline_code

    if lang == "perl" and _PERL_SUBST.fullmatch(code):
        return []  # `perl -pi -e 's/a/b/g'`: sed's work (the -i write is judged with the other writes)
    fx = inline_code.python_effects(code) if lang == "python" else inline_code.script_effects(_LANG.get(lang, lang),
                                                                                                code)
    label = part.name
    why = "; ".join(fx.reasons[:3])
    effects = fx.effects
    if not effects:
        return []
    if effects == {"unknown"} and fx.reasons and all(r.startswith("imports ") for r in fx.reasons):
        return [(2, "runs-package", f"{label} code {why}: an installed package's code runs")]
    hard = effects & {"exec", "network", "env", "dynamic", "unknown", "delete"}
    if hard:
        return [(3, "dynamic", f"{label} code {why or ', '.join(sorted(hard))}")]
    out: list[Finding] = []
    if "write" in effects:
        if not fx.writes:
            return [(3, "dynamic", f"{label} code writes a file only known at run time ({why})")]
        out += _code_paths(part, fx.writes, ctx, write=True)
        if not out:
            out.append((2, "redirect-write", f"{label} code writes {', '.join(fx.writes[:3])}"))
    if "read" in effects:
        if not fx.reads and inline:
            return [(3, "dynamic", f"{label} code reads a file only known at run time ({why})")]
        out += _code_paths(part, fx.reads, ctx, write=False)
    return out


def _code_paths(part: Part, paths: tuple[str, ...], ctx: Ctx, *, write: bool) -> list[Finding]:
    """The path rules for what code names: protected and system paths for writes, secrets for reads."""
    from handrail.policy.shell.common import _protected, sensitive
    from handrail.policy.shell.parts import resolve
    from handrail.policy.shell.reads import read_refusal
    from handrail.policy.shell.syntax import Word

    out: list[Finding] = []
    for text in paths:
        w = Word(text, text)
        path = resolve(w, part.cwd, ctx.home)
        if path is None:
            out.append((3, "dynamic", f"{part.name} code names {text}, a path only known at run time"))
            continue
        rel = path[len(ctx.project) + 1 :] if path.startswith(ctx.project + "/") else path
        if not write:
            refusal = read_refusal(rel)
            if refusal is not None:
                out.append((3, "secret-read", f"{part.name} code reads {text}, which matches '{refusal.rule}' "
                                              f"({refusal.source}: {refusal.why})"))
            continue
        hit = _protected(path, w, ctx, delete=False)
        if hit is not None:
            out.append((3, "protected-paths", f"{part.name} code writes {text}: '{hit[0]}' ({hit[1]})"))
            continue
        why = sensitive(path, ctx)
        if why is not None:
            out.append((3, "system-paths", f"{part.name} code writes {text}: {why}"))
    return out


def check_sql(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    texts: list[str] = []
    words = part.words
    name = part.name
    value_opts = {"psql": ("-c", "--command"), "mysql": ("-e", "--execute"), "mariadb": ("-e", "--execute"),
                  "clickhouse-client": ("-q", "--query"), "duckdb": ("-c",), "mongosh": ("--eval",),
                  "mongo": ("--eval",), "cockroach": ("-e", "--execute")}.get(name, ())
    for i, w in enumerate(words[1:], 1):
        t = w.text
        if t in value_opts and i + 1 < len(words):
            texts.append(words[i + 1].text)
        elif any(t.startswith(o + "=") for o in value_opts if o.startswith("--")):
            texts.append(t.split("=", 1)[1])
        elif len(t) > 2 and t[:2] in value_opts:
            texts.append(t[2:])
    if name == "sqlite3":
        ops = [w.text for w in words[1:] if not w.text.startswith("-")]
        texts += ops[1:]
    if name == "redis-cli" and any(w.text.lower() in ("flushall", "flushdb") for w in words[1:]):
        return [(3, "sql-destroy", "redis-cli FLUSHALL/FLUSHDB deletes every key")]
    if part.stdin_text:
        texts.append(part.stdin_text)
    if name == "sqlite3" and any(w.text in ("-readonly", "-safe") for w in words[1:]):
        return []  # opened read-only: a destroying statement fails
    files = _sql_files(part, ctx)
    if isinstance(files, str):
        return [(3, "sql-destroy", files)]
    texts += files
    risk = rx("_MONGO_RISK") if name in ("mongosh", "mongo") else rx("_SQL_RISK")
    for t in texts:
        m = risk.search(t)
        if m:
            return [(3, "sql-destroy", f"{name} runs '{' '.join(m.group().split())}', which destroys data")]
        unbounded = _unbounded_change(t) if name not in ("mongosh", "mongo") else None
        if unbounded:
            return [(3, "sql-destroy", f"{name} runs '{unbounded}', which changes every row")]
        verb = _overwriting(t) if name not in ("mongosh", "mongo", "redis-cli") else None
        if verb:
            return [(3, "sql-destroy", f"{name} runs {verb}, which changes or removes what the database holds: "
                                       "no undo brings it back")]
    if texts and name in ("psql", "mysql", "mariadb", "sqlite3", "duckdb", "clickhouse-client") and \
            all(_read_only_sql(t) for t in texts):
        return [(1, "read-only-sql", f"{name} only queries (SELECT, SHOW, EXPLAIN, \\d)")]
    return []


_SQL_READS = ("select", "show", "explain", "describe", "desc", "\\d", "\\dt", "\\l", "\\du", "\\dn", "\\di",
              "\\dv", "\\df", "\\x", "\\conninfo", ".tables", ".schema", ".indexes", ".databases", "pragma")


def _read_only_sql(sql: str) -> bool:
    """Every statement only reads. `SELECT … INTO`, a `FOR UPDATE` lock, `pragma x = y` and CTEs that
    modify (`WITH … DELETE`) are not reads."""
    stmts = [s.strip() for s in sql[:65536].split(";") if s.strip()]
    if not stmts:
        return False
    for stmt in stmts:
        low = stmt.lower()
        words = low.split()
        if not words[0].startswith(_SQL_READS) or " into " in f" {low} " or "for update" in low or \
                (words[0] == "pragma" and "=" in low) or any(w in ("insert", "update", "delete", "drop", "alter",
                                                                    "create", "truncate", "grant") for w in words):
            return False
    return True


def _unbounded_change(sql: str) -> str | None:
    """An UPDATE or DELETE without WHERE, or sqlite's `.drop`: statement by statement, no regex
    that could backtrack over a long text."""
    for stmt in sql[:65536].split(";"):
        words = stmt.split()
        if not words:
            continue
        head = words[0].lower()
        if head == ".drop":
            return " ".join(words[:3])
        low = [w.lower() for w in words]
        if head in ("update", "delete") and "where" not in low:
            return " ".join(words[:4])
    return None


_OVERWRITES = frozenset({"delete", "update", "drop", "alter", "replace", "truncate", "merge"})


def _overwriting(sql: str) -> str | None:
    """The first verb that changes or removes rows or schema, WHERE or not (`INSERT OR REPLACE`
    and `ON CONFLICT DO UPDATE` included): what it overwrites is gone. Not `ON DELETE CASCADE` in
    a table's definition, `SELECT … FOR UPDATE`, the `replace()` function, a word in a string."""
    words: list[str] = rx("_SQL_WORDS").findall(rx("_SQL_LITERALS").sub(" ", sql[:65536].lower()))
    for i, w in enumerate(words):
        if w in _OVERWRITES and (i == 0 or words[i - 1] not in ("on", "for", "key")) and \
                words[i + 1:i + 2] != ["("]:
            return w.upper()
    return None


def _sql_files(part: Part, ctx: Ctx) -> list[str] | str:
    """The SQL a client reads from files (`psql -f x.sql`, `mysql db < dump.sql`), or why it cannot."""
    from handrail.policy.shell.parts import resolve

    words = part.words
    named = [words[i + 1] for i, w in enumerate(words[:-1]) if w.text in ("-f", "--file", "--init")]
    named += [r.target for r in part.redirs if r.op == "<" and r.target is not None and r.fd in (None, "0")]
    out: list[str] = []
    for w in named:
        path = resolve(w, part.cwd, ctx.home)
        if path is None:
            return f"{part.name} runs SQL from {w.raw}, a file only known at run time"
        data = read_code(path, SCRIPT_LIMIT)
        if not isinstance(data, bytes):  # missing too: an earlier part of the command line may write it
            return f"{part.name} runs SQL from {w.raw}, which handrail cannot read"
        if len(data) > SCRIPT_LIMIT:
            return f"{part.name} runs SQL from {w.raw}, more than handrail reads"
        out.append(data.decode("utf-8", "replace"))
    return out


def check_disk(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    name = part.name
    if name.split(".", 1)[0] in DISK_TOOLS or (name == "diskutil" and any(
            w.text.lower().startswith(("erase", "partition", "zero", "randomdisk", "secureerase"))
            for w in part.words[1:])):
        return [(3, "disk-write", f"{name} writes a disk or a file system")]
    return []


def check_assigns(part: Part, ctx: Ctx) -> list[Finding]:
    for name, w in _assignments(part):
        low = name.lower()
        if low not in SHELL_WRITES_HOOKS and not low.startswith("git_config_key_"):
            continue
        value = w.text.split("=", 1)[1] if "=" in w.text else ""
        if low == "skip" and value:
            return [(3, "git-safety-net", f"SKIP={value} makes the pre-commit framework skip hooks")]
        if low in ("husky", "lefthook") and value in ("0", "false"):
            return [(3, "git-safety-net", f"{name}=0 switches off the git hooks")]
        if low in ("husky_skip_hooks", "lefthook_exclude") and value:
            return [(3, "git-safety-net", f"{name} skips git hooks")]
        if (low == "git_config_parameters" or low.startswith("git_config_key_")) and _HOOKS_PATH in value.lower():
            return [(3, "git-safety-net", f"{name} sets core.hooksPath, which switches the git hooks")]
    return []


def _assignments(part: Part) -> list[tuple[str, Word]]:
    found = list(part.assigns)
    if part.name in ("export", "declare", "typeset", "local", "readonly"):
        for w in part.words[1:]:
            if "=" in w.text and not w.text.startswith("-"):
                found.append((w.text.split("=", 1)[0], w))
    return found
