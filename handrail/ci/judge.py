"""`judge()`: every commit of `base..head` against the rules pre-push applies, as a report.

Every commit reachable from head and not from base is judged (all parents: the commits a
merge brings in from its second parent too, and the merge itself for what no parent
carries), each by the policy its own tree holds (ci/intree.py) and bound as its maker
is (policy/authorship.py), exactly as pre-push binds a pushed commit:

- `edit_task`, `path`, `governor`, `secret`: the git rules themselves (policy/gitrules.py
  through hooks/gitcheck.py, the code pre-push runs; nothing is judged twice here), and
  `governor` once more over the whole range, per task (hooks/rangebudget.py, as pre-push
  judges a push);
- `policy_change`: a commit that changes the policy, the git hooks' config, a harness's
  permission files or the CI configuration, whoever made it (`gitrules.policy_change_problems`),
  or a file the commit's (or the base's) GitLab pipeline includes or a workflow's local action
  (ci/ciconfig.py), or adds or repoints a symbolic link or a submodule that leads where no
  path rule looks (policy/links.py);
- the pull request as a whole: the net change merge-base..head, by the rules that bind
  everyone (ci/whole.py), for what a merge takes from a parent outside the range;
- `unreadable`: a policy or CI configuration file a commit holds that handrail cannot read;
  that commit is then judged by the base's policy, and the rest of the range as usual;
- `rewrite`: the engine says the branch was force-pushed, or its old tip is not an
  ancestor of the new one (ci/range.py);
- `unattributed`: with `require_attribution`, a commit that carries no agent's mark.

`human_gate` and `publish` wait for a gate a human approves on their own machine; that
approval is local state no commit carries, so CI judges neither (pre-push does not
judge `human_gate` either): the reviewer's approval of the pull request is the human
step on this side of the boundary.

Who made a commit: `agent` where the commit carries an agent's mark; `human` where it
carries a signature the job's git calls good, by the committer, checked against keys the
branch cannot write (ci/signatures.py): the one record a person's tools make that an
agent cannot write into a commit without that person's key; else `unknown`. No trailer or name makes
a commit a human's: an agent's process can write any of them. Both `human` and `unknown`
commits are bound as a human's, as pre-push binds them.
"""

from __future__ import annotations

from typing import Any

import pygit2

from handrail import repo as git
from handrail.ci import range as ranges
from handrail.ci import signatures, whole
from handrail.ci.ciconfig import Reach, unreadable_problem
from handrail.ci.ciconfig import problems as reach_problems
from handrail.ci.ghactions import LocalActions
from handrail.ci.gitlabci import Includes
from handrail.ci.intree import TreePolicies, Unreadable
from handrail.errors import HandrailError
from handrail.hooks import rangebudget
from handrail.hooks.gitcheck import check_changes, loosenings
from handrail.policy import gitrules, links
from handrail.policy.authorship import Maker, made_by
from handrail.policy.secretscan import in_name

VERSION = 1
REWRITE, UNATTRIBUTED = "rewrite", "unattributed"
AGENT, HUMAN, UNKNOWN = "agent", "human", "unknown"
UNTRUSTED = "signature not trusted: "  # an unknown commit's evidence: why its signature counts for nothing
# A partial clone lacks the blobs of earlier commits, and libgit2 never fetches them.
PARTIAL_FIX = ("judge a full clone: leave `filter:` out of actions/checkout, no `--filter` in "
               "GIT_FETCH_EXTRA_FLAGS on GitLab, or a clone made without --filter elsewhere")
BUDGET_FIX = ("split the work into pull requests within the task's budget, or have a human raise max_changed_files "
              "or max_diff_lines in the task's contract")


class _Trees:
    """What every commit of one range is judged with: its tree's policy and CI configuration,
    read once per distinct content, and the base's, where a commit's own cannot be read."""

    def __init__(self, repo: pygit2.Repository, base: str) -> None:
        self.repo = repo
        self.policies = TreePolicies(repo)
        self.includes = Includes(repo)
        self.actions = LocalActions(repo)
        self.cache = git.TreeCache(repo)
        self.base = base
        self.base_reach = self.reach_of(base, with_base=False)
        self.unreadable: set[tuple[str | None, str]] = set()  # (path, why) already reported

    def reach_of(self, oid: str, *, with_base: bool = True) -> Reach:
        """The files the commit's workflows and pipeline name, and the base's: a commit that
        drops `uses: ./tools/act` from a workflow while it changes tools/act still changed it."""
        tree = self.repo[oid].peel(pygit2.Commit).tree
        found = self.includes.at(tree).plus(self.actions.at(tree))
        return found.plus(self.base_reach) if with_base else found

    def policy_of(self, oid: str) -> tuple[gitrules.GitPolicy | None, list[gitrules.Problem]]:
        """The commit's policy, or the base's where the commit's cannot be read (None: neither
        can), with an `unreadable` finding the first time a file is found so."""
        try:
            return self.policies.at(oid), []
        except Unreadable as e:
            first = (e.path, e.why) not in self.unreadable
            self.unreadable.add((e.path, e.why))
            found = [unreadable_problem(e.path or "the policy", e.why, oid)] if first else []
        try:
            return self.policies.at(self.base), found
        except Unreadable:
            return None, found


def judge(repo: pygit2.Repository, rng: ranges.Range, *, require_attribution: bool = False) -> dict[str, Any]:
    """The report: one object with stable keys, what `handrail ci --format json` prints (README, CI section)."""
    commits = list(git.new_commits(repo, [rng.head], [rng.base]))
    ranges.check_depth(repo, commits, rng.base)
    trees = _Trees(repo, rng.base)
    entries: list[dict[str, Any]] = []
    findings: list[dict[str, Any]] = []
    shares: list[rangebudget.Share] = []
    if rng.rewritten:
        findings.append(_rewrite(rng))
    for oid in commits:
        message, author, committer = git.commit_people(repo, oid)
        maker = made_by(message, author, committer)
        signed = signatures.NONE if maker else signatures.verdict(repo, oid)
        who = AGENT if maker else HUMAN if signed.trusted else UNKNOWN
        entries.append({"commit": oid, "summary": _first_line(message), "author": in_name(author)[1], "made_by": who,
                        "agent": maker.name if maker else None, "evidence": _evidence(maker, signed)})
        found, share = _problems(repo, oid, trees, maker)
        findings += [_finding(p, oid, who) for p in found]
        if share is not None:
            shares.append(share)
        findings += [_finding(p, oid, who) for p in gitrules.message_secret_problems(message, oid)]
        findings += [_finding(p, oid, who) for p in gitrules.identity_secret_problems(author, committer, oid)]
        if require_attribution and who == UNKNOWN:
            findings.append(_unattributed(oid, _first_line(message)))
    findings += [_finding(p, None, UNKNOWN) for p in rangebudget.range_problems(repo, rng.base, rng.head, shares,
                                                                            fix=BUDGET_FIX)]
    findings += _whole(repo, rng, trees, findings)
    agents = sum(1 for e in entries if e["made_by"] == AGENT)
    return {
        "version": VERSION,
        "base": rng.base,
        "head": rng.head,
        "range_from": rng.source,
        "rewritten": rng.rewritten,
        "commits": entries,
        "findings": findings,
        "counts": {"commits": len(entries), "agent_commits": agents,
                   "unknown_commits": sum(1 for e in entries if e["made_by"] == UNKNOWN),
                   "findings": len(findings)},
        "result": "findings" if findings else "clean",
    }


def _whole(repo: pygit2.Repository, rng: ranges.Range, trees: _Trees,
           findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The net change's findings (ci/whole.py), each (rule, path) once and none a commit's
    finding already names."""
    if rng.base == rng.head:
        return []
    try:
        changes = whole.changes(repo, rng.base, rng.head)
        _no_missing(repo, changes, whole.where(rng.base, rng.head))
        policy, _said_once = trees.policy_of(rng.base)
        found = whole.problems(changes, rng.base, rng.head, policy, trees.reach_of(rng.head))
    except (KeyError, pygit2.GitError) as e:
        raise HandrailError(f"{whole.where(rng.base, rng.head)}: cannot read an object it needs ({_said(e)}): "
                            f"{_missing_fix(repo)}", reason="missing_object") from None
    seen = {(f["rule"], f["path"]) for f in findings}
    out = []
    for p in found:
        if (p.rule, p.path) not in seen:
            seen.add((p.rule, p.path))
            out.append(_finding(p, None, UNKNOWN))
    return out


def _problems(repo: pygit2.Repository, oid: str, trees: _Trees,
              maker: Maker | None) -> tuple[list[gitrules.Problem], rangebudget.Share | None]:
    """The rules pre-push applies to one pushed commit, and policy_change. An object the
    rules would read and this clone lacks is an error, never content judged clean."""
    try:
        return _rules(repo, oid, trees, maker)
    except (KeyError, pygit2.GitError) as e:
        raise HandrailError(f"commit {oid[:7]}: cannot read an object it needs ({_said(e)}): "
                            f"{_missing_fix(repo)}", reason="missing_object") from None


def _said(e: BaseException) -> str:
    return " ".join(str(e).split())[:200] or type(e).__name__


def _missing_fix(repo: pygit2.Repository) -> str:
    promisor = git.partial_clone(repo)
    if promisor is not None:
        return (f"this is a partial clone (objects are left on {promisor}): {PARTIAL_FIX}")
    return "this repository lacks objects its commits name: judge a full clone (git clone without --filter)"


def _no_missing(repo: pygit2.Repository, changes: git.ChangeSet, where: str) -> None:
    missing = git.missing_objects(changes)
    if missing:
        shown = ", ".join(gitrules.display(p) for p in missing[:3]) + (
            f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise HandrailError(f"{where}: {shown}: the content is not in this clone, so it cannot be "
                            f"judged: {_missing_fix(repo)}", reason="missing_object")


def _rules(repo: pygit2.Repository, oid: str, trees: _Trees,
           maker: Maker | None) -> tuple[list[gitrules.Problem], rangebudget.Share | None]:
    changes = git.commit_changes(repo, oid, trees.cache)
    _no_missing(repo, changes, f"commit {oid[:7]}")
    if not changes.changes:
        return [], None  # an empty commit, or a merge that brings nothing its parents lack
    read, out = trees.policy_of(oid)
    policy = (read or gitrules.NO_POLICY)._replace(agent=maker.as_agent() if maker else None)
    if read is not None:  # with no readable policy at all, `unreadable` is the finding, not "no task"
        first = gitrules.edit_task_problem(policy, changes=changes.changes)
        if first is not None:
            out.append(first)
    out += check_changes(changes, policy, commit=oid, gates=False)
    out += gitrules.policy_change_problems(changes.changes, policy, oid)
    out += links.link_problems(loosenings(changes), oid)
    out += reach_problems(changes.changes, trees.reach_of(oid), oid)
    return out, rangebudget.share(oid, changes, policy.edit)


def _evidence(maker: Maker | None, signed: signatures.Verdict) -> str | None:
    if maker is not None:
        return maker.evidence
    if signed.trusted:
        return f"signature: {signed.trusted}"
    return f"{UNTRUSTED}{signed.doubt}" if signed.doubt else None


def _finding(p: gitrules.Problem, oid: str | None, who: str) -> dict[str, Any]:
    return {"rule": p.rule, "commit": p.commit or oid, "path": p.path, "line": p.line, "message": p.what,
            "fix": p.fix, "source": p.source, "made_by": who}


def _rewrite(rng: ranges.Range) -> dict[str, Any]:
    pull_request = rng.before is None and rng.source == ranges.GITHUB_PR
    what = (f"the pull request's branch was force-pushed: {rng.rewrite}" if pull_request else
            f"the push rewrote the history of {rng.ref or 'the branch'}: {rng.rewrite}")
    return {"rule": REWRITE, "commit": None, "path": None, "line": None,
            "message": f"{what}; its commits are judged against {rng.base[:7]}",
            "fix": "a human checks what the rewrite dropped or changed (the engine's event names the old tip), "
                   "and protects the branch against force pushes",
            "source": f"{rng.source} event (handrail rewrite rule); binds everyone", "made_by": UNKNOWN}


def _unattributed(oid: str, summary: str) -> dict[str, Any]:
    return {"rule": UNATTRIBUTED, "commit": oid, "path": None, "line": None,
            "message": f"commit {oid[:7]} {summary!r} carries no mark of who made it",
            "fix": f"a human signs it with a key this job trusts (git commit --amend -S, or git rebase -i "
                   f"--exec 'git commit --amend --no-edit -S' {oid[:7]}^), or an agent's commit carries its "
                   f"trailer (Handrail-Agent: …, which handrail's prepare-commit-msg hook writes)",
            "source": "--require-attribution (handrail attribution rule); binds everyone", "made_by": UNKNOWN}


def _first_line(message: str) -> str:
    lines = message.strip().splitlines()
    return lines[0] if lines else ""
