"""Wrappers that run the rest of their arguments as a command: `sudo`, `nice`, `env`, `timeout`,
`flock`, `watch`, `su -c`, and those that run it once per input (`xargs`, `parallel`).

Each handler takes the wrapper off the command line and says what runs inside: the words
it runs, `words` itself when it is no wrapper here (or runs nothing more), [] when it runs
nothing at all, None when it handed the command to the walk itself.
"""

from __future__ import annotations

from handrail.policy.shell.argscan import fs, has_short, long_option, opt_end, option_values, take_assigns
from handrail.policy.shell.parts import has_download, resolve, word
from handrail.policy.shell.syntax import Word
from handrail.policy.shell.system import _is_marker

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part, State, Walker

# Wrappers that take options, then run the rest of their arguments as a command.
PLAIN: dict[str, frozenset[str]] = {
    "sudo": fs("-u", "-g", "-h", "-p", "-C", "-D", "-R", "-T", "-U", "-r", "-t", "--user", "--group", "--host",
               "--prompt", "--close-from", "--chdir", "--chroot", "--command-timeout", "--other-user", "--role",
               "--type"),
    "doas": fs("-u", "-C"),
    "nohup": fs(),
    "builtin": fs(),
    "busybox": fs(),
    "time": fs("-o", "-f", "--output", "--format"),
    "nice": fs("-n", "--adjustment"),
    "ionice": fs("-c", "-n", "--class", "--classdata"),
    "stdbuf": fs("-i", "-o", "-e", "--input", "--output", "--error"),
    "setsid": fs(),
    "unbuffer": fs(),
    "chronic": fs(),
    "caffeinate": fs("-w", "-t"),
    "pkexec": fs("--user"),
    "strace": fs("-o", "-e", "-p", "-s", "-u", "-E", "-P", "-I", "-a", "-b", "-X", "-O", "-S"),
    "ltrace": fs("-o", "-e", "-p", "-s", "-u", "-a", "-n"),
    "nocorrect": fs(),
    "noglob": fs(),
    "torsocks": fs(),
    "proxychains": fs("-f"),
    "proxychains4": fs("-f"),
    "exec": fs("-a"),
    "runuser": fs("-u", "-g", "-G", "--user", "--group", "--supp-group"),
    "dotenv": fs("-e", "-c", "-v"),
}
_TIMEOUT = fs("-s", "--signal", "-k", "--kill-after")
_XARGS = fs("-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "--max-lines", "-n", "--max-args", "-P",
            "--max-procs", "-s", "--max-chars", "--process-slot-var")
_PARALLEL = fs("-j", "--jobs", "-a", "--arg-file", "-S", "--sshlogin", "--delay", "--timeout", "-I", "--colsep",
               "-d", "--delimiter", "-N", "-n", "--max-args", "-L", "--max-lines", "--joblog", "--results",
               "--tmpdir", "-E", "--halt")
_XARGS_LONG = fs("--null", "--arg-file", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args",
                 "--max-procs", "--interactive", "--no-run-if-empty", "--max-chars", "--show-limits", "--verbose",
                 "--exit", "--process-slot-var", "--open-tty", "--help", "--version")
_ENV = fs("-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-P", "-a", "--argv0")
# GNU env's long options, all of them: getopt_long takes any unambiguous prefix of one
_ENV_LONG = fs("--argv0", "--chdir", "--debug", "--default-signal", "--ignore-environment", "--ignore-signal",
               "--block-signal", "--list-signal-handling", "--null", "--split-string", "--unset", "--help",
               "--version")
_WATCH = fs("-n", "--interval", "-q", "--equexit", "-s", "--shotsdir")
_FLOCK = fs("-w", "--timeout", "-E", "--conflict-exit-code", "-c", "--command")


def plain(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    end = opt_end(words, 1, PLAIN[name])
    if name == "sudo" and has_short(words, end, "lvKV", ("--list", "--validate", "--version")):
        return []
    if name == "sudo" and has_short(words, end, "e", ("--edit",)):
        part.via.append("sudo -e")
        return [word("sudoedit")] + words[end:]
    end = take_assigns(part, words, end) if name in ("sudo", "doas") else end
    rest = words[end:]
    if name == "exec" and not rest:
        return []
    if name == "exec" and has_short(words, end, "c"):
        part.flags.append(("agent-markers", "exec -c runs the command with an empty environment, without the "
                                            "variables that say an agent is acting"))
    if not rest:
        return words
    if name in ("sudo", "doas") and has_short(words, end, "si", ("--shell", "--login")):
        text = " ".join(w.text for w in rest)
        flat.shell_text(part, text, any(w.dyn for w in rest), False, f"{name} -s", st, words)
        return None
    if name == "busybox" and rest[0].text in ("sh", "ash", "hush"):
        rest = [word("sh")] + rest[1:]
    part.via.append(name)
    return rest


def command(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    end = opt_end(words, 1, fs())
    if has_short(words, end, "vV"):
        return []
    if end >= len(words):
        return words
    part.via.append(name)
    return words[end:]


def timeout(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    end = opt_end(words, 1, _TIMEOUT) + 1
    if end >= len(words):
        return words
    part.via.append(name)
    return words[end:]


def scheduler(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`chrt PRIO CMD`, `taskset MASK CMD`; with `-p` they change a running process instead."""
    if has_short(words, len(words), "p", ("--pid",)):
        return words
    end = opt_end(words, 1, fs()) + 1
    if end >= len(words):
        return words
    part.via.append(name)
    return words[end:]


def flock(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    end = opt_end(words, 1, _FLOCK)
    for i, w in enumerate(words[1:], 1):  # `flock FILE -c CMD`: the option may follow the file
        if w.text in ("-c", "--command") and i + 1 < len(words):
            flat.shell_text(part, words[i + 1].text, words[i + 1].dyn, False, "flock -c", st, words)
            return None
    if end + 1 >= len(words):
        return words
    part.via.append(name)
    return words[end + 1 :]


def watch(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    end = opt_end(words, 1, _WATCH)
    rest = words[end:]
    if not rest:
        return words
    if has_short(words, end, "x", ("--exec",)):
        part.via.append(name)
        return rest
    # watch joins its arguments and hands them to `sh -c`
    flat.shell_text(part, " ".join(w.text for w in rest), any(w.dyn for w in rest), False, "watch", st, words)
    return None


def runuser(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`runuser -u bob -- CMD` runs a command; `runuser -l bob -c CMD` runs shell text, as su does."""
    if any(w.text in ("-c", "--command") or w.text.startswith("--command=") for w in words[1:]):
        return su(flat, part, name, words, st)
    return plain(flat, part, name, words, st)


def su(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`su -c CMD`, `su --command=CMD`: the command is shell text."""
    for i, w in enumerate(words):
        if w.text in ("-c", "--command") and i + 1 < len(words):
            code = words[i + 1]
            flat.shell_text(part, code.text, code.dyn, has_download(code), f"{name} -c", st, words)
            return None
        if w.text.startswith("--command="):
            flat.shell_text(part, w.text[10:], w.dyn, has_download(w), f"{name} -c", st, words)
            return None
    return words


def env(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    i = 1
    n = len(words)
    words = [words[0]] + [_spelt(w, _ENV_LONG) for w in words[1:]]  # `--uns=X` is `--unset=X`
    while i < n:
        w = words[i]
        t = w.text
        if t == "--":
            i += 1
            break
        if t in ("-S", "--split-string") or t.startswith("--split-string=") or (t.startswith("-S") and len(t) > 2):
            _env_split(flat, part, words, i, st)
            return None
        _env_markers(part, words, i)
        if t in ("-C", "--chdir") or t.startswith("--chdir="):
            target = words[i + 1] if t in ("-C", "--chdir") and i + 1 < n else word(t.split("=", 1)[-1])
            part.cwd = resolve(target, part.cwd, flat.home)
            i += 2 if t in ("-C", "--chdir") else 1
            continue
        if t.startswith("-") and len(t) > 1 and not w.dyn:
            i += 2 if t in _ENV else 1
            continue
        break
    i = take_assigns(part, words, i)
    rest = words[i:]
    if not rest:
        return words
    part.via.append("env")
    return rest


def _env_split(flat: Walker, part: Part, words: list[Word], i: int, st: State) -> None:
    """`env -S 'CMD ARGS' MORE`: the string is split into words like a command line."""
    t, n = words[i].text, len(words)
    if t in ("-S", "--split-string"):
        s_text, s_dyn = (words[i + 1].text, words[i + 1].dyn) if i + 1 < n else ("", False)
        i += 2
    else:
        s_text, s_dyn = (t.split("=", 1)[1] if t.startswith("--") else t[2:]), words[i].dyn
        i += 1
    tail = " ".join(x.raw for x in words[i:])
    flat.shell_text(part, f"{s_text} {tail}".strip(), s_dyn, False, "env -S", st, words)


def _env_markers(part: Part, words: list[Word], i: int) -> None:
    """`env -i`, `env -u CLAUDECODE`: the command runs without the variables that say an agent acts."""
    t, n = words[i].text, len(words)
    if t in ("-i", "-", "--ignore-environment") or (t.startswith("-") and not t.startswith("--") and "i" in t):
        part.flags.append(("agent-markers", (f"env {t} starts from an empty environment, without the variables "
                                            "that say an agent is acting")))
    if t in ("-u", "--unset") or t.startswith(("--unset=", "-u")):
        name = (words[i + 1].text if i + 1 < n else "") if t in ("-u", "--unset") else t.split("=", 1)[-1] \
            if t.startswith("--") else t[2:]
        if _is_marker(name) or (i + 1 < n and words[i + 1].dyn):
            part.flags.append(("agent-markers", (f"env -u {name} removes a variable that says an agent is "
                                                "acting")))


def parallel(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    end = opt_end(words, 1, _PARALLEL)
    rest = words[end:]
    args: list[Word] = []
    part.arg_files += option_values(words, end, "a", "--arg-file", frozenset({"--arg-file"}), "ajSIdNnLE")
    rest, listed = _arg_file_operands(words, end, rest)
    part.arg_files += listed
    if ":::" in [w.text for w in rest]:
        k = [w.text for w in rest].index(":::")
        rest, args = rest[:k], [w for w in rest[k + 1 :] if not w.text.startswith(":::")]
    if not rest and args:
        # `parallel ::: 'rm -rf x' 'ls'`: with no command, each argument is a command line
        for a in args:
            flat.shell_text(flat.new_part(part.context, part.via + ["parallel"], part.pipe, part.index, st),
                            a.text, a.dyn, has_download(a), "parallel :::", st)
        part.func = True
        return []
    if not rest:
        return words
    part.via.append(name)
    part.feeder = None if args else _feeder(flat, part)
    if args:
        # `parallel git push ::: --force`: the arguments are written out; judge each run too
        _run_each(flat, part, rest, args, _replace_string(words, end, "{}"), name, st)
    part.extra = True
    if len(rest) == 1 and " " in rest[0].text:  # `parallel 'rm -rf {}' ::: …`: a shell command line
        flat.shell_text(part, rest[0].text, rest[0].dyn, False, "parallel", st, words)
        return None
    return rest if args else _fed_code(rest, _replace_string(words, end, "{}"), unused_appends=True)


def xargs(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    words = [words[0]] + [_spelt(w, _XARGS_LONG) for w in words[1:]]
    end = opt_end(words, 1, _XARGS)
    # `xargs -a FILE`: the file is read, and its lines become the command's arguments
    part.arg_files += option_values(words, end, "a", "--arg-file", _XARGS_LONG, "adEILnPs")
    part.via.append(name)
    part.feeder = _feeder(flat, part)
    fed = part.stdin_text
    if fed is not None and part.feed in ("pipe", "herestring", "heredoc") and words[end:] and \
            not any(w.text in ("-a", "--arg-file") or w.text.startswith(("-a", "--arg-file=")) for w in words):
        # `echo --force | xargs git push`: the arguments are known text; judge them as run
        import shlex

        try:
            args = [word(a) for a in shlex.split(fed)]
        except ValueError:
            args = []
        if args:
            repl = _replace_string(words, end, None)
            _run_each(flat, part, words[end:], args if repl else [_joined(args)], repl, name, st)
    part.extra = True
    return _fed_code(words[end:], _replace_string(words, end, None), unused_appends=False) or [word("echo")]


def _fed_code(cmd: list[Word], repl: str | None, *, unused_appends: bool) -> list[Word]:
    """xargs puts its input into the command line (in place of `-I R`, else at the end). When that
    command runs code (`xargs sh -c`, `xargs -I{} python3 {}`, `xargs env bash -c`), its input may be
    the code or the script: a word only known at run time, so the code is too."""
    from handrail.policy.shell.code import INTERPRETERS
    from handrail.policy.shell.parts import SHELLS, prog_name

    # a shell's `-c TEXT` or script, an interpreter's `-c`/`-e` or script, `eval`, `source`
    if not any(prog_name(w.text) in SHELLS or prog_name(w.text) in INTERPRETERS or w.text in ("eval", "source", ".")
               for w in cmd):
        return cmd
    if repl and (not unused_appends or any(repl in w.text for w in cmd)):
        out = []
        for w in cmd:
            if repl in w.text:
                w = Word(w.text, w.raw)
                w.dyn = True
            out.append(w)
        return out
    fed = Word("$(input)", "a line of its input")
    fed.dyn = True
    return [*cmd, fed]


def _spelt(w: Word, longs: frozenset[str]) -> Word:
    """`w` with an abbreviated long option spelt out (`--arg .env` is `--arg-file .env`)."""
    t = long_option(w.text, longs) if not w.dyn else w.text
    return w if t == w.text else Word(t, w.raw)


def _arg_file_operands(words: list[Word], end: int, rest: list[Word]) -> tuple[list[Word], list[Word]]:
    """`parallel CMD :::: FILE …` (or `::::+`, or the separator `--arg-file-sep` names): the
    words after it are files whose lines are the arguments. (the command, those files)"""
    seps = {"::::", "::::+"}
    seps |= {words[i + 1].text for i in range(1, end - 1) if words[i].text == "--arg-file-sep"}
    seps |= {w.text.split("=", 1)[1] for w in words[1:end] if w.text.startswith("--arg-file-sep=")}
    at = next((k for k, w in enumerate(rest) if w.text in seps), None)
    if at is None:
        return rest, []
    files = [w for w in rest[at + 1 :] if w.text not in seps and not w.text.startswith(":::")]
    return rest[:at], files


def _feeder(flat: Walker, part: Part) -> Part | None:
    """The command before this one in its pipeline (`ls -a | xargs cat`): its output is the arguments."""
    if not part.index or part.feed != "pipe":
        return None
    return next((p for p in reversed(flat.out) if p.pipe == part.pipe and p.index == part.index - 1 and p.lead),
                None)


def _replace_string(words: list[Word], end: int, default: str | None) -> str | None:
    """The replace string of `xargs -I R` / `parallel -I R` (parallel's default `{}`)."""
    for i, w in enumerate(words[1:end], 1):
        if w.text in ("-I", "--replace") and i + 1 < end:
            return words[i + 1].text
        if w.text.startswith("-I") and len(w.text) > 2:
            return w.text[2:]
        if w.text.startswith(("-i", "--replace=")) and not w.text.startswith("-i="):
            return w.text.split("=", 1)[1] if "=" in w.text else "{}"
    return default


def _joined(args: list[Word]) -> Word:
    """All the arguments at once, as one run of xargs hands them over."""
    w = Word(" ".join(a.text for a in args), " ".join(a.raw for a in args))
    w.split = True  # type: ignore[attr-defined]
    return w


def _run_each(flat: Walker, part: Part, cmd: list[Word], args: list[Word], repl: str | None, label: str,
              st: State) -> None:
    """Judge `cmd` once for each of `args` (at most 16): put in for `repl`, else appended."""
    import shlex

    for a in args[:16]:
        value = a.text if getattr(a, "split", False) else shlex.quote(a.text)
        texts = [w.raw for w in cmd]
        if len(cmd) == 1 and " " in cmd[0].text:  # `parallel 'rm -rf {}' ::: …`: a shell command line
            line = cmd[0].text
            texts = [line.replace(repl, value) if repl and repl in line else f"{line} {value}"]
        elif repl and any(repl in w.text for w in cmd):
            texts = [shlex.quote(w.text.replace(repl, a.text)) if repl in w.text else t
                     for w, t in zip(cmd, texts)]
        else:
            texts.append(value)
        flat.shell_text(flat.new_part(part.context, part.via, part.pipe, part.index, st), " ".join(texts),
                        any(w.dyn for w in cmd) or a.dyn, False, label, st)
