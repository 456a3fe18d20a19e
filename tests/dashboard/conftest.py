"""Fixtures for the dashboard: a project with a task, and its dashboard served from a
thread of the test process (the command itself is tested as a process elsewhere)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the tests here import dashkit

from dashkit import Site
from helpers import run_handrail

from handrail.dashboard import server


@pytest.fixture
def project(repo: Path) -> Path:
    r = run_handrail("task", "new", "t1", cwd=repo)
    assert r.returncode == 0, r.stderr
    return repo


@pytest.fixture
def site(project: Path) -> Iterator[Site]:
    served = server.make(str(project), "127.0.0.1", 0, token="secret-token")
    thread = threading.Thread(target=served.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield Site(port=served.server_address[1], token="secret-token", project=project)
    finally:
        served.shutdown()
        served.server_close()
        thread.join()
