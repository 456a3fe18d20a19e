"""Fixtures for `handrail ci`: a repository whose base branch is on a bare remote."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the tests here import cikit and outkit

from cikit import CONTRACT, TASK, Repo
from helpers import git
from outkit import Branches, make_branches


@pytest.fixture
def project(repo: Path, tmp_path: Path) -> Repo:
    remote = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    r = Repo(repo, remote)
    r.commit("set up the login task", files={
        ".handrail/tasks/login/task.json": json.dumps(TASK),
        ".handrail/tasks/login/harness-contract.json": json.dumps(CONTRACT),
        "README.md": "login\n",
    })
    r.git("remote", "add", "origin", str(remote))
    r.git("push", "-q", "origin", "main")
    r.git("switch", "-q", "-c", "feature")
    return r


@pytest.fixture
def branches(repo: Path) -> Branches:
    """A guarded repository (`handrail init`): a base, an agent's branch with findings, a human's clean one."""
    return make_branches(repo)
