"""`handrail hook pre-push [REMOTE URL]`: what is about to reach a remote, judged by the policy.

As a plain git hook it gets the remote's name and URL as arguments and one line per
pushed ref on stdin (`<local ref> <local oid> <remote ref> <remote oid>`); every
line is checked. Under the pre-commit framework (no arguments; `PRE_COMMIT_*`
variables set, stdin already consumed, one range passed) it checks every commit
reachable from a local branch (and `PRE_COMMIT_TO_REF`) that the remote's tracking
refs do not already have.

Refused when commits are pushed while no task is in an edit phase (this is what
catches `--no-verify`), when a pushed commit breaks the path, budget or secret rules
(content read from the commits, never from the work tree), or when an agent force
pushes, deletes a remote ref or pushes to a protected branch without a human's
approval of the task's `publish` gate.

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

    from handrail.policy.gitrules import RefUpdate

ACTION, EVENT = "push", "push_refused"


class Push(NamedTuple):
    """What is about to reach the remote, however git or the framework told us."""

    remote: str | None
    updates: list[RefUpdate]
    tips: dict[str, str]   # commit -> how it reaches the remote ("pushed as refs/heads/x"), for messages
    hidden: list[str]      # commits the remote already has
    framework: bool


def main(argv: Sequence[str] | None = None) -> int:
    from handrail.hooks.gitcheck import guarded, say

    args = list(argv or [])
    if len(args) > 2:
        say(f"handrail: {ACTION} refused: usage: handrail hook pre-push [REMOTE [URL]] (ref lines on stdin)")
        return EXIT_DENIED
    return guarded(ACTION, EVENT, lambda repo, project: _run(repo, project, args, os.environ))


def _run(repo: pygit2.Repository, project: str, argv: list[str], env: Mapping[str, str]) -> int:
    from handrail import repo as git
    from handrail.hooks.gitcheck import check_changes, envelope_problems, load_policy, report, say
    from handrail.policy import gitrules

    push = _plain(repo, argv, _stdin()) if argv else _framework(repo, env)
    policy = load_policy(project, env)
    problems: list[gitrules.Problem] = []
    for update in push.updates:
        problems += gitrules.publish_problems(update, policy)
    seen: set[str] = set()
    commits: list[tuple[str, str]] = []
    for tip, ref in push.tips.items():
        for oid in git.new_commits(repo, [tip], push.hidden):
            if oid not in seen:
                seen.add(oid)
                commits.append((oid, ref))
    if commits:
        first = gitrules.edit_task_problem(policy, pushing=True)
        if first is not None:
            problems.insert(0, first)
    if push.updates:
        problems += envelope_problems(project, policy)
    trees = git.TreeCache(repo)
    for oid, ref in commits:
        found = check_changes(git.commit_changes(repo, oid, trees), policy, commit=oid, gates=False)
        if found:
            where = f" [commit {git.commit_summary(repo, oid)}, {ref}]"
            problems += [p._replace(what=p.what + where) for p in found]
    if not problems:
        return EXIT_OK
    text = gitrules.render(problems, ACTION)
    if push.framework:
        text += (f"\n  note: under the pre-commit framework handrail checks every local branch not yet on "
                 f"{push.remote or 'the remote'} ({len(commits)} commits), not only the pushed one")
    say(text)
    report(project, EVENT, problems, policy,
           {"remote": push.remote, "refs": [u.remote_ref for u in push.updates], "commits_checked": len(commits)})
    return EXIT_DENIED


def _stdin() -> str:
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    return sys.stdin.read()


def _plain(repo: pygit2.Repository, argv: list[str], text: str) -> Push:
    """Git's own pre-push protocol: every line of stdin is one pushed ref."""
    from handrail import repo as git
    from handrail.policy.gitrules import RefUpdate

    remote = argv[0]
    hidden = list(git.tracking_refs(repo, remote).values())
    updates: list[RefUpdate] = []
    tips: dict[str, str] = {}
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
        known = git.resolve(repo, remote_tip) if remote_tip is not None else None
        if known is not None:
            hidden.append(known)
        if local_commit is not None:
            tips.setdefault(local_commit, f"pushed as {remote_ref}")
    return Push(remote, updates, tips, hidden, framework=False)


def _framework(repo: pygit2.Repository, env: Mapping[str, str]) -> Push:
    """The pre-commit framework read stdin and kept one range: check every local branch."""
    from handrail import repo as git
    from handrail.policy.gitrules import RefUpdate

    remote = env.get("PRE_COMMIT_REMOTE_NAME") or None
    tracking = git.tracking_refs(repo, remote) if remote else {}
    hidden = list(tracking.values())
    from_ref = git.resolve(repo, env.get("PRE_COMMIT_FROM_REF", ""))
    if from_ref is not None:
        hidden.append(from_ref)
    local_ref = env.get("PRE_COMMIT_LOCAL_BRANCH", "")
    remote_ref = env.get("PRE_COMMIT_REMOTE_BRANCH", "")
    to_ref = git.resolve(repo, env.get("PRE_COMMIT_TO_REF", "")) or git.resolve(repo, local_ref)
    tips: dict[str, str] = {}
    if to_ref is not None:
        tips[to_ref] = f"pushed as {remote_ref or local_ref or 'the pushed ref'}"
    for ref, oid in git.local_branches(repo).items():
        tips.setdefault(oid, f"on local branch {ref}, not yet on {remote or 'the remote'}")
    updates: list[RefUpdate] = []
    if remote_ref and to_ref is not None:
        short = remote_ref.removeprefix("refs/heads/")
        known = tracking.get(f"refs/remotes/{remote}/{short}") if remote else None
        force = known is not None and not git.is_ancestor(repo, known, to_ref)
        updates.append(RefUpdate(local_ref, to_ref, remote_ref, known, force))
    return Push(remote, updates, tips, hidden, framework=True)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
