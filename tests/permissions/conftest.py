"""Fixtures for the native-file tests: a repository with permkit's small protocol."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the tests here import permkit

from permkit import write_protocol


@pytest.fixture
def project(repo: Path) -> Path:
    """A repository with the small protocol of permkit (every harness listed)."""
    write_protocol(repo)
    return repo
