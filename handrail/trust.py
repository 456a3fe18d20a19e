"""What a user must do before each harness runs the project's hooks, and whether the
client's own files show it done.

Most clients run a project's hooks only once a person has trusted the folder (Claude
Code's workspace dialog, Codex's `/hooks`, Copilot's `--trust-folder`, Gemini's folder
trust); until then handrail's pre-tool hook never runs and only the git hooks guard.
Each harness module says it: `TRUST`, one line, and `trust_state(project, home)`, True
or False where the client's files tell, None where they do not.
"""

from __future__ import annotations

import os
from typing import NamedTuple


class Trust(NamedTuple):
    tool: str
    must: str              # what the user must do, one line
    trusted: bool | None   # what the client's own files show; None: they do not say

    def as_dict(self) -> dict[str, object]:
        return {"tool": self.tool, "must": self.must, "trusted": self.trusted}


def of(tool: str, project: str, home: str | None = None) -> Trust | None:
    """`tool`'s trust step, or None for a harness that needs none."""
    from handrail import permissions

    module = permissions.harness(tool)
    must = getattr(module, "TRUST", None)
    if module is None or not must:
        return None
    state = getattr(module, "trust_state", None)
    trusted: bool | None = None
    if state is not None:
        try:
            trusted = state(os.path.realpath(project), home or os.path.expanduser("~"))
        except (OSError, ValueError):
            trusted = None  # a client file unreadable or malformed tells nothing
    return Trust(tool, str(must), trusted)


def all_of(tools: list[str], project: str, home: str | None = None) -> list[Trust]:
    return [t for t in (of(tool, project, home) for tool in tools) if t is not None]
