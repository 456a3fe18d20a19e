"""Fixtures for living memory: a repository with a first commit and the four
bootstrap files laid by `handrail memory init`, on a pinned clock."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the tests here import memkit

from helpers import git
from memkit import BOOT, NOW, Mem


@pytest.fixture(autouse=True)
def pinned_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pinned clock, and no harness telling session-start which project it is in."""
    monkeypatch.setenv("HANDRAIL_NOW", NOW)
    for key in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def bare(repo: Path) -> Mem:
    """A repository with one commit and no bootstrap files."""
    m = Mem(repo)
    m.commit({"README.md": "# demo\n"}, "first")
    return m


@pytest.fixture
def mem(bare: Mem) -> Mem:
    """A repository whose bootstrap files are laid and committed."""
    r = bare.hr("memory", "init")
    assert r.returncode == 0, r.stderr
    git(bare.path, "add", "-f", BOOT)
    git(bare.path, "commit", "-q", "-m", "describe the project")
    return bare


@pytest.fixture
def pending(mem: Mem) -> Mem:
    """A routes change, and the manifest `prepare` wrote for it."""
    mem.commit({"app/routes.py": "GET /users\n"}, "routes")
    assert mem.prepare()["written"]
    return mem
