"""`handrail task ...`: create tasks and move them between phases."""

from __future__ import annotations

import os

from handrail.commands import render
from handrail.commands.human import require_human, who_acts
from handrail.commands.render import echo, emit_json
from handrail.commands.where import require_repository
from handrail.errors import EXIT_OK


def new(*, slug: str, phase: str, title: str | None, project: str, as_json: bool) -> int:
    require_repository("task new", project)
    from handrail.policy import tasks
    from handrail.records import task_states

    tasks.check_slug(slug)
    tasks.check_phase(phase)
    from handrail.policy import protocol as protocols

    protocols.load(project)  # work opened under a policy nobody can read would be judged by nothing
    if phase in tasks.EDIT_PHASES:
        require_human("task new", f"{slug} --phase {phase}", "a human opens an edit phase")
    by, evidence = who_acts(project)
    t = task_states.new_task(project, slug, phase=phase, title=title, by=by, evidence=evidence)
    _record_phase(project, slug, None, t.phase, by)
    if as_json:
        emit_json(t.data)
    else:
        echo(f"created task '{t.slug}' in phase {t.phase} ({t.display})")
    return EXIT_OK


def phase(*, slug: str, phase: str, project: str, as_json: bool) -> int:
    require_repository("task phase", project)
    from handrail.policy import tasks
    from handrail.records import task_states

    tasks.check_phase(phase)
    now = tasks.load_task(project, slug)
    if phase in tasks.EDIT_PHASES and not (now.phase == phase and now.editing):
        # (a task.json that git brought back says the phase already, but opens nothing: see the ledger)
        require_human("task phase", f"{slug} {phase}", "a human opens an edit phase")
    by, evidence = who_acts(project)
    t, old = task_states.set_phase(project, slug, phase, by=by, evidence=evidence)
    if old != phase:
        _record_phase(project, slug, old, phase, by)
    if as_json:
        emit_json({**t.data, "previous_phase": old})
    elif old == phase:
        echo(f"task '{slug}' is already in phase {phase}")
    else:
        echo(f"task '{slug}': {old} -> {phase}")
    return EXIT_OK


def list_(*, project: str, as_json: bool) -> int:
    from handrail.policy import tasks

    found = tasks.load_all(project)
    if as_json:
        emit_json({"tasks": [{**t.summary(), "title": t.data.get("title", t.slug),
                               "updated_at": t.updated_at, "editing": t.editing} for t in found]})
        return EXIT_OK
    if not found:
        echo("no tasks; create one with `handrail task new SLUG --phase implement`")
        return EXIT_OK
    rows = [[t.slug, t.phase, "open" if t.editing else "-", t.updated_at, render.cell(t.data.get("title", ""))]
            for t in found]
    for text in render.table(("TASK", "PHASE", "EDITS", "UPDATED", "TITLE"), rows, (40, 10, 5, 20),
                             render.terminal_width()):
        echo(text)
    return EXIT_OK


def show(*, slug: str, project: str, as_json: bool) -> int:
    from handrail.policy import contract as contracts
    from handrail.policy import tasks

    t = tasks.load_task(project, slug)
    c = contracts.load(t.dir, os.path.join(tasks.TASKS_DIR, slug, contracts.CONTRACT_FILE))
    contract = None
    if c is not None:
        contract = {"path": c.path, "contract_mode": c.mode, "governor": c.governor(),
                    "allowed_files": c.data.get("allowed_files", []),
                    "forbidden_files": c.data.get("forbidden_files", []),
                    "human_gate": {k: list(v) for k, v in c.gate_paths().items()}, "warnings": c.warnings}
    if as_json:
        emit_json({**t.data, "editing": t.editing, "contract": contract, **t.summary()})
        return EXIT_OK
    echo(f"task {t.slug}: {t.data.get('title', '')}")
    echo(f"  phase: {t.phase}{' (edits allowed)' if t.editing else ''}")
    if "recorded_phase" in t.summary():
        echo(f"  handrail last set it to {t.recorded}: task.json was changed other than by handrail, "
             "so no edit phase is open; a person runs `handrail task phase` to set it")
    for h in t.data.get("history", []):
        who = f"  by {h['by']}" if h.get("by") else ""
        shown = f" ({h['evidence']})" if h.get("evidence") else ""
        echo(f"  {h['at']}  {h.get('from') or '-'} -> {h['to']}{who}{shown}")
    if contract is None:
        echo("  contract: none (any path outside the default-forbidden and protected ones)")
        return EXIT_OK
    echo(f"  contract: {contract['path']} ({contract['contract_mode']})")
    for key in ("allowed_files", "forbidden_files"):
        if contract[key]:
            echo(f"  {key}: {', '.join(contract[key])}")
    gov = ", ".join(f"{k}={'unlimited' if v is None else v}" for k, v in contract["governor"].items())
    echo(f"  governor: {gov}")
    for theme, paths in contract["human_gate"].items():
        echo(f"  human gate: {theme} ({', '.join(paths) or 'on publish'})")
    for w in contract["warnings"]:
        echo(f"  warning: {w}")
    return EXIT_OK


def _record_phase(project: str, slug: str, old: str | None, new: str, by: str) -> None:
    from handrail.records.events import record

    what = f"created in phase {new}" if old is None else f"{old} -> {new}"
    record(project, "task_phase_changed", task=slug, topic="task", message=f"task '{slug}' {what}",
           payload={"from": old, "to": new, "by": by})
