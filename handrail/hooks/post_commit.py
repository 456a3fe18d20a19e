"""`handrail hook post-commit`: after a commit, check whether the project's
description went stale (`handrail memory prepare`), where the project keeps one.

Best effort by design: the commit is already made, so nothing here may fail it,
block it or slow it. The installed git hook starts this detached; this command
itself also exits 0 whatever happens, with at most one line on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    try:
        from handrail.memory.prepare import hook_main
        from handrail.projectroot import find_root

        hook_main(find_root(".", {}))
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
