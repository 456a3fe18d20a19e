"""Everything the commands print goes through here: lines, JSON answers, aligned
tables. The commands decide what to say; this module decides how it reaches the
console.

Tables: the last column takes what the terminal width leaves, and is cut with `…`
rather than wrapped.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MIN_LAST = 12


def terminal_width() -> int | None:
    """The width to respect: the terminal's, or `COLUMNS` when set; None when output
    goes to a pipe or file, which gets whole lines."""
    if os.environ.get("COLUMNS", "").isdigit() or sys.stdout.isatty():
        return shutil.get_terminal_size((100, 24)).columns
    return None


def cell(value: object) -> str:
    """One line per row: newlines and tabs become spaces; missing values are `-`."""
    if value is None or value == "":
        return "-"
    return " ".join(str(value).split())


def fit(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    return text[: max(width - 1, 0)] + "…"


def widths(header: Sequence[str], rows: Sequence[Sequence[str]], caps: Sequence[int]) -> list[int]:
    """Each column as wide as its widest cell, up to its cap (the last column is free)."""
    out = []
    for i, title in enumerate(header[:-1]):
        widest = max([len(title)] + [len(r[i]) for r in rows])
        out.append(min(widest, caps[i]))
    return out


def line(values: Sequence[str], col_widths: Sequence[int], width: int | None) -> str:
    """Columns padded to `col_widths`, two spaces apart; the last one cut to `width`."""
    head = "  ".join(fit(v, w).ljust(w) for v, w in zip(values[:-1], col_widths))
    last = values[-1]
    if width is not None:
        room = width - len(head) - 2
        last = fit(last, max(room, MIN_LAST))
    text = f"{head}  {last}" if head else last
    # A terminal narrower than the floors: cut the line rather than wrap it.
    return fit(text.rstrip(), width) if width is not None else text.rstrip()


def shrink(col_widths: list[int], width: int | None, floors: Sequence[int] = ()) -> list[int]:
    """Narrow the widest columns, down to their floors (default 4), until a row with
    MIN_LAST of the last column fits."""
    if width is None:
        return col_widths
    out = list(col_widths)
    floor = [min(floors[i] if i < len(floors) else 4, w) for i, w in enumerate(out)]
    while sum(out) + 2 * len(out) + MIN_LAST > width:
        room = [i for i in range(len(out)) if out[i] > floor[i]]
        if not room:
            break
        i = max(room, key=lambda k: out[k])
        out[i] -= 1
    return out


def table(header: Sequence[str], rows: Sequence[Sequence[str]], caps: Sequence[int],
          width: int | None) -> list[str]:
    col_widths = shrink(widths(header, rows, caps), width)
    return [line(header, col_widths, width)] + [line(r, col_widths, width) for r in rows]


# ----------------------------------------------------------------------------- events

EVENT_HEADER = ("ID", "TIME (UTC)", "TYPE", "AGENT", "TASK", "TOPIC", "MESSAGE")
EVENT_CAPS = (8, 20, 24, 16, 20, 20)
# In follow mode rows arrive after the header is printed: columns start at least this wide.
FOLLOW_MINS = (5, 20, 18, 10, 12, 12)


def event_row(event: dict[str, Any]) -> list[str]:
    return [cell(event.get(k)) for k in ("id", "created_at", "event_type", "agent", "task", "topic", "message")]


def event_widths(events: Sequence[dict[str, Any]], width: int | None, *, follow: bool = False) -> list[int]:
    rows = [event_row(e) for e in events]
    col = widths(EVENT_HEADER, rows, EVENT_CAPS)
    if follow:
        col = [max(c, m) for c, m in zip(col, FOLLOW_MINS)]
    # Ids and times are never cut: a cut one would point at the wrong event.
    return shrink(col, width, (col[0], col[1], 8, 5, 5, 5))


def echo(text: str = "", *, err: bool = False, nl: bool = True) -> None:
    """One line (or block) on stdout, or stderr with `err`."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:  # no console at all (pythonw): nothing to print to
        return
    stream.write(text + ("\n" if nl else ""))
    stream.flush()


def emit_json(data: object) -> None:
    """A machine answer: one JSON object on one line."""
    echo(json.dumps(data, ensure_ascii=False))
