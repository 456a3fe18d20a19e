"""A task's budget over a run of commits: what pre-push and `handrail ci` both judge.

A contract's `max_changed_files` and `max_diff_lines` bound a change, and rule 4 asks it
of each commit; alone, that lets a 2,000-line change through as twenty commits of a
hundred. So the commits of a range are also judged together, per edit task: a task's
commits are those it was an edit task for (in CI, as each commit's own tree says; in
pre-push, the policy in force, so every pushed commit), and their total is the diff from
where the range leaves its base (the fork point) to its head, over the paths those
commits touched. Where one task owns every commit, that is the range's whole diff. The
limits are the strictest any of the task's commits stood under: raising a limit inside
the range buys no budget (and is a `policy_change` of its own).

One task with a single commit is left to rule 4, which already judged that commit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

import pygit2

from handrail import repo as git
from handrail.policy import gitrules

_LIMITS = ("max_changed_files", "max_diff_lines")


class Share(NamedTuple):
    """One commit of the range as the budget sees it."""

    commit: str
    tasks: Sequence[gitrules.TaskRules]   # the edit tasks it was made under
    paths: frozenset[str]                 # every path it changes (both sides of a rename)


class _Task(NamedTuple):
    rules: gitrules.TaskRules
    commits: list[str]
    paths: set[str]


def share(commit: str, changes: git.ChangeSet, tasks: Sequence[gitrules.TaskRules]) -> Share:
    return Share(commit, tasks, frozenset(p for c in changes.changes for p in c.paths()))


def range_problems(repo: pygit2.Repository, base: str | None, head: str, shares: Iterable[Share],
                   *, fix: str) -> list[gitrules.Problem]:
    """Each task's limits against its commits' total change in `base..head` (`base`: the
    fork point; None, the empty tree). One problem per task and limit exceeded."""
    tasks = _by_task(shares)
    judged = [t for t in tasks.values() if len(t.commits) > 1 and any(v is not None for v in t.rules.limits.values())]
    if not judged:
        return []
    whole = git.range_changes(repo, base, head)
    out: list[gitrules.Problem] = []
    for t in judged:
        mine = git.ChangeSet(repo, [c for c in whole.changes if any(p in t.paths for p in c.paths())], whole.tree)
        where = f"the sum of {len(t.commits)} commits under task '{t.rules.slug}' ({_span(t.commits)})"
        out += gitrules.limit_problems(t.rules, len(mine), mine.line_counts, where=where, fix=fix)
    return out


def _by_task(shares: Iterable[Share]) -> dict[str, _Task]:
    tasks: dict[str, _Task] = {}
    for s in shares:
        for rules in s.tasks:
            found = tasks.get(rules.slug)
            if found is None:
                tasks[rules.slug] = _Task(rules, [s.commit], set(s.paths))
                continue
            found.commits.append(s.commit)
            found.paths.update(s.paths)
            tasks[rules.slug] = found._replace(rules=found.rules._replace(limits=_strictest(found.rules, rules)))
    return tasks


def _strictest(a: gitrules.TaskRules, b: gitrules.TaskRules) -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for key in _LIMITS:
        values = [v for v in (a.limits.get(key), b.limits.get(key)) if v is not None]
        out[key] = min(values) if values else None
    return out


def _span(commits: list[str]) -> str:
    return commits[0][:7] if len(commits) == 1 else f"{commits[0][:7]}..{commits[-1][:7]}"


def fork_point(repo: pygit2.Repository, head: str, bases: Iterable[str]) -> str | None:
    """Where `head` leaves the history of `bases`: the newest of its merge bases with
    them; None when it shares none (the diff is then against the empty tree). Where
    they fork apart, the merge base of those, which counts more, never less."""
    found: list[str] = []
    for b in dict.fromkeys(bases):
        oid = git.resolve(repo, b)
        mb = repo.merge_base(head, oid) if oid is not None else None
        if mb is not None and str(mb) not in found:
            found.append(str(mb))
    newest = [c for c in found if not any(o != c and git.is_ancestor(repo, c, o) for o in found)]
    if not newest:
        return None
    if len(newest) == 1:
        return newest[0]
    oldest = repo.merge_base_many([pygit2.Oid(hex=c) for c in newest])
    return str(oldest) if oldest is not None else None
