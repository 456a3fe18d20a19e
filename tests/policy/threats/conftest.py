"""The threat-model suite: each test file is one category of rows; one project and one
`handrail classify --batch` run per file."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from threatkit import (
    BASE,
    HOOKS,
    RESULTS,
    Answer,
    Project,
    classify_batch,
    make_project,
)


@pytest.fixture(scope="module")
def project() -> Iterator[Project]:
    BASE.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="threats-", dir=BASE))
    try:
        yield make_project(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def answers(request: pytest.FixtureRequest, project: Project) -> dict[str, Answer]:
    """The file's ROWS answered in one process."""
    return classify_batch(project, [command for command, _ in request.module.ROWS])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not RESULTS:
        return
    terminalreporter.section("handrail threat model")
    terminalreporter.write_line("category               destructive rows   benign rows          Claude Code hook")
    terminalreporter.write_line("                       as expected        as expected  run     asked (sample)")
    for category, (held, destructive, met, ran, benign) in sorted(RESULTS.items()):
        asked, sampled = HOOKS.get(category, (0, 0))
        hook = f"{asked:>6}/{sampled}" if sampled else "     -"
        harmful = f"{held:>9}/{destructive:<8}" if destructive else f"{'-':>9} {'':<8}"
        terminalreporter.write_line(f"{category:<22} {harmful} {met:>9}/{benign:<4}"
                                    f"{ran:>4}/{benign:<4} {hook}")
