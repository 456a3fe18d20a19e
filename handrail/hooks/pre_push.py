"""`handrail hook pre-push [REMOTE URL]`: what is about to reach a remote, judged by the policy.

As a plain git hook it gets the remote's name and URL as arguments and one line per
pushed ref on stdin (`<local ref> <local oid> <remote ref> <remote oid>`); every
line is checked. Under the pre-commit framework (no arguments; `PRE_COMMIT_*`
variables set, stdin already consumed, one range passed) it checks every commit
reachable from a local branch (and `PRE_COMMIT_TO_REF`) that the remote does not
already have.

What the remote already has comes from what git says the remote holds (the remote's
tip on each stdin line, `PRE_COMMIT_FROM_REF`) and from the remote's tracking refs
that a fetch from, or a push to, that remote wrote (policy/fetched.py reads their
reflog); a tracking ref written any other way hides nothing, and its commits are
checked.

Each commit is judged by who made it (policy/authorship.py: handrail's trailer, the
harnesses' own trailers, aider's committer name), not by who pushes: rules that bind
agents bind an agent's commit that a human pushes, and never a human's commit that
an agent pushes. The ref-level `publish` rule binds the pusher (see gitrules).

Refused when commits are pushed while no task is in an edit phase (this is what
catches `--no-verify`), when a pushed commit breaks the path, budget or secret rules
(content read from the commits, never from the work tree), when a pushed branch's
commits since the remote's protected branches exceed the budget together, or when the
publish gate is needed and closed.

Exit 0: the push goes on. Exit 1: refused, also on any internal error.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from handrail.errors import EXIT_DENIED, EXIT_OK, HandrailError

if TYPE_CHECKING:  # pygit2 and the policy load only once a push is judged
    import pygit2

    from handrail.policy.authorship import Maker
    from handrail.policy.gitrules import GitPolicy, Problem, RefUpdate

ACTION, EVENT = "push", "push_refused"
OPTIONS: dict[str, bool] = {}  # none: REMOTE and URL are positional, as git passes them
HELP = """
usage: handrail hook pre-push [REMOTE [URL]] < REF-LINES

git's pre-push hook: the commits about to reach a remote, judged by the policy.

Reads, as a plain git hook, the remote's name and URL as arguments and one line per pushed
ref on stdin: "<local ref> <local oid> <remote ref> <remote oid>". Under the pre-commit
framework (no arguments) it reads PRE_COMMIT_REMOTE_NAME, PRE_COMMIT_FROM_REF,
PRE_COMMIT_TO_REF, PRE_COMMIT_LOCAL_BRANCH and PRE_COMMIT_REMOTE_BRANCH instead, and
checks every commit of a local branch the remote does not have. Each commit is judged
by who made it (the Handrail-Agent trailer, the harnesses' own trailers), the publish
rule by who pushes (HANDRAIL_AGENT and the harnesses' markers in the environment).

Answers: nothing when the push may go on; otherwise "handrail: push refused: ..." on
stderr, one line per problem (commits pushed while no task is in an edit phase, a commit
that breaks the path, budget or secret rules, a closed publish gate).

Exit codes:
  0  the push goes on
  1  refused; also on more than two arguments, a broken policy or any internal error
"""
_HOLDERS = ("refs/heads/", "refs/tags/", "refs/remotes/")


class Push(NamedTuple):
    """What is about to reach the remote, however git or the framework told us."""

    remote: str | None
    updates: list[RefUpdate]
    tips: dict[str, tuple[str, str]]  # commit -> (how it reaches the remote, for messages; its local ref)
    hidden: list[str]                 # commits the remote already has
    doubted: list[str]                # tracking refs no fetch from the remote wrote: they hide nothing
    framework: bool
    tracking: dict[str, str]          # the remote's tracking refs a fetch or push wrote: name -> commit


def main(argv: Sequence[str] | None = None) -> int:
    from handrail.hooks.gitcheck import guarded, say

    args = list(argv or [])
    if len(args) > 2:
        say(f"handrail: {ACTION} refused: usage: handrail hook pre-push [REMOTE [URL]] (ref lines on stdin)")
        return EXIT_DENIED
    return guarded(ACTION, EVENT, lambda repo, project: _run(repo, project, args, os.environ))


def _run(repo: pygit2.Repository, project: str, argv: list[str], env: Mapping[str, str]) -> int:
    from handrail import repo as git
    from handrail.hooks.gitcheck import envelope_problems, load_policy, report, say
    from handrail.policy import gitrules

    push = _plain(repo, argv, _stdin()) if argv else _framework(repo, env)
    policy = load_policy(project, env)  # its agent is the pusher's, from the environment
    makers = _Makers(repo)
    per_tip = {tip: list(git.new_commits(repo, [tip], push.hidden)) for tip in push.tips}
    problems: list[gitrules.Problem] = []
    for update in push.updates:
        tip = git.resolve(repo, update.local_oid) if update.local_oid else None
        agent_made = next((m for m in map(makers.get, per_tip.get(tip or "", [])) if m is not None), None)
        problems += gitrules.publish_problems(update, policy, agent_made.as_agent() if agent_made else None)
    commits = _ordered(push, per_tip)
    if commits:
        first_agent = next((m for m in map(makers.get, commits) if m is not None), None)
        first = gitrules.edit_task_problem(policy._replace(agent=first_agent.as_agent() if first_agent else None),
                                           pushing=True)
        if first is not None:
            problems.insert(0, first)
    if push.updates:
        problems += envelope_problems(project, policy)
    problems += _commit_problems(repo, push, per_tip, commits, policy, makers)
    problems += _budget_problems(repo, push, policy)
    if not problems:
        return EXIT_OK
    text = gitrules.render(problems, ACTION)
    if push.doubted:
        shown = ", ".join(push.doubted[:3]) + (f" and {len(push.doubted) - 3} more" if len(push.doubted) > 3 else "")
        text += (f"\n  note: {shown} {'was' if len(push.doubted) == 1 else 'were'} not written by a fetch from "
                 f"{push.remote}, so the commits there were checked too (a fetch from {push.remote} puts that right)")
    if push.framework:
        text += (f"\n  note: under the pre-commit framework handrail checks every local branch not yet on "
                 f"{push.remote or 'the remote'} ({len(commits)} commits), not only the pushed one")
    say(text)
    report(project, EVENT, problems, policy,
           {"remote": push.remote, "refs": [u.remote_ref for u in push.updates], "commits_checked": len(commits)})
    return EXIT_DENIED


class _Makers:
    """Who made each commit, read once per commit."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self.seen: dict[str, Maker | None] = {}

    def get(self, oid: str) -> Maker | None:
        if oid not in self.seen:
            from handrail import repo as git
            from handrail.policy.authorship import made_by

            self.seen[oid] = made_by(*git.commit_people(self.repo, oid))
        return self.seen[oid]


def _ordered(push: Push, per_tip: dict[str, list[str]]) -> dict[str, str]:
    """Every commit to check once, parents first, with how it reaches the remote."""
    out: dict[str, str] = {}
    for tip, (label, _ref) in push.tips.items():
        for oid in per_tip[tip]:
            out.setdefault(oid, label)
    return out


def _commit_problems(repo: pygit2.Repository, push: Push, per_tip: dict[str, list[str]], commits: dict[str, str],
                     policy: GitPolicy, makers: _Makers) -> list[Problem]:
    """Rules 2, 4 and 5 for each commit, bound as its maker is (agent or human)."""
    from handrail import repo as git
    from handrail.hooks.gitcheck import check_changes
    from handrail.policy import gitrules

    trees = git.TreeCache(repo)
    out: list[gitrules.Problem] = []
    for oid, label in commits.items():
        maker = makers.get(oid)
        judged = policy._replace(agent=maker.as_agent() if maker else None)
        found = check_changes(git.commit_changes(repo, oid, trees), judged, commit=oid, gates=False)
        message, author, committer = git.commit_people(repo, oid)
        found += gitrules.message_secret_problems(message, oid)
        found += gitrules.identity_secret_problems(author, committer, oid)
        if found:
            who = f"; made by an agent: {maker.evidence}" if maker else ""
            where = f" [commit {git.commit_summary(repo, oid)}, {label}{who}]"
            out += [p._replace(what=p.what + where) for p in found]
    held = _held(repo, push, per_tip, {p.commit for p in out if p.commit})
    return [gitrules.held_elsewhere(p) if p.commit in held else p for p in out]


def _budget_problems(repo: pygit2.Repository, push: Push, policy: GitPolicy) -> list[Problem]:
    """Rule 4 over each pushed branch's commits together (hooks/rangebudget.py): every commit
    it holds that the remote's protected branches do not, pushed now or before, so neither
    many small commits in one push nor many small pushes stay under the task's budget."""
    from handrail import repo as git
    from handrail.hooks import rangebudget

    if not any(v is not None for t in policy.edit for v in t.limits.values()):
        return []
    floor = _mainline(push, policy)
    trees = git.TreeCache(repo)
    out: list[Problem] = []
    for tip, (label, _ref) in push.tips.items():
        commits = list(git.new_commits(repo, [tip], floor))
        shares = [rangebudget.share(c, changes, policy.edit) for c in commits
                  if (changes := git.commit_changes(repo, c, trees)).changes]
        fix = ("split the work into branches within the task's budget, each merged before the next, or have a human "
               "raise max_changed_files or max_diff_lines in the task's contract")
        found = rangebudget.range_problems(repo, rangebudget.fork_point(repo, tip, floor), tip, shares, fix=fix)
        out += [p._replace(what=f"{p.what} [{label}]") for p in found]
    return out


def _mainline(push: Push, policy: GitPolicy) -> list[str]:
    """What a branch's work is counted from: the remote's protected branches as this clone
    last fetched them, and the remote's own tip of a protected branch pushed now; where
    neither is known, what the remote already has (each push then counts alone)."""
    from handrail.policy.gitrules import protected

    prefix = f"refs/remotes/{push.remote}/"
    floor = [oid for name, oid in push.tracking.items()
             if name.startswith(prefix) and protected("refs/heads/" + name[len(prefix):], policy.protected_branches)]
    floor += [u.remote_oid for u in push.updates
              if u.remote_oid and protected(u.remote_ref, policy.protected_branches)]
    return floor or push.hidden


def _held(repo: pygit2.Repository, push: Push, per_tip: dict[str, list[str]], wanted: set[str]) -> set[str]:
    """Which of `wanted` another ref (a branch, a tag, any remote's tracking ref) holds:
    rewriting those would fork history that is not only the pushed branch's."""
    if not wanted:
        return set()
    from handrail import repo as git

    every: dict[str, str] = {}
    for prefix in _HOLDERS:
        every.update(git.refs_under(repo, prefix))
    held: set[str] = set()
    for tip, (_label, own) in push.tips.items():
        mine = wanted.intersection(per_tip[tip])
        if not mine:
            continue
        others = [oid for name, oid in every.items() if name != own]
        only_here = set(git.new_commits(repo, [tip], [*push.hidden, *others]))
        held |= mine - only_here
    return held


def _stdin() -> str:
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    return sys.stdin.read()


def _remote_has(repo: pygit2.Repository, remote: str | None) -> tuple[dict[str, str], list[str]]:
    """The tracking refs of `remote` a fetch from it (or a push to it) wrote, and the
    names of those in doubt (written some other way: they hide nothing)."""
    from handrail import repo as git
    from handrail.policy.fetched import cloned, fetched_from

    if not remote:
        return {}, []
    refs = git.tracking_refs(repo, remote)
    if not refs:
        return {}, []
    urls = git.remote_urls(repo, remote)
    from_clone: bool | None = None
    trusted: dict[str, str] = {}
    doubted: list[str] = []
    for name, oid in refs.items():
        newest = git.reflog_newest(repo, name)
        if newest is not None:
            ok = git.resolve(repo, newest[0]) == oid and fetched_from(newest[1], remote, urls)
        else:
            if from_clone is None:
                from_clone = cloned(git.reflog_oldest_message(repo), urls)
            # `git clone` writes its refs into packed-refs and leaves them no reflog.
            ok = from_clone and not git.is_loose_ref(repo, name)
        if ok:
            trusted[name] = oid
        else:
            doubted.append(name)
    return trusted, sorted(doubted)


def _plain(repo: pygit2.Repository, argv: list[str], text: str) -> Push:
    """Git's own pre-push protocol: every line of stdin is one pushed ref."""
    from handrail import repo as git
    from handrail.policy.gitrules import RefUpdate

    remote = argv[0]
    tracking, doubted = _remote_has(repo, remote)
    hidden = list(tracking.values())
    updates: list[RefUpdate] = []
    tips: dict[str, tuple[str, str]] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        parts = line.rsplit(maxsplit=3)
        if len(parts) != 4:
            raise HandrailError(f"cannot read git's pre-push line {line!r}", reason="bad_input")
        local_ref, local_oid, remote_ref, remote_oid = parts
        local = None if local_oid == git.Z40 else local_oid
        remote_tip = None if remote_oid == git.Z40 else remote_oid
        # An annotated tag names a tag object: walk from the commit it points at.
        local_commit = git.resolve(repo, local) if local is not None else None
        if local is not None and local_commit is None:
            raise HandrailError(f"{local_ref}: commit {local[:7]} is not in this repository", reason="bad_input")
        force = bool(local and remote_tip and not git.is_ancestor(repo, remote_tip, local))
        updates.append(RefUpdate(local_ref, local, remote_ref, remote_tip, force))
        # What the remote itself says it has for this ref: no tracking ref can forge it.
        known = git.resolve(repo, remote_tip) if remote_tip is not None else None
        if known is not None:
            hidden.append(known)
        if local_commit is not None:
            tips.setdefault(local_commit, (f"pushed as {remote_ref}", local_ref))
    return Push(remote, updates, tips, hidden, doubted, False, tracking)


def _framework(repo: pygit2.Repository, env: Mapping[str, str]) -> Push:
    """The pre-commit framework read stdin and kept one range: check every local branch."""
    from handrail import repo as git
    from handrail.policy.gitrules import RefUpdate

    remote = env.get("PRE_COMMIT_REMOTE_NAME") or None
    tracking, doubted = _remote_has(repo, remote)
    hidden = list(tracking.values())
    from_ref = git.resolve(repo, env.get("PRE_COMMIT_FROM_REF", ""))
    if from_ref is not None:
        hidden.append(from_ref)
    local_ref = env.get("PRE_COMMIT_LOCAL_BRANCH", "")
    remote_ref = env.get("PRE_COMMIT_REMOTE_BRANCH", "")
    to_ref = git.resolve(repo, env.get("PRE_COMMIT_TO_REF", "")) or git.resolve(repo, local_ref)
    tips: dict[str, tuple[str, str]] = {}
    if to_ref is not None:
        tips[to_ref] = (f"pushed as {remote_ref or local_ref or 'the pushed ref'}", local_ref)
    for ref, oid in git.local_branches(repo).items():
        tips.setdefault(oid, (f"on local branch {ref}, not yet on {remote or 'the remote'}", ref))
    updates: list[RefUpdate] = []
    if remote_ref and to_ref is not None:
        short = remote_ref.removeprefix("refs/heads/")
        known = from_ref or (tracking.get(f"refs/remotes/{remote}/{short}") if remote else None)
        force = known is not None and not git.is_ancestor(repo, known, to_ref)
        updates.append(RefUpdate(local_ref, to_ref, remote_ref, known, force))
    return Push(remote, updates, tips, hidden, doubted, True, tracking)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
