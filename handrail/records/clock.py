"""The one clock: every stored time (events, tasks, gates, envelopes, memory, loop runs,
permission records) and every age (envelope staleness, `events --since`) reads it.

`HANDRAIL_NOW` (ISO 8601, e.g. `2026-03-01T12:00:00Z`) pins it. It is a testing aid:
it lets a test see a 30-day-old envelope, or an event two hours back, without waiting.
Unpinned, `now_iso` needs no datetime, so the hot path that records an event stays lean.
"""

from __future__ import annotations

import os
import time

from handrail.errors import HandrailError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

NOW_ENV = "HANDRAIL_NOW"
_STORED = "%Y-%m-%dT%H:%M:%SZ"


def parse_iso(text: str) -> datetime:
    """An ISO 8601 date or time as an aware UTC datetime; a time without an offset is UTC.

    Raises ValueError for anything else.
    """
    from datetime import UTC, datetime

    dt = datetime.fromisoformat(text.strip())
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


def iso(dt: datetime) -> str:
    """The one stored form: `YYYY-MM-DDTHH:MM:SSZ`, so stored times sort as text."""
    from datetime import UTC

    return dt.astimezone(UTC).strftime(_STORED)


def _pinned() -> datetime | None:
    pinned = os.environ.get(NOW_ENV)
    if not pinned:
        return None
    try:
        return parse_iso(pinned)
    except ValueError:
        raise HandrailError(f"{NOW_ENV}: '{pinned}' is not an ISO 8601 time (e.g. 2026-03-01T12:00:00Z)",
                            reason="bad_arguments", exit_code=1) from None


def now() -> datetime:
    from datetime import UTC, datetime

    pinned = _pinned()
    return pinned if pinned is not None else datetime.now(UTC)


def now_iso() -> str:
    """Now, in the stored form. Raises HandrailError (exit 1) for a HANDRAIL_NOW that is no time."""
    pinned = _pinned()
    return iso(pinned) if pinned is not None else unpinned_iso()


def unpinned_iso() -> str:
    """The machine's time in the stored form, whatever HANDRAIL_NOW says: for a record that a
    bad testing clock must not cost (an event)."""
    return time.strftime(_STORED, time.gmtime())


def days_between(earlier: datetime, later: datetime) -> float:
    from datetime import timedelta

    return (later - earlier) / timedelta(days=1)
