"""The loop's companion commands: `loop status`, `loop check`, `loop reset`, `loop retro`.

Each returns what the CLI prints and its exit code. `loop check` runs the criteria in
the same sandbox as `loop run` and never reads or writes the circuit or progress.json;
`loop reset` is for humans only, by the rule that decides gate approvals.
"""

from __future__ import annotations

import os

from handrail.errors import EXIT_DENIED, HandrailError, PolicyError
from handrail.loop import criteria as checks
from handrail.loop import report, state
from handrail.loop.runner import load_contract
from handrail.policy import contract as contracts
from handrail.policy import gates
from handrail.policy import loop as rules
from handrail.policy import tasks as taskmod
from handrail.records import clock
from handrail.records.events import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _soft_contract(task: taskmod.Task) -> tuple[contracts.Contract | None, str | None]:
    """The contract for display; a broken one is reported, not fatal, where only reading."""
    where = state.shown(task.slug, contracts.CONTRACT_FILE)
    try:
        return contracts.load(task.dir, where), None
    except PolicyError as e:
        return None, str(e)


def status(project: str, slug: str) -> dict[str, Any]:
    task = taskmod.load_task(project, slug)
    progress = state.load(task.dir, slug)
    contract, problem = _soft_contract(task)
    governor = contract.governor() if contract is not None else {}
    found = report.status(slug, progress, governor, contract.path if contract else None)
    for g in found["pending_gates"]:
        # The human may have decided since the loop paused: say so, the next run acts on it.
        g["decision"] = gates.request_status(task.dir, g["theme"], g["id"])
    decided = [g for g in found["pending_gates"] if g["decision"] in (gates.APPROVED, gates.REJECTED)]
    if decided and len(decided) == len(found["pending_gates"]):
        found["next"] = (f"gate {decided[0]['theme']} was {decided[0]['decision']}: "
                         f"handrail loop run {slug} -- {report.agent_hint(progress and progress.get('run'))} "
                         "acts on it")
    if problem:
        found["contract_error"] = problem
    return found


def check(project: str, slug: str, *, only: list[str] | None = None,
          timeout_ms: int | None = None) -> tuple[list[dict[str, Any]], int]:
    """Run the criteria now; exit 0 when every one passed."""
    task = taskmod.load_task(project, slug)
    contract = load_contract(project, task)
    selected = checks.select(contract, only)
    if not selected:
        raise HandrailError(f"{contract.path}: criteria: none to check", reason="bad_arguments")
    results = checks.run_all(project, contract, slug, selected, state.checks_dir(task.dir),
                             timeout_override_ms=timeout_ms)
    for r in results:
        r["log"] = os.path.relpath(r["log"], project).replace(os.sep, "/")
    passed, total = checks.tally(results)
    record(project, "loop_check", task=slug, topic="loop", message=f"{passed}/{total} criteria passed",
           payload={"results": {r["id"]: r["status"] for r in results}})
    return results, 0 if passed == total else EXIT_DENIED


def reset(project: str, slug: str, *, by: str) -> tuple[dict[str, Any], int]:
    """Close an open circuit into half-open, or end a run paused on its budget or runtime.

    The caller has made sure a human is present (`gates.human_absent`)."""
    task = taskmod.load_task(project, slug)
    with state.locked(task.dir, slug):
        return _reset_locked(project, slug, task, by)


def _reset_locked(project: str, slug: str, task: taskmod.Task, by: str) -> tuple[dict[str, Any], int]:
    progress = state.load(task.dir, slug)
    if progress is None:
        return {"task": slug, "changed": False, "message": f"task {slug} has no loop yet: nothing to reset"}, 0
    circuit = progress["circuit"]
    if circuit["state"] == rules.OPEN:
        was = circuit.get("reason")
        circuit.update(state=rules.HALF_OPEN, reason=None, at=clock.now_iso(), reset_by=by, reset_from=was)
        message = (f"circuit of task {slug}: open ({was}) -> half-open by {by}; the next run's first failure "
                   "re-opens it")
    elif progress.get("state") == rules.PAUSED and progress.get("reason") in (rules.BUDGET_EXCEEDED,
                                                                                  rules.RUNTIME_EXCEEDED):
        was = progress["reason"]
        progress["state"], progress["reason"] = rules.STOPPED, "reset"
        message = f"run of task {slug} paused on {was}: ended by {by}; the next `loop run` starts a fresh run"
    else:
        return {"task": slug, "changed": False,
                "message": f"task {slug}: circuit {circuit['state']}, loop {progress.get('state') or 'never run'}: "
                           "nothing to reset"}, 0
    state.save(task.dir, progress)
    record(project, "loop_reset", agent=None, task=slug, topic="loop", message=message,
           payload={"by": by, "circuit": circuit["state"], "state": progress.get("state")})
    return {"task": slug, "changed": True, "message": message, "circuit": circuit["state"],
            "state": progress.get("state")}, 0


def retro(project: str, slug: str) -> dict[str, Any]:
    task = taskmod.load_task(project, slug)
    progress = state.load(task.dir, slug)
    contract, _problem = _soft_contract(task)
    ids = [c["id"] for c in contract.criteria()] if contract is not None else []
    return report.retro(slug, progress, ids)


def doctor_warnings(project: str) -> list[str]:
    """Open circuits and loops paused at a gate, for `handrail doctor`; a broken
    progress file is a warning too."""
    out = []
    for task in taskmod.load_all(project):
        try:
            out += report.doctor_warnings(task.slug, state.load(task.dir, task.slug))
        except HandrailError as e:
            out.append(str(e))
    return out
