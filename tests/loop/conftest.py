"""Fixtures for the loop tests: a repository with one commit, driven by scripted agents."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the tests here import loopkit

from helpers import git
from loopkit import Loop


@pytest.fixture
def loop(repo: Path, tmp_path: Path) -> Loop:
    (repo / "README.md").write_text("scratch\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "init")
    outside = tmp_path / "outside"
    outside.mkdir()
    return Loop(repo, outside)
