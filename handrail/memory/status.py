"""`handrail memory status`, and the warnings `handrail doctor` shows for living memory."""

from __future__ import annotations

import os
from typing import Any

from handrail.memory import bootstrap, journal, store
from handrail.policy import memory as rules
from handrail.records import clock

STALE_DAYS = 7


def status(project: str, *, settle: bool = False) -> dict[str, Any]:
    """Whether a reflection is pending, for whom, and what to run; the `--json` answer.
    `settle`: first finish or undo an interrupted commit (`handrail doctor` only looks)."""
    recovered = None
    if settle:
        with journal.settled(project) as done:
            recovered = done.line() if done else None
    out = _status(project)
    out["recovered"] = recovered
    return out


def _status(project: str) -> dict[str, Any]:
    snap = bootstrap.snapshot(project)
    out: dict[str, Any] = {"pending": False, "manifest": None, "problem": None, "trigger_agent": None, "targets": [],
                 "git_range": None, "diff_summary": None, "generated_at": None, "age_days": None, "stale": False,
                 "bootstrap_dir": snap.folder, "missing_bootstrap": snap.missing, "next": None,
                 "interrupted": journal.pending(project)}
    try:
        data = store.load_manifest(project)
    except (OSError, ValueError) as e:
        data, out["problem"] = None, f"{store.MANIFEST}: cannot be read ({e})"
    if data is not None:
        problem = rules.manifest_problem(data)
        if problem is not None:
            out["problem"] = f"{store.MANIFEST}: {problem}"
        else:
            assert isinstance(data, dict)
            out.update(pending=True, manifest=store.MANIFEST, trigger_agent=data.get("trigger_agent"),
                       targets=data.get("targets", []), git_range=data.get("git_range"),
                       diff_summary=data.get("diff_summary"), generated_at=data.get("generated_at"))
            when = rules.as_time(data.get("generated_at"))
            if when is not None:
                out["age_days"] = round(clock.days_between(when, clock.now()), 1)
                out["stale"] = out["age_days"] > STALE_DAYS
    if out["interrupted"]:
        out["next"] = "handrail memory status (finishes or undoes the interrupted commit)"
    elif out["problem"]:
        out["next"] = "handrail memory prepare --force"
    elif out["pending"]:
        out["next"] = (f"read {store.MANIFEST}, edit only its targets, then run "
                       "`handrail memory commit --output FILE`")
    elif snap.missing:
        out["next"] = bootstrap.INIT_COMMAND
    return out


def doctor_warnings(project: str) -> list[str]:
    """What `handrail doctor` should warn about: missing bootstrap files, a manifest
    nobody acted on for over a week, an unreadable one. Never raises."""
    try:
        s = status(project)
    except Exception as e:  # noqa: BLE001 - a doctor reports, it does not crash
        return [f"living memory: cannot be checked: {e}"]
    warnings = []
    if s["missing_bootstrap"]:
        warnings.append(f"living memory: missing {', '.join(os.path.basename(p) for p in s['missing_bootstrap'])} "
                        f"in {s['bootstrap_dir']}: run `{bootstrap.INIT_COMMAND}`")
    if s["interrupted"]:
        warnings.append(f"living memory: a memory commit was interrupted ({journal.TXN_DIR}): run "
                        "`handrail memory status` to finish or undo it")
    if s["problem"]:
        warnings.append(f"living memory: {s['problem']}: run `handrail memory prepare --force`")
    elif s["stale"]:
        warnings.append(f"living memory: a reflection has been pending for {s['age_days']:.0f} days "
                        f"({store.MANIFEST}): have an agent do it, or run `handrail memory prepare --force` "
                        "for a fresh one")
    return warnings
