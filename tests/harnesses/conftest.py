"""Fixtures for the pre-tool hook tests: a guarded project."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the tests here import hookkit and modelserver

from hookkit import FUZZ_TRIED, HARNESSES, PARITY, make_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


def _fuzz_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """How many generated inputs the fail-closed fuzz tests fed each adapter."""
    if FUZZ_TRIED:
        tried = ", ".join(f"{name} {FUZZ_TRIED[name]}" for name in HARNESSES if FUZZ_TRIED[name])
        terminalreporter.write_line(f"fail-closed fuzz: {sum(FUZZ_TRIED.values())} inputs tried ({tried})")


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


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The fuzz counts, and the parity matrix harness x scenario."""
    _fuzz_summary(terminalreporter)
    if PARITY:
        for line in parity_matrix(PARITY):
            terminalreporter.write_line(line)
