"""Whether a glob names dotfiles: `cat *` does not read `.env` in bash, sh or zsh, which skip a
leading dot unless told to; so `*` is expanded as the shell will (globwrites.names). What tells them is
asked about here: `shopt -s dotglob`, a non-empty GLOBIGNORE (which turns dotglob on), zsh's
GLOB_DOTS. handrail judges each command alone, and a harness that keeps one shell between commands
(an editor's terminal) carries the option to the next `cat *`: so setting it needs a human.

PowerShell and cmd do not skip dotfiles (Windows hides by attribute, not by name), and neither does
a zsh qualifier or an extended glob (`*(D)`, `@(.env|x)`): there a glob is taken to name them all.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Finding
    from handrail.policy.shell.parts import Part

# PowerShell's aliases that read files (cmdlets have a dash, and cmd runs under `cmd /c`): their
# globs name dotfiles too.
_WINDOWS_SHELLS = frozenset({"pwsh", "powershell", "cmd"})
_WINDOWS_READERS = frozenset({"gc", "sls", "gci"})
SETTERS = frozenset({"shopt", "setopt", "unsetopt", "set", "export", "declare", "typeset", "local", "readonly"})
_ZSH_ON = frozenset({"globdots", "dotglob"})  # zsh takes DOT_GLOB for GLOB_DOTS, as bash spells it


def names_dotfiles(part: Part) -> bool:
    """Whether the shell that runs `part` lets its globs name files whose names begin with a dot
    (a group, `*(D)`, may anyway: globwrites.names)."""
    if sys.platform == "win32":
        return True
    low = part.name.lower()
    if "-" in low or low in _WINDOWS_READERS:  # a cmdlet (`Get-Content *`) or its alias
        return True
    return any(v.split(" ", 1)[0].lower().removesuffix(".exe") in _WINDOWS_SHELLS for v in part.via)


def check_glob_dots(part: Part) -> list[Finding]:
    """`shopt -s dotglob`, `setopt GLOB_DOTS`, `unsetopt NO_GLOB_DOTS`, `set -o globdots`, `GLOBIGNORE=x`."""
    why = "makes every later glob name dotfiles too (`cat *` then reads .env), and a shell kept between " \
          "commands carries it to commands handrail judges without it"
    for name, w in part.assigns:
        if name == "GLOBIGNORE" and (w.dyn or w.text.split("=", 1)[-1]):
            return [(3, "secret-read", f"setting GLOBIGNORE {why}")]
    words = [w.text for w in part.words[1:]]
    if part.name in ("export", "declare", "typeset", "local", "readonly"):
        if any(t.startswith("GLOBIGNORE=") and t != "GLOBIGNORE=" for t in words):
            return [(3, "secret-read", f"setting GLOBIGNORE {why}")]
        return []
    if part.name == "shopt":
        if "-s" in words and "dotglob" in words:  # `shopt dotglob` only prints it
            return [(3, "secret-read", f"shopt -s dotglob {why}")]
        return []
    turned_on = _zsh_options_on(part.name, words)
    if turned_on:
        return [(3, "secret-read", f"{part.name} {turned_on} {why}")]
    return []


def _zsh_options_on(name: str, words: list[str]) -> str:
    """The word that turns GLOB_DOTS on: zsh ignores case and underscores in option names, and
    `NO_X` is X turned off (`unsetopt NO_GLOB_DOTS` turns it on)."""
    if name not in ("setopt", "unsetopt", "set"):
        return ""
    setting = name != "unsetopt"
    for i, t in enumerate(words):
        if name == "set":
            if t not in ("-o", "+o") or i + 1 >= len(words):
                continue
            setting, t = t == "-o", words[i + 1]
        flat = t.lower().replace("_", "")
        negated = flat.startswith("no") and flat[2:] in _ZSH_ON
        if (flat in _ZSH_ON and setting) or (negated and not setting):
            return t
    return ""
