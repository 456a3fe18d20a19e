"""`handrail hook pre-commit`: the commit git is about to make, judged by the policy.

Reads what is staged (the index git names, against HEAD's tree) and refuses the
commit, one message per problem, when no task is in an edit phase, a path breaks a
scope rule, a human gate is still closed, the change is over the contract's budget,
or the staged content carries a secret. A commit that stages nothing (`--allow-empty`,
a message-only `--amend`) changes no file and passes.

Exit 0: the commit goes on. Exit 1: refused. An internal error refuses too, with one
line and never a traceback: a safety net that breaks must not let the commit through.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from handrail.errors import EXIT_DENIED, EXIT_OK

if TYPE_CHECKING:
    import pygit2

    from handrail.policy import gitrules

ACTION, EVENT, NOTIFIED = "commit", "commit_refused", "commit_notified"
OPTIONS: dict[str, bool] = {}  # none: git passes this hook no argument
HELP = """
usage: handrail hook pre-commit

git's pre-commit hook: the commit git is about to make, judged by the policy.

Reads what is staged (the index git names in GIT_INDEX_FILE, against HEAD's tree) and the
project's .handrail/ (protocol, tasks, contracts, gates, envelopes); no arguments, no stdin.
Who commits is read from the environment (HANDRAIL_AGENT and each harness's own markers:
CLAUDECODE, CODEX_*, OPENCODE, GEMINI_CLI, CURSOR_AGENT, ...): rules that bind agents bind
only an agent's commit.

Answers: nothing when the commit may go on (a notice on stderr for paths the protocol's
write_paths open); otherwise "handrail: commit refused: ..." on stderr, one line per
problem (no task in an edit phase, a path outside scope or forbidden, an agent's symbolic
link or submodule leading where no path rule looks, a closed human gate, over budget, a
secret in the staged content), each with its rule and the way forward.

Exit codes:
  0  the commit goes on (also when nothing is staged)
  1  refused; also on an unexpected argument, a broken policy or any internal error
"""


def main(argv: Sequence[str] | None = None) -> int:
    from handrail.hooks.gitcheck import guarded, say

    if argv:
        say(f"handrail: {ACTION} refused: unexpected argument '{argv[0]}' (usage: handrail hook pre-commit)")
        return EXIT_DENIED
    return guarded(ACTION, EVENT, _run)


def _run(repo: pygit2.Repository, project: str) -> int:
    from handrail import repo as git
    from handrail.hooks.gitcheck import check_changes, envelope_problems, load_policy, report, say
    from handrail.policy import gitrules

    changes = git.staged(repo)
    if not len(changes):
        return EXIT_OK
    policy = load_policy(project, os.environ)
    problems = []
    first = gitrules.edit_task_problem(policy, changes=changes.changes)
    if first is not None:
        problems.append(first)
    problems += check_changes(changes, policy)
    problems += envelope_problems(project, policy)
    if not problems:
        _notify(project, gitrules.write_path_notices(changes.changes, policy), policy)
        return EXIT_OK
    say(gitrules.render(problems, ACTION))
    report(project, EVENT, problems, policy)
    return EXIT_DENIED


def _notify(project: str, notices: list[str], policy: gitrules.GitPolicy) -> None:
    """An agent's commit of paths the protocol's write_paths open: said, and recorded."""
    if not notices:
        return
    from handrail.hooks.gitcheck import say
    from handrail.records.events import record

    say("\n".join(f"handrail: notice: {line}" for line in notices))
    agent = policy.agent
    record(project, NOTIFIED, agent=agent.name if agent else None, task=policy.edit[0].slug if policy.edit else None,
           topic="write_path", message=notices[0],
           payload={"notices": notices, "actor": agent.evidence() if agent else "human"})


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
