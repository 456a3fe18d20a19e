"""A small protocol, easy to reason about, files read back, and the real clients."""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path

import pytest

TOOL = {"mode": "guarded", "derived_from_tiers": ["tier1_silent", "tier2_notified"]}
SMALL = {
    "version": "1.1",
    "global_mode": "trusted",
    "tiers": {
        "tier1_silent": {"shell_patterns": ["git status *", "ls *", "git"], "handrail_commands": ["doctor"]},
        "tier2_notified": {"shell_patterns": ["git commit *", "git push *", "sed -i *"]},
        "tier3_blocking": {"shell_patterns": ["git push --force *", "rm -rf /"], "decision": "ask"},
    },
    "tools": {name: dict(TOOL) for name in ("claude", "codex", "opencode", "gemini", "cursor", "copilot", "cline")},
}


def small(**changes: object) -> dict:
    data = copy.deepcopy(SMALL)
    data.update(changes)
    return data


def write_protocol(repo: Path, data: dict | None = None) -> Path:
    path = repo / ".handrail" / "autonomy-protocol.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data if data is not None else SMALL, indent=2) + "\n", encoding="utf-8")
    return path


def tier(data: dict, name: str) -> list[str]:
    return data["tiers"][name]["shell_patterns"]


def read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def client(name: str) -> str:
    """The real client binary, or skip with the reason: `HANDRAIL_CLIENTS_BIN` (default
    the shared cache folder), then PATH."""
    folder = os.environ.get("HANDRAIL_CLIENTS_BIN", "/root/.cache/handrail-clients/node_modules/.bin")
    found = shutil.which(name, path=folder) or shutil.which(name)
    if found is None:
        pytest.skip(f"the real `{name}` client is not installed (looked in $HANDRAIL_CLIENTS_BIN={folder} and "
                    f"PATH); install it with `npm install` in that folder to run this test")
    return found
