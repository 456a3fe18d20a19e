"""`handrail audit`: past agent sessions replayed through the current policy."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

from handrail.commands import render
from handrail.errors import EXIT_DENIED, EXIT_ERROR, EXIT_OK, HandrailError

REPORT_FILE = os.path.join(".handrail", "runtime", "audit.json")
EVENT = "audit_findings"  # one per run that found something, beside the live decisions
RAN = {"ok": "ran", "error": "ended in an error", "unknown": "no result recorded"}


def audit(*, paths: tuple[str, ...], harness: str, since: str | None, project: str, as_json: bool) -> int:
    from handrail.audit import READERS
    from handrail.audit import report as reports
    from handrail.audit.replay import Policy
    from handrail.commands.where import require_repository
    from handrail.policy.gitrules import display

    require_repository("audit", project)
    from handrail.policy.shell.rules import home_dir

    home = home_dir()  # the home the live classifier judges a command's paths by
    files: list[tuple[str, str]] = []
    for given in paths:
        files.append(_named(given, harness))
    policy = Policy(project, home)
    if not paths:
        env = dict(os.environ)  # where the clients keep sessions follows their variables
        for name, (find, _read) in READERS.items():
            if harness in ("auto", name):
                # Each worktree of the repository is the project too: its sessions are found by its own folder.
                found = [f for tree in policy.trees for f in find(tree, home, env)]
                files += [(name, f) for f in dict.fromkeys(found)]
    sessions = []
    for name, path in files:

        def shown(file: str, line: int) -> None:
            render.progress(f"handrail audit: {display(os.path.basename(file))}: line {line}")

        entry = reports.session(name, path, READERS[name][1], policy, since, shown, whole=bool(paths))
        render.progress(None)
        if entry is not None:
            sessions.append(entry)
    answer = reports.build(project, sessions, since)
    # The dashboard shows the last report as the audit: an agent may run one too, on the
    # files it names or since when it says, so the report says whose it is.
    answer["ran_by"] = ran_by(os.environ)
    if _keep(project, answer) and answer["result"] == "findings":
        _record(project, answer)
    render.report(answer, as_json, lambda a: lines(a, [h for h in READERS if harness in ("auto", h)], bool(paths)))
    if answer["counts"]["unreadable"]:
        return EXIT_ERROR  # a session not read is not known to be harmless
    return EXIT_DENIED if answer["result"] == "findings" else EXIT_OK


def _named(given: str, harness: str) -> tuple[str, str]:
    """(harness, path) of a file named on the command line; a HandrailError (exit 2) naming it
    when it is no session file that can be read: absent, not a regular file, unreadable, of no
    known harness, or a database that is not OpenCode's."""
    from handrail.audit import READERS, harness_of, opencode
    from handrail.audit.jsonl import unreadable
    from handrail.policy.gitrules import display

    shown = display(given)
    if not os.path.lexists(given):
        raise HandrailError(f"{shown}: no such session file", reason="bad_arguments")
    why = unreadable(given)
    if why is not None:
        raise HandrailError(f"{shown}: {why}", reason="bad_arguments")
    name = harness_of(given) if harness == "auto" else harness
    if name is None:
        raise HandrailError(f"{shown}: not a session file handrail knows; name its harness with --harness "
                            f"({'|'.join(READERS)})", reason="bad_arguments")
    if name == "opencode":
        lacking = opencode.missing(opencode.split(given)[0])
        if lacking is not None:
            raise HandrailError(f"{shown}: not an OpenCode database: {lacking}", reason="bad_arguments")
    return name, os.path.abspath(given)


def ran_by(env: Mapping[str, str]) -> str:
    """The agent the environment shows running the audit (`policy.agents.detect`), else "human"."""
    from handrail.policy.agents import detect

    agent = detect(env)
    return agent.name if agent is not None else "human"


def _keep(project: str, answer: dict[str, Any]) -> bool:
    """The last report, for the dashboard: only in a project handrail guards (an audit of
    another leaves nothing behind). Whether it was kept."""
    if not os.path.isdir(os.path.join(project, ".handrail")):
        return False
    from handrail.fsio import atomic_write, dump_json

    path = os.path.join(project, REPORT_FILE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic_write(path, dump_json(answer))
    return True


def _record(project: str, answer: dict[str, Any]) -> None:
    """One event for the run, so `handrail events` shows what past sessions did beside the
    live decisions: the counts, the sessions with findings, and where the whole report is."""
    from handrail.records import events

    c = answer["counts"]
    found = [s for s in answer["sessions"] if s["findings"]]
    since = f" since {answer['since']}" if answer["since"] else ""
    message = (f"{c['findings']} finding{'s' if c['findings'] != 1 else ''} in {len(found)} of {c['sessions']} "
               f"past session{'s' if c['sessions'] != 1 else ''}{since}, run by {answer['ran_by']}; "
               f"report in {REPORT_FILE}")
    events.record(project, EVENT, topic="audit", message=message, payload={
        "counts": c, "since": answer["since"], "report": REPORT_FILE, "ran_by": answer["ran_by"],
        "sessions": [{"harness": s["harness"], "session": s["session"], "file": s["file"],
                      "findings": len(s["findings"]), "summary": s["summary"]} for s in found]})


def lines(answer: dict[str, Any], harnesses: list[str], named: bool) -> Iterator[str]:
    """The report for a person. Every text a transcript supplied (commands, paths, reasons, ids,
    file names) is shown through `display`: a session can hold a command that clears the screen
    or a newline that fakes a line of this report, and the person reads what the session held."""
    from handrail.policy.gitrules import display as d

    since = f" since {answer['since']}" if answer["since"] else ""
    if not answer["sessions"]:
        where = "the files named" if named else f"the sessions of {', '.join(harnesses)}"
        yield f"handrail audit: no session in {where} ran in {d(answer['project'])}{since}"
        return
    for s in answer["sessions"]:
        yield (f"{s['harness']} session {d(s['session'])} ({d(s['started'] or '?')} .. {d(s['ended'] or '?')}): "
               f"{d(s['summary'])}")
        yield f"  {d(s['file'])}"
        for f in s["findings"]:
            yield f"  line {f['line']}  {f['kind']}  {d(_what(f))}"
            yield f"    {f['verdict']} ({RAN.get(f['outcome'], f['outcome'])}): {d(f['why'])}"
        for x in s["denied"]:
            by = "a hook" if x["outcome"] == "hook_denied" else "the person"
            yield f"  line {x['line']}  {x['kind']}  {d(_what(x))}"
            yield f"    refused by {by} at the time: {d(x['reason'] or '(no reason recorded)')}"
        for p in s["problems"]:
            yield f"  {d(s['file'])}:{p['line'] or '-'}: malformed, skipped: {d(p['what'])}"
        if s["malformed"] > len(s["problems"]):
            yield f"  … and {s['malformed'] - len(s['problems'])} more malformed lines"
        for kind, n in s["unknown_records"].items():
            yield f"  {n} record{'s' if n != 1 else ''} of unknown type '{d(kind)}', not read"
    c = answer["counts"]
    yield (f"result: {answer['result']}: {c['findings']} finding{'s' if c['findings'] != 1 else ''} in "
           f"{c['sessions']} session{'s' if c['sessions'] != 1 else ''} ({c['calls']} calls{since}; "
           f"{c['hook_denials']} refused by a hook at the time)")
    if c["unreadable"]:
        yield (f"error: {c['unreadable']} session file{'s' if c['unreadable'] != 1 else ''} could not be read in "
               "full (above: the file, or lines of it): what they hold is not known")


def _what(call: dict[str, Any]) -> str:
    return str(call["command"]) if call["command"] is not None else ", ".join(call["paths"])
