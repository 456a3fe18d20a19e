"""Who acts, and whether a person can be deciding: what every human-only command asks first."""

from __future__ import annotations

import os
import sys

from handrail.errors import HandrailError, Refused


def actor() -> str:
    """Who is acting, for histories: the agent where the environment names one."""
    return os.environ.get("HANDRAIL_AGENT") or os.environ.get("USER") or "unknown"


def login() -> str:
    """The person at this terminal, for a gate or reset they decide."""
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name is not a reason to refuse a human
        return os.environ.get("USER") or "unknown"


def who_acts(project: str) -> tuple[str, str | None]:
    """Who changes a task's phase, for its history: (agent name, the marker that shows it),
    from this process's environment or an ancestor's; else the git user (`name <email>`)."""
    from handrail import procs
    from handrail.policy import agents, gates

    agent = agents.detect(os.environ)
    if agent is not None:
        return agent.name, agent.evidence()
    found = gates.behind(procs.ancestors())
    if found is not None:
        pid, program, agent = found
        return agent.name, f"{agent.evidence()} in the environment of {program} (pid {pid})"
    return git_user(project), None


def git_user(project: str) -> str:
    """`user.name <user.email>` as git would sign a commit here; the login name without them."""
    name = email = None
    try:
        from handrail import repo as git

        r = git.open_path(project)
        name, email = git.config_value(r, "user.name"), git.config_value(r, "user.email")
    except HandrailError:
        pass  # not a git repository: the login name says who
    if name:
        return f"{name} <{email}>" if email else name
    return os.environ.get("USER") or os.environ.get("LOGNAME") or "unknown"


def no_human() -> str | None:
    """Why no person can be deciding at this terminal, or None: `gates.human_absent`,
    asked of this process, its terminal and the processes it runs under."""
    from handrail import procs
    from handrail.policy import gates

    return gates.human_absent(os.environ, sys.stdin.isatty(), sys.stdout.isatty(), procs.ancestors())


def require_human(verb: str, args: str, who: str) -> None:
    """Refuse (exit 1, one line) unless a person can be deciding here: every human-only
    command calls this first. A second line behind the hook's tier 3, not a boundary."""
    absent = no_human()
    if absent is not None:
        line = f"handrail {verb} {args}".rstrip()
        raise Refused(verb, f"{who}, and {absent}; a person runs `{line}` in their own terminal",
                      reason="needs_human")
