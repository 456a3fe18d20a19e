"""Where handrail keeps what it replaced: `.handrail/backups/<stamp>/<part>/...`.

One folder per run, one name format for every writer (init, permissions and the
native merges, install-hooks, doctor --fix, living memory, autonomy envelopes):
`<stamp>` is the UTC second of handrail's clock (`YYYYMMDDTHHMMSSZ`), with `-2`,
`-3`, ... where that second's folder is taken. A folder is claimed by creating it
(`mkdir` fails when it exists), so two runs in the same second get two folders and
no run ever writes into another's backup. `<part>` says which writer filled it
(`init`, `permissions`, `hooks`, `bootstrap`, `agents/<name>`, `runtime`).

The folder ignores itself (`.gitignore` of `*`), so git never sees a backup, even
where `handrail init` never ran.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

BACKUPS = os.path.join(".handrail", "backups")
IGNORE = "# what handrail overwrote: local, never committed\n*\n"
NAME = re.compile(r"\d{8}T\d{6}Z(-[1-9]\d*)?")


def is_name(name: object) -> bool:
    """Whether `name` is a backup folder's name (a journal on disk must not steer a copy elsewhere)."""
    return isinstance(name, str) and NAME.fullmatch(name) is not None


def backups_root(project: str) -> str:
    """`.handrail/backups/` under `project`, created with its `.gitignore`. Written in
    place, not renamed: a kill can only leave it empty, and an empty one is written
    again here the next time."""
    root = os.path.join(project, BACKUPS)
    os.makedirs(root, exist_ok=True)
    ignore = os.path.join(root, ".gitignore")
    try:
        present = os.path.getsize(ignore) > 0
    except OSError:
        present = False
    if not present:
        with open(ignore, "w", encoding="utf-8") as f:
            f.write(IGNORE)
    return root


def claim_backup_dir(project: str) -> str:
    """A fresh backup folder, claimed by creating it: never one another run has."""
    from handrail.records import clock

    root = backups_root(project)
    stamp = clock.now().strftime("%Y%m%dT%H%M%SZ")
    n = 1
    while True:
        path = os.path.join(root, stamp if n == 1 else f"{stamp}-{n}")
        try:
            os.mkdir(path)
            return path
        except FileExistsError:
            n += 1


class Backup:
    """The backup folder of one run, claimed the first time something is backed up:
    every file the run replaces lands in that one folder, and a run that replaces
    nothing leaves no folder."""

    def __init__(self, project: str) -> None:
        self.project = project
        self.path: str | None = None

    def claim(self) -> str:
        if self.path is None:
            self.path = claim_backup_dir(self.project)
        return self.path

    def under(self, *parts: str) -> Callable[[], str]:
        """A folder of this run's backup, for `fsio.atomic_write(backup_dir=...)`:
        claimed only when the write has something to back up."""
        return lambda: os.path.join(self.claim(), *parts)

    def shown(self) -> str | None:
        """The claimed folder relative to the project, or None when nothing was backed up."""
        return None if self.path is None else os.path.relpath(self.path, self.project)
