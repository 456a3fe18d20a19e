"""Programs that are not the system's: a command named by a path (`./src/ls`, `/tmp/x/git`), a
command whose lookup folders the line changes (`PATH=src:$PATH ls`), and prompt expansions that
run what they hold (`${x@P}`).

A command is judged by its program's name, and `ls` is a harmless reader; but `./src/ls` is
whatever the agent wrote into `src/ls`. A program from a system folder is the program its name
says; from anywhere else it is code of the work tree or of a folder anyone may write, which
runs with a notice, as `make` and `npm run` do (tier 2).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx, Finding
    from handrail.policy.shell.parts import Part

# Folders whose programs are the system's or the package manager's, not the agent's.
SYSTEM_BINS = ("/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/", "/usr/local/bin/", "/usr/local/sbin/",
               "/usr/libexec/", "/opt/homebrew/bin/", "/opt/homebrew/sbin/", "/nix/store/",
               "/run/current-system/sw/bin/", "/snap/bin/", "/usr/lib/git-core/")
_LOOKUP_VARS = frozenset({"PATH", "BASH_LOADABLES_PATH", "CDPATH"})
# `${name@P}`: the value is expanded as a prompt string, which runs the `$( … )` inside it.
_PROMPT_EXPANSION = re.compile(r"\$\{[^}]*@P\}")


def check_local_program(part: Part, ctx: Ctx) -> list[Finding]:
    out: list[Finding] = []
    texts = [w.raw for w in part.words] + [w.raw for _, w in part.assigns] + [
        r.target.raw for r in part.redirs if r.target is not None]
    if any("@P}" in t and _PROMPT_EXPANSION.search(t) for t in texts):
        out.append((3, "dynamic", "${…@P} expands a prompt string, which runs the $( … ) it holds"))
    for name, _w in part.assigns:
        if name in _LOOKUP_VARS:
            out.append((2, "local-program", f"sets {name}: the programs run with it are looked up in folders the "
                                            "line chose"))
    if part.name in ("export", "declare", "typeset", "readonly", "local"):
        for w in part.words[1:]:
            if w.text.split("=", 1)[0] in _LOOKUP_VARS and "=" in w.text:
                out.append((2, "local-program", f"{part.name} {w.raw[:60]}: the programs run after it are looked "
                                                "up in folders the line chose"))
    if part.words:
        out += _by_path(part, ctx)
    return out


def _by_path(part: Part, ctx: Ctx) -> list[Finding]:
    first = part.words[0]
    t = first.text
    if first.dyn or ("/" not in t and "\\" not in t):
        return []
    from handrail.policy.shell.parts import resolve

    path = resolve(first, part.cwd, ctx.home)
    if path is None or path.startswith(SYSTEM_BINS):
        return []
    return [(2, "local-program", f"runs {first.raw}, a program of the work tree or of a folder anyone may write, "
                                 f"not the system's {part.name}")]
