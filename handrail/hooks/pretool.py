"""The pre-tool question every harness asks, and its one answer.

A harness adapter (`handrail/harnesses/<name>.py`) turns its harness's payload into a
Question (*edit these paths*, *run this shell command*, *read this file*, or another
tool) and the Answer back into its harness's reply. Everything in between is here,
and every decision is policy/'s: can-edit for edits (a shell command's writes
included), classify for commands, the secrets rule for reads. Other tools (MCP,
web) get no opinion: the harness's own rules decide.

Fail closed: `run()` catches everything. A payload it cannot read, an unreadable
policy or a bug becomes a deny with one line on stderr: never a traceback, never an
allow. This runs before every tool call, so it imports only what the question needs.
"""

from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False  # typing itself costs milliseconds on the hot path
if TYPE_CHECKING:
    from types import ModuleType

EDIT, SHELL, READ, OTHER = "edit", "shell", "read", "other"
ALLOW, NOTIFY, ASK, DENY, NONE = "allow", "notify", "ask", "deny", "none"
PREFIX = "handrail: "
OPTIONS = {"--agent": True}


class BadPayload(ValueError):
    """The harness sent what its adapter cannot read: the call is denied."""


class Question:
    """What the agent wants to do. `paths` for edits and reads (as the harness gave
    them; relative ones are relative to `cwd`), `command` for shell."""

    __slots__ = ("kind", "tool", "paths", "command", "cwd")

    def __init__(self, kind: str, tool: str, *, paths: list[str] | None = None, command: str = "",
                 cwd: str = "") -> None:
        self.kind = kind
        self.tool = tool
        self.paths = paths or []
        self.command = command
        self.cwd = cwd

    def __repr__(self) -> str:
        return f"Question({self.kind!r}, {self.tool!r}, paths={self.paths!r}, command={self.command!r})"


class Answer:
    """`verdict`: allow, notify, ask, deny or none (no opinion). `message`: one line for
    the person and the agent, naming the rule and the way forward. `broken`: the deny
    comes from bad input or an internal error, not from the policy."""

    __slots__ = ("verdict", "message", "broken")

    def __init__(self, verdict: str, message: str = "", *, broken: bool = False) -> None:
        self.verdict = verdict
        self.message = _one_line(message) if "\n" in message or len(message) > 2000 else message
        self.broken = broken

    def __repr__(self) -> str:
        return f"Answer({self.verdict!r}, {self.message!r})"


# --------------------------------------------------------------------------- for adapters


def need_dict(value: object, what: str) -> dict:
    if not isinstance(value, dict):
        raise BadPayload(f"{what}: expected a JSON object, found {_kind(value)}")
    return value


def need_str(mapping: dict, key: str, what: str) -> str:
    value = mapping.get(key)
    if not isinstance(value, str) or not value.strip():
        raise BadPayload(f"{what}.{key}: expected a non-empty string, found {_kind(value)}")
    if "\0" in value:
        raise BadPayload(f"{what}.{key}: contains a NUL byte")
    return value


def first_str(mapping: dict, keys: tuple[str, ...], what: str) -> str:
    """The first of `keys` that `mapping` has, which must be a non-empty string."""
    for key in keys:
        if key in mapping:
            return need_str(mapping, key, what)
    raise BadPayload(f"{what}: none of {', '.join(keys)} is given")


def opt_str(mapping: dict, key: str) -> str:
    """An optional string field: '' when absent or not a usable string."""
    value = mapping.get(key)
    return value if isinstance(value, str) and "\0" not in value else ""


def _kind(value: object) -> str:
    return "nothing" if value is None else type(value).__name__


# --------------------------------------------------------------------------- the decision


def decide(q: Question, *, harness: str, agent: str | None, can_ask: bool) -> Answer:
    """The policy's answer to one question. Raises on a broken policy: the caller denies."""
    if q.kind == OTHER:
        return Answer(NONE)
    cwd = os.path.abspath(q.cwd) if q.cwd else os.getcwd()
    from handrail.hooks.classify import find_project

    project = find_project(cwd)
    if q.kind == READ:
        return _reads(q, project, cwd)
    if q.kind == EDIT:
        if not q.paths:
            raise BadPayload(f"{q.tool}: an edit that names no file")
        refused = _edit_refusal(q.paths, project, cwd, agent, harness, q.tool)
        if refused is not None:
            return refused
        return Answer(ALLOW, f"{PREFIX}allowed: {_edited(q.paths, project, cwd)} inside the task's scope")
    if q.kind == SHELL:
        return _shell(q, project, cwd, harness=harness, agent=agent, can_ask=can_ask)
    raise BadPayload(f"unknown question kind {q.kind!r}")


def _absolute(path: str, cwd: str) -> str:
    if "\0" in path or not path.strip():
        raise BadPayload("a file path is empty or contains a NUL byte")
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))


def _inside(path: str, project: str) -> str | None:
    rel = os.path.relpath(path, project)
    if rel == os.curdir or rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return None
    return rel.replace(os.sep, "/")


def _edited(paths: list[str], project: str, cwd: str) -> str:
    shown = [_inside(_absolute(p, cwd), project) or p for p in paths[:3]]
    return ", ".join(shown) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def _reads(q: Question, project: str, cwd: str) -> Answer:
    from handrail.policy.shell.reads import read_refusal

    for given in q.paths:
        path = _absolute(given, cwd)
        shown = _inside(path, project) or path
        refusal = read_refusal(shown)
        if refusal is not None:
            return Answer(DENY, f"{PREFIX}denied: reading {shown} is refused: rule '{refusal.rule}' from "
                                f"{refusal.source} ({refusal.why}); ask a human for what you need from it")
    return Answer(NONE)


def _edit_refusal(paths: list[str], project: str, cwd: str, agent: str | None, harness: str,
                  tool: str, command: str | None = None) -> Answer | None:
    """The deny for the first path can-edit refuses (recorded as `edit_refused`), or None."""
    from handrail.hooks.can_edit import ENVELOPE_REFUSAL
    from handrail.policy.edits import can_edit, explain

    for given in paths:
        answer = can_edit(project, file=_absolute(given, cwd))
        if answer["allowed"] and agent:
            from handrail.records.envelope_states import apply_to_edit

            answer = apply_to_edit(project, agent, answer)
        if answer["allowed"]:
            continue
        text = f"denied: {answer['message']}" if answer["reason"] == ENVELOPE_REFUSAL else explain(answer, project)
        if command is not None:
            shown = _inside(_absolute(given, cwd), project) or given
            text = f"denied: the command writes {shown}, an edit: {text.removeprefix('denied: ')}"
        _record(project, "edit_refused", agent, answer.get("task"), answer["reason"], text,
                {**answer, "harness": harness, "tool": tool, **({"command": command} if command else {})})
        return Answer(DENY, PREFIX + text)
    return None


def _shell(q: Question, project: str, cwd: str, *, harness: str, agent: str | None, can_ask: bool) -> Answer:
    from handrail.policy.shell import engine as commands, writes
    from handrail.policy import protocol as protocols
    from handrail.policy.shell.rules import home_dir

    command = q.command
    home = home_dir()
    # What the command writes inside the project is an edit, and gets can-edit's answer.
    targets = [p for p in writes.written_paths(command, cwd, home)
               if not p.startswith("/dev/") and _inside(p, project) is not None]
    if targets:
        refused = _edit_refusal(targets, project, cwd, agent, harness, q.tool, command)
        if refused is not None:
            return refused
    proto = protocols.load(project)
    # A protocol without this harness in its tools (a v1.0 file) is read for all tools.
    tool = harness if harness in (proto.data.get("tools") or {}) else None
    answer = commands.classify(command, commands.engine(proto, tool), cwd=cwd, project=project, home=home)
    tier = answer["tier"]
    if tier is None:
        return Answer(NONE)
    summary = commands.summary(answer)
    payload = {"command": command, "tier": tier, "decision": answer["decision"], "reasons": answer["reasons"],
               "tool": harness}
    if tier == 3:
        _record(project, "command_blocked", agent, None, "pretool", summary, payload)
        if can_ask:
            return Answer(ASK, f"{PREFIX}{summary}; tier 3 always needs a human: approve it only if you meant it")
        return Answer(DENY, f"{PREFIX}refused, {summary}; tier 3 always needs a human and {harness} cannot ask "
                            f"one here: a human runs it in a terminal, or changes the policy")
    if agent:
        # As `handrail classify --agent`: an envelope that withholds `shell` makes it a human's call.
        from handrail.records.envelope_states import decide_for

        decision = decide_for(project, agent, "shell", tier=tier)
        if decision.verdict != "allow":
            _record(project, "command_blocked", agent, None, decision.reason, decision.message,
                    {**payload, "envelope": decision.as_dict()})
            if can_ask:
                return Answer(ASK, f"{PREFIX}needs a human: {decision.message}")
            return Answer(DENY, f"{PREFIX}refused, needs a human: {decision.message}")
    if tier == 2:
        _record(project, "command_notified", agent, None, "pretool", summary, payload)
        return Answer(NOTIFY, f"{PREFIX}notice: {summary}")
    return Answer(ALLOW, f"{PREFIX}{summary}")


def _record(project: str, event: str, agent: str | None, task: str | None, topic: str, message: str,
            payload: dict) -> None:
    """Best effort, and only for notices and refusals: the allowed hot path never opens sqlite.
    Only a project handrail guards gets a log: a harness run in some other folder leaves no trace."""
    if not os.path.isdir(os.path.join(project, ".handrail")):
        return
    try:
        from handrail.records.events import record

        record(project, event, agent=agent, task=task, topic=topic, message=message, payload=payload)
    except Exception as e:  # noqa: BLE001 - recording never changes the answer
        print(f"handrail: warning: could not record {event}: {type(e).__name__}: {e}", file=sys.stderr)


# --------------------------------------------------------------------------- the process


def run(adapter: ModuleType, argv: list[str]) -> int:
    """`handrail hook <harness>`: the harness's JSON on stdin, its reply on stdout.

    The adapter module gives NAME, CAN_ASK, question(payload) -> Question | None and
    reply(answer) -> (stdout text, exit code).
    """
    name = str(getattr(adapter, "NAME", "harness"))
    try:
        answer = _answer(adapter, name, argv)
    except BaseException as e:  # noqa: BLE001 - a pre-tool hook must never crash open
        answer = Answer(DENY, f"{PREFIX}denied: {_why(e)}; the call is refused until the hook can read it",
                        broken=True)
    try:
        out, code = adapter.reply(answer)
    except BaseException as e:  # noqa: BLE001
        answer = Answer(DENY, f"{PREFIX}denied: the {name} reply failed: {_why(e)}", broken=True)
        out, code = "", 2
    try:
        if answer.verdict == DENY:
            print(answer.message, file=sys.stderr)
        if out:
            sys.stdout.write(out if out.endswith("\n") else out + "\n")
        sys.stdout.flush()
    except BaseException:  # noqa: BLE001 - a closed pipe: the exit code still refuses
        return 2 if answer.verdict == DENY else code
    return code


def _answer(adapter: ModuleType, name: str, argv: list[str]) -> Answer:
    from handrail.hooks.argv import parse

    opts, _ = parse(argv, OPTIONS)
    raw = sys.stdin.buffer.read()
    try:
        payload = json.loads(raw)
    except RecursionError:
        raise BadPayload("the payload is nested too deeply") from None
    except ValueError as e:
        raise BadPayload(f"the payload is not JSON ({e})") from None
    q = adapter.question(payload)
    if q is None:
        return Answer(NONE)
    agent = str(opts.get("--agent") or os.environ.get("HANDRAIL_AGENT") or name)
    answer = decide(q, harness=name, agent=agent, can_ask=bool(getattr(adapter, "CAN_ASK", False)))
    if answer.verdict == ASK and not getattr(adapter, "CAN_ASK", False):
        answer = Answer(DENY, answer.message)
    return answer


def _why(e: BaseException) -> str:
    from handrail.errors import HandrailError

    if isinstance(e, BadPayload):
        return f"unreadable payload: {e}"
    if isinstance(e, HandrailError):
        return str(e)
    if isinstance(e, KeyboardInterrupt):
        return "interrupted"
    return f"internal error: {type(e).__name__}: {e}"


def _one_line(text: str) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= 2000 else line[:1997] + "..."


def reason_json(obj: dict) -> str:
    """One JSON object on one line, as every harness reads it."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
