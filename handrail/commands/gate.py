"""`handrail gate ...`: list human gates; a person at a terminal approves or rejects."""

from __future__ import annotations

from handrail.commands import render
from handrail.commands.human import login, require_human
from handrail.commands.render import echo, emit_json
from handrail.commands.where import require_repository
from handrail.errors import EXIT_ERROR, EXIT_OK


def list_(*, slug: str | None, project: str, as_json: bool) -> int:
    from handrail.policy import gates

    found, errors = gates.scan_gates(project, slug)
    for line in errors:
        echo(f"handrail: error: {line}", err=True)
    if as_json:
        emit_json({"gates": found, "errors": errors})
    elif not found and not errors:
        echo("no tasks, so no gates; create one with `handrail task new SLUG`")
    else:
        rows = [[g["task"], g["theme"], g["status"], f"{g['by']} at {g['at']}" if g["by"] else "-",
                 render.cell(g.get("note") or g.get("reason"))] for g in found]
        if rows:
            for text in render.table(("TASK", "GATE", "STATUS", "DECIDED", "NOTE"), rows, (24, 28, 9, 40),
                                     render.terminal_width()):
                echo(text)
    return EXIT_ERROR if errors else EXIT_OK


def approve(*, slug: str, theme: str, note: str | None, project: str, as_json: bool) -> int:
    require_repository("gate approve", project)
    from handrail.policy.gates import APPROVED

    return _decide(APPROVED, slug, theme, note, project, as_json)


def reject(*, slug: str, theme: str, reason: str, project: str, as_json: bool) -> int:
    require_repository("gate reject", project)
    from handrail.policy.gates import REJECTED

    return _decide(REJECTED, slug, theme, reason, project, as_json)


def _decide(decision: str, slug: str, theme: str, words: str | None, project: str, as_json: bool) -> int:
    from handrail.policy import gates
    from handrail.records import gate_states
    from handrail.records.events import record

    verb = "approve" if decision == gates.APPROVED else "reject"
    gates.check_theme(theme)
    gates.check_gate(project, slug, theme)
    require_human(f"gate {verb}", f"{slug} {theme}", "a human decides gates")
    by = login()
    data, changed = gate_states.decide(project, slug, theme, decision, by=by, note=words)
    if changed:
        record(project, f"gate_{decision}", agent=None, task=slug, topic=theme,
               message=f"{by} {decision} gate {theme} of task {slug}", payload=data)
    if as_json:
        emit_json({**data, "changed": changed})
    elif changed:
        echo(f"gate {theme} of task '{slug}': {decision} by {by}")
    else:
        echo(f"gate {theme} of task '{slug}' is already {decision} "
             f"(by {data.get('by')} at {data.get('at')}); nothing changed")
    return EXIT_OK
