"""`handrail hook session-start [--harness NAME] [--project DIR]`: the context a
harness adds when an agent session starts. While a living-memory reflection is
pending, one line tells the agent to do it; otherwise nothing is printed.

Output per harness (stdout, exit 0):

- claude, codex, gemini, qwen: `{"hookSpecificOutput": {"hookEventName": "SessionStart",
  "additionalContext": "…"}}` (Claude Code's SessionStart contract, which Codex's
  hooks copy and Gemini CLI's SessionStart reads the same way);
- cursor: `{"additional_context": "…"}` (its sessionStart hook; field name partly
  unverified);
- text (and any other name): the line itself, for harnesses and wrappers that add
  a command's plain output to the context.

Without `--harness`, Claude Code's shape.

Never fails and never slows a start: no manifest, a broken one, or any error means
exit 0 with nothing printed. Imports nothing heavy. The project is the pinned
root of handrail/projectroot.py (searched from `--project`, else the current
folder). Standard input (the harness's event) is not read.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence

EVENT_SHAPED = frozenset({"claude", "codex", "gemini", "qwen"})
OPTIONS = {"--harness": True, "--project": True}
HELP = """
usage: handrail hook session-start [--harness NAME] [--project DIR]

The context a harness adds when an agent session starts.
While a living-memory reflection is pending, one line telling the agent to do it;
otherwise nothing.

Options:
  --harness NAME  the reply's shape (default: claude):
                    claude, codex, gemini, qwen: {"hookSpecificOutput": {"hookEventName":
                      "SessionStart", "additionalContext": "<line>"}}
                    cursor: {"additional_context": "<line>"}
                    text (or any other name): the line itself
  --project DIR   where to look for the project (default: the current folder)
  -h, --help      this text

Reads the project's living memory; standard input (the harness's event) is not read.
Environment: the project folder the harness names (CLAUDE_PROJECT_DIR, GEMINI_PROJECT_DIR,
QWEN_PROJECT_DIR, CURSOR_PROJECT_DIR).

Answers: the reply above on stdout, or nothing. A missing or broken manifest, a bad
option, any error: nothing printed. A session start never fails because of handrail.

Exit codes:
  0  always
"""


def render(harness: str, line: str) -> str:
    if harness in EVENT_SHAPED:
        return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": line}})
    if harness == "cursor":
        return json.dumps({"additional_context": line})
    return line


def main(argv: Sequence[str] | None = None) -> int:
    try:
        from handrail.hooks.argv import parse
        from handrail.memory.context import session_context

        opts, _ = parse(list(argv or []), OPTIONS)
        harness = str(opts.get("--harness") or "claude").lower()
        from handrail.projectroot import for_command

        given = opts.get("--project")
        project = for_command(str(given) if given else None, os.environ).path
        line = session_context(str(project))
        if line:
            sys.stdout.write(render(harness, line) + "\n")
    except BaseException:  # noqa: BLE001, S110 - a session start never fails because of handrail
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
