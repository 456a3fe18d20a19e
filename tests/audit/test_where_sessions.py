"""Where `handrail audit` looks for sessions when a client was told to keep them elsewhere:
CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_DATA_HOME and GEMINI_CLI_HOME, as each client reads them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from clientruns import gemini_home, laid
from helpers import run_handrail
from kit import scene, text

from handrail.audit import READERS
from handrail.audit import claude as claude_reader

MOVED = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "GEMINI_CLI_HOME")


def moved(harness: str, root: Path, home: Path, elsewhere: Path) -> tuple[str, Path]:
    """The harness's committed session, kept where its variable moves it; (the variable, the file)."""
    if harness == "claude":
        path = elsewhere / "projects" / claude_reader.slug(str(root)) / "s.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text(text("claude", "unguarded", root, home))
        return "CLAUDE_CONFIG_DIR", path
    if harness == "codex":
        path = elsewhere / "sessions" / "2026" / "12" / "02" / "rollout-2026-12-02T07-00-00-s.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text(text("codex", "unguarded", root, home))
        return "CODEX_HOME", path
    if harness == "gemini":
        laid("gemini", "plain", root, elsewhere)  # GEMINI_CLI_HOME stands for ~: ~/.gemini is below it
        (path,) = (elsewhere / ".gemini" / "tmp").glob("*/chats/session-*.jsonl")
        return "GEMINI_CLI_HOME", path
    laid("opencode", "plain", root, home)
    path = elsewhere / "opencode" / "opencode.db"
    path.parent.mkdir(parents=True)
    shutil.move(home / ".local" / "share" / "opencode" / "opencode.db", path)
    return "XDG_DATA_HOME", path


@pytest.mark.parametrize("harness", list(READERS))
def test_sessions_kept_where_the_clients_variable_says_are_found(tmp_path: Path, harness: str) -> None:
    root, home = scene(tmp_path)
    elsewhere = tmp_path / "kept-elsewhere"
    variable, path = moved(harness, root, home, elsewhere)
    env = {"HOME": str(home), **dict.fromkeys(MOVED, "")}
    r = run_handrail("audit", "--json", "--harness", harness, cwd=root, env={**env, variable: str(elsewhere)})
    assert r.returncode == 1, r.stderr
    (session,) = json.loads(r.stdout.strip().splitlines()[-1])["sessions"]
    assert session["file"].split("#")[0] == str(path) and session["findings"]
    # Without the variable, the default place holds nothing of this project's.
    r = run_handrail("audit", "--json", "--harness", harness, cwd=root, env=env)
    assert r.returncode == 0 and json.loads(r.stdout.strip().splitlines()[-1])["sessions"] == []


def test_the_finders_read_the_environment_they_are_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, home = scene(tmp_path)
    elsewhere = tmp_path / "gemini-home"
    gemini_home("", root, elsewhere)
    monkeypatch.setenv("GEMINI_CLI_HOME", str(elsewhere))  # the process's own is not the one asked about
    find = READERS["gemini"][0]
    assert find(str(root), str(home), {}) == []
    assert len(find(str(root), str(home), {"GEMINI_CLI_HOME": str(elsewhere)})) == 1
