"""The files living memory keeps, and where: light enough for a session-start hook.

- `.handrail/runtime/reflect-prompt.json`: the manifest while a reflection is pending;
- `.handrail/runtime/memory-state.json`: the last commit `prepare` looked at;
- `.handrail/runtime/memory-txn/`, `memory-committed.json`, `memory.lock`: the write
  under way and the last one done (`handrail.memory.journal`);
- the four bootstrap files in `.handrail/context/bootstrap/` (or in
  `.aioson/context/bootstrap/` where a project already keeps them there).
"""

from __future__ import annotations

import json
import os

RUNTIME = os.path.join(".handrail", "runtime")
MANIFEST = os.path.join(RUNTIME, "reflect-prompt.json")
STATE = os.path.join(RUNTIME, "memory-state.json")
# The same folders as handrail.policy.memory.BOOTSTRAP_DIRS, repeated so that the
# session-start hook imports nothing else.
BOOTSTRAP_DIRS = (".handrail/context/bootstrap", ".aioson/context/bootstrap")


def bootstrap_dir(project: str) -> str:
    """The folder in use, relative to the project: handrail's own where it exists,
    else `.aioson/`'s where that exists, else handrail's (where `init` lays them)."""
    for rel in BOOTSTRAP_DIRS:
        if os.path.isdir(os.path.join(project, rel)):
            return rel
    return BOOTSTRAP_DIRS[0]


def has_bootstrap(project: str) -> bool:
    """Whether the project keeps a description at all (the post-commit hook's gate)."""
    return any(os.path.isdir(os.path.join(project, rel)) for rel in BOOTSTRAP_DIRS)


def manifest_path(project: str) -> str:
    return os.path.join(project, MANIFEST)


def read_json(path: str) -> object | None:
    """The JSON in `path`, or None when there is no such file. Raises ValueError or
    OSError for a file that is there and unreadable."""
    try:
        with open(path, encoding="utf-8") as f:
            data: object = json.load(f)
            return data
    except FileNotFoundError:
        return None


def load_manifest(project: str) -> object | None:
    return read_json(manifest_path(project))


def reflected_to(project: str) -> str | None:
    """The last commit `prepare` looked at, or None (never, or the state is unreadable)."""
    try:
        data = read_json(os.path.join(project, STATE))
    except (OSError, ValueError):
        return None
    value = data.get("reflected_to") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None
