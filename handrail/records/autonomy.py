"""`handrail autonomy init|get|set|list`, without click: each returns data to print.

Exit codes travel on HandrailError: 1 usage, 2 invalid state / unknown agent /
unknown task type, 3 an envelope that cannot be read, parsed or validated.
"""

from __future__ import annotations

from collections.abc import Callable

from handrail.errors import HandrailError
from handrail.policy import envelope as policy
from handrail.records import clock
from handrail.records import envelope as files
from handrail.records.envelope_states import display_for, path_for
from handrail.records.events import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EXIT_USAGE = 1


def check_name(name: str, what: str) -> str:
    err = policy.name_error(name, what)
    if err:
        raise HandrailError(err, reason="bad_arguments", exit_code=EXIT_USAGE)
    return name


def check_state(text: str) -> str:
    state = policy.normalize_state(text)
    if state is None:
        import difflib

        near = difflib.get_close_matches(text, policy.STATES, n=1, cutoff=0.5)
        hint = f" (did you mean '{near[0]}'?)" if near else ""
        raise HandrailError(f"invalid state '{text}': states are {', '.join(policy.STATES)}{hint}",
                            reason="invalid_state", exit_code=files.EXIT_STATE)
    return state


def staleness(data: dict[str, Any]) -> tuple[bool, int | None]:
    """(stale, whole days since `updated`) by the handrail clock."""
    try:
        updated = clock.parse_iso(str(data.get("updated")))
    except ValueError:
        return True, None
    days = clock.days_between(updated, clock.now())
    return policy.is_stale(days), int(days)


def summary(display: str, data: dict[str, Any]) -> dict[str, Any]:
    """The stable JSON form of an envelope, for tools that put it in an agent's context."""
    stale, days = staleness(data)
    return {
        "agent": data["agent"],
        "owner": data.get("owner"),
        "updated": data["updated"],
        "envelope": display,
        "stale": stale,
        "daysSinceUpdate": days,
        "states": policy.states_of(data),
        "taskTypes": [task_type_view(t) for t in data.get("taskTypes") or []],
    }


def task_type_view(item: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": item["id"],
        "label": item.get("label") or item["id"],
        "state": item["state"],
        "stateSince": item.get("stateSince"),
        "operatorNote": item.get("operatorNote") or "",
        "meaning": policy.MEANING[item["state"]],
        "enforced": item["id"] in policy.ENFORCED,
    }


# ----------------------------------------------------------------------------- commands


def init(root: str, agent: str, *, owner: str, project: str) -> dict[str, Any]:
    check_name(agent, "agent name")
    display = display_for(root, agent)
    data = {"agent": agent, "owner": owner, "updated": clock.now_iso(), "taskTypes": []}
    files.create(path_for(root, agent), files.render(data, ""), display)
    record(project, "autonomy_init", agent=agent, topic="autonomy", message=f"created {display}",
           payload={"envelope": display, "owner": owner})
    return summary(display, data)


def get(root: str, agent: str, task_type: str | None = None) -> dict[str, Any]:
    check_name(agent, "agent name")
    display, data, _ = files.read(root, agent)
    out = summary(display, data)
    if task_type is None:
        return out
    for item in out["taskTypes"]:
        if item["id"] == task_type:
            return {"agent": agent, "envelope": display, "stale": out["stale"], "taskType": item}
    known = ", ".join(out["states"]) or "none yet"
    raise HandrailError(f"{display}: taskTypes: unknown task type '{task_type}' (task types: {known}); "
                        f"add it with `handrail autonomy set {agent} {task_type} STATE`",
                        reason="unknown_task_type", exit_code=files.EXIT_STATE)


def list_all(root: str, agent: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """(envelopes, errors). An unusable envelope is an error line; the others still list."""
    if agent is not None:
        check_name(agent, "agent name")
        names = [agent]
    else:
        names = files.discover(root)
    found: list[dict[str, Any]] = []
    errors: list[str] = []
    for name in names:
        try:
            display, data, _ = files.read(root, name)
        except HandrailError as e:
            if agent is not None:
                raise
            errors.append(str(e))
            continue
        found.append(summary(display, data))
    return found, errors


def set_state(root: str, agent: str, task_type: str, state_text: str, *, note: str | None, label: str | None,
              by: str, project: str, no_human: str | None, confirm: Callable[[str], bool]) -> dict[str, Any]:
    """Add or update one task type. A promotion is confirmed by a person first:
    `no_human` says why none can be here (then it is refused), `confirm` asks."""
    check_name(agent, "agent name")
    check_name(task_type, "task type id")
    new = check_state(state_text)
    display, data, _ = files.read(root, agent)
    old = policy.states_of(data).get(task_type)
    if policy.change_kind(old, new) == "promoted":
        _confirm_promotion(agent, task_type, old, new, display, no_human, confirm)
    # The question was asked without the lock (a person may take minutes); what was
    # confirmed must still be what changes.
    with files.locked(path_for(root, agent), display):
        display, data, history = files.read(root, agent)
        current = policy.states_of(data).get(task_type)
        change = policy.change_kind(current, new)
        if current != old and change == "promoted":
            raise HandrailError(f"{display}: {task_type} changed to {current} while you answered; run the command "
                                f"again", reason="changed_meanwhile", exit_code=files.EXIT_STATE)
        now = clock.now_iso()
        item = _upsert(data, task_type, new, now=now, note=note, label=label)
        data["updated"] = now
        entry = files.history_entry(now, task_type, change, current, new, by, note)
        history = entry + ("\n\n" + history if history else "")
        backup = files.replace(root, agent, data, history, display)
    result = {"agent": agent, "envelope": display, "task_type": task_type, "old_state": current,
              "new_state": new, "change": change, "by": by, "note": note or "", "updated": now,
              "backup": backup, "taskType": task_type_view(item)}
    record(project, "autonomy_set", agent=agent, topic="autonomy",
           message=f"{task_type} {change} to {new} (was {current or 'unset'})",
           payload={k: result[k] for k in ("envelope", "task_type", "old_state", "new_state", "change", "by", "note")})
    return result


def _confirm_promotion(agent: str, task_type: str, old: str | None, new: str, display: str,
                       no_human: str | None, confirm: Callable[[str], bool]) -> None:
    what = f"promote {agent}'s {task_type} from {old or 'unset'} to {new}"
    if no_human is not None:
        raise HandrailError(f"refused to {what}: promotion needs a person at a terminal ({no_human}); "
                            f"run `handrail autonomy set {agent} {task_type} {new}` yourself in a terminal",
                            reason="promotion_needs_human", exit_code=files.EXIT_STATE)
    if not confirm(f"{display}: {what} ({policy.MEANING[new]})?"):
        raise HandrailError(f"not changed: you declined to {what}", reason="declined", exit_code=EXIT_USAGE)


def _upsert(data: dict[str, Any], task_type: str, state: str, *, now: str, note: str | None,
            label: str | None) -> dict[str, Any]:
    items: list[dict[str, Any]] = data.setdefault("taskTypes", [])
    for item in items:
        if item["id"] == task_type:
            if item["state"] != state:
                item["state"] = state
                item["stateSince"] = now
                item["operatorNote"] = note or ""
            elif note is not None:
                item["operatorNote"] = note
            item.setdefault("stateSince", now)
            if label is not None:
                item["label"] = label
            return _ordered(item)
    item = {"id": task_type, "label": label or policy.ENFORCED.get(task_type, task_type), "state": state,
            "stateSince": now, "operatorNote": note or ""}
    items.append(item)
    return item


def _ordered(item: dict[str, Any]) -> dict[str, Any]:
    """Keys in the documented order, whatever order a hand edit left them in."""
    order = ("id", "label", "state", "stateSince", "operatorNote")
    moved = {k: item[k] for k in order if k in item}
    item.clear()
    item.update(moved)
    return item
