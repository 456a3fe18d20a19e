"""`handrail autonomy ...`: what the operator approved each agent to do without asking."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from handrail.commands import render
from handrail.commands.human import actor, no_human
from handrail.commands.render import echo, emit_json
from handrail.commands.where import require_repository
from handrail.errors import EXIT_OK

EXIT_UNREADABLE = 3  # an envelope that cannot be read, parsed or validated


def init(*, agent: str, owner: str | None, root: str | None, project: str, as_json: bool) -> int:
    if root is None:  # an envelope folder given with --root may lie anywhere
        require_repository("autonomy init", project)
    from handrail.records import autonomy as ops

    env = ops.init(root or project, agent, owner=owner or os.environ.get("USER") or "unknown", project=project)
    if as_json:
        emit_json(env)
    else:
        echo(f"created {env['envelope']} (owner {env['owner']}); add task types with "
             f"`handrail autonomy set {agent} code-inline needsFullSupervision`")
    return EXIT_OK


def get(*, agent: str, task_type: str | None, fmt: str, root: str | None, project: str) -> int:
    from handrail.records import autonomy as ops

    got = ops.get(root or project, agent, task_type)
    if fmt.lower() == "json":
        emit_json(got)
        return EXIT_OK
    items = [got["taskType"]] if task_type else got["taskTypes"]
    if task_type is None:
        echo(f"{got['envelope']}: owner {got['owner'] or '-'}, updated {got['updated']}")
    rows = [[t["id"], t["state"], render.cell(t["stateSince"]), render.cell(t["operatorNote"])] for t in items]
    if rows:
        for text in render.table(("TASK TYPE", "STATE", "SINCE", "NOTE"), rows, (28, 21, 20),
                                 render.terminal_width()):
            echo(text)
    else:
        echo(f"no task types yet; add one with `handrail autonomy set {agent} code-inline needsFullSupervision`")
    if task_type:
        t = got["taskType"]
        echo(f"{t['state']}: {t['meaning']}" + ("" if t["enforced"] else " (for the agent's own judgement)"))
    if got["stale"]:
        echo(_stale_warning(got, agent))
    return EXIT_OK


def set_(*, agent: str, task_type: str, state: str, note: str | None, label: str | None, root: str | None,
         project: str, as_json: bool, confirm: Callable[[str], bool]) -> int:
    if root is None:
        require_repository("autonomy set", project)
    from handrail.records import autonomy as ops

    result = ops.set_state(root or project, agent, task_type, state, note=note, label=label, by=actor(),
                           project=project, no_human=no_human(), confirm=confirm)
    if as_json:
        emit_json(result)
    else:
        was = result["old_state"] or "unset"
        echo(f"{result['envelope']}: {task_type} {result['change']} to {result['new_state']} (was {was})")
    return EXIT_OK


def list_(*, agent: str | None, root: str | None, project: str, as_json: bool) -> int:
    from handrail.records import autonomy as ops

    found, errors = ops.list_all(root or project, agent)
    if as_json:
        emit_json({"envelopes": found, "errors": errors})
    elif not found and not errors:
        echo(f"no autonomy envelopes under {os.path.join(root or project, 'agents')}; "
             f"create one with `handrail autonomy init AGENT`")
    else:
        rows = [[e["agent"], render.cell(e["owner"]), e["updated"], _age(e),
                 ", ".join(f"{k}={v}" for k, v in e["states"].items()) or "-"] for e in found]
        if rows:
            for text in render.table(("AGENT", "OWNER", "UPDATED", "AGE", "TASK TYPES"), rows, (24, 16, 20, 12),
                                     render.terminal_width()):
                echo(text)
        for e in found:
            if e["stale"]:
                echo(_stale_warning(e, e["agent"]))
        for line in errors:
            echo(f"error: {line}", err=True)
    return EXIT_UNREADABLE if errors else EXIT_OK


def _age(env: dict[str, Any]) -> str:
    days = "?" if env.get("daysSinceUpdate") is None else f"{env['daysSinceUpdate']}d"
    return f"{days} STALE" if env["stale"] else days


def _stale_warning(env: dict[str, Any], agent: str) -> str:
    days = "an unknown number of" if env.get("daysSinceUpdate") is None else env["daysSinceUpdate"]
    return (f"warning: {env['envelope']}: untouched for {days} days (updated {env.get('updated')}): "
            f"review it with `handrail autonomy get {agent}` and confirm or change each task type")
