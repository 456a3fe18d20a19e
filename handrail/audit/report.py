"""The audit report: every session's calls replayed, as one JSON object with stable keys.

{"version": 1, "project", "since", "sessions": [{"harness", "session", "file", "started",
"ended", "calls", "findings": [{"time", "line", "kind", "command", "paths", "globs", "outcome",
"verdict", "rule", "why"}], "hook_denials", "denied": [...], "malformed", "problems": [{"line", "what"}],
"unread", "elsewhere", "unknown_records": {type: n}, "summary"}], "counts": {...}, "result": "clean" | "findings"}

`unread`: the file, or part of it, could not be read: the file itself (no permission, no
regular file, a database that stops), or any line of it (not JSON, past the line cap, a call
whose input no client would run: a NUL in a command, a command given as a list). What it held
is not known, so the command exits 2 for it whatever else it found.

`elsewhere`: calls of a session that ran in a folder above the project which reach nowhere
into it: not the project's, not judged.

A call a hook or the person refused at the time did not run: it is counted (and listed under
`denied`), not a finding. Only a refusal the reader recognised is one; a call that ended in an
error it cannot place, or shows no result, is judged like one that ran, and its finding says
that it may have run. Findings are what ran, or was attempted, that the policy refuses now.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from typing import Any

from handrail.audit import replay
from handrail.audit.calls import Call, Problem, Reader, Unknown

VERSION = 1
MOST_PROBLEMS = 50  # per session, in the report; all are counted
Progress = Callable[[str, int], None]
# A finding for a call whose end the session does not show as a success says so.
MAY_HAVE_RUN = {"error": "it may have run: the session shows an error for it, not a refusal",
                "unknown": "it may have run: the session shows no result for it"}


def session(harness: str, path: str, reader: Reader, policy: replay.Policy, since: str | None,
            progress: Progress | None = None, *, whole: bool = False) -> dict[str, Any] | None:
    """One file's entry, or None when every call in it is older than `since`. With `whole` (a
    file named on the command line) every call is judged, wherever its session ran."""
    findings: list[dict[str, Any]] = []
    denied: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    unknown: Counter[str] = Counter()
    calls = malformed = elsewhere = 0
    unread = False
    first: str | None = None
    last: str | None = None
    name = os.path.splitext(os.path.basename(path))[0]
    older = 0
    for n, item in enumerate(reader(path)):
        if progress is not None and n % 2000 == 0:
            progress(path, getattr(item, "line", None) or 0)
        if isinstance(item, Problem):
            malformed += 1
            unread = True
            if len(problems) < MOST_PROBLEMS:
                problems.append({"line": item.line, "what": item.what})
            continue
        if isinstance(item, Unknown):
            unknown[item.kind] += 1
            continue
        call: Call = item
        name = call.session or name
        if not whole and not policy.reaches(call):
            elsewhere += 1
            continue
        if since is not None and call.time is not None and _before(call.time, since):
            older += 1
            continue
        calls += 1
        if call.time is not None:
            first = call.time if first is None or call.time < first else first
            last = call.time if last is None or call.time > last else last
        if call.outcome in ("hook_denied", "user_denied"):
            denied.append({**_shown(call), "reason": call.reason})
            continue
        found = replay.judge(call, policy)
        if found is not None:
            why = f"{found.why} ({MAY_HAVE_RUN[call.outcome]})" if call.outcome in MAY_HAVE_RUN else found.why
            findings.append({**_shown(call), "verdict": found.verdict, "rule": found.rule, "why": why})
    if not calls and elsewhere and not malformed and not unread:
        return None  # a session above the project that never reached into it
    if since is not None and older and not calls:
        return None
    hooks = sum(1 for d in denied if d["outcome"] == "hook_denied")
    entry = {"harness": harness, "session": name, "file": path, "started": first, "ended": last, "calls": calls,
             "findings": findings, "hook_denials": hooks, "denied": denied, "malformed": malformed,
             "problems": problems, "unread": unread, "elsewhere": elsewhere,
             "unknown_records": dict(sorted(unknown.items()))}
    entry["summary"] = summary(entry)
    return entry


def _before(time: str, since: str) -> bool:
    from handrail.records.clock import parse_iso

    try:
        return parse_iso(time) < parse_iso(since)
    except ValueError:
        return False  # a time that cannot be read is kept: nothing is left out unseen


def _shown(call: Call) -> dict[str, Any]:
    return {"time": call.time, "line": call.line, "kind": call.kind, "command": call.command,
            "paths": list(call.paths), "globs": list(call.globs), "outcome": call.outcome}


def summary(entry: dict[str, Any]) -> str:
    found = entry["findings"]
    parts = [f"{entry['calls']} call{'s' if entry['calls'] != 1 else ''}"]
    if found:
        kinds = Counter(f["kind"] for f in found)
        asks = sum(1 for f in found if f["verdict"] == "ask")
        head = f"{len(found)} finding{'s' if len(found) != 1 else ''} (" + ", ".join(
            f"{n} {k}" for k, n in sorted(kinds.items())) + ")"
        parts.insert(0, head)
        if asks:
            parts.append(f"{asks} would need a human")
    else:
        parts.insert(0, "nothing the policy refuses")
    if entry["hook_denials"]:
        parts.append(f"{entry['hook_denials']} refused by a hook at the time")
    if entry["malformed"]:
        parts.append(f"{entry['malformed']} malformed line{'s' if entry['malformed'] != 1 else ''} skipped")
    if entry["unknown_records"]:
        parts.append(f"{sum(entry['unknown_records'].values())} records of unknown types")
    if entry["elsewhere"]:
        parts.append(f"{entry['elsewhere']} call{'s' if entry['elsewhere'] != 1 else ''} outside the project, "
                     "not judged")
    if entry["unread"]:
        parts.append("the file could not be read in full: what it held is not known")
    return ", ".join(parts)


def build(project: str, sessions: list[dict[str, Any]], since: str | None) -> dict[str, Any]:
    counts = {
        "sessions": len(sessions),
        "calls": sum(s["calls"] for s in sessions),
        "findings": sum(len(s["findings"]) for s in sessions),
        "hook_denials": sum(s["hook_denials"] for s in sessions),
        "malformed": sum(s["malformed"] for s in sessions),
        "unknown_records": sum(sum(s["unknown_records"].values()) for s in sessions),
        "unreadable": sum(1 for s in sessions if s["unread"]),
    }
    return {"version": VERSION, "project": project, "since": since, "sessions": sessions, "counts": counts,
            "result": "findings" if counts["findings"] else "clean"}
