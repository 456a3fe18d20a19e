"""`handrail can-edit`: the pre-edit question any harness can shell out to.

Exit 0 allowed, 1 denied, 2 error. With --json the last line of stdout is one JSON
object; errors are JSON too (`allowed: false` with the error), and a line on stderr.
It answers within the deadline of hooks/budget.py: past it, the error `too_slow`.
"""

from __future__ import annotations

import json
import os
import sys

from handrail.errors import EXIT_DENIED, EXIT_ERROR, EXIT_OK, HandrailError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

USAGE = "usage: handrail can-edit [--project P] [--task T] [--file F] [--agent A] [--json]"
ANSWER_REASONS = ("task_not_found", "invalid_policy", "bad_arguments", "internal_error", "too_slow")
OPTIONS = {"--project": True, "--task": True, "--file": True, "--agent": True, "--json": False}
ENVELOPE_REFUSAL = "envelope_supervision"
HELP = """
usage: handrail can-edit [--project P] [--task T] [--file F] [--agent A] [--json]

May an agent edit now, and this file? The pre-edit question any harness can shell out to.

Options:
  --project P   where to look for the project (default: the current folder); the project
                is the top of the git work tree around it. A relative --file is relative
                to P, else to the current folder
  --task T      ask about this task only (default: every task in an edit phase)
  --file F      the file to edit; without it: may anything be edited now?
  --agent A     the acting agent: its autonomy envelope can only take an allow away
                (default: HANDRAIL_AGENT or AI_AGENT, else the harness the
                environment's markers show: CLAUDECODE=1 is claude)
  --json        the answer as one JSON object, the last line of stdout
  -h, --help    this text

Reads the project's .handrail/ (tasks, contracts, protocol, envelopes); no stdin.
Environment: HANDRAIL_AGENT and the harnesses' markers (see --agent); HANDRAIL_HOOK_DEADLINE_MS, the time to answer
in (default 2000 ms, at most 20000), past which the answer is the error too_slow.

Answers: one line for a person on stdout ("allowed: ..." or "denied: ..., and the way
forward"), or with --json {"allowed": true|false, "reason": ..., "file", "rule", "source",
"primary_task" or "tasks", ...}. A refusal or a notice is recorded in the event log.
Errors: "handrail can-edit: error: ..." (one line, naming the file and key) on stderr and,
with --json, {"allowed": false, "reason": R, "error": ...} where R is one of
task_not_found, invalid_policy (an unreadable protocol, task or contract), bad_arguments,
internal_error, too_slow.

Exit codes:
  0  allowed
  1  denied
  2  error (the edit is refused too)
"""
EDIT_NOTIFIED = "edit_notified"  # an agent's edit of a protected path the protocol's write_paths open


def main(argv: list[str]) -> int:
    from handrail.hooks import budget
    from handrail.hooks.argv import peek

    as_json = bool(peek(argv, OPTIONS, "--json"))

    def refusal(why: str) -> tuple[str, str, int]:
        out = json.dumps({"allowed": False, "reason": "too_slow", "error": why}) if as_json else ""
        return out, f"handrail can-edit: error: {why}", EXIT_ERROR

    return budget.run(lambda: _main(argv, as_json), refusal, "can-edit")


def _main(argv: list[str], as_json: bool) -> int:
    try:
        from handrail.hooks.argv import parse
        from handrail.hooks.budget import MAX_PATH_BYTES, too_large

        opts, _ = parse(argv, OPTIONS)
        for name in ("--file", "--project"):
            why = too_large(f"the {name} path", str(opts.get(name, "")), MAX_PATH_BYTES)
            if why:
                raise HandrailError(why, reason="bad_arguments")
        from handrail.policy.edits import can_edit, explain
        from handrail.projectroot import for_command, work_tree_of

        # --project (else the current folder) only says where to look, and what a
        # relative --file is relative to: the root is the pinned one around it.
        given = str(opts.get("--project", "."))
        if not os.path.isdir(given):
            raise HandrailError(f"{given}: project folder not found", reason="bad_arguments")
        root = for_command(str(opts["--project"]) if "--project" in opts else None, os.environ)
        project = root.path
        file = opts.get("--file")
        tree = None
        if isinstance(file, str) and file.strip() and "\0" not in file:
            tree = work_tree_of(os.path.join(os.path.abspath(given), file), root)
        answer = can_edit(project, task=opts.get("--task"), file=file, tree=tree,  # type: ignore[arg-type]
                          base=given)
        # The acting agent's autonomy envelope can only take an allowed answer away.
        from handrail.policy.agents import acting

        agent = acting(os.environ, given=opts.get("--agent"))  # type: ignore[arg-type]
        if answer["allowed"] and agent:
            from handrail.records.envelope_states import apply_to_edit

            answer = apply_to_edit(project, agent, answer)
    except Exception as e:  # noqa: BLE001 - a pre-edit check must never crash open
        return _error(e, as_json)
    if answer["allowed"]:
        _print(json.dumps(answer) if as_json else explain(answer, project))
        if "notice" in answer:
            _record(project, EDIT_NOTIFIED, agent, answer, answer["notice"])
        return EXIT_OK
    text = f"denied: {answer['message']}" if answer["reason"] == ENVELOPE_REFUSAL else explain(answer, project)
    _print(json.dumps(answer) if as_json else text)
    _record(project, "edit_refused", agent, answer, text)
    return EXIT_DENIED


def _print(text: str, *, err: bool = False) -> None:
    """Print one answer; a lone surrogate (from a path that is not UTF-8) is escaped, never a crash."""
    stream = sys.stderr if err else sys.stdout
    try:
        print(text, file=stream)
    except UnicodeEncodeError:
        print(text.encode("ascii", "backslashreplace").decode("ascii"), file=stream)


def _record(project: str, event: str, agent: str | None, answer: dict[str, Any], text: str) -> None:
    """Refusals and notices only, so the allowed hot path never pays for sqlite. Best effort. The
    log is the pinned root's: a question asked from a subfolder creates nothing there."""
    try:
        from handrail.records.events import record

        task = answer.get("task") or answer.get("primary_task", {}).get("task")
        topic = "write_path" if event == EDIT_NOTIFIED else answer["reason"]
        record(project, event, agent=agent, task=task, topic=topic, message=text, payload=answer)
    except Exception as e:  # noqa: BLE001 - recording never changes the answer
        print(f"handrail: warning: could not record {event}: {type(e).__name__}: {e}", file=sys.stderr)


def _error(e: Exception, as_json: bool) -> int:
    from handrail.errors import describe, outcome

    reason, message = describe(e)
    if reason not in ANSWER_REASONS:
        # An unreadable task or contract file is a broken policy, not a bad call.
        reason = "invalid_policy"
    _code, line = outcome(e, "can-edit")
    _print(line or f"handrail can-edit: error: {message}", err=True)
    if reason == "bad_arguments":
        print(USAGE, file=sys.stderr)
    if as_json:
        _print(json.dumps({"allowed": False, "reason": reason, "error": message}))
    # The hot path answers 0, 1 or 2 (its documented contract): any error is 2, and never
    # allows, whatever code the same error gives a CLI command (an unusable envelope's 3).
    return EXIT_ERROR
