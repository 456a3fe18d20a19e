"""The clock that envelope staleness, history stamps and `events --since` read.

`HANDRAIL_NOW` (ISO 8601, e.g. `2026-03-01T12:00:00Z`) pins it. It is a testing aid:
it lets a test see a 30-day-old envelope, or an event two hours back, without waiting.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

from handrail.errors import HandrailError

NOW_ENV = "HANDRAIL_NOW"


def parse_iso(text: str) -> datetime:
    """An ISO 8601 date or time as an aware UTC datetime; a time without an offset is UTC.

    Raises ValueError for anything else.
    """
    dt = datetime.fromisoformat(text.strip())
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


def iso(dt: datetime) -> str:
    """The one stored form: `YYYY-MM-DDTHH:MM:SSZ`, so stored times sort as text."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def now() -> datetime:
    pinned = os.environ.get(NOW_ENV)
    if pinned:
        try:
            return parse_iso(pinned)
        except ValueError:
            raise HandrailError(f"{NOW_ENV}: '{pinned}' is not an ISO 8601 time (e.g. 2026-03-01T12:00:00Z)",
                                reason="bad_arguments", exit_code=1) from None
    return datetime.now(UTC)


def now_iso() -> str:
    return iso(now())


def days_between(earlier: datetime, later: datetime) -> float:
    return (later - earlier) / timedelta(days=1)
