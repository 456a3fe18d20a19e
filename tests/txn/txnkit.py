"""One multi-file write of handrail/txn.py in a process of its own, SIGKILLed at the Nth
call of one os function (tests/memory/killpoint.py's way), and what the tests compare.

    HANDRAIL_TEST_KILL_AT=replace:3 python txnkit.py PROJECT
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from handrail import txn
from handrail.backups import Backup

ALLOWED = frozenset({"a.txt", "sub/b.txt", "run.sh", "gone.txt"})
# The files before the write: (content, executable); None where there is none.
OLD = {"a.txt": ("old a\n", False), "sub/b.txt": None, "run.sh": ("#!/bin/sh\necho old\n", False),
       "gone.txt": ("bye\n", False)}
NEW = {"a.txt": ("new a\n", False), "sub/b.txt": ("new b\n", False), "run.sh": ("#!/bin/sh\necho new\n", True),
       "gone.txt": None}
CHANGES = [txn.Change("a.txt", b"new a\n"), txn.Change("sub/b.txt", b"new b\n"),
           txn.Change("run.sh", b"#!/bin/sh\necho new\n", 0o755), txn.Change("gone.txt", None)]


def area(undo_foreign: bool = True) -> txn.Area:
    return txn.Area("test", ALLOWED.__contains__, "test write", undo_foreign=undo_foreign)


def lay_old(project: Path) -> None:
    project.mkdir(parents=True)
    for rel, state in OLD.items():
        if state is not None:
            (project / rel).write_text(state[0])
            (project / rel).chmod(0o644)


def state(project: Path) -> dict[str, tuple[str, bool] | None]:
    out: dict[str, tuple[str, bool] | None] = {}
    for rel in OLD:
        p = project / rel
        out[rel] = (p.read_text(), os.access(p, os.X_OK)) if p.exists() else None
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent.parent / "memory"))
    from killpoint import arm

    arm(os.environ["HANDRAIL_TEST_KILL_AT"])
    project = sys.argv[1]
    txn.write(project, area(), CHANGES, backup=Backup(project), backup_as=lambda rel: f"test/{rel}")
