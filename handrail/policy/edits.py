"""The pre-edit question: may an agent change this file now?

Every layer that asks it (`handrail can-edit`, the pre-tool hooks) gets the same
answer from here: a dict with stable keys, and whether it allows.
"""

from __future__ import annotations

import os

from handrail.errors import HandrailError
from handrail.policy import contract as contracts
from handrail.policy import tasks as taskmod
from handrail.policy.scope import (
    PROTECTED_PATH,
    ContractScope,
    Refusal,
    WritePaths,
    builtin_refusal,
    contract_refusal,
    forbidden_refusal,
    hard_link_refusal,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

EDIT_PHASES_TEXT = ", ".join(taskmod.EDIT_PHASES)


def _inside(path: str, roots: tuple[str, ...]) -> str | None:
    for root in roots:
        rel = os.path.relpath(path, root)
        if not (rel in (os.curdir, os.pardir) or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel)):
            return rel.replace(os.sep, "/")
    return None


def resolve_file(project: str, file: str, base: str | None = None) -> list[str] | None:
    """The file's project-relative paths, as written (`..` collapsed) and after
    resolving symbolic links; None when either lies outside the project. Both are
    judged, so neither a link nor a `..` can carry an edit past a rule. A relative
    `file` is relative to `base` (the caller's folder), else to the project."""
    if "\0" in file:
        raise HandrailError("the file path contains a NUL byte", reason="bad_arguments")
    if not file.strip():
        raise HandrailError("--file needs a path", reason="bad_arguments")
    literal_root = os.path.abspath(project)
    real_root = os.path.realpath(project)
    joined = file if os.path.isabs(file) else os.path.join(os.path.abspath(base or literal_root), file)
    literal = _inside(os.path.normpath(joined), (literal_root, real_root))
    real = _inside(os.path.realpath(joined), (real_root,))
    if literal is None or real is None:
        return None
    return [literal] if literal == real else [literal, real]


def _first_refusal(rels: list[str], check: Callable[[str], Refusal | None]) -> Refusal | None:
    for rel in rels:
        r = check(rel)
        if r is not None:
            return r
    return None


def can_edit(project: str, *, task: str | None = None, file: str | None = None,
             tree: str | None = None, base: str | None = None) -> dict[str, Any]:
    """The answer as a dict (`allowed`, `reason`, …). Raises HandrailError on bad input.

    `project` holds the tasks and contracts; `tree` is the work tree the file lies in
    (a linked worktree of the project's repository), which its path is relative to:
    the project itself when not given. A relative `file` is relative to `base`, else
    to `tree`."""
    if not os.path.isdir(project):
        raise HandrailError(f"{project}: project folder not found", reason="bad_arguments")
    # The protocol is read first (~2 ms): an unreadable policy refuses edits as it refuses
    # commands, with or without a task in an edit phase.
    from handrail.policy import protocol as protocols

    protocols.load(project)
    if task is not None:
        one = taskmod.load_task(project, task)
        candidates = [one] if one.editing else []
        known = [one]
    else:
        known = taskmod.load_all(project)
        candidates = taskmod.edit_tasks(known)
    if not candidates:
        return {"allowed": False, "reason": "no_edit_tasks", "tasks": [t.summary() for t in known]}
    primary = candidates[0]
    # Every edit task's contract is read, with or without a file: a broken one is an
    # invalid policy (exit 2), never a silent yes.
    scopes = []
    for t in candidates:
        contract = contracts.load(t.dir, os.path.join(taskmod.TASKS_DIR, t.slug, contracts.CONTRACT_FILE))
        scopes.append((t, contract.scope() if contract else None))
    if file is None:
        return {
            "allowed": True,
            "reason": "edit_task",
            "primary_task": primary.summary(),
            "all_edit_tasks": [t.summary() for t in candidates],
        }
    return judge_file(project, candidates, scopes, file, tree=tree, base=base)


def judge_file(project: str, candidates: list[taskmod.Task], scopes: list[tuple[taskmod.Task, ContractScope | None]],
               file: str, *, tree: str | None = None, base: str | None = None) -> dict[str, Any]:
    """can-edit's answer for one file, given the tasks in an edit phase and their scopes.

    With no task (`handrail audit` replaying a time no task history covers), only the rules
    that hold whatever the task: a file outside the project, default-forbidden and protected
    paths, hard links."""
    primary = candidates[0] if candidates else None
    resolved = resolve_file(tree or project, file, base)
    if resolved is None:
        # Outside the project no task's scope reaches: refused whatever the task, as can-edit refuses it.
        task = {"task": primary.slug, "phase": primary.phase} if primary is not None else {}
        return {"allowed": False, "reason": "out_of_scope", **task, "file": file}
    rels = resolved
    shown = rels[-1]
    refusal = _first_refusal(rels, builtin_refusal)
    write_paths = None
    if refusal is not None and refusal.reason == PROTECTED_PATH:
        # A protected path may be opened by the protocol's write_paths.
        write_paths = _write_paths(project)
        if write_paths is not None:
            refusal = _first_refusal(rels, lambda rel: builtin_refusal(rel, write_paths=write_paths))
    if refusal is not None:
        return _refused(refusal, primary, shown)
    refusal = hard_link_refusal(shown, _links(os.path.join(os.path.realpath(project), shown)))
    if refusal is not None:
        return _refused(refusal, primary, shown)
    if primary is None:
        return {"allowed": True, "reason": "no_task", "file": shown}
    first_refusal: tuple[Refusal, taskmod.Task] | None = None
    # A path write_paths opened is bound by a contract's forbidden_files, not its allowed_files.
    by_contract = contract_refusal if write_paths is None else forbidden_refusal
    for t, scope in scopes:
        refusal = _first_refusal(rels, lambda rel: by_contract(rel, scope))  # noqa: B023 - called before the loop moves on
        if refusal is None:
            answer = {
                "allowed": True,
                "reason": "edit_task",
                "file": shown,
                "primary_task": t.summary(),
                "all_edit_tasks": [c.summary() for c in candidates],
            }
            if write_paths is not None:
                pattern = write_paths.match(shown) or write_paths.match(rels[0]) or ""
                answer.update(notice=write_paths.notice(shown, pattern), rule=pattern, source=write_paths.source)
            return answer
        if first_refusal is None:
            first_refusal = (refusal, t)
    assert first_refusal is not None
    return _refused(first_refusal[0], first_refusal[1], shown)


def _write_paths(project: str) -> WritePaths | None:
    from handrail.policy import protocol as protocols

    return protocols.load(project).write_paths(project)


def _links(path: str) -> int:
    """How many names the file has (1 for a file that does not exist yet, or is no regular file)."""
    import stat

    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return 1
    return st.st_nlink if stat.S_ISREG(st.st_mode) else 1


def _refused(refusal: Refusal, task: taskmod.Task | None, file: str) -> dict[str, Any]:
    return {
        "allowed": False,
        "reason": refusal.reason,
        "rule": refusal.rule,
        "source": refusal.source,
        "task": task.slug if task else None,
        "phase": task.phase if task else None,
        "file": file,
    }


def explain(answer: dict[str, Any], project: str) -> str:
    """One line for a person: what was decided and what to do next."""
    reason = answer["reason"]
    if answer["allowed"]:
        t = answer["primary_task"]
        what = f"{answer['file']}" if "file" in answer else "files"
        notice = f" (notice: {answer['notice']})" if "notice" in answer else ""
        return f"allowed: task '{t['task']}' ({t['phase']}) may edit {what}{notice}"
    if reason == "no_edit_tasks":
        if len(answer["tasks"]) == 1:
            t = answer["tasks"][0]
            return (f"denied: task '{t['task']}' is in phase {t['phase']}, not an edit phase ({EDIT_PHASES_TEXT}); "
                    f"a human moves it on with `handrail task phase {t['task']} implement`")
        return (f"denied: no task is in an edit phase ({EDIT_PHASES_TEXT}); start one with "
                f"`handrail task new SLUG --phase implement` or `handrail task phase SLUG implement`")
    if reason == "out_of_scope":
        return f"denied: {answer['file']} is outside the project {os.path.abspath(project)}; edit files inside it"
    refusal = Refusal(reason, answer["rule"], answer["source"])
    if reason == "hard_linked":
        return (f"denied: {answer['file']} has other hard links ({answer['rule']}): an edit through this name "
                "changes the file under every other name too, where no path rule sees it; a human may edit it, "
                "or a human replaces it with a file of its own (cp, then mv over it)")
    if reason == "not_in_allowed_files":
        step = f"edit a file inside it, or ask a human to widen allowed_files in {answer['source']}"
    else:
        step = "a human must make this change"
    return f"denied: {refusal.describe(answer['file'])}; {step}"
