"""Human gates: a task's areas that wait for a person's approval.

A task's gates are the themes its contract's `human_gate.required_for` lists, plus
`publish`, which every task has: an agent's force push, ref deletion or push to a
protected branch waits for it. Each decision is one file,
`.handrail/tasks/<slug>/gates/<theme>.json`: the decision in force, who made it and
when, the note or reason, and every earlier decision.

Only a person at a terminal decides: `human_absent()` says why not otherwise; every
human-only command of the CLI asks it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from handrail.errors import HandrailError, PolicyError
from handrail.fsio import read_json_object
from handrail.policy import agents
from handrail.policy import contract as contracts
from handrail.policy import tasks as taskmod

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

GATES_DIR = "gates"
THEMES = tuple(contracts.GATE_THEMES)
ALWAYS = ("publish",)
APPROVED, REJECTED, PENDING = "approved", "rejected", "pending"
DECISIONS = (APPROVED, REJECTED, PENDING)
TEXT_KEYS = ("task", "theme", "by", "at", "note", "reason", "request")  # each a string or null


def gates_dir(task_dir: str) -> str:
    return os.path.join(task_dir, GATES_DIR)


def gate_file(task_dir: str, theme: str) -> str:
    return os.path.join(gates_dir(task_dir), f"{theme}.json")


def read(task_dir: str, theme: str) -> dict[str, Any] | None:
    """The decision file of one gate, or None when no one has decided.

    A file that is not what `decide()` and `request()` write raises PolicyError naming
    the file and the key: a gate is a human's decision, and a guess at one is none.
    """
    path = gate_file(task_dir, theme)
    if not os.path.lexists(path):
        return None
    return check_file(read_json_object(path), path)


def check_file(data: dict[str, Any], path: str) -> dict[str, Any]:
    """`data` when it is a gate file's content; else PolicyError naming `path` and the key."""
    decision = data.get("decision")
    if decision not in DECISIONS:
        found = "nothing" if "decision" not in data else _kind(decision)
        raise PolicyError(f"{path}: decision: expected one of {', '.join(DECISIONS)}, found {found}")
    for key in TEXT_KEYS:
        if data.get(key) is not None and not isinstance(data[key], str):
            raise PolicyError(f"{path}: {key}: expected text, found {_kind(data[key])}")
    if not isinstance(data.get("history", []), list):
        raise PolicyError(f"{path}: history: expected a list of decisions, found {_kind(data['history'])}")
    return data


def _kind(value: object) -> str:
    """A JSON value as an error message names it."""
    if isinstance(value, str):
        return repr(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "a list"
    return "an object" if isinstance(value, dict) else "a number"


def approved_themes(task_dir: str) -> frozenset[str]:
    """Themes whose decision in force is an approval."""
    folder = gates_dir(task_dir)
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return frozenset()
    out = set()
    for name in names:
        theme = name[:-5] if name.endswith(".json") else None
        if theme in THEMES:
            data = read(task_dir, theme)
            if data is not None and data.get("decision") == APPROVED:
                out.add(theme)
    return frozenset(out)


def task_gates(task: taskmod.Task) -> dict[str, tuple[str, ...]]:
    """The task's gates (theme -> the paths that trigger it; publish has none)."""
    c = contracts.load(task.dir, os.path.join(taskmod.TASKS_DIR, task.slug, contracts.CONTRACT_FILE))
    found = dict(c.gate_paths()) if c is not None else {}
    for theme in ALWAYS:
        found.setdefault(theme, contracts.GATE_THEMES[theme])
    for theme in requested_themes(task.dir):  # the loop asked (policy_change needs no contract entry)
        found.setdefault(theme, contracts.GATE_THEMES[theme])
    return found


def check_theme(theme: str) -> str:
    if theme not in THEMES:
        import difflib

        near = difflib.get_close_matches(theme, THEMES, n=1)
        hint = f" (did you mean '{near[0]}'?)" if near else ""
        raise HandrailError(f"unknown gate theme '{theme}'{hint}; themes: {', '.join(THEMES)}", reason="bad_arguments")
    return theme


def decide_commands(slug: str, theme: str) -> tuple[str, str]:
    """What a human runs, in their own terminal, to approve or to reject one gate."""
    return f"handrail gate approve {slug} {theme}", f"handrail gate reject {slug} {theme} --reason …"


def check_gate(project: str, slug: str, theme: str) -> taskmod.Task:
    """The task, when THEME is one of its gates; else HandrailError (exit 2)."""
    check_theme(theme)
    task = taskmod.load_task(project, slug)
    gates = task_gates(task)
    if theme not in gates:
        where = os.path.join(taskmod.TASKS_DIR, slug, contracts.CONTRACT_FILE)
        raise HandrailError(f"task '{slug}' has no '{theme}' gate (its gates: {', '.join(gates)}); "
                            f"a contract asks for one in human_gate.required_for of {where}", reason="unknown_gate")
    return task


def human_absent(env: Mapping[str, str], stdin_tty: bool, stdout_tty: bool,
                 ancestors: Iterable[tuple[int, str, Mapping[str, str]]] = ()) -> str | None:
    """Why no human can be deciding here, or None when one can: the one check every
    human-only command makes (gate approve and reject, raising an envelope, loop reset,
    moving a task into an edit phase, uninstall-hooks, deinit, init --force, permissions
    --protocol).

    Refused: an agent's marker in this process's environment; stdin or stdout not a
    terminal; an agent's marker in the environment any ancestor process (`ancestors`:
    pid, program, the environment it was started with) was started with, which is what
    sees through `env -u CLAUDECODE script -qec …`, `pty.spawn` and `setsid` run by
    an agent.

    This is a second line, not a boundary. The human's approval of an agent's call is
    the harness's own permission prompt (tier 3 asks); a process running as the same
    user can still reparent itself away from the agent, or write the files these
    commands write.
    """
    agent = agents.detect(env)
    if agent is not None:
        return f"the environment shows an agent ({agent.evidence()})"
    if not stdin_tty or not stdout_tty:
        which = " and ".join(n for n, tty in (("stdin", stdin_tty), ("stdout", stdout_tty)) if not tty)
        return f"no interactive terminal ({which} {'is' if ' and ' not in which else 'are'} not a terminal)"
    found = behind(ancestors)
    if found is not None:
        pid, program, agent = found
        return f"it runs under an agent's process ({program}, pid {pid}, started with {agent.evidence()})"
    return None


def behind(ancestors: Iterable[tuple[int, str, Mapping[str, str]]]) -> tuple[int, str, agents.Agent] | None:
    """The nearest ancestor whose environment marks an agent: (pid, program, agent)."""
    for pid, program, env in ancestors:
        agent = agents.detect(env)
        if agent is not None:
            return pid, program, agent
    return None


def list_gates(project: str, slug: str | None = None) -> list[dict[str, Any]]:
    """Every gate of every task (or of one), with its state; the first malformed gate
    file raises PolicyError."""
    out, errors = scan_gates(project, slug)
    if errors:
        raise PolicyError(errors[0])
    return out


def scan_gates(project: str, slug: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """Every gate whose file can be read, with its state; and one line for each that
    cannot (file and key), so one malformed file hides no other gate."""
    found = [taskmod.load_task(project, slug)] if slug else taskmod.load_all(project)
    out: list[dict[str, Any]] = []
    errors: list[str] = []
    for task in found:
        for theme, paths in task_gates(task).items():
            try:
                data = read(task.dir, theme) or {}
            except HandrailError as e:
                errors.append(str(e))
                continue
            out.append({
                "task": task.slug, "theme": theme, "status": data.get("decision", PENDING),
                "by": data.get("by"), "at": data.get("at"), "note": data.get("note"),
                "reason": data.get("reason"), "paths": list(paths), "phase": task.phase,
            })
    return out, errors


# ----------------------------------------------------------------------------- requests (the loop runner)
#
# The loop asks a human by writing a request into the gate's file: the decision in
# force becomes `pending`, so an approval given before the request (for an earlier
# run) no longer counts, and only a decision recorded after the request settles it.

REQUESTED_BY = "handrail loop"


def requested_themes(task_dir: str) -> list[str]:
    """Themes that have a decision file (some of which the contract may not list)."""
    try:
        names = sorted(os.listdir(gates_dir(task_dir)))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [n[:-5] for n in names if n.endswith(".json") and n[:-5] in THEMES]


def request_status(task_dir: str, theme: str, request_id: str) -> str:
    """`approved` or `rejected` when a human decided after request `request_id`;
    `pending` while no one has; `missing` when the file no longer carries the request."""
    data = read(task_dir, theme)
    if data is None:
        return "missing"
    history = data.get("history")
    if not isinstance(history, list):
        raise PolicyError(f"{gate_file(task_dir, theme)}: history: expected a list of decisions, found nothing")
    marks = [i for i, h in enumerate(history) if isinstance(h, dict) and h.get("request") == request_id]
    if not marks:
        return "missing"
    if marks[-1] == len(history) - 1:
        return PENDING
    decision = data.get("decision")
    return decision if decision in (APPROVED, REJECTED) else PENDING
