"""Fixtures for the pre-tool hook tests: a guarded project."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the tests here import hookkit and anthropic_stub

from hookkit import FUZZ_TRIED, HARNESSES, make_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """How many generated inputs the fail-closed fuzz tests fed each adapter."""
    if FUZZ_TRIED:
        tried = ", ".join(f"{name} {FUZZ_TRIED[name]}" for name in HARNESSES if FUZZ_TRIED[name])
        terminalreporter.write_line(f"fail-closed fuzz: {sum(FUZZ_TRIED.values())} inputs tried ({tried})")
