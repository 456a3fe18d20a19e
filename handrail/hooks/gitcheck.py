"""What both git hooks share: reading the policy in force, checking one set of
changes against it, and saying no in a way a person can act on."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping

import pygit2

from handrail import repo as git
from handrail.errors import EXIT_DENIED
from handrail.policy import gitrules, links

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def load_policy(project: str, env: Mapping[str, str]) -> gitrules.GitPolicy:
    """The rules in force (`policy.guard.load_policy`, which `handrail guard` renders)."""
    from handrail.policy.guard import load_policy as rules

    return rules(project, env)


def check_changes(changes: git.ChangeSet, policy: gitrules.GitPolicy, *, commit: str | None = None,
                  gates: bool = True) -> list[gitrules.Problem]:
    """Rules 2 to 5 for one commit's changes (rule 3 only where `gates`); rule 2 takes in
    the symbolic links and submodules an agent's change adds or repoints (`loosenings`)."""
    problems: list[gitrules.Problem] = []
    for change in changes.changes:
        problems += gitrules.path_problems(change, policy, commit)
    if policy.agent is not None:
        problems += links.agent_problems(loosenings(changes), commit)
    if gates:
        problems += gitrules.gate_problems(changes.changes, policy)
    problems += gitrules.governor_problems(len(changes), changes.line_counts, policy, commit)
    for change in changes.changes:
        problems += gitrules.name_secret_problems(change, commit)
        data = changes.content(change)
        if data:
            problems += gitrules.secret_problems(change.path, data, commit)
    return problems


def loosenings(changes: git.ChangeSet) -> list[links.Loosening]:
    """The links and submodules these changes add or repoint that lead where no path rule
    looks, each link followed through the tree the changes lead to (the index for a commit
    being made, the commit's own tree for one pushed or judged in CI)."""
    if not links.linked(changes.changes):
        return []  # most changes: no tree is read
    return links.loosenings(changes.changes, changes.target, changes.link_at)


def envelope_problems(project: str, policy: gitrules.GitPolicy) -> list[gitrules.Problem]:
    """The acting agent's autonomy envelope on commits and pushes.

    A person is never bound by an envelope (their commit is how they sign off). For
    an agent, `needsFullSupervision` or `checkBeforeCommitting` on `git-commit-push`
    refuses: a git hook cannot ask, so "needs a human" is a no here. A broken
    envelope raises, and the hook refuses.
    """
    if policy.agent is None:
        return []
    from handrail.records.envelope_states import decide_for

    decision = decide_for(project, policy.agent.name, "git-commit-push")
    if decision.verdict == "allow":
        return []
    return [gitrules.Problem(
        rule=decision.reason,
        what=decision.message,
        source=f"autonomy envelope of {policy.agent.name}",
        fix="a human commits or pushes this work (the envelope binds agents only)",
    )]


def say(text: str) -> None:
    """To stderr, never failing on a path that is not UTF-8 or a terminal that is not either."""
    stream = sys.stderr
    try:
        stream.write(text + "\n")
    except UnicodeEncodeError:
        stream.buffer.write((text + "\n").encode("utf-8", "backslashreplace"))
    stream.flush()


def command_note(env: Mapping[str, str]) -> str | None:
    """Refusals name `handrail …` commands: where that name reaches no handrail on the
    committer's PATH, the one line naming the command that does. Under the pre-commit
    framework (`PRE_COMMIT=1`), the framework's environment comes first on PATH and is
    not the committer's: a `language: python` hook runs a handrail installed only there."""
    import shutil

    from handrail.install_hooks import handrail_command

    me = handrail_command()[0]
    if not me:
        return None
    ours = os.path.dirname(me)
    framework = env.get("PRE_COMMIT") == "1" and os.path.dirname(ours) == os.path.abspath(env.get("VIRTUAL_ENV", "/"))
    dirs = [d for d in env.get("PATH", "").split(os.pathsep) if d and not (framework and os.path.abspath(d) == ours)]
    if shutil.which("handrail", path=os.pathsep.join(dirs)):
        return None
    where = " (the pre-commit framework's own copy)" if framework else ""
    return (f"handrail: `handrail` is not on this PATH: run the commands above as {me}{where}, or install "
            "handrail where your shell finds it")


def say_command() -> None:
    try:
        note = command_note(os.environ)
    except Exception:  # noqa: BLE001 - a hint must never change the answer
        note = None
    if note:
        say(note)


def report(project: str, event: str, problems: list[gitrules.Problem], policy: gitrules.GitPolicy,
           extra: dict[str, Any] | None = None) -> None:
    """Record a refusal where every later layer reads decisions (best effort)."""
    from handrail.records.events import record

    agent = policy.agent
    record(project, event, agent=agent.name if agent else None,
           task=policy.edit[0].slug if policy.edit else None, topic="git", message=problems[0].what,
           payload={"problems": [p.as_dict() for p in problems],
                    "actor": agent.evidence() if agent else "human", **(extra or {})})


def guarded(action: str, event: str, body: Callable[[pygit2.Repository, str], int]) -> int:
    """Run a hook's body on the repository git is working on, failing closed.

    Whatever goes wrong refuses the commit or push with one line, never a traceback,
    and is recorded like any other refusal once the project is known.
    """
    project = None
    next_step = ""
    try:
        repo = git.open_repo(".")
        from handrail.projectroot import for_command

        # git chose the repository: no harness folder from the environment may move it.
        # A linked worktree's root is its main work tree, whose gates and tasks count.
        project = for_command(None, {}, cwd=git.workdir(repo)).path
        code = body(repo, project)
        if code == EXIT_DENIED:
            say_command()
        return code
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 - a safety net that breaks must not let anything through
        from handrail.errors import describe

        reason, why = describe(e)
        if reason == "invalid_policy":
            next_step = "\n     next: fix it, then check with: handrail policy check"
    say(f"handrail: {action} refused: {why}{next_step}")
    say_command()
    if project is not None:
        from handrail.records.events import record

        record(project, event, topic="git", message=why, payload={"error": why})
    return EXIT_DENIED
