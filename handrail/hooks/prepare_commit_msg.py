"""`handrail hook prepare-commit-msg FILE [SOURCE [COMMIT]]`: an agent's commit says so.

When an agent's markers are in the environment (policy/agents.py decides), the
message git is preparing gets the trailer `Handrail-Agent: <agent> (<marker>=<value>)`,
which pre-push and CI read to judge the commit by who made it (policy/authorship.py).
A human's commit is left as it is, and a message that already carries the same
trailer (`--amend`, a rebase of the agent's own commits) is not touched twice.

Why prepare-commit-msg and not commit-msg: `git commit --no-verify` skips commit-msg
(and pre-commit) but never prepare-commit-msg, and prepare-commit-msg runs for
`commit -m`, `-F`, `--amend`, merges, squashes, cherry-picks, reverts and rebases.
`git am` runs neither: handrail's applypatch-msg hook calls this same command with
the patch's message file.

The trailer is written by `git interpret-trailers`, so it lands in the trailer block
git itself would use, above any comment lines or a `--verbose` diff.

Exit 0: the commit goes on. Exit 1: the agent's trailer could not be written, and the
commit is refused rather than made without it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence

from handrail.errors import EXIT_DENIED, EXIT_OK

ACTION = "commit"
OPTIONS: dict[str, bool] = {}  # none: FILE, SOURCE and COMMIT are positional, as git passes them
HELP = """
usage: handrail hook prepare-commit-msg FILE [SOURCE [COMMIT]]

git's prepare-commit-msg hook (and handrail's applypatch-msg): an agent's commit says so.

Reads the environment for an agent's markers (HANDRAIL_AGENT, CLAUDECODE, CODEX_*,
OPENCODE, GEMINI_CLI, CURSOR_AGENT, COPILOT_AGENT, ...) and FILE, the message git is
preparing; SOURCE and COMMIT are accepted as git passes them and not read.

Answers: an agent's commit gets the trailer "Handrail-Agent: <agent> (<marker>=<value>)"
written into FILE by `git interpret-trailers` (once: a message that has it is left as it
is); a human's commit is left alone. Nothing on stdout; a refusal is one line on stderr,
"handrail: commit refused: ...".

Exit codes:
  0  the commit goes on (a human's commit: always)
  1  an agent's commit whose trailer could not be written (or no FILE given): refused
"""


def main(argv: Sequence[str] | None = None) -> int:
    from handrail.policy import agents

    args = list(argv or [])
    agent = agents.detect(os.environ)
    if agent is None:
        return EXIT_OK
    if not args or len(args) > 3:
        _say("usage: handrail hook prepare-commit-msg FILE [SOURCE [COMMIT]]")
        return EXIT_DENIED
    from handrail.policy.authorship import TRAILER, trailer_value

    value = " ".join(trailer_value(agent).split())[:200]
    try:
        result = subprocess.run(
            ["git", "interpret-trailers", "--in-place", "--where", "end", "--if-exists", "addIfDifferent",
             "--trailer", f"{TRAILER}: {value}", args[0]],
            capture_output=True, text=True, check=False)
    except OSError as e:
        _say(f"cannot record the agent's trailer in {args[0]}: {e}")
        return EXIT_DENIED
    if result.returncode != 0:
        _say(f"cannot record the agent's trailer in {args[0]}: {' '.join(result.stderr.split())}")
        return EXIT_DENIED
    return EXIT_OK


def _say(why: str) -> None:
    try:
        print(f"handrail: {ACTION} refused: {why}", file=sys.stderr)
    except Exception:  # noqa: BLE001, S110 - stderr may be gone; the exit code still refuses
        pass


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
