"""What the dashboard shows, as JSON: each answer comes from the reader the CLI prints
the same data from (`handrail events`, `gate list`, `loop status`, `autonomy list`),
so the page and the terminal never disagree.

Each function takes the project and the request's query (name -> values) and returns
one JSON object. A record that cannot be read is one line in that answer's `errors`:
one broken file hides nothing else on the page. A query that makes no sense raises
`BadQuery` (the server answers 400 with its line).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial

from handrail.errors import HandrailError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

Query = dict[str, list[str]]

PAGE_SIZE = 50
MAX_PAGE = 500


class BadQuery(ValueError):
    """A query parameter the dashboard cannot use; the message names it."""


def _one(query: Query, key: str) -> str | None:
    values = [v for v in query.get(key, []) if v != ""]
    return values[-1] if values else None


def _number(query: Query, key: str, *, low: int, high: int | None = None) -> int | None:
    text = _one(query, key)
    if text is None:
        return None
    if not text.isdigit() or int(text) < low or (high is not None and int(text) > high):
        span = f"{low}..{high}" if high is not None else f"{low} or more"
        raise BadQuery(f"{key}: expected a whole number {span}, found {text!r}")
    return int(text)


def events(project: str, query: Query) -> dict[str, Any]:
    """A page of the timeline, newest first: `before=ID` pages back, `after=ID` asks for
    what is newer (the page polls with it); `task`, `agent`, `type` (a `notify_*`
    pattern too) and `since` (`2h`, `1d`, an ISO date) narrow it."""
    from handrail.records import events as log

    since = _one(query, "since")
    try:
        since = log.parse_since(since) if since else None
    except ValueError:
        raise BadQuery(f"since: expected 30m, 2h, 1d, 1w or an ISO 8601 time, found {since!r}") from None
    before = _number(query, "before", low=1)
    after = _number(query, "after", low=0)
    if before is not None and after is not None:
        raise BadQuery("before, after: give one of them, not both")
    limit = _number(query, "limit", low=1, high=MAX_PAGE) or PAGE_SIZE
    types = tuple(query.get("type", ()))
    filters = log.Filters(since=since, types=[t for t in types if t], agent=_one(query, "agent"),
                          task=_one(query, "task"))
    found, errors = _guarded(lambda: log.page(project, filters, before=before, after=after, limit=limit), [])
    # A full page may have more behind it; polling (`after`) that fills one starts over instead.
    more = len(found) == limit
    return {"events": found, "next_before": found[-1]["id"] if more and after is None else None,
            "more": more, "errors": errors}


def facets(project: str, query: Query) -> dict[str, Any]:
    """What the filters offer: the tasks (with their phase), agents and event types."""
    from handrail.policy import tasks as taskmod
    from handrail.records import events as log

    tasks, errors = _guarded(lambda: [t.summary() for t in taskmod.load_all(project)], [])
    seen: dict[str, list[str]] = {}
    for column in ("task", "agent", "event_type"):
        seen[column], more = _guarded(partial(log.distinct, project, column), [])
        errors += more
    known = {t["task"] for t in tasks}
    tasks += [{"task": slug, "phase": None} for slug in seen["task"] if slug not in known]
    return {"project": project, "tasks": tasks, "agents": seen["agent"], "types": seen["event_type"],
            "errors": errors}


def gates(project: str, query: Query) -> dict[str, Any]:
    """Every task's gates, as `handrail gate list`, each pending one with the two
    commands a human chooses between."""
    from handrail.policy import gates as gatemod

    def scan() -> tuple[list[dict[str, Any]], list[str]]:
        return gatemod.scan_gates(project)

    (found, bad), errors = _guarded(scan, ([], []))
    for g in found:
        if g["status"] == gatemod.PENDING:
            g["approve"], g["reject"] = gatemod.decide_commands(g["task"], g["theme"])
    found.sort(key=lambda g: (g["status"] != gatemod.PENDING, g["task"], g["theme"]))
    return {"gates": found, "errors": errors + bad}


def loops(project: str, query: Query) -> dict[str, Any]:
    """`handrail loop status` of every task that has run a loop."""
    from handrail.loop import companions, state
    from handrail.policy import tasks as taskmod

    tasks, errors = _guarded(lambda: taskmod.load_all(project), [])
    found = []
    for task in tasks:
        if not os.path.exists(state.progress_path(task.dir)):
            continue
        status, more = _guarded(partial(companions.status, project, task.slug), None)
        errors += more
        if status is not None:
            found.append(status)
    return {"loops": found, "errors": errors}


def envelopes(project: str, query: Query) -> dict[str, Any]:
    """`handrail autonomy list`: each agent's envelope, its states and its staleness."""
    from handrail.records import autonomy

    (found, bad), errors = _guarded(lambda: autonomy.list_all(project), ([], []))
    return {"envelopes": found, "errors": errors + bad}


def audit(project: str, query: Query) -> dict[str, Any]:
    """The last `handrail audit` report, when one was written; a malformed one is one
    line, never a broken page."""
    from handrail.commands.audit import REPORT_FILE
    from handrail.fsio import read_json_object

    path = os.path.join(project, REPORT_FILE)
    if not os.path.exists(path):
        return {"present": False, "report": None, "errors": []}
    try:
        report = read_json_object(path)
    except HandrailError as e:
        return {"present": True, "report": None, "errors": [_shown(str(e), project)]}
    problem = audit_problem(report)
    if problem is not None:
        return {"present": True, "report": None, "errors": [f"{REPORT_FILE}: {problem}"]}
    return {"present": True, "report": report, "errors": []}


def audit_problem(report: dict[str, Any]) -> str | None:
    """What keeps the page from showing a report: the keys it reads, and their kinds."""
    from handrail.audit.report import VERSION

    if report.get("version") != VERSION:
        return f"version: expected {VERSION}, found {report.get('version')!r}"
    sessions = report.get("sessions")
    if not isinstance(sessions, list):
        return "sessions: expected a list"
    for i, s in enumerate(sessions):
        if not isinstance(s, dict):
            return f"sessions[{i}]: expected an object"
        if not isinstance(s.get("findings", []), list):
            return f"sessions[{i}].findings: expected a list"
        if any(not isinstance(f, dict) for f in s.get("findings", [])):
            return f"sessions[{i}].findings: expected a list of objects"
    if not isinstance(report.get("result"), str):
        return "result: expected text"
    if not isinstance(report.get("ran_by", ""), str):  # a report older than the key has none
        return "ran_by: expected text"
    return None


def _guarded(read: Callable[[], Any], empty: Any) -> tuple[Any, list[str]]:
    """`read()`, or `empty` and its one line when the records it reads are broken."""
    try:
        return read(), []
    except HandrailError as e:
        return empty, [str(e)]


def _shown(text: str, project: str) -> str:
    return text.replace(os.path.join(project, ""), "")


API: dict[str, Callable[[str, Query], dict[str, Any]]] = {
    "events": events, "facets": facets, "gates": gates, "loops": loops, "envelopes": envelopes, "audit": audit,
}
