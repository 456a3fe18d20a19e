"""`handrail events` and `handrail notify`: the event log, and telling a person something."""

from __future__ import annotations

import json
import os

from handrail.commands import render
from handrail.commands.render import echo, emit_json
from handrail.errors import EXIT_OK


def events(*, since: str | None, types: tuple[str, ...], agent: str | None, task: str | None,
           limit: int | None, follow: bool, project: str, as_json: bool) -> int:
    from handrail.records import events as log

    filters = log.Filters(since=since, types=types, agent=agent, task=task)
    width = render.terminal_width()
    if not follow:
        found = log.query(project, filters, limit=limit)
        if as_json:
            for e in found:
                emit_json(e)
        elif not found:
            echo(f"no events{' match' if since or types or agent or task else ' recorded yet'} "
                 f"in {log.db_path(project)}", err=True)
        else:
            col = render.event_widths(found, width)
            for row in [render.EVENT_HEADER] + [render.event_row(e) for e in found]:
                echo(render.line(row, col, width))
        return EXIT_OK
    col = render.event_widths([], width, follow=True)
    if not as_json:
        echo(render.line(render.EVENT_HEADER, col, width))
    try:
        for e in log.follow(project, filters, backlog=limit or 10):
            echo(json.dumps(e, ensure_ascii=False) if as_json else render.line(render.event_row(e), col, width))
    except KeyboardInterrupt:
        return EXIT_OK  # Ctrl-C is how following ends: not an error
    return EXIT_OK


def notify(*, level: str, topic: str, message: str, agent: str | None, task: str | None, project: str,
           as_json: bool) -> int:
    from handrail.records.notify import notify as tell

    text, event, code = tell(project, level, topic, message, agent=agent,
                             task=task or os.environ.get("HANDRAIL_TASK") or None)
    if as_json:
        emit_json(event)
    else:
        echo(text)
    return code
