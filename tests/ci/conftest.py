"""The ci tests import their kit (cikit: reports shaped as `handrail ci` prints them,
and repositories to run it on)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from cikit import Branches, make_branches


@pytest.fixture
def branches(repo: Path) -> Branches:
    """A guarded repository: a base, an agent's branch with findings, a human's clean one."""
    return make_branches(repo)
