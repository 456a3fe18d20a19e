"""`handrail classify`: which tier is a shell command in?

    handrail classify [--json] [--tool NAME] [--project P] [--protocol PATH] [--agent A] COMMAND
    handrail classify --batch FILE|- [--tool NAME] [--project P] [--protocol PATH]

Exit 0 when it may run without a human (tier 1 or 2), 1 when it needs a human
(tier 3) or is unlisted, 2 on error. With --json the last line of stdout is one JSON
object: command, tier (1/2/3 or null), decision (allow/notify/ask/unlisted), reasons
(each names the part of the command, the pattern or the rule, and its source).
--batch reads JSON Lines (`{"command": "..."}` a line) and writes one answer a line,
in order; its exit code is the worst of its answers (2 when a line was bad).
With --project, tier-2 and tier-3 answers are recorded in the event log.
One COMMAND is answered within the deadline of hooks/budget.py (past it: exit 2, the
error `too_slow`), and a COMMAND over 128 KiB is refused before it is parsed.
The acting agent (`policy.agents.acting`: --agent, else the environment's markers) answers to its autonomy envelope:
`needsFullSupervision` on `shell` makes even a tier-1 command ask a human (exit 1).
"""

from __future__ import annotations

import json
import os
import sys

from handrail.errors import EXIT_DENIED, EXIT_ERROR, EXIT_OK, HandrailError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

USAGE = ("usage: handrail classify [--json] [--tool NAME] [--project P] [--protocol PATH] [--agent A] COMMAND\n"
         "       handrail classify --batch FILE|- [--tool NAME] [--project P] [--protocol PATH]")
OPTIONS = {"--json": False, "--tool": True, "--project": True, "--protocol": True, "--batch": True, "--agent": True}
HELP = """
usage: handrail classify [--json] [--tool NAME] [--project P] [--protocol PATH] [--agent A] COMMAND
       handrail classify --batch FILE|- [--tool NAME] [--project P] [--protocol PATH]

Which tier is a shell command in: 1 (runs silently), 2 (runs, with a notice), 3 (needs a
human), or none (unlisted: the harness's own default applies; in guarded mode, it asks)?
COMMAND is the rest of the line (words are joined with spaces); `--` ends the options.

Options:
  --json           the answer as one JSON object, the last line of stdout: {"command",
                   "tier": 1|2|3|null, "decision": "allow"|"notify"|"ask"|"unlisted",
                   "reasons": [{"part", "tier", "rule" or "pattern", "source", ...}],
                   "effects": [...]}
  --tool NAME      judge as the protocol's tools.NAME sees it (its tool sets and mode)
  --project P      where to look for the project (default: the current folder); with it,
                   tier-2 and tier-3 answers are recorded in the event log
  --protocol PATH  read this protocol file instead of the project's
  --batch FILE|-   JSON Lines in ({"command": "..."} a line, - for stdin), one JSON answer
                   a line out, in order; a bad line answers {"decision": "error", ...}
  --agent A        the acting agent: an envelope that puts `shell` under full
                   supervision makes even tier 1 ask a human (default: HANDRAIL_AGENT
                   or AI_AGENT, else the harness its markers show: CLAUDECODE=1 is claude)
  -h, --help       this text

Environment: HANDRAIL_AGENT and the harnesses' markers (see --agent); HANDRAIL_HOOK_DEADLINE_MS, the time one COMMAND
is answered in (default 2000 ms, at most 20000; past it: exit 2, the error too_slow).
A COMMAND over 128 KiB is refused before it is parsed.

Answers: "tier N (decision): why" on stdout, one line per part after it. Errors:
"handrail classify: error: ..." on stderr and, with --json, {"decision": "error",
"reason": R, "error": ...} where R names the kind: bad_arguments, invalid_policy, internal_error, too_slow, ...

Exit codes:
  0  it may run without a human (tier 1 or 2)
  1  it needs a human (tier 3), or no tier lists it
  2  error; with --batch, the worst answer's code (2 when a line was bad)
"""


def main(argv: list[str]) -> int:
    from handrail.hooks.argv import peek

    seen = peek(argv, OPTIONS, "--json", "--batch")
    as_json = "--json" in seen
    if "--batch" in seen:
        return _main(argv, as_json)  # a transcript of thousands of lines: its own pace
    from handrail.hooks import budget

    def refusal(why: str) -> tuple[str, str, int]:
        out = json.dumps({"command": None, "tier": None, "decision": "error", "reasons": [], "reason": "too_slow",
                          "error": why}) if as_json else ""
        return out, f"handrail classify: error: {why}", EXIT_ERROR

    return budget.run(lambda: _main(argv, as_json), refusal, "classify")


def _main(argv: list[str], as_json: bool) -> int:
    try:
        from handrail.hooks.argv import parse

        opts, args = parse(argv, OPTIONS, max_positionals=1 << 16)
        batch = opts.get("--batch")
        if batch is None and not args:
            raise HandrailError("a COMMAND to classify is missing", reason="bad_arguments")
        if batch is not None and args:
            raise HandrailError(f"unexpected argument '{args[0]}' with --batch", reason="bad_arguments")
        given = opts.get("--project")
        cwd = os.getcwd()
        from handrail.projectroot import for_command

        # --project (else the current folder) is where the search starts; the root is pinned.
        project = for_command(str(given) if given is not None else None, os.environ, cwd=cwd).path
        from handrail.policy import protocol as protocols
        from handrail.policy.shell import engine as commands
        from handrail.policy.shell.rules import home_dir

        proto = protocols.load(project, opts.get("--protocol"))  # type: ignore[arg-type]
        eng = commands.engine(proto, opts.get("--tool"))  # type: ignore[arg-type]
        home = home_dir()
        if batch is not None:
            try:
                return run_batch(str(batch), eng, cwd=cwd, project=project, home=home)
            except BrokenPipeError:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                return EXIT_ERROR
        from handrail.hooks.budget import MAX_COMMAND_BYTES, too_large

        command = " ".join(args)
        why = too_large("the command", command, MAX_COMMAND_BYTES)
        if why:
            raise HandrailError(why, reason="bad_arguments")
        answer = commands.classify(command, eng, cwd=cwd, project=project, home=home, effects=as_json)
        from handrail.policy.agents import acting

        agent = acting(os.environ, given=opts.get("--agent"))  # type: ignore[arg-type]
        if agent and answer["tier"] in (1, 2):
            answer = _apply_envelope(project, str(agent), answer)
        out = _json(answer) if as_json else _text(answer)
    except Exception as e:  # noqa: BLE001 - a pre-tool check must never crash open
        return _error(e, as_json)
    if given is not None and (answer["tier"] in (2, 3) or "envelope" in answer):
        _record(project, answer, opts.get("--tool"))  # type: ignore[arg-type]  # best effort: never changes the answer
    _emit(out)
    return EXIT_OK if answer["decision"] in ("allow", "notify") else EXIT_DENIED


def _apply_envelope(project: str, agent: str, answer: dict[str, Any]) -> dict[str, Any]:
    """An agent whose envelope puts `shell` under full supervision asks a human even
    for tier 1 and 2. A broken envelope raises: the caller answers with an error."""
    from handrail.records.envelope_states import decide_for

    decision = decide_for(project, agent, "shell", tier=answer["tier"])
    if decision.verdict == "allow":
        return answer
    reason = {"part": answer["command"], "tier": answer["tier"], "reason": "envelope", "rule": decision.reason,
              "why": decision.message, "source": decision.message.split(" ", 1)[0]}
    return {**answer, "decision": "ask", "envelope": decision.as_dict(), "reasons": [reason, *answer["reasons"]]}


def _json(answer: dict[str, Any]) -> str:
    """The answer as one JSON line; escaped to ASCII when it quotes a lone surrogate."""
    text = json.dumps(answer, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(answer)
    return text


def _emit(text: str) -> None:
    """Print; a reader that went away early (`| head`) is no error, and the exit code still answers."""
    try:
        try:
            print(text)
        except UnicodeEncodeError:  # a lone surrogate from an argument that is not UTF-8
            print(text.encode("ascii", "backslashreplace").decode("ascii"))
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def run_batch(source: str, eng: object, *, cwd: str, project: str, home: str) -> int:
    """Answer every line of a JSON Lines file, in order; the exit code is the worst answer's."""
    if source == "-":
        lines = sys.stdin.readlines()
    else:
        try:
            with open(source, encoding="utf-8") as f:
                lines = f.readlines()
        except OSError as e:
            raise HandrailError(f"{source}: cannot read: {e.strerror}", reason="bad_arguments") from None
    where = source if source != "-" else "stdin"
    args = (eng, cwd, project, home, where)
    workers = min(os.cpu_count() or 1, 4)
    if len(lines) < PARALLEL_FROM or workers < 2 or not hasattr(os, "fork"):
        return _answer_lines(lines, 0, sys.stdout, *args)
    return _parallel(lines, workers, args)


PARALLEL_FROM = 4000


def _parallel(lines: list[str], workers: int, args: tuple[Any, ...]) -> int:
    """Split a large batch over the processors: each child answers one slice into a temporary file,
    the parent answers the first and then prints the slices in order."""
    import tempfile

    size = -(-len(lines) // workers)
    children: list[tuple[int, str]] = []
    for k in range(1, workers):
        start = k * size
        if start >= len(lines):
            break
        fd, path = tempfile.mkstemp(prefix="handrail-batch-")
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = EXIT_ERROR
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    code = _answer_lines(lines[start : start + size], start, out, *args)
            finally:
                os._exit(code)
        os.close(fd)
        children.append((pid, path))
    worst = _answer_lines(lines[:size], 0, sys.stdout, *args)
    try:
        for pid, path in children:
            _, status = os.waitpid(pid, 0)
            code = os.waitstatus_to_exitcode(status)
            if code not in (EXIT_OK, EXIT_DENIED, EXIT_ERROR):
                raise HandrailError(f"a batch worker failed (exit {code})", reason="internal_error")
            sys.stdout.flush()
            with open(path, encoding="utf-8") as f:
                sys.stdout.write(f.read())
            worst = max(worst, code)
    finally:
        for _, path in children:
            try:
                os.unlink(path)
            except OSError:
                pass
    return worst


def _answer_lines(lines: list[str], offset: int, out: object, eng: object, cwd: str, project: str, home: str,
                  where: str) -> int:
    from handrail.policy.shell import engine as commands

    worst = EXIT_OK
    fast = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode
    safe = json.JSONEncoder(check_circular=False).encode

    def dumps(answer: object) -> str:
        # a command quoting a lone surrogate cannot be written as UTF-8: escape that line
        text = fast(answer)
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return safe(answer)
        return text

    loads = json.loads
    classify = commands.classify
    buf: list[str] = []
    # Transcripts repeat themselves (`git status`, `npm test`): each distinct command is answered once.
    seen: dict[str, tuple[str, bool]] = {}
    for n, line in enumerate(lines, offset + 1):
        if not line.strip():
            continue
        try:
            item = loads(line)
            command = item.get("command") if isinstance(item, dict) else None
            if not isinstance(command, str):
                raise ValueError('expected an object with a string "command"')
            done = seen.get(command)
            if done is None:
                answer = classify(command, eng, cwd=cwd, project=project, home=home)  # type: ignore[arg-type]
                done = (dumps(answer), answer["tier"] in (1, 2))
                if len(seen) < 100_000:
                    seen[command] = done
        except ValueError as e:
            done = (dumps({"command": None, "tier": None, "decision": "error", "reasons": [],
                           "error": f"{where}: line {n}: {e}"}), False)
            worst = EXIT_ERROR
        if not done[1] and worst == EXIT_OK:
            worst = EXIT_DENIED
        buf.append(done[0])
        if len(buf) >= 512:
            out.write("\n".join(buf) + "\n")  # type: ignore[attr-defined]
            buf = []
    if buf:
        out.write("\n".join(buf) + "\n")  # type: ignore[attr-defined]
    return worst


def _text(answer: dict[str, Any]) -> str:
    from handrail.policy.shell.engine import describe, summary

    if "envelope" in answer:
        return f"tier {answer['tier']} (ask): needs a human: {answer['envelope']['message']}"
    lines = [f"tier {answer['tier'] or '-'} ({answer['decision']}): {summary(answer)}"]
    for r in answer["reasons"][1:]:
        lines.append(f"  tier {r.get('tier') or '-'}: {describe(r)}")
    if answer["tier"] == 3:
        lines.append("  a human must run it, or approve it where the harness asks")
    elif answer["tier"] is None:
        lines.append("  no tier lists it: the harness's own default applies (in guarded mode, it asks)")
    return "\n".join(lines)


def _record(project: str, answer: dict[str, Any], tool: str | None) -> None:
    from handrail.policy.shell.engine import summary
    from handrail.records.events import record

    event = "command_blocked" if answer["decision"] == "ask" else "command_notified"
    payload = {"command": answer["command"], "tier": answer["tier"], "decision": answer["decision"],
               "reasons": answer["reasons"], "tool": tool}
    record(project, event, topic="classify", message=summary(answer), payload=payload)


def _error(e: Exception, as_json: bool) -> int:
    from handrail.errors import describe, outcome

    reason, message = describe(e)
    _code, line = outcome(e, "classify")
    text = line or f"handrail classify: error: {message}"
    try:
        print(text, file=sys.stderr)
    except UnicodeEncodeError:
        print(text.encode("ascii", "backslashreplace").decode(), file=sys.stderr)
    if reason == "bad_arguments":
        print(USAGE, file=sys.stderr)
    if as_json:
        print(json.dumps({"command": None, "tier": None, "decision": "error", "reasons": [], "reason": reason,
                          "error": message}))
    # The hot path answers 0, 1 or 2 (its documented contract): any error is 2, and never
    # allows, whatever code the same error gives a CLI command (an unusable envelope's 3).
    return EXIT_ERROR
