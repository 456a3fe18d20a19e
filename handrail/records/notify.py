"""`handrail notify`: a notice an agent or a hook gives a person, recorded as an event.

A level decides the mark and the exit code: info and warn let the caller go on,
block (exit 2, the harnesses' blocking code) stops it. A level that is not one of
these is a usage error and records nothing: a typo must never pass as "info".
"""

from __future__ import annotations

from handrail.errors import HandrailError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# level -> (mark, exit code)
LEVELS = {"info": ("ℹ", 0), "warn": ("⚠", 0), "block": ("⛔", 2)}
EXIT_USAGE = 1


def parse_level(text: str) -> str:
    level = text.strip().lower()
    if level not in LEVELS:
        raise HandrailError(f"--level: unknown level '{text}' (levels: {', '.join(LEVELS)})",
                            reason="bad_arguments", exit_code=EXIT_USAGE)
    return level


def check_text(option: str, text: str) -> str:
    if not text.strip():
        raise HandrailError(f"{option}: cannot be empty", reason="bad_arguments", exit_code=EXIT_USAGE)
    return text


def line(level: str, topic: str, message: str) -> str:
    return f"{LEVELS[level][0]} [{topic}] {message}"


def notify(project: str, level_text: str, topic: str, message: str, *, agent: str | None = None,
           task: str | None = None) -> tuple[str, dict[str, Any], int]:
    """(the line to print, the event as recorded, the exit code). Arguments are checked
    before anything is recorded. A failed recording (stderr says so) leaves `id` None."""
    level = parse_level(level_text)
    check_text("--topic", topic)
    check_text("--message", message)
    from handrail.records import events

    event_type = f"notify_{level}"
    recorded = events.record(project, event_type, agent=agent, task=task, topic=topic, message=message,
                             payload={"level": level})
    if recorded is None:
        recorded = {"id": None, "created_at": events.stamp(), "event_type": event_type,
                    "agent": agent if agent is not None else events.acting_agent(), "task": task,
                    "topic": topic, "message": message, "payload_json": '{"level": "' + level + '"}'}
    return line(level, topic, message), events.public(recorded), LEVELS[level][1]
