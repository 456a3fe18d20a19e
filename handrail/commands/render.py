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
from collections.abc import Callable, Iterable, Sequence

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


def report(data: object, as_json: bool, lines: Callable[[Any], Iterable[str]]) -> None:
    """A command's answer: the JSON object with --json, else the lines `lines` renders of it."""
    if as_json:
        emit_json(data)
        return
    for text in lines(data):
        echo(text)


def emit_json(data: object) -> None:
    """A machine answer: one JSON object on one line. Written as UTF-8 text where the
    console holds it, else with `\\u` escapes: the same data, never a `?` in it."""
    text = json.dumps(data, ensure_ascii=False)
    if not _holds(sys.stdout, text):
        text = json.dumps(data)
    echo(text)


# ----------------------------------------------------------------------------- colour


COLOURS = {"ok": "32", "warn": "33", "error": "31", "dim": "2"}  # ANSI SGR codes


def colour_on() -> bool:
    """Colour only for a person at a terminal, and never when `NO_COLOR` is set to
    anything (https://no-color.org): a pipe, a file or a log gets plain text."""
    if os.environ.get("NO_COLOR"):
        return False
    stream = sys.stdout
    return stream is not None and stream.isatty() and os.environ.get("TERM") != "dumb"


def paint(text: str, role: str) -> str:
    """`text` in the colour of `role` (ok, warn, error, dim) when colour is on."""
    code = COLOURS.get(role)
    if code is None or not colour_on():
        return text
    return f"\033[{code}m{text}\033[0m"


# ----------------------------------------------------------------------------- console encoding


# What a console that cannot show a symbol shows instead: still readable, never a crash.
FALLBACK = {
    "✓": "ok", "✗": "x", "⚠": "!", "ℹ": "i", "⛔": "X", "…": "...", "→": "->", "←": "<-",
    "—": "-", "–": "-", "•": "*", "‘": "'", "’": "'", "“": '"', "”": '"', "×": "x", "≤": "<=", "≥": ">=",
}
ERRORS = "handrail-fallback"


def _fallback(e: UnicodeError) -> tuple[str, int]:
    if not isinstance(e, UnicodeEncodeError):
        raise e
    return "".join(_ascii(ch) for ch in e.object[e.start:e.end]), e.end


def _ascii(ch: str) -> str:
    """A symbol's FALLBACK; a letter without its accent (`é` is `e`); else `?`."""
    if ch in FALLBACK:
        return FALLBACK[ch]
    import unicodedata

    bare = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
    return bare or "?"


def install_console() -> None:
    """Make stdout and stderr print whatever the console's encoding cannot hold as
    its FALLBACK (or `?`) instead of failing: `PYTHONIOENCODING=ascii`, a Windows code
    page or `LC_ALL=C` never turns a report into a crash. Called once, by the CLI."""
    import codecs

    codecs.register_error(ERRORS, _fallback)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and not _holds(stream, "".join(FALLBACK)):
            try:
                reconfigure(errors=ERRORS)
            except (ValueError, OSError):  # a stream that cannot change mid-way: printing stays as it was
                pass


def _holds(stream: object, text: str) -> bool:
    """Can `stream`'s encoding write every character of `text`?"""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def progress(text: str | None) -> None:
    """A progress line on stderr, rewritten in place, only for a person at a terminal (a pipe
    or a log gets none); None clears it."""
    stream = sys.stderr
    if stream is None or not stream.isatty():
        return
    width = shutil.get_terminal_size((100, 24)).columns - 1
    stream.write("\r" + (fit(text, width) if text else "").ljust(width) + ("" if text else "\r"))
    stream.flush()
