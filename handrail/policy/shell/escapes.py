"""Ways a trusted program is made to run, read or change what its command line does not show:
git's `ext::` transport and `--upload-pack`, sqlite3's file and shell functions, `hash -p`,
make's `--eval` and `$(shell …)`, node's, perl's and ruby's preloads, awk and
programs from files, credential variables printed or carried out, and the agent's marker
variables set by builtins other than assignment.

Each check answers findings `(tier, rule, why)` for one simple command, as the other rule
modules do; `rules.findings` calls them by program name.
"""

from __future__ import annotations

from handrail.policy.shell.system import _is_marker, secret_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx, Finding
    from handrail.policy.shell.parts import Part

_RUN = "dynamic"


def check_git_transport(part: Part, ctx: Ctx) -> list[Finding]:
    """`git ls-remote 'ext::sh -c …'`, `git fetch --upload-pack='rm -rf x' .`: git runs it."""
    for w in part.words[1:]:
        t = w.text
        if "ext::" in t or t.startswith(("--upload-pack", "--receive-pack", "--exec=")) or t in ("-u", "--exec"):
            if t == "-u" and not any(x.text in ("ls-remote", "fetch", "clone", "pull", "archive") for x in part.words):
                continue
            return [(3, _RUN, f"git {t.split('=', 1)[0][:40]} runs a program of the command line's choosing")]
    if any(c.lower().startswith("protocol.") and c.lower().endswith((".allow=always", ".allow=user"))
           for c in part.git_config):
        return [(3, _RUN, "git -c protocol.*.allow lets a transport run programs")]
    return []


_SQLITE_FUNCTIONS = ("writefile(", "readfile(", "edit(", "load_extension(", "fsdir(", "zipfile(", "sqlar_")
_SQLITE_DOTS = (".shell", ".system", ".read", ".output", ".once", ".import", ".load", ".backup", ".restore",
                ".save", ".excel", ".cd", ".open")


def check_sqlite(part: Part, ctx: Ctx) -> list[Finding]:
    """sqlite3's CLI functions and dot-commands read and write files and run programs."""
    for w in part.words[1:]:
        low = w.text.lower()
        if any(f in low.replace(" ", "") for f in _SQLITE_FUNCTIONS) or low.lstrip().startswith(_SQLITE_DOTS) or \
                any(f"\n{d}" in low or f";{d}" in low for d in _SQLITE_DOTS) or low in ("-cmd", "-init"):
            return [(3, _RUN, f"sqlite3 {w.raw[:40]} reads or writes files or runs a program")]
    return []


def check_hash(part: Part, ctx: Ctx) -> list[Finding]:
    """`hash -p /bin/rm ls`: from then on `ls` runs rm."""
    if any(w.text.startswith("-") and "p" in w.text for w in part.words[1:]):
        return [(3, _RUN, "hash -p makes a program name run another program")]
    return []


def check_make(part: Part, ctx: Ctx) -> list[Finding]:
    """`make --eval=…`, `make 'x=$(shell …)'`, `make SHELL=…`: recipes of the command line's choosing."""
    for w in part.words[1:]:
        t = w.text
        if t.startswith(("--eval", "-E")) or "$(shell" in t or "${shell" in t or t.startswith("SHELL=") or \
                t.startswith(".SHELLFLAGS="):
            return [(3, _RUN, f"make {t[:40]} runs commands the command line writes")]
    return []


def check_preloads(part: Part, ctx: Ctx) -> list[Finding]:
    """node's `-r/--require/--import/--loader`, perl's and ruby's `-I` and `-r ./FILE`, awk's
    `-f FILE`, gawk's `-i`/`-l`: code handrail does not read runs first."""
    texts = [w.text for w in part.words[1:]]
    name = part.name
    preloads = ("-r", "--require", "--import", "--loader", "--experimental-loader")
    if name in ("node", "bun", "deno") and any(t in preloads or t.startswith(tuple(p + "=" for p in preloads[1:]))
                                               for t in texts):
        return [(3, _RUN, f"{name} preloads a module handrail does not read")]
    if name in ("perl", "ruby"):
        loads = _script_loads(name, texts)
        if loads is not None:
            return [(3, _RUN, f"{name} {loads}, code handrail does not read, before its own")]
    if name in ("awk", "gawk", "mawk", "nawk") and any(
            t in ("-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec") for t in texts):
        return [(3, _RUN, f"{name} runs a program from a file handrail does not read")]
    return []


def _script_loads(name: str, texts: list[str]) -> str | None:
    """perl's `-I DIR`, ruby's `-I DIR` and `-r ./FILE`, wherever they stand (after `-e` too):
    a folder searched first for every module, or a file of the project, loaded and run."""
    code = False
    for i, t in enumerate(texts):
        if code:
            code = False
            continue
        if t == "--" or not t.startswith("-"):
            return None  # the script or its arguments: options end there
        # `-e CODE`, `-ne CODE`, `-E CODE`: the next word is code, and options go on after it
        code = t[1:2] != "-" and t[-1] in "eE" and t[1:].isalpha()
        if t.startswith("-I"):
            return f"searches {t[2:] or (texts[i + 1] if i + 1 < len(texts) else '')} first for modules"
        if name == "ruby" and t.startswith("-r"):
            lib = t[2:] or (texts[i + 1] if i + 1 < len(texts) else "")
            if "/" in lib or lib.startswith(".") or lib.endswith(".rb"):
                return f"loads {lib}"
    return None


def check_secret_vars(part: Part, ctx: Ctx) -> list[Finding]:
    """`echo $GITHUB_TOKEN`, `git ls-remote https://host/$TOKEN`: a credential printed or sent."""
    from handrail.policy.shell.sends import vars_in

    for w in part.words[1:]:
        if w.dyn and any(secret_name(n) for n in vars_in(w.raw)):
            return [(3, "env-dump", f"{part.name} uses {w.raw[:60]}, a credential from the environment")]
    return []


# Builtins that set a variable named by an argument.
_SETTERS = frozenset({"read", "printf", "let", "mapfile", "readarray", "getopts", "for", "select", ":"})


def check_marker_setters(part: Part, ctx: Ctx) -> list[Finding]:
    """`read CLAUDECODE`, `printf -v CLAUDECODE ''`, `let CLAUDECODE=0`, `: ${CLAUDECODE:=x}`."""
    for w in part.words[1:]:
        for piece in w.raw.replace("${", " ").replace("}", " ").replace("=", " ").replace(":", " ").split():
            if _is_marker(piece.strip("'\"")):
                return [(3, "agent-markers", f"{part.name} {w.raw[:40]} changes a variable that says an agent "
                                             "is acting")]
    return []
