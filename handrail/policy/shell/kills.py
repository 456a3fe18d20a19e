"""Signals to other processes: the forms that reach every process, init, a whole process group
or all of a user's processes need a human; stopping one program by name is a local change."""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx, Finding
    from handrail.policy.shell.parts import Part


def check_kill(part: Part, ctx: Ctx) -> list[Finding]:
    """Signals to every process, to init, or to the whole process group."""
    name = part.name
    ops = [w for w in part.words[1:] if not w.text.startswith("-") or w.text.lstrip("-").isdigit()]
    texts = [w.text for w in part.words[1:]]
    if name == "kill":
        pids: list[str] = []
        i = 0
        while i < len(texts):
            t = texts[i]
            if t in ("-s", "-n", "--signal"):
                i += 2
                continue
            if (t.startswith("-") and i == 0 and t != "-1") or t in ("-l", "-L", "--list", "--"):
                i += 1
                continue
            pids.append(t)
            i += 1
        if any(p in ("1", "0", "-1") or (p.startswith("-") and p[1:].isdigit()) for p in pids):
            return [(3, "system", "kill signals init, every process, or a whole process group")]
        return []
    if name in ("killall", "pkill"):
        if any(t in ("-u", "--user", "-U") for t in texts) or any(w.dyn for w in ops):
            return [(3, "system", f"{name} signals processes chosen at run time or of a whole user")]
        if name == "pkill" and any(t in ("-1", "-9") for t in texts) and not ops:
            return [(3, "system", "pkill without a pattern signals everything")]
        everything = _signals_everything(name, texts)
        if everything:
            return [(3, "system", f"{name} {everything}")]
        targets = [w.text for w in ops]
        if any(t in ("init", "systemd", "launchd", "sshd", "login", "Xorg", "gnome-shell") for t in targets):
            return [(3, "system", f"{name} stops a process the system needs")]
        return []
    if name == "killall5":
        return [(3, "system", "killall5 signals every process")]
    return []


# pkill's options that take a value (the pattern is the first word left over).
_PKILL_VALUES = frozenset({"-s", "-g", "-G", "-P", "-t", "-F", "-U", "-u", "--signal", "--session", "--pgroup",
                           "--group", "--parent", "--terminal", "--pidfile", "--uid", "--euid", "--ns", "--nslist"})
_KILLALL_VALUES = frozenset({"-s", "--signal", "-o", "--older-than", "-y", "--younger-than", "-n", "--ns",
                             "-Z", "--context"})
# Names of processes every system runs: a pattern matching all of them matches every process.
_EVERY_NAME = ("systemd", "init", "sshd", "bash", "python3", "Xorg", "1", "x")


def _signals_everything(name: str, texts: list[str]) -> str | None:
    """What makes a pkill or killall the `kill -9 -1` it is: a pattern that every process
    name matches (`.`, `''`, `.*`), or the children of init (`-P 1`)."""
    values = _PKILL_VALUES if name == "pkill" else _KILLALL_VALUES
    regex = name == "pkill" or any(t in ("-r", "--regexp") or (t[:1] == "-" and t[1:2] != "-" and "r" in t)
                                   for t in texts)
    patterns: list[str] = []
    i = 0
    while i < len(texts):
        t = texts[i]
        if t in values:
            if t in ("-P", "--parent") and i + 1 < len(texts) and texts[i + 1] in ("0", "1"):
                return "-P 1 signals every child of init: every service"
            i += 2
            continue
        if t in ("--parent=0", "--parent=1"):
            return "--parent 1 signals every child of init: every service"
        if t == "--" or not t.startswith("-"):
            patterns.append(t)
        i += 1
    for p in patterns:
        try:
            every = regex and all(re.search(p, n) for n in _EVERY_NAME)
        except re.error:
            continue
        if every:
            return f"{p!r} matches every process"
    return None
