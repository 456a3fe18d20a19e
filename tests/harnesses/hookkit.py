"""Helpers for the pre-tool hook tests: a guarded project, the hooks run as harnesses
run them, and where the real clients are."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from helpers import HANDRAIL, git, prepared, run_handrail

from handrail.records import task_states

HARNESSES = ("claude", "codex", "gemini", "cursor", "copilot", "cline", "opencode", "qwen")
CONTRACT = {"allowed_files": ["src/**", "tests/**"], "forbidden_files": ["src/vendor/**"]}
FUZZ_TRIED: Counter[str] = Counter()  # generated inputs run per harness, reported at the end of the run
PARITY: dict[tuple[str, str], str] = {}  # (harness, scenario) -> the cell of the parity matrix
CLIENTS_DIR = os.path.join(os.path.expanduser("~"), ".cache", "handrail-clients")


def clients_bin() -> str:
    """Where the real clients are: HANDRAIL_CLIENTS_BIN, else the install-clients cache.

    Read at import time, before the tests isolate HOME."""
    given = os.environ.get("HANDRAIL_CLIENTS_BIN")
    if given:
        return given
    base = os.environ.get("HANDRAIL_CLIENTS_DIR") or CLIENTS_DIR
    return os.path.join(base, "node_modules", ".bin")


CLIENTS_BIN = clients_bin()
# aider is a Python program: scripts/install-clients gives it a virtualenv of its own.
AIDER = os.environ.get("HANDRAIL_AIDER") or os.path.join(
    os.environ.get("HANDRAIL_CLIENTS_DIR") or CLIENTS_DIR, "aider", "bin", "aider")


def client(name: str) -> str | None:
    """The real client's executable, or None."""
    path = AIDER if name == "aider" else os.path.join(CLIENTS_BIN, name)
    if os.access(path, os.X_OK):
        return path
    return shutil.which(name)


def needs_client(name: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(client(name) is None, reason=(
        f"the real `{name}` client is not installed: run scripts/install-clients "
        f"(or point HANDRAIL_CLIENTS_BIN at a folder holding it)"))


def make_project(path: Path) -> Path:
    """A git repository with task 'login' in implement, scoped to src/** and tests/**
    (never src/vendor/**), a committed src/app.py and an uncommitted .env."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    prepared(path, ("task", "new", "login"))
    task_states.set_phase(str(path), "login", "implement")  # a person's step (`task phase` needs a terminal)
    (path / ".handrail" / "tasks" / "login" / "harness-contract.json").write_text(json.dumps(CONTRACT))
    (path / "src").mkdir()
    (path / "src" / "app.py").write_text("print('old')\n")
    git(path, "add", "src/app.py")
    git(path, "commit", "-q", "--no-verify", "-m", "init")
    (path / ".env").write_text("DATABASE_PASSWORD=hunter2\n")
    return path


class Reply:
    """What a harness gets back from `handrail hook NAME`."""

    def __init__(self, r: subprocess.CompletedProcess[str]) -> None:
        self.code = r.returncode
        self.stdout = r.stdout
        self.stderr = r.stderr
        lines = r.stdout.strip().splitlines()
        self.json = json.loads(lines[-1]) if lines else None

    def __repr__(self) -> str:
        return f"Reply(code={self.code}, stdout={self.stdout!r}, stderr={self.stderr!r})"


def hook(name: str, payload: object, *, cwd: Path | str | None = None, raw: str | None = None,
         env: dict[str, str] | None = None, args: tuple[str, ...] = ()) -> Reply:
    """Run the installed console script as the harness does: JSON on stdin."""
    assert HANDRAIL
    text = raw if raw is not None else json.dumps(payload)
    r = subprocess.run([HANDRAIL, "hook", name, *args], input=text, text=True, capture_output=True, cwd=cwd,
                       env={**os.environ, **(env or {})}, timeout=60)
    assert "Traceback" not in r.stderr, r.stderr
    return Reply(r)


def events(project: Path) -> list[dict]:
    r = run_handrail("events", "--json", "--limit", "50", cwd=project)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in r.stdout.strip().splitlines()]


def tallies() -> dict[str, object]:
    """The fuzz counts and parity cells, as a test process hands them to the one that prints."""
    return {"fuzz": dict(FUZZ_TRIED), "parity": [[h, s, cell] for (h, s), cell in PARITY.items()]}


def add_tallies(given: dict[str, Any]) -> None:
    """Add another process's `tallies()` to this one's."""
    FUZZ_TRIED.update(given["fuzz"])
    PARITY.update({(h, s): cell for h, s, cell in given["parity"]})


def parity_matrix(cells: dict[tuple[str, str], str]) -> list[str]:
    """The parity suite's cells as a harness x scenario table, then each cell that is not ok."""
    harnesses = list(dict.fromkeys(h for h, _s in cells))
    scenarios = list(dict.fromkeys(s for _h, s in cells))
    width = max(len(h) for h in harnesses)
    mark = {"ok": "ok", "n/a": "n/a", "FAIL": "FAIL", "git": "git"}
    lines = ["parity matrix (harness x scenario):", f"{'':>{width}} | " + " | ".join(scenarios)]
    for h in harnesses:
        row = [mark.get(cells.get((h, s), "-").split(":")[0], "-").center(len(s)) for s in scenarios]
        lines.append(f"{h:>{width}} | " + " | ".join(row))
    lines += [f"  {h} {s}: {c}" for (h, s), c in cells.items() if c != "ok"]
    return lines


def summary(terminalreporter: pytest.TerminalReporter) -> None:
    """How many generated inputs the fail-closed fuzz tests fed each adapter, and the parity
    matrix harness x scenario."""
    if FUZZ_TRIED:
        tried = ", ".join(f"{name} {FUZZ_TRIED[name]}" for name in HARNESSES if FUZZ_TRIED[name])
        terminalreporter.write_line(f"fail-closed fuzz: {sum(FUZZ_TRIED.values())} inputs tried ({tried})")
    if PARITY:
        for line in parity_matrix(PARITY):
            terminalreporter.write_line(line)
