"""Commands a program is handed to run by its environment or its options, not its arguments:
`GIT_PAGER='rm -rf ~' git log`, `rg --pre CMD`, `tar --to-command=CMD`, `git push --exec=CMD`,
GNU sed's `e` command.

Every program's command line is looked at here once it is known, wrappers or not.
"""

from __future__ import annotations

import re

from handrail.policy.shell.gitwrap import EDITOR_ENV, git_exec_key
from handrail.policy.shell.parts import DYNAMIC
from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part, State, Walker

# Environment variables whose value is a command that git, less or another tool runs;
# and those that point git at other configuration, templates (hooks) or programs.
_EXEC_ENV = frozenset({"GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR", "VISUAL", "GIT_SEQUENCE_EDITOR",
                       "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS",
                       "GIT_PROXY_COMMAND", "LESSOPEN", "LESSCLOSE", "MANPAGER", "SYSTEMD_PAGER"})
_REDIRECT_ENV = frozenset({"GIT_EXEC_PATH", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG",
                           "GIT_TEMPLATE_DIR"})


def exec_env(flat: Walker, part: Part, st: State) -> None:
    """`GIT_PAGER='rm -rf ~' git log`: judge the command a tool will run from its environment."""
    found = list(part.assigns)
    if part.name in ("export", "declare", "typeset", "local", "readonly"):
        found += [(w.text.split("=", 1)[0], w) for w in part.words[1:] if "=" in w.text and
                  not w.text.startswith("-")]
    for name, w in found:
        up = name.upper()
        value = w.text.split("=", 1)[1] if "=" in w.text else ""
        if up in EDITOR_ENV and part.name in ("export", "declare", "typeset", "readonly"):
            # `export GIT_EDITOR=…; git commit`: the git command later on the line runs it
            st.vars[name] = value if not w.dyn else "$" + name
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
# An address is a line number, a GNU step or offset (`0~1`, `+3`), `$`, or a /regex/ with its
# I and M flags; `1e`, `0~1e`, `/x/I e` all run what follows.
_SED_EXEC_SOURCE = (r"(?:^|[;\n{}])\s*(?:[0-9$~+]+|/(?:[^/\\\n]|\\.)*/[IM]*)?"
                    r"(?:\s*,\s*(?:[0-9$~+]+|/(?:[^/\\\n]|\\.)*/[IM]*))?"
                    r"\s*!?\s*e(?:\s|;|$)|s(.)(?:(?!\1)[^\\\n]|\\.)*\1(?:(?!\1)[^\\\n]|\\.)*\1[gpiImM0-9w]*e")
_SED_EXEC: re.Pattern[str] | None = None


def command_options(flat: Walker, part: Part, st: State) -> None:
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
