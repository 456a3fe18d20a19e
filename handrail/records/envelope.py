"""Autonomy envelope files: `agents/<agent>/autonomy-envelope.md`.

YAML front matter (`agent`, `owner`, `updated`, `taskTypes`) is the record; the
Markdown body is rendered from it, except the History section, which is kept as
written and grows at the top. A file that does not parse or does not match the
schema is reported with its key and never overwritten.

The hot path (can-edit, and classify and the git hooks when they ask) reads an
envelope through `handrail.records.envelope_states`, which loads this module only
the first time it sees an envelope's content.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager

from handrail.errors import HandrailError
from handrail.policy import envelope as policy
from handrail.records.envelope_states import ENVELOPES_DIR, display_for, path_for, remember_states

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HISTORY = "## History"
NO_HISTORY = "_No changes yet._"
EXIT_STATE = 2  # invalid state, unknown agent, unknown task type
EXIT_IO = 3  # unreadable, unparsable or schema-breaking file
SCHEMA = "autonomy-envelope"


def io_error(message: str) -> HandrailError:
    return HandrailError(message, reason="invalid_envelope", exit_code=EXIT_IO)


def discover(root: str) -> list[str]:
    """Agents with an envelope under `root`, by name."""
    base = os.path.join(root, ENVELOPES_DIR)
    try:
        names = sorted(os.listdir(base))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [n for n in names if policy.name_error(n) is None and os.path.isfile(path_for(root, n))]


# ----------------------------------------------------------------------------- parsing


def split(text: str, display: str) -> tuple[str, str]:
    """Front matter text and body. The file starts with `---`; the next `---` closes."""
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise io_error(f"{display}: no YAML front matter: the file must start with a line '---'")
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            return "".join(lines[1:i]), "".join(lines[i + 1 :])
    raise io_error(f"{display}: the YAML front matter is not closed: add a line '---' after it")


def _plain(value: object) -> object:
    """YAML reads an unquoted `2026-01-01T00:00:00Z` as a datetime: keep it as text."""
    import datetime

    if isinstance(value, datetime.datetime):
        from handrail.records.clock import iso

        return iso(value if value.tzinfo else value.replace(tzinfo=datetime.UTC))
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def parse(text: str, display: str, agent: str) -> tuple[dict[str, Any], str]:
    """The validated front matter and the History section's text. Raises exit 3."""
    front, body = split(text, display)
    import yaml

    try:
        data = yaml.safe_load(front)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 2} column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        context, start = getattr(e, "context", None), getattr(e, "context_mark", None)
        if context and start is not None:
            # An unclosed bracket is found at the end: say where it was opened.
            problem += f" ({context} that starts at line {start.line + 2})"
        raise io_error(f"{display}: front matter {where}invalid YAML: {problem}") from None
    if not isinstance(data, dict):
        raise io_error(f"{display}: the front matter must be a YAML mapping with agent, owner, updated, taskTypes")
    data = _plain(data)
    assert isinstance(data, dict)
    problems = _problems(data, display, agent)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise io_error(problems[0] + more)
    return data, history_of(body)


def _problems(data: dict[str, Any], display: str, agent: str) -> list[str]:
    from handrail.policy import validate
    from handrail.records import validated

    problems = [] if validate.known_valid(SCHEMA, json.dumps(data, sort_keys=True)) else \
        validate.schema_errors(data, SCHEMA, display)
    if problems:
        return problems
    validated.remember(SCHEMA, json.dumps(data, sort_keys=True))
    if data["agent"] != agent:
        problems.append(f"{display}: agent: '{data['agent']}' does not match its folder '{agent}'")
    seen: set[str] = set()
    for i, item in enumerate(data["taskTypes"]):
        if item["id"] in seen:
            problems.append(f"{display}: taskTypes[{i}].id: '{item['id']}' appears twice")
        seen.add(item["id"])
    return problems


def history_of(body: str) -> str:
    """What follows the `## History` heading, without the empty placeholder."""
    lines = body.splitlines()
    for i, text in enumerate(lines):
        if text.strip() == HISTORY:
            rest = "\n".join(lines[i + 1 :]).strip()
            return "" if rest == NO_HISTORY else rest
    return ""


def read(root: str, agent: str) -> tuple[str, dict[str, Any], str]:
    """(display path, front matter, history) of an existing envelope.

    Raises exit 2 when the agent has none, exit 3 when the file cannot be used.
    """
    display = display_for(root, agent)
    path = path_for(root, agent)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except (FileNotFoundError, NotADirectoryError):
        raise HandrailError(f"unknown agent '{agent}': no {display}; create it with `handrail autonomy init {agent}`",
                            reason="unknown_agent", exit_code=EXIT_STATE) from None
    except OSError as e:
        raise io_error(f"{display}: cannot read: {e.strerror}") from None
    data, history = parse(_decode(raw, display), display, agent)
    return display, data, history


def _decode(raw: bytes, display: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise io_error(f"{display}: not UTF-8 text (byte {e.start})") from None


# ----------------------------------------------------------------------------- rendering


def _md_cell(value: object) -> str:
    text = "" if value is None else str(value)
    return text.replace("|", "\\|").replace("\r\n", "\n").replace("\n", "<br>") or " "


def render(data: dict[str, Any], history: str) -> str:
    import yaml

    agent = data["agent"]
    front = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100)
    states = ", ".join(f"`{s}` ({policy.MEANING[s]})" for s in policy.STATES)
    out = [
        "---", front.rstrip("\n"), "---",
        f"# Autonomy envelope: {agent}", "",
        f"What the operator{' ' + data['owner'] if data.get('owner') else ''} has approved `{agent}` to do "
        "without asking, per kind of task.",
        f"States, least autonomy first: {states}.", "",
        f"Change it with `handrail autonomy set {agent} TASK_TYPE STATE --note TEXT`. The front matter "
        "is the record; this body is rendered from it, and the History section is kept as written.", "",
        "## Current state", "",
    ]
    items = data.get("taskTypes") or []
    if items:
        out += ["| Task type | State | Since | Note |", "|---|---|---|---|"]
        for item in items:
            label = item.get("label")
            name = item["id"] + (f" ({label})" if label and label != item["id"] else "")
            out.append(f"| {_md_cell(name)} | {item['state']} | {_md_cell(item.get('stateSince'))} "
                       f"| {_md_cell(item.get('operatorNote'))} |")
    else:
        out.append(f"_No task types yet: add one with `handrail autonomy set {agent} code-inline "
                   f"{policy.NEEDS_FULL_SUPERVISION}`._")
    out += ["", HISTORY, "", history.strip() or NO_HISTORY, ""]
    return "\n".join(out)


def history_entry(at: str, task_type: str, change: str, old: str | None, new: str, by: str,
                  note: str | None) -> str:
    """`### <time>; <id> promoted|demoted|set to <state>`, who, from what, and the note."""
    verb = {"promoted": "promoted to", "demoted": "demoted to", "set": "set to"}[change]
    was = f"from {old}" if old and old != new else ("unchanged" if old else "new task type")
    lines = [f"### {at}; {task_type} {verb} {new}", "", f"{was[0].upper()}{was[1:]}, by {by}."]
    if note:
        lines += ["", note.strip()]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- writing


@contextmanager
def locked(path: str, display: str) -> Iterator[None]:
    """Hold an exclusive lock on the envelope file itself (no lock file beside it).

    Writes replace the file by rename, so a waiter may wake up holding the old
    inode: it checks and locks the new file again.
    """
    from handrail.filelock import acquire

    while True:
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            raise HandrailError(f"{display}: removed while waiting for it", reason="unknown_agent",
                                exit_code=EXIT_STATE) from None
        except OSError as e:
            raise io_error(f"{display}: cannot open to lock: {e.strerror}") from None
        try:
            acquire(fd, None)
        except OSError as e:
            os.close(fd)
            raise io_error(f"{display}: cannot lock: {e.strerror}") from None
        try:
            current = os.stat(path).st_ino
        except FileNotFoundError:
            current = -1
        if current == os.fstat(fd).st_ino:
            break
        os.close(fd)
    try:
        yield
    finally:
        os.close(fd)  # releases the lock


def create(path: str, text: str, display: str) -> None:
    """Write a new envelope; one that exists (even one created a moment ago) is left untouched."""
    from handrail.fsio import discard_temp, temp_path

    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, exist_ok=True)
        tmp = temp_path(path)
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.link(tmp, path)  # fails if the file exists: never overwrite
        finally:
            discard_temp(tmp)
    except FileExistsError:
        raise HandrailError(f"{display} already exists: it is left as it is; change it with "
                            f"`handrail autonomy set`", reason="envelope_exists", exit_code=EXIT_STATE) from None
    except OSError as e:
        raise io_error(f"{display}: cannot write: {e.strerror}") from None


def replace(root: str, agent: str, data: dict[str, Any], history: str, display: str) -> str | None:
    """Render and atomically replace an existing envelope, the old file backed up
    first; returns the backup's path."""
    from handrail.backups import Backup
    from handrail.fsio import atomic_write

    text = render(data, history)
    try:
        backup = atomic_write(path_for(root, agent), text, backup_dir=Backup(root).under(ENVELOPES_DIR, agent))
    except OSError as e:
        raise io_error(f"{display}: cannot write: {e.strerror}") from None
    # Warm the hot path's cache: the next can-edit need not load PyYAML.
    remember_states(agent, text, policy.states_of(data))
    return backup
