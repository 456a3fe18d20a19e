"""The line a harness's session-start hook adds while a reflection is pending.

Runs at the start of every agent session: reads one small JSON file and imports
nothing heavy (no pygit2, no yaml, no click).
"""

from __future__ import annotations

import os

from handrail.memory import store


def session_context(project: str) -> str | None:
    """One line for the agent when a reflection is pending; None otherwise (and on
    any problem: a session never fails because of this)."""
    try:
        data = store.load_manifest(project)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    targets = data.get("targets")
    if not isinstance(targets, list) or not targets or not all(isinstance(t, str) for t in targets):
        return None
    summary = data.get("diff_summary")
    why = f" ({summary})" if isinstance(summary, str) else ""
    return (f"handrail: the project's description is stale after recent commits{why}. Read {store.MANIFEST}, "
            f"update only its targets ({', '.join(os.path.basename(t) for t in targets)}) as its instructions say, "
            f"then run `handrail memory commit --output FILE`.")
