"""`handrail gate ...`: list human gates; a person at a terminal approves or rejects."""

from __future__ import annotations

from handrail.commands.human import login, require_human
from handrail.commands.render import echo, emit_json
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
        for g in found:
            who = f"  by {g['by']} at {g['at']}" if g["by"] else ""
            words = g.get("note") or g.get("reason")
            echo(f"{g['task']:<20} {g['theme']:<28} {g['status']:<9}{who}{'  (' + words + ')' if words else ''}")
    return EXIT_ERROR if errors else EXIT_OK


def approve(*, slug: str, theme: str, note: str | None, project: str, as_json: bool) -> int:
    from handrail.policy.gates import APPROVED

    return _decide(APPROVED, slug, theme, note, project, as_json)


def reject(*, slug: str, theme: str, reason: str, project: str, as_json: bool) -> int:
    from handrail.policy.gates import REJECTED

    return _decide(REJECTED, slug, theme, reason, project, as_json)


def _decide(decision: str, slug: str, theme: str, words: str | None, project: str, as_json: bool) -> int:
    from handrail.policy import gates
    from handrail.records.events import record

    verb = "approve" if decision == gates.APPROVED else "reject"
    gates.check_theme(theme)
    gates.check_gate(project, slug, theme)
    require_human(f"gate {verb}", f"{slug} {theme}", "a human decides gates")
    by = login()
    data, changed = gates.decide(project, slug, theme, decision, by=by, note=words)
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
