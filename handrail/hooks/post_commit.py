"""`handrail hook post-commit`: after a commit, check whether the project's
description went stale (`handrail memory prepare`), where the project keeps one.

Best effort by design: the commit is already made, so nothing here may fail it,
block it or slow it. The installed git hook starts this detached; this command
itself also exits 0 whatever happens, with at most one line on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

OPTIONS: dict[str, bool] = {}  # none: any argument is ignored
HELP = """
usage: handrail hook post-commit

git's post-commit hook: has living memory's description of the project gone stale?
Checked where the project keeps one, as `handrail memory prepare` does.

Reads the commit just made and the project's living memory; no arguments, no stdin.

Answers: nothing on stdout; at most one line on stderr, "handrail: post-commit: living
memory not checked: ...". The commit is already made: nothing here fails it or blocks it
(the installed git hook runs this detached).

Exit codes:
  0  always
"""


def main(argv: Sequence[str] | None = None) -> int:
    try:
        from handrail.memory.prepare import hook_main
        from handrail.projectroot import for_command

        hook_main(for_command(None, {}).path)
    except BaseException as e:  # noqa: BLE001 - never fail a commit that is already made
        if isinstance(e, SystemExit):
            return 0
        why = " ".join(str(e).split()) or type(e).__name__
        try:
            print(f"handrail: post-commit: living memory not checked: {why}", file=sys.stderr)
        except Exception:  # noqa: BLE001, S110 - stderr may be gone
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
