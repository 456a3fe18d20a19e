"""One call of the agent: any program, run in the repository with the loop's variables,
its output streamed to the terminal and kept (head and tail, redacted) in agent.log.

The agent runs in its own process group with stdin closed, and is marked as an agent
(`HANDRAIL_AGENT`): a scripted agent cannot answer a prompt meant for a person, nor
pass for one when it calls `handrail gate approve`. What it leaves running in the
background is killed when it returns.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from typing import NamedTuple

from handrail.errors import HandrailError
from handrail.fsio import atomic_write
from handrail.loop import sandbox
from handrail.policy import loop as rules
from handrail.policy.agents import HANDRAIL_AGENT

KEEP_CHARS = 256_000


class AgentRun(NamedTuple):
    exit_code: int | None   # None: stopped at the runtime limit
    timed_out: bool
    chars: int
    tokens: int
    tokens_source: str      # "reported" (the agent's own figures) or "estimated"
    seconds: float


def check_command(argv: list[str], project: str) -> None:
    """The agent's program exists: a usage error now beats a failed attempt later."""
    if not argv:
        raise HandrailError("loop run needs the agent's command after `--`: handrail loop run TASK -- AGENT ARGS…",
                            reason="bad_arguments")
    program = argv[0]
    if os.sep in program:
        path = program if os.path.isabs(program) else os.path.join(project, program)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise HandrailError(f"agent command '{program}' is not an executable file", reason="bad_arguments")
    elif shutil.which(program) is None:
        raise HandrailError(f"agent command '{program}' is not on PATH", reason="bad_arguments")


def environment(argv: list[str], slug: str, attempt: int, feedback: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"HANDRAIL_TASK": slug, "HANDRAIL_ATTEMPT": str(attempt), "HANDRAIL_FEEDBACK": feedback})
    if not env.get(HANDRAIL_AGENT, "").strip():
        env[HANDRAIL_AGENT] = os.path.basename(argv[0]) or "agent"
    return env


def _echo(text: str) -> None:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except (OSError, ValueError):
        pass  # a closed terminal must not stop the loop's guards


def run(argv: list[str], *, project: str, env: dict[str, str], log: str, timeout: float | None,
        echo: Callable[[str], None] = _echo) -> AgentRun:
    reader = rules.UsageReader()
    partial = [""]

    def on_text(text: str) -> None:
        echo(text)
        lines = (partial[0] + text).split("\n")
        partial[0] = lines.pop()
        for line in lines:
            reader.feed(line)

    try:
        ran = sandbox.run(argv, cwd=project, env=env, timeout=timeout, on_text=on_text, keep=KEEP_CHARS)
    except OSError as e:
        raise HandrailError(f"agent command '{argv[0]}' could not start: {e.strerror or e}",
                            reason="bad_arguments") from None
    reader.feed(partial[0])
    reported = reader.total()
    tokens = reported if reported is not None else rules.estimate_tokens(ran.chars)
    said = "stopped at the runtime limit (process group killed)" if ran.timed_out else f"exit {ran.exit_code}"
    header = (f"$ {rules.redact(' '.join(argv))}\nresult: {said} in {ran.seconds:.2f} s\n"
              f"tokens: {tokens} ({'reported by the agent' if reported is not None else 'estimated: characters / 4'})\n"
              "--- output (head and tail kept, credentials redacted) ---\n")
    output = rules.redact(ran.output)
    atomic_write(log, header + output + ("" if output.endswith("\n") or not output else "\n"))
    source = "reported" if reported is not None else "estimated"
    return AgentRun(ran.exit_code, ran.timed_out, ran.chars, tokens, source, ran.seconds)
