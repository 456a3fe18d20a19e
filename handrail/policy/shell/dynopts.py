"""A word known only at run time where an option could stand: `sort "$o" F` is `sort -o F`
when `o=-o`, `git log "$x"` is `git log --output=.git/hooks/pre-commit`, `find . "$a" F` is
`find . -fprint F`. Such a word is no operand handrail can judge: for a program whose options
can write, delete, run code, send data or change refs, it is an option handrail does not know,
and a human decides. A program whose options are all harmless (`cat`, `grep`, `ls`) keeps its
tier, and so does a word after `--` or in the place of an option's value (`grep -e "$p"`).
"""

from __future__ import annotations

from handrail.policy.shell import options
from handrail.policy.shell.argscan import run_time_option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx, Finding
    from handrail.policy.shell.parts import Part
    from handrail.policy.shell.syntax import Word

# Programs whose options decide what they write, remove, run or send, beyond the option
# tables (options.DANGEROUS, the write and command options): what such an option does.
_BY_OPTION: dict[str, str] = {
    **dict.fromkeys(("sed", "gsed", "perl"), "edit files in place (-i) or run a script file (-f)"),
    **dict.fromkeys(("cp", "mv", "ln", "install"), "choose the target folder (-t), link or remove what they copy"),
    **dict.fromkeys(("rsync", "scp"), "delete at the destination (--delete), choose the target or a remote shell"),
    **dict.fromkeys(("rm", "rmdir", "unlink", "shred", "srm", "rimraf"), "remove whole folders (-r)"),
    **dict.fromkeys(("chmod", "chown", "chgrp"), "change a whole tree (-R) or take a mode from another file"),
    "uniq": "change which operand it writes", "xargs": "choose what it runs and with what",
    "find": "delete (-delete), run programs (-exec) or write files (-fprint)",
    "wget": "write files, run its own commands (-e)",
    "curl": "write files (-o), send files (-T, -d @FILE) or read a config that does (-K)",
}
# git subcommands whose options read and print, and nothing else; every other one has options
# that write (`--output`), run programs (`--ext-diff`, `--exec`), or force, delete and discard.
_GIT_READS = frozenset({"status", "rev-parse", "ls-files", "ls-tree", "cat-file", "show-ref", "for-each-ref",
                        "merge-base", "describe", "name-rev", "check-ignore", "check-attr", "count-objects",
                        "var", "version", "rev-list", "shortlog", "cherry", "verify-commit", "verify-tag"})
_GIT_EFFECT = "write files (--output), run programs (--ext-diff, --exec), or force, delete and discard"


def _effect(part: Part) -> tuple[str, int] | None:
    """(what the program's options can do, where its own options start), or None when every
    option it has is harmless or unknown to handrail's tables."""
    name, words = part.name, part.words
    if name == "git":
        sub = next((i for i, w in enumerate(words[1:], 1) if not w.text.startswith("-")), None)
        if sub is not None and words[sub].optlike:
            return _GIT_EFFECT, sub  # `for s in *; do git "$s"; done`: a file named `-c…` is git's option
        if sub is None or words[sub].dyn or words[sub].text in _GIT_READS:
            return None  # `git "$SUB"` is judged as a run-time subcommand elsewhere
        return _GIT_EFFECT, sub + 1
    table = options.DANGEROUS.get(name)
    if name in options._SUBCOMMANDS:
        sub = next((i for i, w in enumerate(words[1:], 1) if not w.text.startswith("-")), None)
        if sub is not None and f"{name} {words[sub].text}" in options.DANGEROUS:
            table = options.DANGEROUS[f"{name} {words[sub].text}"]
    if table:
        shown = ", ".join(dict.fromkeys(o.split("=", 1)[0] for o in table))
        return f"{shown[:80]}{'…' if len(shown) > 80 else ''}", 1
    what = _BY_OPTION.get(name)
    if what is None:
        from handrail.policy.shell.cmdopts import _CMD_OPTS
        from handrail.policy.shell.targets import _FILE_OPTS

        opts = _FILE_OPTS.get(name, ()) + _CMD_OPTS.get(name, ())
        if not opts:
            return None
        what = ", ".join(opts[:6])
    return what, 1


def _values(part: Part) -> tuple[frozenset[str], str]:
    """The options of `part`'s program that take the next word as their value, and the letters."""
    from handrail.policy.shell import archives, deletes, gitrules, targets, tokens
    from handrail.policy.shell.cmdopts import _CMD_OPTS as CMD_OPTS

    name = part.name
    key = name
    if name == "git" and len(part.words) > 1:
        key = f"git {part.words[1].text}"
    longs = set(targets._FILE_OPTS.get(name, ())) | set(CMD_OPTS.get(key, ())) | set(CMD_OPTS.get(name, ()))
    if name == "git" and len(part.words) > 1:
        longs |= gitrules._GIT_VALUES.get(part.words[1].text, frozenset())
    elif name in ("tar", "bsdtar", "gtar"):
        longs |= archives._TAR_LONG_VALUED
    elif name in ("rsync", "scp"):
        longs |= deletes._RSYNC_VALUES
    elif name in ("cp", "mv", "ln", "install"):
        longs |= targets._CP_VALUES
    elif name == "find":
        longs |= FIND_VALUES
    longs |= _OWN_VALUES.get(name, frozenset())
    letters = tokens.VALUE_LETTERS.get(key, tokens.VALUE_LETTERS.get(name, ""))
    return frozenset(longs), letters


# find's tests and actions that take the next word as their value.
FIND_VALUES = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
                         "-lname", "-ilname", "-type", "-xtype", "-maxdepth", "-mindepth", "-newer", "-anewer",
                         "-cnewer", "-newermt", "-newerct", "-newerat", "-mtime", "-atime", "-ctime", "-mmin",
                         "-amin", "-cmin", "-size", "-user", "-group", "-uid", "-gid", "-perm", "-links", "-inum",
                         "-samefile", "-fstype", "-used", "-printf", "-fprint", "-fprint0", "-fprintf", "-fls",
                         "-regextype", "-context", "-D", "-O"})
# Options of test runners that take the next word (a test name, a marker, a count) as their value.
_OWN_VALUES = {
    "go": frozenset({f"{d}{o}" for d in ("-", "--") for o in (
        "run", "skip", "bench", "benchtime", "count", "timeout", "tags", "cpu", "parallel", "p", "o", "C", "mod",
        "covermode", "coverpkg", "coverprofile", "fuzz", "fuzztime", "shuffle", "ldflags", "gcflags", "exec")}),
    "pytest": frozenset({"-k", "-m", "-p", "-c", "-o", "-W", "-n", "-r", "--deselect", "--ignore", "--rootdir",
                         "--maxfail", "--durations", "--tb", "--junitxml", "--basetemp", "--cov", "--cov-report"}),
}
_FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _own_words(part: Part) -> list[Word]:
    """The words the program reads as its own: a `find -exec` command is judged as the command it is,
    and the `{}` find hands it is a path under find's starting points (find's own words are judged)."""
    words = part.words
    if any(v.startswith("find -exec") for v in part.via):
        return [w for w in words if w.raw != "{}"]
    if part.name != "find":
        return words
    out: list[Word] = []
    inside = False
    for w in words:
        if inside:
            inside = w.text not in (";", "+")
        elif w.text in _FIND_RUNS and not w.dyn:
            inside = True
        else:
            out.append(w)
    return out


def check_run_time_options(part: Part, ctx: Ctx) -> list[Finding]:
    if len(part.words) < 2 or not any(w.dyn or w.optlike for w in part.words[1:]):
        return []
    known = _effect(part)
    if known is None:
        return []
    what, start = known
    value_opts, letters = _values(part)
    from handrail.policy.shell.tokens import NO_CLUSTER

    w = run_time_option(_own_words(part), start, value_opts, letters, cluster=part.name not in NO_CLUSTER)
    if w is None:
        return []
    unknown = f"{w.raw} (a file {w.text} names)" if w.optlike else f"{w.raw} is only known at run time and"
    can = f"and its options can {what}" if what[0] != "-" else f"such as {what}"
    return [(3, "dynamic", f"{unknown} may be an option of {part.name}, {can}{_safe_spelling(part.name, w.raw)}")]


# Programs that read every word after `--` as an operand, and those that also take the pattern
# as the value of `-e`: the spelling that keeps a run-time word from being an option.
_ENDS_OPTIONS = frozenset({"sort", "uniq", "cp", "mv", "ln", "install", "rm", "rmdir", "unlink", "shred", "chmod",
                           "chown", "chgrp", "rsync", "scp", "tar", "bsdtar", "gtar", "xargs", "wget"})
_PATTERN_OPTION = frozenset({"grep", "egrep", "fgrep", "rg", "ag"})


def _safe_spelling(name: str, raw: str) -> str:
    if name == "git":
        return f"; `--end-of-options {raw}` makes it a revision, `-- {raw}` a path"
    if name in _PATTERN_OPTION:
        return f"; `-e {raw}` makes it the pattern, `-- {raw}` a file"
    if name in _ENDS_OPTIONS:
        return f"; `-- {raw}` makes it an operand"
    return ""


def programs() -> frozenset[str]:
    """The programs this rule looks at: those with options that can do harm."""
    from handrail.policy.shell.cmdopts import _CMD_OPTS
    from handrail.policy.shell.targets import _FILE_OPTS

    return frozenset({k.split(" ", 1)[0] for k in (*options.DANGEROUS, *_CMD_OPTS)} | set(_FILE_OPTS) |
                     set(_BY_OPTION) | {"git"})
