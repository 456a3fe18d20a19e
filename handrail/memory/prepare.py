"""`handrail memory prepare`: decide whether the commits since the last reflection
make the project's description stale and, when they do, write the manifest that
asks the next agent for a precise update (`.handrail/runtime/reflect-prompt.json`).

The default range starts where the pending manifest's starts (a reflection not yet
made keeps growing with every commit), else at the last commit `prepare` looked at,
else three commits back; it ends at HEAD. An explicit `--range` is a one-off
question: it moves nothing.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from typing import Any

import pygit2

from handrail import repo as git
from handrail.errors import HandrailError
from handrail.fsio import atomic_write, dump_json
from handrail.memory import bootstrap, journal, store
from handrail.policy import agents
from handrail.policy import memory as rules
from handrail.records import clock, events

MAX_LISTED = 300          # changed_files kept in the manifest; the rest are counted
DEFAULT_BACK = 3          # HEAD~3..HEAD when nothing was reflected yet


def instructions(targets: list[str]) -> list[str]:
    return [
        "The commits in git_range changed the project (diff_summary; changed_files lists the paths, and "
        "`git diff` on git_range shows them): update the project's description so that it is true again.",
        f"Edit only the targets ({', '.join(targets)}); current_bootstrap_snapshot holds what they say now.",
        "Keep each file's YAML front matter and every key in it; set generated_at to the current UTC time "
        "(YYYY-MM-DDTHH:MM:SSZ), later than the snapshot's.",
        "Change the description itself: a file whose only change is generated_at is refused; leave out a "
        "target that needs no change.",
        'Write {"files": {"<target path>": "<the whole new content>"}} to a file outside .handrail/ and run '
        "`handrail memory commit --output FILE` (or pipe it into `handrail memory commit -`).",
        "The commit is refused if anyone edits the bootstrap files before it: then run "
        "`handrail memory prepare --force` for a fresh snapshot and start again.",
    ]


def _parse_range(repo: pygit2.Repository, text: str) -> tuple[str | None, str]:
    left, sep, right = text.partition("..")
    if not sep or not left or right.startswith("."):
        raise HandrailError(f"--range '{text}': write it as A..B (or A.. for A..HEAD)", reason="bad_arguments")
    base, head = git.resolve(repo, left), git.resolve(repo, right or "HEAD")
    for rev, found in ((left, base), (right or "HEAD", head)):
        if found is None:
            raise HandrailError(f"--range '{text}': '{rev}' is not a commit here", reason="bad_arguments")
    assert head is not None
    return base, head


def _range_text(base: str | None, head: str) -> str:
    """git's own notation; a range from the root is the head alone (every commit it reaches)."""
    return head if base is None else f"{base}..{head}"


def _pending(project: str) -> dict[str, Any] | None:
    try:
        data = store.load_manifest(project)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("git_range"), str) else None


def _default_base(repo: pygit2.Repository, project: str, head: str) -> str | None:
    pending = _pending(project)
    if pending is not None:
        left, sep, _right = pending["git_range"].partition("..")
        if not sep:
            return None  # the pending reflection covers everything from the root
        if git.is_ancestor(repo, left, head):
            return git.resolve(repo, left)
    last = store.reflected_to(project)
    if last is not None and git.is_ancestor(repo, last, head):
        return git.resolve(repo, last)
    return git.resolve(repo, f"{head}~{DEFAULT_BACK}")


def _save_state(repo: pygit2.Repository, project: str, head: str, now: str) -> None:
    """Move `reflected_to` forward only: detached post-commit runs may finish out of order."""
    last = store.reflected_to(project)
    if last is not None and last != head and git.is_ancestor(repo, head, last):
        return
    events.ensure_runtime_dir(project)
    atomic_write(os.path.join(project, store.STATE), dump_json({"reflected_to": head, "updated_at": now}))


LOCK_WAIT = 30.0          # seconds to wait for a memory commit writing the description


def prepare(project: str, *, git_range: str | None = None, agent: str | None = None, force: bool = False,
            from_hook: bool = False, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Judge the range, write the manifest when it matters (or `force`), record the
    verdict; the answer `--json` prints. Under the memory lock, after an interrupted
    commit was finished or undone: the snapshot is never of a half-written description."""
    repo = git.open_repo(project) if from_hook else git.open_path(project)
    with journal.settled(project, wait=LOCK_WAIT) as recovered:
        result = _prepare(repo, project, git_range=git_range, agent=agent, force=force, from_hook=from_hook, env=env)
    result["recovered"] = recovered.line() if recovered else None
    return result


def _prepare(repo: pygit2.Repository, project: str, *, git_range: str | None, agent: str | None, force: bool,
             from_hook: bool, env: Mapping[str, str] | None) -> dict[str, Any]:
    env = os.environ if env is None else env
    detected = agents.detect(env)
    trigger = agent or (detected.name if detected else None)
    snap = bootstrap.snapshot(project)
    result: dict[str, Any] = {"verdict": "skip", "reasons": [], "targets": [], "git_range": None, "diff_summary": None,
                    "changed_files": [], "manifest": None, "written": False, "forced": False, "session_id": None,
                    "trigger_agent": trigger, "missing_bootstrap": snap.missing,
                    "init_command": bootstrap.INIT_COMMAND if snap.missing else None}
    head = git.resolve(repo, "HEAD")
    if head is None:
        result["reasons"] = ["no commits yet"]
        return result
    if git_range:
        base, head = _parse_range(repo, git_range)
    else:
        base = _default_base(repo, project, head)
    now = clock.now_iso()
    result["git_range"] = _range_text(base, head)
    considered = [] if base == head else [
        c for c in git.range_changes(repo, base, head).changes if not rules.is_description(c.path)]
    added, removed = git.ChangeSet(repo, considered).line_counts()
    changed = [c.path for c in considered]
    verdict = rules.judge(changed, added, removed, force=force)
    reasons = list(verdict.reasons)
    if base == head:
        reasons[0] = f"no commits since the last reflection ({head[:7]})"
    targets = [f"{snap.folder}/{t}" for t in verdict.targets]
    result.update(verdict="relevant" if verdict.relevant else "skip", reasons=reasons, targets=targets,
                  diff_summary=rules.diff_summary(len(changed), added, removed), changed_files=changed[:MAX_LISTED],
                  forced=force and not verdict.relevant)
    if verdict.relevant or force:
        if from_hook and _newer_pending(repo, project, head):
            result["reasons"].append("a manifest for later commits is already pending: kept")
        else:
            manifest = _manifest(snap, result, trigger, now, omitted=max(0, len(changed) - MAX_LISTED))
            events.ensure_runtime_dir(project)
            atomic_write(store.manifest_path(project), dump_json(manifest))
            result.update(manifest=store.MANIFEST, written=True, session_id=manifest["session_id"])
    if not git_range:
        _save_state(repo, project, head, now)
    _record(project, result, trigger)
    return result


def _newer_pending(repo: pygit2.Repository, project: str, head: str) -> bool:
    pending = _pending(project)
    if pending is None:
        return False
    theirs = pending["git_range"].rpartition("..")[2]
    return theirs != head and git.is_ancestor(repo, head, theirs)


def _manifest(snap: bootstrap.Snapshot, result: dict[str, Any], trigger: str | None, now: str, *,
              omitted: int) -> dict[str, Any]:
    targets = result["targets"]
    manifest = {
        "version": rules.MANIFEST_VERSION,
        "session_id": uuid.uuid4().hex,
        "trigger_agent": trigger,
        "git_range": result["git_range"],
        "heuristic_verdict": result["verdict"],
        "heuristic_reasons": result["reasons"],
        "targets": targets,
        "bootstrap_dir": snap.folder,
        "current_bootstrap_snapshot": snap.texts(),
        "snapshot_hash": snap.digest,
        "diff_summary": result["diff_summary"],
        "changed_files": result["changed_files"],
        "instructions": instructions(targets),
        "validation_rules": {rules.MUST_HAVE_FRONTMATTER: True, rules.MUST_UPDATE_GENERATED_AT: True,
                             rules.MUST_DIFF_CONTENT: True, rules.ALLOWED_PATHS: targets},
        "generated_at": now,
    }
    if omitted:
        manifest["changed_files_omitted"] = omitted
    return manifest


def _record(project: str, result: dict[str, Any], trigger: str | None) -> None:
    written = result["written"]
    kind = "memory_reflect_prepared" if written else "memory_reflect_skipped"
    what = (f"reflection prepared for {', '.join(result['targets'])}" if written
            else f"no reflection needed: {result['reasons'][0]}")
    events.record(project, kind, agent=trigger, topic="memory", message=what, payload={
        k: result[k] for k in ("verdict", "reasons", "targets", "git_range", "diff_summary", "forced")})


def hook_main(project: str = ".") -> None:
    """What the post-commit hook runs: `prepare` where the project keeps a description."""
    repo = git.open_repo(project)
    root = git.workdir(repo)
    if store.has_bootstrap(root):
        prepare(root, from_hook=True)
