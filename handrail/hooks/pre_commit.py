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

ACTION, EVENT = "commit", "commit_refused"


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
    first = gitrules.edit_task_problem(policy)
    if first is not None:
        problems.append(first)
    problems += check_changes(changes, policy)
    problems += envelope_problems(project, policy)
    if not problems:
        return EXIT_OK
    say(gitrules.render(problems, ACTION))
    report(project, EVENT, problems, policy)
    return EXIT_DENIED


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
