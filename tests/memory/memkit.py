"""Helpers for the living-memory tests: a repository driven as a person or an agent
drives it, and updates written as an agent would write them."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

from helpers import git, run_handrail

NOW = "2026-02-01T00:00:00Z"        # the clock every command here reads (HANDRAIL_NOW)
LATER = "2026-02-01T06:00:00Z"      # a generated_at an agent would write
BOOT = ".handrail/context/bootstrap"
HOW, STATE, WHAT_IS, DOES = (f"{BOOT}/{n}" for n in ("how-it-works.md", "current-state.md", "what-is.md",
                                                      "what-it-does.md"))
MANIFEST = ".handrail/runtime/reflect-prompt.json"


class Mem:
    """A repository under test, driven as a person or an agent would drive it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, rel: str, content: str = "x\n") -> Path:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        return target

    def read(self, rel: str) -> str:
        return (self.path / rel).read_text(encoding="utf-8")

    def commit(self, files: dict[str, str], message: str = "change") -> str:
        for rel, content in files.items():
            self.write(rel, content)
        git(self.path, "add", "--", *files)
        git(self.path, "commit", "-q", "-m", message)
        return self.head()

    def head(self) -> str:
        return git(self.path, "rev-parse", "HEAD").stdout.strip()

    def hr(self, *args: str, input: str | None = None, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
        return run_handrail(*args, cwd=self.path, input=input, env=env)

    def prepare(self, *args: str, env: dict[str, str] | None = None) -> dict:
        r = self.hr("memory", "prepare", "--json", *args, env=env)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout.splitlines()[-1])

    def manifest(self) -> dict | None:
        path = self.path / MANIFEST
        return json.loads(path.read_text()) if path.exists() else None

    def update(self, files: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
        """`handrail memory commit --output FILE` with `{"files": files}`."""
        out = self.path.parent / "update.json"
        out.write_text(json.dumps({"files": files}), encoding="utf-8")
        return self.hr("memory", "commit", "--output", str(out), *args)

    def events(self, kind: str) -> list[dict]:
        db = self.path / ".handrail" / "runtime" / "events.sqlite"
        if not db.exists():
            return []
        with sqlite3.connect(db) as conn:
            rows = conn.execute("SELECT agent, message, payload_json FROM agent_events WHERE event_type = ? "
                                "ORDER BY id", (kind,)).fetchall()
        return [{"agent": a, "message": m, "payload": json.loads(p)} for a, m, p in rows]


def bumped(text: str, *, stamp: str = LATER, add: str = "Routes live in app/routes.py.\n") -> str:
    """`text` as an agent would update it: a later generated_at, and a line more."""
    assert f"generated_at: {NOW}" in text
    return text.replace(f"generated_at: {NOW}", f"generated_at: {stamp}") + add
