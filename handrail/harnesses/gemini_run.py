"""Whether the Gemini CLI running this hook has a person to ask.

Gemini's own test (`isHeadlessMode` in its core): a run is headless under CI
(`CI=true` or `GITHUB_ACTIONS=true`, unless `GEMINI_CLI_INTEGRATION_TEST=true`), when
its standard input or output is no terminal, or with `-p`/`--prompt`; `-i`
(`--prompt-interactive`) and `--acp` keep it interactive. The hook payload says none
of this, and the hook's own input and output are pipes whatever the run, so the
Gemini process is found among the hook's ancestors (the hook runs under `bash -c`) and
read from /proc. Where there is no /proc, or no Gemini above the hook, it cannot be
told. Imported only when a call would be asked about.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

NAMES = frozenset({"gemini", "gemini.js"})
INTERACTIVE = ("-i", "--prompt-interactive", "--acp", "--experimental-acp")
PROMPT = ("-p", "--prompt")
DEPTH = 4  # handrail <- bash -c <- gemini (<- gemini's relauncher)


def headless(env: Mapping[str, str] | None = None, proc: str = "/proc") -> bool | None:
    """True for a headless run, False for an interactive one, None where it cannot be told."""
    env = os.environ if env is None else env
    pid = os.getppid()
    for _ in range(DEPTH):
        args = _cmdline(proc, pid)
        if args is None:
            return None
        if any(os.path.basename(a) in NAMES for a in args[:3]):
            # The hook's environment is Gemini's: its CI test reads the same variables.
            if env.get("GEMINI_CLI_INTEGRATION_TEST") != "true" and "true" in (env.get("CI"),
                                                                             env.get("GITHUB_ACTIONS")):
                return True
            return _judge(proc, pid, args)
        pid = _parent(proc, pid)
        if pid <= 1:
            return None
    return None


def _judge(proc: str, pid: int, args: list[str]) -> bool:
    if any(a in INTERACTIVE or a.startswith(tuple(f"{o}=" for o in INTERACTIVE)) for a in args):
        return False
    if any(a in PROMPT or a.startswith(("--prompt=", "-p=")) for a in args):
        return True
    return not (_terminal(proc, pid, 0) and _terminal(proc, pid, 1))


def _cmdline(proc: str, pid: int) -> list[str] | None:
    try:
        with open(f"{proc}/{pid}/cmdline", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    return [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]


def _parent(proc: str, pid: int) -> int:
    try:
        with open(f"{proc}/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
        # `pid (name) state ppid …`: the name may hold spaces and parentheses
        return int(stat.rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _terminal(proc: str, pid: int, fd: int) -> bool:
    try:
        target = os.readlink(f"{proc}/{pid}/fd/{fd}")
    except OSError:
        return False  # a descriptor that cannot be read is no terminal a person sits at
    return target.startswith(("/dev/pts/", "/dev/tty", "/dev/console"))
