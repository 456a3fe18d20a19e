"""The four bootstrap files: reading them as one snapshot, and laying empty ones."""

from __future__ import annotations

import os
from typing import NamedTuple

from handrail.errors import HandrailError
from handrail.memory import journal, store
from handrail.policy import memory as rules

INIT_COMMAND = "handrail memory init"

_SKELETON = {
    "what-is.md": ("What is this project", "One paragraph: what the project is, for whom, and why it exists."),
    "how-it-works.md": ("How it works", "The main parts, how a request or a run flows through them, where data lives."),
    "what-it-does.md": ("What it does", "What a user can rely on it for, one feature a line."),
    "current-state.md": ("Current state", "What works, what is in progress, what is known to be broken."),
}


class Snapshot(NamedTuple):
    folder: str                              # relative to the project
    contents: list[tuple[str, bytes | None]]  # (relative path, bytes or None when absent), fixed order

    @property
    def digest(self) -> str:
        return rules.snapshot_hash(self.contents)

    @property
    def missing(self) -> list[str]:
        return [p for p, data in self.contents if data is None]

    def texts(self) -> dict[str, str | None]:
        """Each file's text; a file that is not UTF-8 cannot be put before an agent."""
        out: dict[str, str | None] = {}
        for path, data in self.contents:
            try:
                out[path] = None if data is None else data.decode("utf-8")
            except UnicodeDecodeError as e:
                raise HandrailError(f"{path}: not UTF-8 text (byte {e.start}); fix or remove it, then run "
                                    f"`handrail memory prepare` again", reason="invalid_bootstrap") from None
        return out


def paths(folder: str) -> list[str]:
    return [f"{folder}/{name}" for name in rules.BOOTSTRAP_FILES]


def _read(project: str, rel: str) -> bytes | None:
    try:
        with open(os.path.join(project, rel), "rb") as f:
            return f.read()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except IsADirectoryError:
        raise HandrailError(f"{rel}: a folder where a bootstrap file belongs; move it away",
                            reason="invalid_bootstrap") from None


def snapshot(project: str, folder: str | None = None) -> Snapshot:
    folder = folder or store.bootstrap_dir(project)
    return Snapshot(folder, [(p, _read(project, p)) for p in paths(folder)])


def skeleton(name: str, now: str) -> str:
    title, hint = _SKELETON[name]
    return f"---\ntitle: {title}\ngenerated_at: {now}\n---\n\n# {title}\n\n<!-- {hint} -->\n"


def init(project: str, now: str) -> tuple[str, list[str], list[str]]:
    """Lay the missing bootstrap files, all or none; (folder, created, kept). Never overwrites."""
    if not os.path.isdir(project):
        raise HandrailError(f"{project}: no such folder", reason="bad_arguments")
    with journal.settled(project):
        folder = store.bootstrap_dir(project)
        created: dict[str, bytes] = {}
        kept = []
        for name, rel in zip(rules.BOOTSTRAP_FILES, paths(folder)):
            if os.path.lexists(os.path.join(project, rel)):
                kept.append(rel)
            else:
                created[rel] = skeleton(name, now).encode("utf-8")
        if created:
            journal.write(project, created)
    return folder, list(created), kept
