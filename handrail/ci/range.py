"""Which commits a CI job judges: `base..head`, and where the two came from.

In order: `--base`/`--head` given on the command line; GitHub Actions (the event file
`GITHUB_EVENT_PATH` of a `pull_request`, `pull_request_target` or `push` event, as
`GITHUB_EVENT_NAME` names it); GitLab CI (`CI_MERGE_REQUEST_DIFF_BASE_SHA` in a merge
request pipeline, else `CI_COMMIT_BEFORE_SHA`..`CI_COMMIT_SHA` for a push); else
`origin/main`..`HEAD`.

A push that creates a branch (an all-zero `before`) is judged against the default
branch (`repository.default_branch` in GitHub's event, `CI_DEFAULT_BRANCH` on GitLab).
A push the engine calls forced (GitHub's `forced: true`), or whose `before` is not an
ancestor of `after`, rewrote the branch's history: it is reported (`rewritten`, with what
happened in `rewrite`), and its commits are judged against the default branch, since
`before` no longer leads to them. A pull request's `synchronize` event names the head it
had (`before`, at the top of the payload, beside `after`): one that is not an ancestor of
the new head was force-pushed, reported the same way; its range stays `base..head`.

A base the clone does not hold is an error that names the fix, never a silent pass:
a shallow clone (`actions/checkout` fetches one commit by default, GitLab 20) is the
usual cause, and walking it would judge the cut-off commit as if it added every file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, NamedTuple

import pygit2

from handrail import repo as git
from handrail.errors import HandrailError

FLAGS, DEFAULT = "flags", "default"
GITHUB_PR, GITHUB_PUSH = "github:pull_request", "github:push"
GITLAB_MR, GITLAB_PUSH = "gitlab:merge_request", "gitlab:push"
FALLBACK_BASE = "origin/main"
SHALLOW_FIX = ("fetch the whole history: `fetch-depth: 0` in actions/checkout on GitHub, "
               "`GIT_DEPTH: 0` in the job's variables on GitLab, `git fetch --unshallow` elsewhere")


class Range(NamedTuple):
    base: str                 # 40-hex commit
    head: str                 # 40-hex commit
    source: str               # one of the names above
    rewritten: bool           # the engine says the branch was force-pushed or rewritten
    before: str | None        # the push's old tip, when the range came from a push
    ref: str | None           # the branch the event is about, when the engine names it
    rewrite: str = ""         # what the rewrite was, in words, where `rewritten`


class _Wanted(NamedTuple):
    base: str | None          # a revision; None: the default branch
    head: str
    source: str
    forced: bool = False
    before: str | None = None
    default_branch: str | None = None
    ref: str | None = None
    event_head: str | None = None   # the engine's head, where --head names another
    target: str | None = None       # the branch a merge request goes into, by the variables' word
    old_head: str | None = None     # a pull request's head before this push (synchronize's `before`)


def find(repo: pygit2.Repository, env: Mapping[str, str], base: str | None = None,
         head: str | None = None) -> Range:
    """The range to judge; HandrailError (exit 2) naming the fix when it cannot be had."""
    wanted = _wanted(env, base, head)
    head_oid = _commit(repo, wanted.head, "head")
    if wanted.event_head is not None:
        _descends(repo, head_oid, wanted)
    rewritten, rewrite = _rewritten(repo, wanted, head_oid)
    base_rev = wanted.base
    if rewritten and wanted.before is not None:
        base_rev = None  # `before` no longer leads to the branch's commits
    if base_rev is None:
        base_rev = _default_branch(repo, wanted.default_branch)
    base_oid = _fork(repo, _commit(repo, base_rev, "base"), head_oid, wanted)
    return Range(base_oid, head_oid, wanted.source, rewritten, wanted.before, wanted.ref, rewrite)


def _rewritten(repo: pygit2.Repository, wanted: _Wanted, head: str) -> tuple[bool, str]:
    """Whether the event rewrote the branch, and what happened, in words: the old tip (a
    push's `before`, a pull request's old head) that is not an ancestor of the new one, or
    the engine's own word (`forced: true`) where the history shows nothing dropped."""
    old = wanted.before if wanted.before is not None else wanted.old_head
    what = "the push's old tip (before)" if wanted.before is not None else "the pull request's old head (before)"
    if old is not None:
        found = git.resolve(repo, old)
        if found is None and repo.is_shallow:
            _missing(repo, old, what)
        if found is None:  # a full clone that lacks it: it is no longer on any ref
            return True, f"its old tip {old[:7]} is no longer in the repository, so {head[:7]} does not hold it"
        if not git.is_ancestor(repo, found, head):
            return True, f"its old tip {found[:7]} is not an ancestor of the new tip {head[:7]}"
        if wanted.forced and found == head:
            return True, (f"the engine calls the push forced, though its old tip is the new tip {head[:7]}: no "
                          "commit was dropped by this push, but the branch takes force pushes")
    if wanted.forced:
        return True, (f"the engine calls the push forced (forced: true), though the history shows no commit "
                      f"dropped before {head[:7]}")
    return False, ""


def _wanted(env: Mapping[str, str], base: str | None, head: str | None) -> _Wanted:
    if base is not None:
        return _Wanted(base, head or "HEAD", FLAGS)
    if head is None and env.get("PRE_COMMIT_FROM_REF"):
        # `pre-commit run --from-ref A --to-ref B` hands its flags over as these variables
        return _Wanted(env["PRE_COMMIT_FROM_REF"], env.get("PRE_COMMIT_TO_REF") or "HEAD", FLAGS)
    if env.get("GITHUB_ACTIONS") == "true" and env.get("GITHUB_EVENT_PATH"):
        found = _github(env, head)
        if found is not None:
            return found
    if env.get("GITLAB_CI") == "true":
        found = _gitlab(env, head)
        if found is not None:
            return found
    return _Wanted(FALLBACK_BASE, head or "HEAD", DEFAULT)


def _github(env: Mapping[str, str], head: str | None) -> _Wanted | None:
    """GitHub Actions' event file: https://docs.github.com/en/webhooks/webhook-events-and-payloads."""
    path = env["GITHUB_EVENT_PATH"]
    name = env.get("GITHUB_EVENT_NAME", "")
    try:
        with open(path, encoding="utf-8") as f:
            event = json.load(f)
    except (OSError, ValueError) as e:
        raise HandrailError(f"{path}: cannot read GitHub's event file (GITHUB_EVENT_PATH): {e}",
                            reason="bad_input") from None
    if not isinstance(event, dict):
        raise HandrailError(f"{path}: expected a JSON object (GITHUB_EVENT_PATH)", reason="bad_input")
    default = _text(event, path, "repository", "default_branch", required=False)
    if name in ("pull_request", "pull_request_target"):
        base_sha = _text(event, path, "pull_request", "base", "sha")
        event_head = _text(event, path, "pull_request", "head", "sha")
        old_head = _text(event, path, "before", required=False) if event.get("action") == "synchronize" else ""
        return _Wanted(base_sha, head or event_head, GITHUB_PR,
                       default_branch=default, ref=_text(event, path, "pull_request", "base", "ref", required=False),
                       event_head=event_head if head else None,
                       old_head=old_head if old_head and old_head != git.Z40 else None)
    if name == "push":
        before = _text(event, path, "before")
        event_head = _text(event, path, "after")
        forced = event.get("forced") is True
        ref = _text(event, path, "ref", required=False)
        base = None if before == git.Z40 else before
        return _Wanted(base, head or event_head, GITHUB_PUSH, forced=forced, before=base, default_branch=default,
                       ref=ref, event_head=event_head if head else None)
    return None  # another event (workflow_dispatch, schedule): the generic fallback


def _text(event: dict[str, Any], path: str, *keys: str, required: bool = True) -> str:
    value: Any = event
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    if isinstance(value, str) and value:
        return value
    if required:
        raise HandrailError(f"{path}: {'.'.join(keys)}: expected text in GitHub's event file", reason="bad_input")
    return ""


def _gitlab(env: Mapping[str, str], head: str | None) -> _Wanted | None:
    """GitLab CI's predefined variables: https://docs.gitlab.com/ci/variables/predefined_variables/."""
    event_head = env.get("CI_COMMIT_SHA") or None
    sha = head or event_head or "HEAD"
    seen = event_head if head and event_head else None
    default = env.get("CI_DEFAULT_BRANCH") or None
    mr_base = env.get("CI_MERGE_REQUEST_DIFF_BASE_SHA")
    if mr_base:
        target = env.get("CI_MERGE_REQUEST_TARGET_BRANCH_NAME") or None
        return _Wanted(mr_base, sha, GITLAB_MR, default_branch=default, ref=target, event_head=seen,
                       target=target or default)
    before = env.get("CI_COMMIT_BEFORE_SHA")
    if before is None:
        return None
    branch = env.get("CI_COMMIT_BRANCH")
    base = None if before in ("", git.Z40) else before
    return _Wanted(base, sha, GITLAB_PUSH, before=base, default_branch=default,
                   ref=f"refs/heads/{branch}" if branch else None, event_head=seen)


def _descends(repo: pygit2.Repository, head: str, wanted: _Wanted) -> None:
    """--head beside an engine's event names the event's head or a commit built on it (the
    merge commit actions/checkout makes): anything else judges commits the event is not about."""
    event_head = _commit(repo, wanted.event_head or "", f"{wanted.source} event's head")
    if not git.is_ancestor(repo, event_head, head):
        raise HandrailError(f"the head {head[:7]} is not the {wanted.source} event's head {event_head[:7]} nor built "
                            "on it: leave --head out, or name that commit or one that descends from it",
                            reason="bad_range")


def _fork(repo: pygit2.Repository, base: str, head: str, wanted: _Wanted) -> str:
    """Where head leaves base's history: base itself when it is an ancestor of head, else
    their merge base. A target branch that moved on (or was rebased) after the pull request
    began is not an ancestor of it; the diff from its tip would count the target's own
    changes as the pull request's (reverted), and the merge base is where the two part."""
    if wanted.target is not None:
        base = _checked_mr_base(repo, base, head, wanted.target)
    if git.is_ancestor(repo, base, head):
        return base
    found = repo.merge_base(head, base)
    if found is None and repo.is_shallow:
        return base  # the cut-off history is where they meet: check_depth names the fix
    if found is None:
        raise HandrailError(f"the base {base[:7]} and the head {head[:7]} share no history: name the branch the "
                            "pull request goes into with --base REF", reason="bad_range")
    return str(found)


def _checked_mr_base(repo: pygit2.Repository, base: str, head: str, target: str) -> str:
    """GitLab's `CI_MERGE_REQUEST_DIFF_BASE_SHA` against what git computes from the target
    branch's tip in this clone. A branch pipeline takes variables a pusher sets
    (`git push -o ci.variable=...`, which outrank predefined ones), so the variable may be
    any commit: one on the merge request's own commits would hide those before it. The
    merge base git computes wins; a variable that would skip commits is refused."""
    tip = git.resolve(repo, f"refs/remotes/origin/{target}")
    if tip is None:
        return base  # the clone holds no copy of the target: the variable is all there is (README)
    computed = repo.merge_base(head, tip)
    if computed is None:
        return base
    if not git.is_ancestor(repo, base, str(computed)):
        raise HandrailError(f"CI_MERGE_REQUEST_DIFF_BASE_SHA {base[:7]} is not on the history {target} and the head "
                            f"{head[:7]} share (they part at {str(computed)[:7]}): it would leave the merge request's "
                            "first commits unjudged; a pipeline variable set at push time can say so, GitLab's own "
                            "never does. Run the merge request pipeline, or name the base with --base REF",
                            reason="bad_range")
    return str(computed)


def _default_branch(repo: pygit2.Repository, name: str | None) -> str:
    """Where a new or rewritten branch is judged from: the default branch as the remote has it."""
    candidates = [f"refs/remotes/origin/{name}", name] if name else ["refs/remotes/origin/HEAD", FALLBACK_BASE]
    for rev in candidates:
        if git.resolve(repo, rev) is not None:
            return rev
    return candidates[0]


def _commit(repo: pygit2.Repository, rev: str, what: str) -> str:
    oid = git.resolve(repo, rev)
    if oid is None:
        _missing(repo, rev, what)
    assert oid is not None
    return oid


def _missing(repo: pygit2.Repository, rev: str, what: str) -> None:
    if repo.is_shallow:
        raise HandrailError(f"the {what} {rev} is not in this shallow clone: {SHALLOW_FIX}", reason="shallow_clone")
    raise HandrailError(f"the {what} {rev} is not in this repository: fetch it (git fetch origin), "
                        "or name it with --base REF", reason="no_base")


def boundary(repo: pygit2.Repository) -> frozenset[str]:
    """The commits a shallow clone cut off from their parents (`.git/shallow`)."""
    if not repo.is_shallow:
        return frozenset()
    try:
        with open(os.path.join(git.common_dir(repo), "shallow"), encoding="ascii") as f:
            return frozenset(line.strip() for line in f if line.strip())
    except OSError:
        return frozenset()


def check_depth(repo: pygit2.Repository, commits: list[str], base: str) -> None:
    """A commit of the range whose parents the clone cut off would be judged as adding
    every file it holds: refuse, naming the fix."""
    cut = boundary(repo)
    hit = next((c for c in commits if c in cut), None)
    if hit is not None:
        raise HandrailError(f"this shallow clone ends at commit {hit[:7]}, before the base {base[:7]}: "
                            f"{SHALLOW_FIX}", reason="shallow_clone")
