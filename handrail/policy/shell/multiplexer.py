"""tmux's commands: a server that runs shells no hook sees. Only listing and showing what is
there runs without a human; everything else starts, types into, reconfigures or stops a shell
(`run-shell`, `if-shell`, `set-hook`, `source-file`, `send-keys`, `kill-server`, …).

A format `#(cmd)` runs cmd in a shell, in any command that takes a format (`display -p`,
`ls -F`), and `\\;` chains another command into the same line: each is read.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Finding

# Commands (and their aliases) that only show the server's state.
_READS = frozenset({"ls", "list-sessions", "lsw", "list-windows", "lsp", "list-panes", "lsc", "list-clients",
                    "lsb", "list-buffers", "lsk", "list-keys", "lscm", "list-commands", "has", "has-session",
                    "display", "display-message", "show", "show-options", "showw", "show-window-options",
                    "showenv", "show-environment", "showb", "show-buffer", "capturep", "capture-pane",
                    "info", "server-info", "show-messages", "showmsgs", "start", "start-server"})
# Global options before the command that take a value; `-c` runs its value in a shell and
# `-f` reads a configuration file, whose commands run as if typed.
_GLOBAL_VALUES = frozenset({"-L", "-S", "-T"})
_DISPLAY = frozenset({"display", "display-message"})


def check_tmux(texts: list[str]) -> list[Finding]:
    i = 0
    while i < len(texts) and texts[i].startswith("-") and texts[i] != "--":
        t = texts[i]
        if t in ("-V", "-h"):
            return []
        if t.startswith(("-c", "-f", "-C")) or "C" in t[1:]:
            return _ask(f"tmux {t} runs a shell command, a configuration file or a control session")
        i += 2 if t in _GLOBAL_VALUES else 1
    if i < len(texts) and texts[i] == "--":
        i += 1
    if i >= len(texts):
        return _ask("tmux starts a session: what is typed into it reaches no hook")
    for cmd in _commands(texts[i:]):
        name = cmd[0] if cmd else ""
        if any("#(" in a for a in cmd):
            return _ask(f"tmux {name} has a #( ) format, which runs a shell command")
        if name in _DISPLAY and "-p" not in cmd:
            return _ask("tmux display without -p shows a message to the attached client, where its keys run")
        if name not in _READS:
            return _ask(f"tmux {name or 'with no command'} starts, types into, reconfigures or stops a shell "
                        "that handrail does not see")
    return []


def _commands(words: list[str]) -> list[list[str]]:
    """`a x \\; b y` and `a x\\; b` split into their commands."""
    out: list[list[str]] = [[]]
    for w in words:
        if w == ";":
            out.append([])
        elif w.endswith(";") and not w.endswith("\\;"):
            out[-1].append(w[:-1])
            out.append([])
        else:
            out[-1].append(w)
    return [c for c in out if c]


def _ask(why: str) -> list[Finding]:
    return [(3, "dynamic", why)]
