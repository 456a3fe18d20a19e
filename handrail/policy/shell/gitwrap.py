"""git looked through as a wrapper: its global options (`-C DIR`, `-c KEY=VALUE`,
`--config-env`), `git-<sub>` spelt as one program, and the commands git runs from its
configuration (`core.pager`, `alias.x=!…`, `include.path`), `submodule foreach`,
`rebase --exec` and `bisect run`.

What git will run from its configuration is judged like any other command line, because a
`-c core.pager='rm -rf ~'` is a command line in all but name.
"""

from __future__ import annotations

from handrail.policy.shell.parts import resolve, word
from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part, State, Walker

# git configuration whose value is a command git runs (through the shell), and
# configuration that pulls in another file of configuration.
_GIT_EXEC_KEYS = frozenset({"core.pager", "core.editor", "core.fsmonitor", "core.sshcommand", "core.askpass",
                            "core.gitproxy", "core.alternaterefscommand", "sequence.editor", "diff.external",
                            "gpg.program", "credential.helper", "uploadpack.packobjectshook", "sendemail.smtpserver",
                            "sendemail.sendmailcmd", "sendemail.tocmd", "sendemail.cccmd",
                            "gpg.ssh.defaultkeycommand"})
_GIT_EXEC_LAST = frozenset({"textconv", "command", "driver", "clean", "smudge", "process", "helper", "program",
                            "cmd", "receivepack", "uploadpack", "proxy"})
_GIT_EXEC_FIRST = frozenset({"pager", "diff", "merge", "filter", "credential", "gpg", "difftool", "mergetool",
                             "browser", "man", "remote", "trailer"})
_GIT_CONFIG_VALUE_OPTS = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"})
_GIT_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color",
                               "--get-colorbool", "-l", "--list", "--unset", "--unset-all", "--remove-section",
                               "--rename-section", "-e", "--edit"})


def git(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    if name.startswith("git-"):
        words = [word("git"), Word(name[4:], name[4:])] + words[1:]
    i = _global_options(flat, part, words, st)
    if i > 1 or name.startswith("git-"):
        words = [words[0]] + words[i:]
    for cfg in part.git_config:
        key, _, value = cfg.partition("=")
        git_config_value(flat, part, key, value, False, st)
    sub = words[1].text if len(words) > 1 else ""
    _editor_markers(part, sub, st)
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


# git subcommands that open an editor on a message (or, for rebase, on its list of steps), and
# the editors that leave the file as it is.
_MESSAGE_SUBS = frozenset({"commit", "tag", "merge", "rebase", "notes", "revert", "cherry-pick", "pull"})
EDITOR_ENV = frozenset({"GIT_EDITOR", "EDITOR", "VISUAL", "GIT_SEQUENCE_EDITOR"})
_NO_OP_EDITORS = frozenset({"true", ":", "cat"})
# Editors that open a window for a person, with the option that makes them wait for it to close.
_WINDOW_EDITORS = frozenset({"code", "codium", "subl", "mate", "zed"})


def _plain_editor(value: str) -> bool:
    """An editor spelt out on the line that leaves the message as it is or to a person: a no-op
    (`true`, `:`), a text editor named alone (a session someone types into, which the
    interactive rule judges), or a windowed one that waits (`code --wait`). Any option or
    script beyond that (`vim -c 'g/Handrail/d' -c wq`, `sed -i …`) may take the trailer out."""
    from handrail.policy.shell.interactive import EDITORS

    words = value.split()
    if len(words) == 1:
        return words[0] in _NO_OP_EDITORS or words[0] in EDITORS
    return len(words) == 2 and words[0] in _WINDOW_EDITORS and words[1] in ("-w", "--wait")


def _editor_markers(part: Part, sub: str, st: State) -> None:
    """`GIT_EDITOR='sed -i /Handrail-Agent/d' git commit --amend`: the editor runs after the
    prepare-commit-msg hook wrote the agent's trailer, and may take it out again."""
    if sub not in _MESSAGE_SUBS:
        return
    given = [(name, w.text.split("=", 1)[1] if "=" in w.text else "", w.dyn) for name, w in part.assigns
             if name.upper() in EDITOR_ENV]
    given += [(name, value, "$" in value) for name, value in st.vars.items() if name.upper() in EDITOR_ENV]
    # a value lost where the line branched is one of those it was given: each is judged
    given += [(name, value or "", value is None) for name, values in st.touched.items()
              if name not in st.vars and name.upper() in EDITOR_ENV for value in values]
    given += [(key, value, False) for key, _, value in (c.partition("=") for c in part.git_config)
              if key.lower() in ("core.editor", "sequence.editor")]
    for name, value, dyn in given:
        if dyn or not _plain_editor(value):
            part.flags.append(("agent-markers", f"{name} sets the editor git {sub} runs on its message after "
                                                "handrail's hook marked it: it can take the agent's trailer out"))
            return


def _global_options(flat: Walker, part: Part, words: list[Word], st: State) -> int:
    """Read git's options before the subcommand into the part (its folder, its `-c` settings);
    the index of the subcommand."""
    i = 1
    n = len(words)
    cwd = part.cwd
    while i < n:
        w = words[i]
        t = w.text
        if (w.dyn and not t.startswith(("--git-dir=", "--work-tree="))) or not t.startswith("-"):
            break
        if t == "-C" and i + 1 < n:
            known = cwd is not None or words[i + 1].text.startswith("/")
            cwd = resolve(words[i + 1], cwd, flat.home) if known else None
            i += 2
        elif t == "-c" and i + 1 < n:
            part.git_config.append(words[i + 1].text)
            i += 2
        elif t.startswith("-c") and len(t) > 2 and not t.startswith("--"):  # `-ckey=value`
            part.git_config.append(t[2:])
            i += 1
        elif t.startswith("-C") and len(t) > 2:  # `-Cdir`
            cwd = resolve(Word(t[2:], t[2:]), cwd, flat.home)
            i += 1
        elif t.startswith("--config-env=") or (t == "--config-env" and i + 1 < n):
            # `--config-env=KEY=ENVVAR`: the value is an environment variable's, unknown here
            cfg = t.split("=", 1)[1] if "=" in t else words[i + 1].text
            part.git_config.append(cfg)
            git_config_value(flat, part, cfg.partition("=")[0], "", True, st)
            i += 1 if "=" in t else 2
        elif t.startswith("--exec-path="):
            part.flags.append(("code-env", "git --exec-path=… runs git's own commands from a folder of its "
                                           "choosing"))
            i += 1
        elif t in ("--git-dir", "--work-tree") and i + 1 < n:
            part.git_paths.append((t, words[i + 1]))
            i += 2
        elif t.startswith(("--git-dir=", "--work-tree=")):
            opt, _, value = t.partition("=")
            given = Word(value, w.raw.split("=", 1)[-1])
            given.dyn, given.tilde = w.dyn, value.startswith("~")
            part.git_paths.append((opt, given))
            i += 1
        elif t == "--bare":  # the folder git runs in is the repository itself
            part.git_paths.append(("--git-dir", Word(".", "--bare")))
            i += 1
        elif t in ("--namespace", "--super-prefix", "--attr-source"):
            i += 2
        elif t in ("--version", "--help", "-h", "--exec-path", "--html-path", "--man-path", "--info-path"):
            break
        else:
            i += 1
    part.cwd = cwd
    return i


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


def git_config_value(flat: Walker, part: Part, key: str, value: str, dyn: bool, st: State) -> None:
    """`git -c KEY=VALUE`, `git config KEY VALUE`: judge a command git will run from its configuration."""
    kind = git_exec_key(key)
    if kind is None:
        return
    if kind == "include":
        part.flags.append(("git-safety-net", (f"git configuration {key} reads more configuration, "
                                             "which can switch the git hooks or run commands")))
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


def _git_config_write(flat: Walker, part: Part, words: list[Word], st: State) -> None:
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
