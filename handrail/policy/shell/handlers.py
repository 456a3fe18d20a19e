"""The wrappers that run another command, and how each one is looked through.

`sudo`, `env`, `timeout`, `xargs`, `watch`, `bash -c`, `uv run`, `npx`, git's own global options…:
`step` takes one of them off a command line and says what runs inside. Shell text handed to
another shell is parsed by `unwrap` in turn.
"""

from __future__ import annotations

import re

from handrail.policy.shell.syntax import Simple, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.unwrap import Flat, Part, State

SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "posh",
                    "rbash", "ksh93", "pdksh", "oksh", "loksh"})
DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request", "get", "httpie",
                         "invoke-webrequest", "iwr"})
DYNAMIC, DOWNLOAD = "dynamic", "download-to-shell"


def word(text: str) -> Word:
    return Word(text, text)


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


def _run_each(flat: Flat, part: Part, cmd: list[Word], args: list[Word], repl: str | None, label: str,
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


def _opt_end(words: list[Word], i: int, value_opts: frozenset[str]) -> int:
    """Index of the first word after the options that start at `i` (`--` is consumed)."""
    n = len(words)
    while i < n:
        t = words[i].text
        if t == "--":
            return i + 1
        if len(t) < 2 or t[0] != "-" or words[i].dyn:
            return i
        if t.startswith("--"):
            i += 2 if ("=" not in t and t in value_opts) else 1
            continue
        takes_next = False
        for j in range(1, len(t)):
            if "-" + t[j] in value_opts:
                takes_next = j == len(t) - 1
                break
        i += 2 if takes_next else 1
    return i


def _has_short(words: list[Word], end: int, letters: str, longs: tuple[str, ...] = ()) -> bool:
    for w in words[1:end]:
        t = w.text
        if t.startswith("--"):
            if t.split("=", 1)[0] in longs:
                return True
        elif t.startswith("-") and any(c in t[1:] for c in letters):
            return True
    return False


def _fs(*names: str) -> frozenset[str]:
    return frozenset(names)


# Wrappers that take options, then run the rest of their arguments as a command.
_PLAIN: dict[str, frozenset[str]] = {
    "sudo": _fs("-u", "-g", "-h", "-p", "-C", "-D", "-R", "-T", "-U", "-r", "-t", "--user", "--group", "--host",
                "--prompt", "--close-from", "--chdir", "--chroot", "--command-timeout", "--other-user", "--role",
                "--type"),
    "doas": _fs("-u", "-C"),
    "nohup": _fs(),
    "builtin": _fs(),
    "busybox": _fs(),
    "time": _fs("-o", "-f", "--output", "--format"),
    "nice": _fs("-n", "--adjustment"),
    "ionice": _fs("-c", "-n", "--class", "--classdata"),
    "stdbuf": _fs("-i", "-o", "-e", "--input", "--output", "--error"),
    "setsid": _fs(),
    "unbuffer": _fs(),
    "caffeinate": _fs("-w", "-t"),
    "pkexec": _fs("--user"),
    "strace": _fs("-o", "-e", "-p", "-s", "-u", "-E", "-P", "-I", "-a", "-b", "-X", "-O", "-S"),
    "ltrace": _fs("-o", "-e", "-p", "-s", "-u", "-a", "-n"),
    "nocorrect": _fs(),
    "noglob": _fs(),
    "torsocks": _fs(),
    "proxychains": _fs("-f"),
    "proxychains4": _fs("-f"),
    "exec": _fs("-a"),
    "runuser": _fs("-u", "-g", "-G", "--user", "--group", "--supp-group"),
    "dotenv": _fs("-e", "-c", "-v"),
}
_TIMEOUT = _fs("-s", "--signal", "-k", "--kill-after")
_XARGS = _fs("-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "--max-lines", "-n", "--max-args", "-P",
             "--max-procs", "-s", "--max-chars", "--process-slot-var")
_PARALLEL = _fs("-j", "--jobs", "-a", "--arg-file", "-S", "--sshlogin", "--delay", "--timeout", "-I", "--colsep",
                "-d", "--delimiter", "-N", "-n", "--max-args", "-L", "--max-lines", "--joblog", "--results",
                "--tmpdir", "-E", "--halt")
_ENV = _fs("-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-P")
_WATCH = _fs("-n", "--interval", "-q", "--equexit", "-s", "--shotsdir")
_SSH = _fs("-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q", "-R",
           "-S", "-W", "-w", "-B")
_STDIN_PATHS = _fs("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")
_SHELL_VALUE = _fs("-o", "+o", "-O", "+O", "--rcfile", "--init-file")
_NPX = _fs("-p", "--package", "-c", "--call", "--cache", "--registry", "--userconfig")
_UV_RUN = _fs("--with", "--with-requirements", "--with-editable", "--python", "-p", "--project", "--directory",
              "--package", "--env-file", "--extra", "--group", "--only-group", "--no-group", "--index",
              "--default-index", "--index-url", "--extra-index-url", "--find-links", "-f", "--config-file",
              "--cache-dir", "--python-preference", "--from", "-w", "--exclude-newer")
_RUNNERS = {  # `X run CMD`: the subcommand that runs a command, and its value options
    "poetry": ("run", _fs()), "pipenv": ("run", _fs()), "pdm": ("run", _fs()), "hatch": ("run", _fs()),
    "rye": ("run", _fs()), "bundle": ("exec", _fs()), "bundler": ("exec", _fs()),
    "conda": ("run", _fs("-n", "--name", "-p", "--prefix", "--cwd")),
    "mamba": ("run", _fs("-n", "--name", "-p", "--prefix", "--cwd")),
    "micromamba": ("run", _fs("-n", "--name", "-p", "--prefix", "--cwd")),
    "op": ("run", _fs("--env-file")), "doppler": ("run", _fs("-p", "--project", "-c", "--config")),
    "dotenvx": ("run", _fs("-f", "--env-file")), "pnpm": ("exec", _fs()), "yarn": ("exec", _fs()),
    "npm": ("exec", _fs("-c", "--call", "--package", "-w", "--workspace")),
}

# Every name `Flat.step` looks through (a fast "no" for all other programs).
_STEPS = frozenset(_PLAIN) | frozenset(_RUNNERS) | SHELLS | {
    "command", "env", "timeout", "chrt", "taskset", "flock", "parallel", "xargs", "watch", "su", "runuser", "npx",
    "bunx", "pnpx", "uvx", "pnpm", "yarn", "bun", "uv", "git", "eval", "source", ".", "trap", "alias", "ssh", "docker",
    "podman", "kubectl", "oc", "powershell", "pwsh", "cmd", "python"}


def step(flat: Flat, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """One wrapper looked through: the words it runs; `words` itself when it is no wrapper
    (or runs nothing more); [] when it runs nothing at all; None when handled here."""
    if name not in _STEPS and not name.startswith("git-"):
        return words
    if name in _PLAIN:
        end = _opt_end(words, 1, _PLAIN[name])
        if name == "sudo" and _has_short(words, end, "lvKV", ("--list", "--validate", "--version")):
            return []
        if name == "sudo" and _has_short(words, end, "e", ("--edit",)):
            part.via.append("sudo -e")
            return [word("sudoedit")] + words[end:]
        end = _take_assigns(part, words, end) if name in ("sudo", "doas") else end
        rest = words[end:]
        if name == "exec" and not rest:
            return []
        if not rest:
            return words
        if name in ("sudo", "doas") and _has_short(words, end, "si", ("--shell", "--login")):
            text = " ".join(w.text for w in rest)
            flat.shell_text(part, text, any(w.dyn for w in rest), False, f"{name} -s", st, words)
            return None
        if name == "busybox" and rest[0].text in ("sh", "ash", "hush"):
            rest = [word("sh")] + rest[1:]
        part.via.append(name)
        return rest
    if name == "command":
        end = _opt_end(words, 1, _fs())
        if _has_short(words, end, "vV"):
            return []
        if end >= len(words):
            return words
        part.via.append(name)
        return words[end:]
    if name == "env":
        return _env(flat, part, words, st)
    if name == "timeout":
        end = _opt_end(words, 1, _TIMEOUT) + 1
        if end >= len(words):
            return words
        part.via.append(name)
        return words[end:]
    if name in ("chrt", "taskset"):
        if _has_short(words, len(words), "p", ("--pid",)):
            return words
        end = _opt_end(words, 1, _fs()) + 1
        if end >= len(words):
            return words
        part.via.append(name)
        return words[end:]
    if name == "flock":
        end = _opt_end(words, 1, _fs("-w", "--timeout", "-E", "--conflict-exit-code", "-c", "--command"))
        for i, w in enumerate(words[1:], 1):  # `flock FILE -c CMD`: the option may follow the file
            if w.text in ("-c", "--command") and i + 1 < len(words):
                flat.shell_text(part, words[i + 1].text, words[i + 1].dyn, False, "flock -c", st, words)
                return None
        if end + 1 >= len(words):
            return words
        part.via.append(name)
        return words[end + 1 :]
    if name == "parallel":
        end = _opt_end(words, 1, _PARALLEL)
        rest = words[end:]
        args: list[Word] = []
        if ":::" in [w.text for w in rest]:
            k = [w.text for w in rest].index(":::")
            rest, args = rest[:k], [w for w in rest[k + 1 :] if not w.text.startswith(":::")]
        if not rest and args:
            # `parallel ::: 'rm -rf x' 'ls'`: with no command, each argument is a command line
            for a in args:
                flat.shell_text(flat.new_part(part.context, part.via + ["parallel"], part.pipe, part.index, st),
                                a.text, a.dyn, _has_download(a), "parallel :::", st)
            part.func = True
            return []
        if not rest:
            return words
        part.via.append(name)
        if args:
            # `parallel git push ::: --force`: the arguments are written out; judge each run too
            _run_each(flat, part, rest, args, _replace_string(words, end, "{}"), name, st)
        part.extra = True
        if len(rest) == 1 and " " in rest[0].text:  # `parallel 'rm -rf {}' ::: …`: a shell command line
            flat.shell_text(part, rest[0].text, rest[0].dyn, False, "parallel", st, words)
            return None
        return rest
    if name == "xargs":
        end = _opt_end(words, 1, _XARGS)
        part.via.append(name)
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
        return words[end:] or [word("echo")]
    if name == "watch":
        end = _opt_end(words, 1, _WATCH)
        rest = words[end:]
        if not rest:
            return words
        if _has_short(words, end, "x", ("--exec",)):
            part.via.append(name)
            return rest
        # watch joins its arguments and hands them to `sh -c`
        flat.shell_text(part, " ".join(w.text for w in rest), any(w.dyn for w in rest), False, "watch", st,
                        words)
        return None
    if name in ("su", "runuser") and any(w.text in ("-c", "--command") or w.text.startswith("--command=")
                                          for w in words[1:]):
        for i, w in enumerate(words):
            if w.text in ("-c", "--command") and i + 1 < len(words):
                code = words[i + 1]
                flat.shell_text(part, code.text, code.dyn, _has_download(code), f"{name} -c", st, words)
                return None
            if w.text.startswith("--command="):
                flat.shell_text(part, w.text[10:], w.dyn, _has_download(w), f"{name} -c", st, words)
                return None
    if name in ("npx", "bunx", "pnpx", "uvx") or (name in ("pnpm", "yarn") and _sub(words) == "dlx") \
            or (name == "bun" and _sub(words) == "x") or (name == "uv" and _sub(words) == "tool"
                                                            and len(words) > 2 and words[2].text == "run"):
        return _npx(flat, part, name, words, st)
    if name == "uv" and _sub(words) == "run":
        end = _opt_end(words, 2, _UV_RUN)
        if end >= len(words):
            return words
        part.via.append("uv run")
        return words[end:]
    if name in _RUNNERS and _sub(words) == _RUNNERS[name][0]:
        sub, opts = _RUNNERS[name]
        end = _opt_end(words, 2, opts)
        if end >= len(words):
            return words
        part.via.append(f"{name} {sub}")
        return words[end:]
    if name == "git" or name.startswith("git-"):
        return _git(flat, part, name, words, st)
    if name in SHELLS:
        return _shell(flat, part, name, words, st)
    if name == "eval":
        rest = words[1:]
        if not rest:
            return []
        text = " ".join(w.text for w in rest)
        part.name = "eval"
        flat.shell_text(part, text, any(w.dyn for w in rest), any(_has_download(w) for w in rest), "eval", st, words)
        return None
    if name in ("source", "."):
        if len(words) > 1 and words[1].text in _STDIN_PATHS:
            return stdin_script(flat, part, name, words, st)
        if len(words) > 1 and (words[1].dyn or words[1].raw[:2] == "<("):
            rule = DOWNLOAD if _has_download(words[1]) else DYNAMIC
            part.flags.append((rule, f"{name} runs a script only known at run time"))
        return words
    if name == "trap" and len(words) > 2 and not words[1].text.startswith("-"):
        flat.shell_text(flat.new_part(part.context, part.via, part.pipe, part.index, st), words[1].text,
                        words[1].dyn, False, "trap", st, words)
        part.func = True
        return words
    if name == "alias":
        for w in words[1:]:
            if "=" in w.text:
                key, value = w.text.split("=", 1)
                if w.dyn:
                    st.aliases.pop(key, None)
                    part.flags.append((DYNAMIC, f"alias {key} is text built at run time"))
                    continue
                st.aliases[key] = value
                flat.shell_text(flat.new_part(part.context, part.via, part.pipe, part.index, st),
                                value, w.dyn, False, "alias", st)
        return words
    if name == "ssh":
        return _ssh(flat, part, words, st)
    if name in ("powershell", "pwsh", "cmd"):
        return _windows_shell(flat, part, name, words, st)
    if name == "python" and len(words) > 2 and words[1].text == "-m" and words[2].text in ("handrail",):
        part.via.append("python -m")
        return [word("handrail")] + words[3:]
    if name in ("docker", "podman", "kubectl", "oc") and _sub(words) == "exec":
        return _container_exec(flat, part, name, words, st)
    return words

def _env(flat: Flat, part: Part, words: list[Word], st: State) -> list[Word] | None:
    i = 1
    n = len(words)
    while i < n:
        w = words[i]
        t = w.text
        if t == "--":
            i += 1
            break
        if t in ("-S", "--split-string") or t.startswith("--split-string=") or (t.startswith("-S") and len(t) > 2):
            if t in ("-S", "--split-string"):
                s_text, s_dyn = (words[i + 1].text, words[i + 1].dyn) if i + 1 < n else ("", False)
                i += 2
            else:
                s_text, s_dyn = (t.split("=", 1)[1] if t.startswith("--") else t[2:]), w.dyn
                i += 1
            tail = " ".join(x.raw for x in words[i:])
            flat.shell_text(part, f"{s_text} {tail}".strip(), s_dyn, False, "env -S", st, words)
            return None
        if t in ("-i", "-", "--ignore-environment") or (t.startswith("-") and not t.startswith("--") and "i" in t):
            part.flags.append(("agent-markers", f"env {t} starts from an empty environment, without the variables "
                                                "that say an agent is acting"))
        if t in ("-u", "--unset") or t.startswith(("--unset=", "-u")):
            name = (words[i + 1].text if i + 1 < n else "") if t in ("-u", "--unset") else t.split("=", 1)[-1] \
                if t.startswith("--") else t[2:]
            from handrail.policy.shell.system import _is_marker

            if _is_marker(name) or (i + 1 < n and words[i + 1].dyn):
                part.flags.append(("agent-markers", f"env -u {name} removes a variable that says an agent is "
                                                    "acting"))
        if t in ("-C", "--chdir") or t.startswith("--chdir="):
            target = words[i + 1] if t in ("-C", "--chdir") and i + 1 < n else word(t.split("=", 1)[-1])
            part.cwd = unwrap.resolve(target, part.cwd, flat.home)
            i += 2 if t in ("-C", "--chdir") else 1
            continue
        if t.startswith("-") and len(t) > 1 and not w.dyn:
            i += 2 if t in _ENV else 1
            continue
        break
    i = _take_assigns(part, words, i)
    rest = words[i:]
    if not rest:
        return words
    part.via.append("env")
    return rest

def _npx(flat: Flat, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    first = 3 if name == "uv" else (2 if name in ("pnpm", "yarn", "bun") else 1)
    i = first
    while i < len(words):
        t = words[i].text
        if t in ("-c", "--call") and i + 1 < len(words):
            flat.shell_text(part, words[i + 1].text, words[i + 1].dyn, False, f"{name} -c", st, words)
            return None
        if t == "--":
            i += 1
            break
        if t.startswith("-") and not words[i].dyn:
            i += 2 if (t in _NPX or t == "--from") else 1
            continue
        break
    rest = words[i:]
    if not rest:
        return words
    pkg = rest[0]
    text = pkg.text
    at = text.find("@", 1)
    if at > 0:
        text = text[:at]
    text = text.rsplit("/", 1)[-1]
    new = Word(text, pkg.raw)
    new.dyn, new.wild = pkg.dyn, pkg.wild
    part.via.append(name if first == 1 else " ".join(w.text for w in words[:first]))
    return [new] + rest[1:]

def _git(flat: Flat, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    if name.startswith("git-"):
        words = [word("git"), Word(name[4:], name[4:])] + words[1:]
    i = 1
    n = len(words)
    cwd = part.cwd
    while i < n:
        w = words[i]
        t = w.text
        if w.dyn or not t.startswith("-"):
            break
        if t == "-C" and i + 1 < n:
            cwd = unwrap.resolve(words[i + 1], cwd, flat.home) if cwd is not None or words[i + 1].text.startswith("/") else None
            i += 2
        elif t == "-c" and i + 1 < n:
            part.git_config.append(words[i + 1].text)
            i += 2
        elif t.startswith("-c") and len(t) > 2 and not t.startswith("--"):  # `-ckey=value`
            part.git_config.append(t[2:])
            i += 1
        elif t.startswith("-C") and len(t) > 2:  # `-Cdir`
            cwd = unwrap.resolve(Word(t[2:], t[2:]), cwd, flat.home)
            i += 1
        elif t.startswith("--config-env=") or (t == "--config-env" and i + 1 < n):
            # `--config-env=KEY=ENVVAR`: the value is an environment variable's, unknown here
            cfg = t.split("=", 1)[1] if "=" in t else words[i + 1].text
            part.git_config.append(cfg)
            git_config_value(flat, part, cfg.partition("=")[0], "", True, st)
            i += 1 if "=" in t else 2
        elif t in ("--git-dir", "--work-tree", "--namespace", "--super-prefix", "--attr-source"):
            i += 2
        elif t in ("--version", "--help", "-h", "--exec-path", "--html-path", "--man-path", "--info-path"):
            break
        else:
            i += 1
    if i > 1 or name.startswith("git-"):
        words = [words[0]] + words[i:]
    part.cwd = cwd
    for cfg in part.git_config:
        key, _, value = cfg.partition("=")
        git_config_value(flat, part, key, value, False, st)
    sub = words[1].text if len(words) > 1 else ""
    if sub == "config":
        _git_config_write(flat, part, words, st)
    if sub == "submodule" and len(words) > 2 and words[2].text == "foreach":
        rest = [w for w in words[3:] if w.text not in ("--recursive", "-q", "--quiet")]
        if rest:
            flat.shell_text(part, " ".join(w.text for w in rest), any(w.dyn for w in rest), False,
                            "git submodule foreach", st, words)
            return None
    if sub == "rebase":
        for j, w in enumerate(words[2:], 2):
            if w.text in ("-x", "--exec") and j + 1 < len(words):
                flat.shell_text(flat.new_part(part.context, part.via, part.pipe, part.index, st),
                                words[j + 1].text, words[j + 1].dyn, False, "git rebase --exec", st)
            elif w.text.startswith("--exec="):
                flat.shell_text(flat.new_part(part.context, part.via, part.pipe, part.index, st),
                                w.text[7:], w.dyn, False, "git rebase --exec", st)
    if sub == "bisect" and len(words) > 3 and words[2].text == "run":
        part.via.append("git bisect run")
        return words[3:]
    flat.emit(part, words, st)
    return None

# git configuration whose value is a command git runs (through the shell), and
# configuration that pulls in another file of configuration.
_GIT_EXEC_KEYS = frozenset({"core.pager", "core.editor", "core.fsmonitor", "core.sshcommand", "core.askpass",
                            "core.gitproxy", "core.alternaterefscommand", "sequence.editor", "diff.external",
                            "gpg.program", "credential.helper", "uploadpack.packobjectshook", "sendemail.smtpserver",
                            "sendemail.sendmailcmd", "sendemail.tocmd", "sendemail.cccmd"})
_GIT_EXEC_LAST = frozenset({"textconv", "command", "driver", "clean", "smudge", "process", "helper", "program",
                            "cmd", "receivepack", "uploadpack", "proxy"})
_GIT_EXEC_FIRST = frozenset({"pager", "diff", "merge", "filter", "credential", "gpg", "difftool", "mergetool",
                             "browser", "man", "remote"})
_GIT_CONFIG_VALUE_OPTS = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"})
_GIT_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color",
                               "--get-colorbool", "-l", "--list", "--unset", "--unset-all", "--remove-section",
                               "--rename-section", "-e", "--edit"})


def git_exec_key(key: str) -> str | None:
    """'command' when git runs the key's value, 'include' when it reads it as more configuration."""
    low = key.lower()
    first, _, rest = low.partition(".")
    last = low.rsplit(".", 1)[-1]
    if low == "include.path" or (first == "includeif" and last == "path"):
        return "include"
    if low in _GIT_EXEC_KEYS or first == "alias" or (first in _GIT_EXEC_FIRST and rest and
                                                     (first == "pager" or last in _GIT_EXEC_LAST)):
        return "command"
    return None


def git_config_value(flat: Flat, part: Part, key: str, value: str, dyn: bool, st: State) -> None:
    """`git -c KEY=VALUE`, `git config KEY VALUE`: judge a command git will run from its configuration."""
    kind = git_exec_key(key)
    if kind is None:
        return
    if kind == "include":
        part.flags.append(("git-safety-net", f"git configuration {key} reads more configuration, "
                                             "which can switch the git hooks or run commands"))
        return
    low = key.lower()
    if low.startswith("alias.") or "helper" in low:
        if not value.startswith("!"):
            return  # a git subcommand or a credential-<name> helper, not shell text
        value = value[1:]
    if not value.strip() and not dyn:
        return
    shown = [word("git"), word(f"{key}={value}" if value else key)]
    flat.shell_text(flat.new_part(part.context, part.via, part.pipe, part.index, st), value, dyn, False,
                    f"git {key}", st, shown)


# Environment variables whose value is a command that git, less or another tool runs;
# and those that point git at other configuration, templates (hooks) or programs.
_EXEC_ENV = frozenset({"GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR", "VISUAL", "GIT_SEQUENCE_EDITOR",
                       "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS",
                       "GIT_PROXY_COMMAND", "LESSOPEN", "LESSCLOSE", "MANPAGER", "SYSTEMD_PAGER"})
_REDIRECT_ENV = frozenset({"GIT_EXEC_PATH", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG",
                           "GIT_TEMPLATE_DIR"})


def exec_env(flat: Flat, part: Part, st: State) -> None:
    """`GIT_PAGER='rm -rf ~' git log`: judge the command a tool will run from its environment."""
    found = list(part.assigns)
    if part.name in ("export", "declare", "typeset", "local", "readonly"):
        found += [(w.text.split("=", 1)[0], w) for w in part.words[1:] if "=" in w.text and
                  not w.text.startswith("-")]
    for name, w in found:
        up = name.upper()
        value = w.text.split("=", 1)[1] if "=" in w.text else ""
        if up in _REDIRECT_ENV:
            part.flags.append(("git-safety-net", f"{name} points git at other configuration, hooks or programs"))
        elif up.startswith("GIT_CONFIG_KEY_") and git_exec_key(value):
            part.flags.append(("git-safety-net", f"{name}={value} sets git configuration that runs commands"))
        elif up == "GIT_CONFIG_PARAMETERS":
            for cfg in value.replace("'", " ").split():
                if git_exec_key(cfg.split("=", 1)[0]):
                    part.flags.append(("git-safety-net", f"{name} sets {cfg.split('=', 1)[0]}, which runs commands"))
                    break
        elif up in _EXEC_ENV:
            if up.startswith("LESS"):
                value = value.lstrip("|-")
            if not value.strip() and not w.dyn:
                continue
            flat.shell_text(flat.new_part(part.context, part.via, part.pipe, part.index, st), value, w.dyn, False,
                            name, st, [w])


# Options whose value is a command the program runs: `rg --pre CMD`, `git grep -O CMD`, `tar --to-command=CMD`.
_CMD_OPTS: dict[str, tuple[str, ...]] = {
    "rg": ("--pre",), "man": ("-P", "--pager"), "rsync": ("-e", "--rsh"), "zip": ("-TT", "--unzip-command"),
    "tar": ("--to-command", "--use-compress-program", "-I", "--rsh-command", "--info-script", "--new-volume-script",
            "-F"),
    "git ls-remote": ("--upload-pack",), "git fetch": ("--upload-pack",), "git pull": ("--upload-pack",),
    "git clone": ("--upload-pack", "-u"), "git push": ("--receive-pack", "--exec"), "git archive": ("--exec",),
    "git grep": ("-O", "--open-files-in-pager"), "git difftool": ("-x", "--extcmd"),
}
_SED_EXEC_SOURCE = (r"(?:^|[;\n{}])\s*(?:[0-9$]+|/(?:[^/\\\n]|\\.)*/)?(?:\s*,\s*(?:[0-9$]+|/(?:[^/\\\n]|\\.)*/))?"
                       r"\s*!?\s*e(?:\s|;|$)|s(.)(?:(?!\1)[^\\\n]|\\.)*\1(?:(?!\1)[^\\\n]|\\.)*\1[gpiImM0-9w]*e")
_SED_EXEC: re.Pattern[str] | None = None


def command_options(flat: Flat, part: Part, st: State) -> None:
    """Judge the commands that a program's options hand it to run."""
    words = part.words
    name = part.name
    if name == "git" and len(words) > 1:
        name = f"git {words[1].text}"
    if name == "sed":
        _sed_exec(part)
        return
    opts = _CMD_OPTS.get(name)
    if opts is None:
        return
    for i, w in enumerate(words[1:], 1):
        t = w.text
        for o in opts:
            value: Word | None = None
            if t == o and i + 1 < len(words):
                value = words[i + 1]
            elif o.startswith("--") and t.startswith(o + "="):
                value = Word(t[len(o) + 1 :], w.raw)
                value.dyn = w.dyn
            elif len(o) == 2 and t.startswith(o) and len(t) > 2 and not t.startswith("--"):
                value = Word(t[2:], w.raw)
                value.dyn = w.dyn
            if value is not None:
                flat.shell_text(flat.new_part(part.context, part.via, part.pipe, part.index, st), value.text,
                                value.dyn, False, f"{name} {o}", st, [w])
        if name == "tar" and t.startswith("--checkpoint-action=exec="):
            flat.shell_text(flat.new_part(part.context, part.via, part.pipe, part.index, st), t.split("=", 2)[2],
                            w.dyn, False, "tar --checkpoint-action", st)


def _sed_exec(part: Part) -> None:
    """GNU sed's `e` command and the `e` flag of `s` run shell commands."""
    words = part.words
    scripts: list[str] = []
    explicit = False
    for i, w in enumerate(words[1:], 1):
        t = w.text
        if t in ("-e", "--expression") and i + 1 < len(words):
            scripts.append(words[i + 1].text)
            explicit = True
        elif t.startswith("--expression="):
            scripts.append(t.split("=", 1)[1])
            explicit = True
        elif t.startswith("-") and not t.startswith("--") and "e" in t[1:] and t[-1] == "e":
            explicit = True
    if not explicit:
        ops = [w.text for w in words[1:] if not w.text.startswith("-")]
        scripts += ops[:1]
    global _SED_EXEC
    if _SED_EXEC is None:  # compiled the first time sed is judged, not at import
        _SED_EXEC = re.compile(_SED_EXEC_SOURCE)
    for sc in scripts:
        if _SED_EXEC.search(sc):
            part.flags.append((DYNAMIC, "sed's e command runs shell commands"))
            return


def _git_config_write(flat: Flat, part: Part, words: list[Word], st: State) -> None:
    ops: list[Word] = []
    i = 2
    while i < len(words):
        w = words[i]
        t = w.text
        if t in _GIT_CONFIG_READS:
            return
        if t in _GIT_CONFIG_VALUE_OPTS:
            i += 2
            continue
        if t.startswith("-") and not w.dyn:
            i += 1
            continue
        ops.append(w)
        i += 1
    if ops and ops[0].text in ("set", "unset", "get", "list", "edit", "rename-section", "remove-section"):
        if ops[0].text != "set":
            return
        ops = ops[1:]
    if len(ops) >= 2:
        git_config_value(flat, part, ops[0].text, ops[1].text, ops[1].dyn, st)


def _shell(flat: Flat, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    i = 1
    n = len(words)
    from_c = from_stdin = False
    while i < n:
        w = words[i]
        t = w.text
        if w.dyn:
            break
        if t == "--":
            i += 1
            break
        if t == "-":
            from_stdin = True
            i += 1
            break
        if t in _SHELL_VALUE:
            i += 2
            continue
        if t.startswith("--"):
            i += 1
            continue
        if len(t) > 1 and t[0] in "-+":
            if t[0] == "-" and "c" in t:
                from_c = True
            if "s" in t:
                from_stdin = True
            i += 1
            continue
        break
    rest = words[i:]
    label = f"{name} -c" if from_c else name
    if from_c:
        if not rest:
            return []
        part.name = name
        flat.shell_text(part, rest[0].text, rest[0].dyn, _has_download(rest[0]), label, st, words)
        return None
    if rest and not from_stdin and rest[0].text in _STDIN_PATHS:
        rest, from_stdin = rest[1:], True
    if rest and not from_stdin:
        script = rest[0]
        if script.dyn or script.raw[:2] == "<(":
            rule = DOWNLOAD if _has_download(script) else DYNAMIC
            part.flags.append((rule, f"{name} runs a script only known at run time"))
            return words
        written = unwrap.resolve(script, part.cwd, flat.home) in flat.files
        text = None if written else _read_script(script, part, flat.home)  # written earlier: note_run judges it
        if text is not None and part.script_text is None:
            # the script is code handrail can read: its commands are judged as if typed
            flat.shell_text(part, text, False, False, f"{name} {script.raw}", st, words)
            return None
        return words
    return stdin_script(flat, part, name, words, st)

def stdin_script(flat: Flat, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """A shell (or ssh) that reads its script from standard input."""
    feed = part.feed
    if feed in ("heredoc", "herestring"):
        if part.stdin_text is None:
            part.flags.append((DYNAMIC, f"{name} runs a {feed} built at run time"))
            return words
        flat.shell_text(part, part.stdin_text, False, False, f"{name} <<{feed}", st)
        return None
    if feed == "download":
        part.flags.append((DOWNLOAD, f"{name} runs code downloaded from the network"))
        return words
    if feed == "file":
        for r in part.redirs:
            t = r.target
            if r.op != "<" or r.fd not in (None, "0") or t is None:
                continue
            if t.dyn:
                # `sh < "$F"`: the script's name is only known at run time
                rule = DOWNLOAD if _has_download(t) else DYNAMIC
                part.flags.append((rule, f"{name} runs a script only known at run time"))
                break
            # `sh < script.sh`, `source /dev/stdin < payload`: the script is a file handrail reads
            text = _read_script(t, part, flat.home)
            if text is not None:
                flat.shell_text(part, text, False, False, f"{name} < {t.raw}", st)
                return None
            part.flags.append((DYNAMIC, f"{name} runs {t.raw}, a script handrail cannot read"))
            break
        return words
    if feed == "pipe":
        if part.stdin_text is not None:
            flat.shell_text(part, part.stdin_text, False, False, f"… | {name}", st)
            return None
        part.flags.append((DYNAMIC, f"{name} runs a script read from a pipe"))
    return words

def _ssh(flat: Flat, part: Part, words: list[Word], st: State) -> list[Word] | None:
    end = _opt_end(words, 1, _SSH)
    rest = words[end + 1 :]
    if end >= len(words):
        return words
    remote = flat.new_part(part.context, part.via, part.pipe, part.index, st)
    remote.feed, remote.stdin_text = part.feed, part.stdin_text
    remote.cwd = None  # another machine
    host = words[end].raw
    if rest:
        flat.shell_text(remote, " ".join(w.text for w in rest), any(w.dyn for w in rest),
                        any(_has_download(w) for w in rest), f"ssh {host}", st, words)
    else:
        stdin_script(flat, remote, f"ssh {host}", words, st)
        if remote.flags:
            remote.words, remote.name = words[:1], "ssh"
            flat.out.append(remote)
    return words

def _container_exec(flat: Flat, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    if name in ("kubectl", "oc"):
        try:
            end = next(i for i, w in enumerate(words) if w.text == "--") + 1
        except StopIteration:
            return words
    else:
        end = _opt_end(words, 2, _fs("-e", "--env", "-u", "--user", "-w", "--workdir", "--env-file",
                                     "--detach-keys")) + 1
    if end >= len(words):
        return words
    inner = flat.new_part(part.context, part.via + [f"{name} exec"], part.pipe, part.index, st)
    inner.cwd = None
    flat.unwrap(inner, words[end:], unwrap.State(None, set(st.funcs)))
    return words


SCRIPT_LIMIT = 64 * 1024


def _read_script(script: Word, part: Part, home: str) -> str | None:
    """The text of a shell script file that exists and is small enough to read; None otherwise
    (a missing script fails to run; one too large or unreadable is judged by the patterns)."""
    path = unwrap.resolve(script, part.cwd, home)
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            data = f.read(SCRIPT_LIMIT + 1)
    except OSError:
        return None
    if len(data) > SCRIPT_LIMIT or b"\0" in data:
        part.flags.append((DYNAMIC, f"{part.name} runs {script.raw}, more than handrail reads"))
        return None
    return data.decode("utf-8", "replace")


_PS_COMMAND = _fs("-command", "-c", "/c", "/k", "/r", "-commandwithargs", "-cwa")


def _windows_shell(flat: Flat, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`pwsh -c "Get-ChildItem"`, `cmd /c dir`: the command text is read as a command line (the
    simple commands, pipes and `;` of PowerShell and cmd read as the shell's do); an encoded or
    file script is code handrail does not read."""
    texts = [w.text.lower() for w in words]
    for i, t in enumerate(texts[1:], 1):
        if t in ("-encodedcommand", "-enc", "-e", "-ec", "-file", "-f"):
            part.flags.append((DYNAMIC, f"{name} {words[i].text} runs a script handrail does not read"))
            return words
        if t in _PS_COMMAND:
            rest = words[i + 1 :]
            if not rest:
                return words
            text = " ".join(w.text for w in rest)
            flat.shell_text(part, text, any(w.dyn for w in rest), False, f"{name} {words[i].text}", st, words)
            return None
    return words


def _sub(words: list[Word]) -> str:
    return words[1].text if len(words) > 1 else ""


def _take_assigns(part: Part, words: list[Word], i: int) -> int:
    while i < len(words):
        t = words[i].text
        eq = t.find("=")
        if eq <= 0 or not (t[0].isalpha() or t[0] == "_") or not t[:eq].replace("_", "a").isalnum():
            break
        part.assigns.append((t[:eq], words[i]))
        i += 1
    return i


def _has_download(word: Word) -> bool:
    """Does a substitution inside this word call a downloader?"""
    stack = list(word.subs)
    while stack:
        for pl in stack.pop():
            for node in pl.cmds:
                if isinstance(node, Simple):
                    if node.words and unwrap.prog_name(node.words[0].text) in DOWNLOADERS:
                        return True
                    for w in node.words:
                        stack.extend(w.subs)
                else:
                    stack.extend(node.bodies)
    return False


# Last, because unwrap imports this module: either may be imported first.
from handrail.policy.shell import unwrap  # noqa: E402
