"""Claude Code's native files: Bash rules in forms the client reads as meant, and the trust
state read from the client's own file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from handrail.harnesses import claude


@pytest.mark.parametrize("pattern", ["git push * :*", "npm run deploy:*", "rm -rf ?*", "ls [ab]*", "echo \\*"])
def test_a_pattern_claude_would_read_otherwise_is_left_to_the_hook(pattern: str) -> None:
    assert claude.bash_rule(pattern) is None


@pytest.mark.parametrize("pattern", ["git push *", "git push * +*", "heroku apps:destroy *", "rm -rf /"])
def test_a_pattern_claude_reads_as_meant_is_written(pattern: str) -> None:
    assert claude.bash_rule(pattern) == f"Bash({pattern})"


def _state(home: Path, projects: object) -> None:
    (home / ".claude.json").write_text(json.dumps({"projects": projects}))


def test_trust_is_read_for_the_folder_or_one_above_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    home, project = tmp_path / "home", tmp_path / "work" / "app"
    home.mkdir()
    project.mkdir(parents=True)
    assert claude.trust_state(str(project), str(home)) is None  # no state file: Claude may not have run
    _state(home, {str(project): {"hasTrustDialogAccepted": False}})
    assert claude.trust_state(str(project), str(home)) is False
    _state(home, {str(tmp_path / "work"): {"hasTrustDialogAccepted": True}})
    assert claude.trust_state(str(project), str(home)) is True
    (home / ".claude.json").write_text("{not json")
    assert claude.trust_state(str(project), str(home)) is None


def test_trust_follows_claude_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    _state(config, {str(tmp_path): {"hasTrustDialogAccepted": True}})
    assert claude.trust_state(str(tmp_path), str(tmp_path / "nohome")) is True


def test_grep_globs_are_split_as_claude_code_splits_them() -> None:
    assert claude.grep_globs("*.py,*.js !x *.{ts,tsx}") == ["*.py", "*.js", "!x", "*.{ts,tsx}"]
