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
    from typing import Any

EDIT, SHELL, READ, SEARCH, OTHER = "edit", "shell", "read", "search", "other"
ALLOW, NOTIFY, ASK, DENY, NONE = "allow", "notify", "ask", "deny", "none"
PREFIX = "handrail: "
OPTIONS = {"--agent": True}


class BadPayload(ValueError):
    """The harness sent what its adapter cannot read: the call is denied."""


class TooLarge(BadPayload):
    """A payload, path or command too large to judge within the deadline: denied at once."""


class Question:
    """What the agent wants to do. `paths` for edits and reads (as the harness gave
    them; relative ones are relative to `cwd`), `command` for shell. `project`: the
    folder the harness itself names as the project in its payload, if it does; the
    call's `cwd` never chooses the project (handrail/projectroot.py). For a search,
    `paths` are the folders (or files) searched, none meaning `cwd`, and `globs` the
    tool's own file globs, `!x` excluding (handrail/hooks/search.py)."""

    __slots__ = ("command", "cwd", "globs", "kind", "paths", "project", "tool")

    def __init__(self, kind: str, tool: str, *, paths: list[str] | None = None, command: str = "",
                 cwd: str = "", project: str = "", globs: list[str] | None = None) -> None:
        self.kind = kind
        self.tool = tool
        self.paths = paths or []
        self.globs = globs or []
        self.command = command
        self.cwd = cwd
        self.project = project

    def __repr__(self) -> str:
        return f"Question({self.kind!r}, {self.tool!r}, paths={self.paths!r}, command={self.command!r})"


class Answer:
    """`verdict`: allow, notify, ask, deny or none (no opinion). `message`: one line for
    the person and the agent, naming the rule and the way forward. `broken`: the deny
    comes from bad input or an internal error, not from the policy. `exclude`: for a
    refused search, the exclusion globs that would keep every secret out of it, for an
    adapter whose harness lets a hook narrow the call instead."""

    __slots__ = ("broken", "exclude", "message", "verdict")

    def __init__(self, verdict: str, message: str = "", *, broken: bool = False) -> None:
        self.verdict = verdict
        self.message = _one_line(message) if "\n" in message or len(message) > 2000 else message
        self.broken = broken
        self.exclude: list[str] = []

    def __repr__(self) -> str:
        return f"Answer({self.verdict!r}, {self.message!r})"


# --------------------------------------------------------------------------- for adapters


def need_dict(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadPayload(f"{what}: expected a JSON object, found {_kind(value)}")
    return value


def need_str(mapping: dict[str, Any], key: str, what: str) -> str:
    value = mapping.get(key)
    if not isinstance(value, str) or not value.strip():
        raise BadPayload(f"{what}.{key}: expected a non-empty string, found {_kind(value)}")
    if "\0" in value:
        raise BadPayload(f"{what}.{key}: contains a NUL byte")
    return value


def first_str(mapping: dict[str, Any], keys: tuple[str, ...], what: str) -> str:
    """The first of `keys` that `mapping` has, which must be a non-empty string."""
    for key in keys:
        if key in mapping:
            return need_str(mapping, key, what)
    raise BadPayload(f"{what}: none of {', '.join(keys)} is given")


def opt_str(mapping: dict[str, Any], key: str, what: str = "payload") -> str:
    """An optional string field: '' when absent or null; any other non-string, or a
    string with a NUL, is refused (a field the hook reads is never silently dropped)."""
    value = mapping.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise BadPayload(f"{what}.{key}: expected a string, found {_kind(value)}")
    if "\0" in value:
        raise BadPayload(f"{what}.{key}: contains a NUL byte")
    return value


def opt_roots(mapping: dict[str, Any], key: str) -> str:
    """The first of an optional list of workspace folders, '' when absent or empty."""
    roots = mapping.get(key)
    if roots is None or roots == []:
        return ""
    if not isinstance(roots, list) or not all(isinstance(r, str) and "\0" not in r for r in roots):
        raise BadPayload(f"payload.{key}: expected a list of folder paths")
    return str(roots[0])


def event_of(data: dict[str, Any], events: frozenset[str]) -> str | None:
    """`hook_event_name`, checked: None when absent, else one of `events` (every event
    the harness sends). Not a string, a NUL, an event the harness does not have: refused,
    never read as "not ours"."""
    if "hook_event_name" not in data:
        return None
    event = data["hook_event_name"]
    if not isinstance(event, str):
        raise BadPayload(f"payload.hook_event_name: expected an event name, found {_kind(event)}")
    if event not in events:
        shown = event if event.isprintable() and len(event) <= 64 else repr(event[:64])
        raise BadPayload(f"payload.hook_event_name: {shown} is no event this harness sends")
    return event


def _kind(value: object) -> str:
    return "nothing" if value is None else type(value).__name__


# --------------------------------------------------------------------------- the decision


def decide(q: Question, *, harness: str, agent: str | None, can_ask: bool) -> Answer:
    """The policy's answer to one question. Raises on a broken policy: the caller denies."""
    if q.kind == OTHER:
        return Answer(NONE)
    cwd = os.path.abspath(q.cwd) if q.cwd else os.getcwd()
    from handrail.projectroot import locate

    # The hook's environment is the harness's: its project folder there is trusted.
    root = locate(cwd, os.environ, given=q.project or None)
    project = root.path
    if q.kind == READ:
        return _reads(q, project, cwd)
    if q.kind == SEARCH:
        from handrail.hooks.search import judge

        return judge(q, project, cwd)
    if q.kind == EDIT:
        if not q.paths:
            raise BadPayload(f"{q.tool}: an edit that names no file")
        notices: list[str] = []
        refused = _edit_refusal(q.paths, root, cwd, agent, harness, q.tool, notices=notices)
        if refused is not None:
            return refused
        if notices:
            return Answer(NOTIFY, f"{PREFIX}notice: {'; '.join(notices)}")
        return Answer(ALLOW, f"{PREFIX}allowed: {_edited(q.paths, project, cwd)} inside the task's scope")
    if q.kind == SHELL:
        return _shell(q, root, cwd, harness=harness, agent=agent, can_ask=can_ask)
    raise BadPayload(f"unknown question kind {q.kind!r}")


def absolute(path: str, cwd: str) -> str:
    if "\0" in path or not path.strip():
        raise BadPayload("a file path is empty or contains a NUL byte")
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))


def inside(path: str, project: str) -> str | None:
    rel = os.path.relpath(path, project)
    if rel == os.curdir or rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return None
    return rel.replace(os.sep, "/")


def _edited(paths: list[str], project: str, cwd: str) -> str:
    shown = [inside(absolute(p, cwd), project) or p for p in paths[:3]]
    return ", ".join(shown) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def _reads(q: Question, project: str, cwd: str) -> Answer:
    for given in q.paths:
        found = secret_at(absolute(given, cwd), project)
        if found is not None:
            shown, refusal = found
            return Answer(DENY, f"{PREFIX}denied: reading {shown} is refused: rule '{refusal.rule}' from "
                                f"{refusal.source} ({refusal.why}); ask a human for what you need from it")
    return Answer(NONE)


def secret_at(path: str, project: str) -> tuple[str, Any] | None:
    """(the path as shown, the refusal) when `path` holds a secret: by its name, or by the
    file a symbolic link on the way leads to (`src/cfg.txt -> ../.env` reads .env)."""
    from handrail.policy.shell.reads import read_refusal

    shown = inside(path, project) or path
    refusal = read_refusal(shown)
    if refusal is not None:
        return shown, refusal
    real = os.path.realpath(path)
    if real != path:
        target = inside(real, os.path.realpath(project)) or real
        refusal = read_refusal(target)
        if refusal is not None:
            return f"{shown} (a link to {target})", refusal
    return None


def _edit_refusal(paths: list[str], root: Any, cwd: str, agent: str | None, harness: str,
                  tool: str, command: str | None = None, notices: list[str] | None = None) -> Answer | None:
    """The deny for the first path can-edit refuses (recorded as `edit_refused`), or None.
    An allowed path that the protocol's write_paths opened adds its notice to `notices`
    (recorded as `edit_notified`). A path in a linked worktree of the project's repository is
    judged relative to that worktree, against the root's tasks."""
    from handrail.hooks.can_edit import EDIT_NOTIFIED, ENVELOPE_REFUSAL
    from handrail.policy.edits import can_edit, explain
    from handrail.projectroot import work_tree_of

    project = root.path
    for given in paths:
        file = absolute(given, cwd)
        answer = can_edit(project, file=file, tree=work_tree_of(file, root))
        if answer["allowed"] and agent:
            from handrail.records.envelope_states import apply_to_edit

            answer = apply_to_edit(project, agent, answer)
        if answer["allowed"]:
            if "notice" in answer:
                if notices is not None:
                    notices.append(answer["notice"])
                _record(project, EDIT_NOTIFIED, agent, answer["primary_task"]["task"], "write_path",
                        answer["notice"], {**answer, "harness": harness, "tool": tool,
                                           **({"command": command} if command else {})})
            continue
        text = f"denied: {answer['message']}" if answer["reason"] == ENVELOPE_REFUSAL else explain(answer, project)
        if command is not None:
            shown = inside(absolute(given, cwd), project) or given
            text = f"denied: the command writes {shown}, an edit: {text.removeprefix('denied: ')}"
        _record(project, "edit_refused", agent, answer.get("task"), answer["reason"], text,
                {**answer, "harness": harness, "tool": tool, **({"command": command} if command else {})})
        return Answer(DENY, PREFIX + text)
    return None


def _shell(q: Question, root: Any, cwd: str, *, harness: str, agent: str | None, can_ask: bool) -> Answer:
    from handrail.policy import protocol as protocols
    from handrail.policy.shell import engine as commands
    from handrail.policy.shell import unwrap, writes
    from handrail.policy.shell.rules import home_dir
    from handrail.policy.shell.syntax import ShellSyntaxError
    from handrail.projectroot import work_tree_of

    project = root.path
    command = q.command
    home = home_dir()
    try:  # parsed once, for both questions: what it touches, and which tier it is in
        parts: list[Any] | None = unwrap.split(command, cwd, home)
    except ShellSyntaxError:
        parts = None  # classify answers tier 3 for it
    # What the command writes or removes inside the project is an edit, and gets can-edit's answer.
    targets = [p for p in (writes.touched_paths(parts, home) if parts is not None else [])
               if not p.startswith("/dev/") and inside(p, work_tree_of(p, root)) is not None]
    if targets:
        refused = _edit_refusal(targets, root, cwd, agent, harness, q.tool, command)
        if refused is not None:
            return refused
    proto = protocols.load(project)
    # A protocol without this harness in its tools (a v1.0 file) is read for all tools.
    tool = harness if harness in (proto.data.get("tools") or {}) else None
    answer = commands.classify(command, commands.engine(proto, tool), cwd=cwd, project=project, home=home,
                               parts=parts)
    tier = answer["tier"]
    if tier is None:
        return Answer(NONE)
    summary = commands.summary(answer)
    payload = {"command": command, "tier": tier, "decision": answer["decision"], "reasons": answer["reasons"],
               "tool": harness}
    if tier == 3:
        _record(project, "command_blocked", agent, None, "pretool", summary, payload)
        if proto.tier3_decision == "deny":  # the policy refuses tier 3 outright, where the harness could ask
            return Answer(DENY, f"{PREFIX}refused, {summary}; the policy denies tier 3 (tiers.tier3_blocking."
                                f"decision): a human runs it in a terminal, or changes the policy")
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
            payload: dict[str, Any]) -> None:
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

    The adapter module gives NAME, CAN_ASK, question(payload) -> Question | None (or a
    list of Questions, for a call that runs several commands) and
    reply(answer) -> (stdout text, exit code); optionally can_ask_now() -> bool, where
    the harness can ask a person only in some runs. The answer comes within the deadline of
    hooks/budget.py, or it is the refusal "took too long to judge".
    """
    from handrail.hooks import budget

    name = str(getattr(adapter, "NAME", "harness"))
    ms = budget.deadline_ms()
    slow = Answer(DENY, f"{PREFIX}denied: {budget.slow_reason(ms)}", broken=True)
    out, code = _reply(adapter, slow)
    deadline = budget.Deadline(ms, (budget.ascii_bytes(out), budget.ascii_bytes(slow.message), code))
    late = False
    try:
        try:
            try:
                # Started inside the try: a deadline that fires at once is still the refusal.
                deadline.start()
                answer = _answer(adapter, name, argv)
            finally:
                deadline.stop()
        except budget.TooSlow:
            answer, late = slow, True
        except TooLarge as e:
            answer = Answer(DENY, f"{PREFIX}denied: {e}; split it into smaller calls, or a human runs it",
                            broken=True)
        except BaseException as e:  # noqa: BLE001 - a pre-tool hook must never crash open
            answer = Answer(DENY, f"{PREFIX}denied: {_why(e)}; the call is refused until the hook can read it",
                            broken=True)
        code = _emit(adapter, name, answer)
        deadline.answered(code)
        if late:
            budget.record_slow(os.getcwd(), f"hook {name}", ms)
    except BaseException:  # noqa: BLE001 - whatever happens now, the exit code refuses
        return BLOCKED
    finally:
        deadline.close()
    return code


BLOCKED = 2  # the exit code every harness reads as "blocked" when its reply could not be written


def _reply(adapter: ModuleType, answer: Answer) -> tuple[str, int]:
    """The adapter's reply, made pure ASCII so that printing it cannot fail; a reply that
    fails is the adapter's refusal with a fixed reason, or exit 2 with nothing."""
    try:
        out, code = adapter.reply(answer)
        return _ascii(out), int(code)
    except BaseException as e:  # noqa: BLE001
        why = f"{PREFIX}denied: the reply failed: {type(e).__name__}"
        try:
            out, code = adapter.reply(Answer(DENY, why, broken=True))
            return _ascii(out), int(code)
        except BaseException:  # noqa: BLE001
            return "", BLOCKED


def _emit(adapter: ModuleType, name: str, answer: Answer) -> int:
    out, code = _reply(adapter, answer)
    if answer.verdict == DENY:
        _say(answer.message)
    try:
        if out:
            sys.stdout.write(out if out.endswith("\n") else out + "\n")
        sys.stdout.flush()
    except BaseException as e:  # noqa: BLE001 - a closed pipe: the exit code still refuses
        _say(f"{PREFIX}denied: the {name} reply could not be written ({type(e).__name__}); the call is refused")
        return BLOCKED
    return code


def _say(line: str) -> None:
    """One line on stderr, whatever it holds: what the terminal cannot show is escaped."""
    try:
        try:
            sys.stderr.write(line + "\n")
        except UnicodeError:
            sys.stderr.write(_ascii(line) + "\n")
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001, S110 - nothing left to tell it to
        pass


def _ascii(text: str) -> str:
    return text if text.isascii() else text.encode("ascii", "backslashreplace").decode("ascii")


def _answer(adapter: ModuleType, name: str, argv: list[str]) -> Answer:
    from handrail.hooks.argv import parse

    opts, _ = parse(argv, OPTIONS)
    payload = _payload(sys.stdin.buffer)
    asked = adapter.question(payload)
    if asked is None:
        return Answer(NONE)
    from handrail.policy.agents import acting

    agent = acting(os.environ, given=opts.get("--agent"), harness=name) or name  # type: ignore[arg-type]
    can_ask = bool(getattr(adapter, "CAN_ASK", False))
    if can_ask and hasattr(adapter, "can_ask_now"):
        can_ask = bool(adapter.can_ask_now())  # a harness that asks only when a person is there
    if isinstance(asked, list):  # one call that runs several commands: each is judged, the strictest answers
        for q in asked:
            _bounded(q)
        answers = [_judged(q, name, agent, can_ask) for q in asked]
        return max(answers, key=lambda a: _STRICTNESS.index(a.verdict), default=Answer(NONE))
    _bounded(asked)
    return _judged(asked, name, agent, can_ask)


_STRICTNESS = (NONE, ALLOW, NOTIFY, ASK, DENY)


def _judged(q: Question, name: str, agent: str, can_ask: bool) -> Answer:
    answer = decide(q, harness=name, agent=agent, can_ask=can_ask)
    if q.kind != OTHER and answer.verdict not in (ASK, DENY) and not _encodable(q):
        # A lone surrogate or bytes that are not UTF-8: the harness runs something other
        # than the text judged here (a replacement character, its own decoding).
        answer = Answer(ASK, f"{PREFIX}needs a human: the {q.kind} call holds text that is not valid UTF-8, "
                             f"so what runs may differ from what was judged; approve it only if you meant it")
    if answer.verdict == ASK and not can_ask:
        answer = Answer(DENY, answer.message)
    return answer


def _payload(stream: object) -> object:
    """The payload read as bytes, at most MAX_PAYLOAD_BYTES. Bytes that are not UTF-8 are
    kept as lone surrogates (surrogateescape), so the call is still judged, conservatively."""
    from handrail.hooks.budget import MAX_PAYLOAD_BYTES

    raw = stream.read(MAX_PAYLOAD_BYTES + 1)  # type: ignore[attr-defined]
    if len(raw) > MAX_PAYLOAD_BYTES:
        raise TooLarge(f"the payload is over {MAX_PAYLOAD_BYTES} bytes: refused before judging")
    try:
        try:
            return json.loads(raw)
        except UnicodeDecodeError:
            return json.loads(raw.decode("utf-8", "surrogateescape"))
    except RecursionError:
        raise BadPayload("the payload is nested too deeply") from None
    except ValueError as e:
        raise BadPayload(f"the payload is not JSON ({_ascii(str(e))[:200]})") from None


def _bounded(q: Question) -> None:
    """Refuse, before any parsing, a question too large to judge within the deadline."""
    from handrail.hooks.budget import MAX_COMMAND_BYTES, MAX_PATH_BYTES, too_large

    why = too_large("the command", q.command, MAX_COMMAND_BYTES) or too_large("the folder", q.cwd, MAX_PATH_BYTES)
    for n, path in enumerate(q.paths):
        why = why or too_large(f"path {n + 1}" if len(q.paths) > 1 else "the path", path, MAX_PATH_BYTES)
    for n, glob in enumerate(q.globs):
        why = why or too_large(f"glob {n + 1}", glob, MAX_PATH_BYTES)
    if why:
        raise TooLarge(why)


def _encodable(q: Question) -> bool:
    try:
        for text in (q.command, q.cwd, *q.paths, *q.globs):
            text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _why(e: BaseException) -> str:
    from handrail.errors import describe

    if isinstance(e, TooLarge):
        return str(e)
    if isinstance(e, BadPayload):
        return f"unreadable payload: {e}"
    return describe(e)[1]


def _one_line(text: str) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= 2000 else line[:1997] + "..."


def hook_specific(answer: Answer, event: str = "PreToolUse") -> tuple[str, int]:
    """The reply in Claude Code's shape, which Qwen Code and Copilot's VS Code hooks read too:
    `hookSpecificOutput.permissionDecision` with its reason, and a notice or a question also
    shown to the user as `systemMessage`. No opinion writes nothing: the harness's own rules decide."""
    decision = {ALLOW: "allow", NOTIFY: "allow", ASK: "ask", DENY: "deny"}.get(answer.verdict)
    if decision is None:
        return "", 0
    out: dict[str, object] = {"hookSpecificOutput": {"hookEventName": event, "permissionDecision": decision,
                                                     "permissionDecisionReason": answer.message}}
    if answer.verdict in (NOTIFY, ASK):
        out["systemMessage"] = answer.message
    return reason_json(out), 0


def reason_json(obj: dict[str, Any]) -> str:
    """One JSON object on one line, as every harness reads it; ASCII, so that a lone
    surrogate in a quoted command is escaped (`\\ud800`) instead of failing to print."""
    return json.dumps(obj, separators=(",", ":"))
