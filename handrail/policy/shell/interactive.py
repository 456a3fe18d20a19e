"""Programs that read commands typed into them: REPLs, database shells, editors, debuggers.

Started with nothing to run (no script, no `-c`/`-e`, nothing on standard input), each
waits for a person to type: whatever is typed later reaches no hook. In Claude Code
that is a session the agent cannot use; in Codex, `exec_command {tty: true}` and
`write_stdin` let the agent type into it, unseen. So starting one is a human's call
(tier 3; for a harness that cannot ask, a deny).

Each row: the programs, the options that give them something to run (then they are not
interactive, and the other rules judge what runs), the options that take a value, how
many positionals mean "this is what to run" (0: none ever does), and whether every run
of it stays a human's (`always`: a debugger or an editor runs shell commands from
what it reads; an interpreter given a file runs code handrail does not read).
Interpreters handrail reads (python, node, ruby, perl, php, the shells) are judged in
code.py and shells.py.
"""

from __future__ import annotations

from typing import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx
    from handrail.policy.shell.parts import Part

    Finding = tuple[int, str, str]


class Repl(NamedTuple):
    runs: frozenset[str]  # options that give it commands to run
    valued: frozenset[str]  # options that take the next word as their value
    scripts: int  # this many positionals name what to run (0: none does)
    always: bool  # every run but --version/--help needs a human


def _r(runs: str = "", valued: str = "", scripts: int = 1, always: bool = False) -> Repl:
    return Repl(frozenset(runs.split()), frozenset(valued.split()), scripts, always)


_DB_VALUED = "-h --host -p --port -U --username -u --user -d --dbname --database -D -S --socket -P -v --set " \
             "-o --output -T -F -R -L --log-file -a --pass -n -s -r -i --tls --cacert --cert --key"
_SQLITE_VALUED = "-cmd -init -separator -newline -nullvalue -vfs -mmap -lookaside -pagecache -heap -maxsize " \
                 "-escape -A"

# Text editors: each run is a session that reads what is typed into it (gitwrap counts one as the
# editor of a commit message a person writes, not one that sheds the agent's trailer).
EDITORS = ("vi", "vim", "nvim", "nvi", "ex", "ed", "nano", "emacs", "emacsclient", "pico", "joe", "mg", "micro",
           "kak", "hx")
TABLE: dict[str, Repl] = {
    # interpreters whose REPL starts when nothing is given to run
    **dict.fromkeys(("lua", "luajit"), _r("-e -v")),
    "julia": _r("-e --eval -E --print"),
    "r": _r("-e -f --file --version CMD", "--encoding"),
    **dict.fromkeys(("tclsh", "wish", "ocaml", "sml", "gforth"), _r()),
    "racket": _r("-e --eval -f --load -t --require -r --script"),
    "sbcl": _r("--eval --load --script --non-interactive"),
    "guile": _r("-c -s -l"),
    **dict.fromkeys(("clojure", "clj"), _r("-e -M -X -T -m --main -P")),
    **dict.fromkeys(("scala", "amm"), _r("-e")),
    "swipl": _r("-g -t"),
    # database shells: a positional is the database, never what to run
    # (each row's own version and help options are among what "runs": they print and exit)
    "psql": _r("-c --command -f --file -l --list -V -?", _DB_VALUED, 0),
    **dict.fromkeys(("mysql", "mariadb"), _r("-e --execute -V -? -I", _DB_VALUED, 0)),
    "sqlite3": _r("-version", _SQLITE_VALUED, 2),
    "duckdb": _r("-c -s -f", _SQLITE_VALUED, 2),
    "redis-cli": _r("--eval --scan --bigkeys --memkeys --stat --latency --rdb --pipe -v", _DB_VALUED, 1),
    **dict.fromkeys(("mongosh", "mongo"), _r("--eval -f --file -h", "--host --port -u --username -p --password "
                                                                  "--authenticationDatabase", 0)),
    "clickhouse-client": _r("-q --query --queries-file", "--host -h --port --user -u --password --database -d", 0),
    "cqlsh": _r("-e --execute -f --file", "-u -p -k --keyspace", 0),
    # REPLs, debuggers and editors: every run reads what a person (or the agent, unseen) types
    **dict.fromkeys(("irb", "pry", "ghci", "ipython", "bpython", "ptpython", "jshell", "utop", "iex", "erl",
                     "node-repl"), _r(always=True)),
    "gdb": _r("-batch --batch", always=True),
    "lldb": _r("-b --batch", always=True),
    **dict.fromkeys(EDITORS, _r(always=True)),
}
_HELP = frozenset({"--version", "--help", "-version", "-help"})  # -h, -v: a host, a verbosity in many
_RAILS_CONSOLES = frozenset({"console", "c", "dbconsole", "db"})
_SUBCOMMAND_REPLS = {"rails": _RAILS_CONSOLES, "bun": frozenset({"repl"}), "deno": frozenset({"repl"})}
PROGRAMS = (*TABLE, "R", *_SUBCOMMAND_REPLS)


def _reads_commands(name: str, part: Part) -> bool:
    """Is this run of `name` a session that waits for typed commands?"""
    words = part.words[1:]
    if name in _SUBCOMMAND_REPLS:
        return (not words and name == "deno") or (bool(words) and words[0].text in _SUBCOMMAND_REPLS[name])
    row = TABLE[name]
    if any(w.text in _HELP for w in words) and not (row.always and len(words) > 1):
        return False
    if row.always:
        return not any(w.text.split("=", 1)[0] in row.runs for w in words)
    if part.feed is not None:
        return False  # standard input holds what it runs: the other rules judge it
    positionals = 0
    i = 0
    while i < len(words):
        t = words[i].text
        if words[i].dyn:
            return False  # what it is given is only known at run time: the dynamic rules judge it
        if t.split("=", 1)[0] in row.runs or (t[:2] in row.runs and len(t) > 2 and not t.startswith("--")):
            return False
        if t.startswith("-") and len(t) > 1:
            i += 2 if t in row.valued else 1
            continue
        positionals += 1
        if row.scripts and positionals >= row.scripts:
            return False
        i += 1
    return True


def check_interactive(part: Part, ctx: Ctx) -> list[Finding]:
    name = part.name.lower() if part.name == "R" else part.name
    if (name in TABLE or name in _SUBCOMMAND_REPLS) and _reads_commands(name, part):
        return [(3, "dynamic", f"{part.name} starts an interactive session: what is typed into it escapes every "
                               "hook")]
    return []
