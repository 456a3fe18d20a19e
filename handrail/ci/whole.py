"""The pull request's net change: `git diff merge-base..head`, judged as one change set.

Each commit is judged on what it changes against its first parent, and a merge only on
what no parent carries (repo.commit_changes). A merge whose other parent lies in the
base's history, outside the range, is then judged on nothing it takes from that parent:
`git merge -s ours main` keeps the branch's old contract and task over the ones a human
tightened on main, and a hand-made merge with the repository's first commit as a parent
takes `.handrail/` and every harness file away, and no commit of the range "changes"
either. What the reviewer merges is the net change, so it is judged once more as a whole
by the rules that bind everyone whoever made a commit: default-forbidden paths and secret
content (policy/gitrules.py, as each commit), `policy_change` on protected paths, links
and submodules (policy/links.py), and the files the CI configuration names (ci/ciconfig.py).
The caller reports each (rule, path) once, and not where a commit's finding names it.

The policy it is judged by is the base's: the one in force before the pull request (a
write path the pull request opens for itself is no reason to pass its change).
"""

from __future__ import annotations

import pygit2

from handrail import repo as git
from handrail.ci.ciconfig import Reach
from handrail.ci.ciconfig import problems as reach_problems
from handrail.hooks.gitcheck import loosenings
from handrail.policy import gitrules, links


def where(base: str, head: str) -> str:
    return f"the pull request as a whole (merge-base..head, {base[:7]}..{head[:7]})"


def changes(repo: pygit2.Repository, base: str, head: str) -> git.ChangeSet:
    return git.range_changes(repo, base, head)


def problems(found: git.ChangeSet, base: str, head: str, policy: gitrules.GitPolicy | None,
             reach: Reach) -> list[gitrules.Problem]:
    """Every finding of the net change `found` (base..head), each naming the pull request
    as a whole rather than a commit."""
    rules = (policy or gitrules.NO_POLICY)._replace(agent=None, edit=())
    out: list[gitrules.Problem] = []
    for change in found.changes:
        out += gitrules.path_problems(change, rules)
    out += gitrules.policy_change_problems(found.changes, rules)
    for change in found.changes:
        data = found.content(change)
        if data:
            out += gitrules.secret_problems(change.path, data)
    out += links.link_problems(loosenings(found))
    out += reach_problems(found.changes, reach, None)
    whole = where(base, head)
    return [_as_whole(p, whole) for p in out]


def _as_whole(p: gitrules.Problem, whole: str) -> gitrules.Problem:
    fix = p.fix
    if p.rule == gitrules.PATH:
        fix = ("take it out of the pull request: no single commit adds it, the commits together do (a merge "
               "can take it from an older commit); a reviewer checks the merge commits")
    elif p.rule == gitrules.SECRET:
        fix = ("rotate it now, then take it out of the pull request: no single commit adds it, the commits "
               "together do (a merge can take it from an older commit)")
    return p._replace(what=f"{whole}: {p.what}", fix=fix, commit=None)
