"""Helpers for the loop tests: a committed repository, a task with a contract, and
scripted agents that count their calls in a file outside the repository."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from helpers import git, run_handrail

from handrail.records import task_states


class Loop:
    """A repository under test, with one task (`t`) the loop runs on."""

    def __init__(self, path: Path, outside: Path) -> None:
        self.path = path
        self.outside = outside  # agents and their call counters live here, not in the work tree
        self.calls = outside / "calls.log"

    def write(self, rel: str, content: str = "x\n") -> Path:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
        return target

    def commit(self, *paths: str, message: str = "change") -> None:
        git(self.path, "add", "-f", "--", *paths)
        git(self.path, "commit", "-q", "-m", message)

    def task(self, contract: dict | None, slug: str = "t", phase: str = "implement") -> None:
        task_states.new_task(str(self.path), slug, phase=phase)
        if contract is not None:
            self.contract(contract, slug)

    def contract(self, contract: dict, slug: str = "t") -> Path:
        path = self.task_dir(slug) / "harness-contract.json"
        path.write_text(json.dumps(contract, indent=2))
        return path

    def task_dir(self, slug: str = "t") -> Path:
        return self.path / ".handrail" / "tasks" / slug

    def agent(self, body: str, name: str = "agent.py") -> str:
        """A python agent script; every call is counted before `body` runs.

        `body` sees `attempt` (HANDRAIL_ATTEMPT as an int), `write(rel, text)` and `remove(rel)`.
        """
        script = self.outside / name
        script.write_text(
            f"#!{sys.executable}\n"
            "import os, pathlib, shutil, sys\n"
            f"with open({str(self.calls)!r}, 'a') as f:\n"
            "    f.write(os.environ['HANDRAIL_ATTEMPT'] + '\\n')\n"
            "attempt = int(os.environ['HANDRAIL_ATTEMPT'])\n"
            "def write(rel, text='x\\n'):\n"
            "    p = pathlib.Path(rel); p.parent.mkdir(parents=True, exist_ok=True); p.write_text(text)\n"
            "def remove(rel):\n"
            "    p = pathlib.Path(rel)\n"
            "    shutil.rmtree(p) if p.is_dir() else p.unlink(missing_ok=True)\n"
            + textwrap.dedent(body)
        )
        script.chmod(0o755)
        return str(script)

    def call_count(self) -> int:
        return len(self.calls.read_text().split()) if self.calls.exists() else 0

    def handrail(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return run_handrail(*args, cwd=self.path, env=env)

    def run(self, agent: str, *extra: str, slug: str = "t", env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
        return self.handrail("loop", "run", slug, *extra, "--", agent, env=env)

    def progress_file(self, slug: str = "t") -> Path:
        return self.task_dir(slug) / "progress.json"

    def progress(self, slug: str = "t") -> dict:
        return json.loads(self.progress_file(slug).read_text())

    def attempt_dir(self, n: int, slug: str = "t") -> Path:
        return self.task_dir(slug) / "attempts" / str(n)

    def events(self) -> list[tuple[str, str | None, dict]]:
        db = self.path / ".handrail" / "runtime" / "events.sqlite"
        if not db.exists():
            return []
        rows = sqlite3.connect(db).execute("SELECT event_type, topic, payload_json FROM agent_events ORDER BY id")
        return [(kind, topic, json.loads(payload)) for kind, topic, payload in rows]

    def event_types(self) -> list[str]:
        return [kind for kind, _topic, _payload in self.events()]


def processes_with(marker: str) -> list[int]:
    """Live processes whose command line carries `marker` (zombies have none)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found
