"""Shared fixtures: real git repositories in tmp dirs, and handrail run as a process."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import git, run_handrail

from handrail.policy.agents import VARIABLES as AGENT_MARKERS
from handrail.projectroot import HARNESS_DIRS

PINNED_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}
# Variables that make a process look like an agent's; tests set them on purpose only.
AGENT_ENV = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED",
             "OPENCODE", "GEMINI_CLI", "CURSOR_AGENT", "CURSOR_TRACE_ID", "COPILOT_AGENT", "CLINE_ACTIVE",
             "AIDER", "HANDRAIL_AGENT", "HANDRAIL_TASK")
# ... and every variable handrail reads as an agent's marker (handrail/policy/agents.py).
AGENT_ENV += tuple(v for v in AGENT_MARKERS if v not in AGENT_ENV and not v.startswith("GIT_"))
# ... and the harnesses' project folders, which choose where the project root is searched from.
AGENT_ENV += tuple(name for name, _ in HARNESS_DIRS if name not in AGENT_ENV)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No GIT_* from an outer hook, no agent markers, a private cache and HOME."""
    for key in list(os.environ):
        if key.startswith("GIT_") or key in AGENT_ENV or key.startswith("PRE_COMMIT"):
            monkeypatch.delenv(key, raising=False)
    for key, value in PINNED_GIT_ENV.items():
        monkeypatch.setenv(key, value)
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    # The hooks' time budget is the subject of a few tests, which set their own; for the rest a
    # loaded machine (tests run in parallel) must not turn an answer into "took too long".
    monkeypatch.setenv("HANDRAIL_HOOK_DEADLINE_MS", "20000")
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n"
        "[protocol \"file\"]\n\tallow = always\n"
    )


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    """An empty git repository (branch main, no commits)."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    yield path


@pytest.fixture
def handrail():  # type: ignore[no-untyped-def]
    return run_handrail


# Suites that print counts at the end of the run (the threat model's table, the fuzz counts, the
# parity matrix) keep them in their kit module. Under pytest-xdist each worker fills its own: it
# hands them back when it finishes, the controlling process adds them up and prints the summary.
TALLIED = {"threatkit": None, "hookkit": Path(__file__).parent / "harnesses"}


def pytest_sessionfinish(session: pytest.Session) -> None:
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["tallies"] = {name: sys.modules[name].tallies() for name in TALLIED if name in sys.modules}


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: not called without it
def pytest_testnodedown(node: Any, error: object) -> None:
    for name, tallies in getattr(node, "workeroutput", {}).get("tallies", {}).items():
        _kit(name).add_tallies(tallies)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for name in TALLIED:
        if name in sys.modules:
            sys.modules[name].summary(terminalreporter)


def _kit(name: str) -> Any:
    folder = TALLIED[name]
    if folder is not None and str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return importlib.import_module(name)
