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

