"""Fixtures for the git layer: a real repository with handrail's hooks, a bare remote.

`project` is a repository whose hooks run the installed handrail, with `.handrail/`
excluded so that a test commits policy files only when it means to (`git add -f`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the tests here import gitkit

from gitkit import Project
from helpers import HANDRAIL, git

from handrail import install_hooks


@pytest.fixture
def project(repo: Path) -> Project:
    install_hooks.install(str(repo / ".git" / "hooks"), str(repo))
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text(".handrail/\n")
    return Project(repo)


@pytest.fixture
def remote(tmp_path: Path, project: Project) -> Path:
    """A bare repository, added to `project` as `origin`."""
    path = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(path))
    project.git("remote", "add", "origin", str(path))
    return path


@pytest.fixture
def handrail_bin() -> str:
    assert HANDRAIL
    return HANDRAIL
