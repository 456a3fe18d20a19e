"""init says, per harness, what the user must trust before its hooks run; doctor warns where
the client's own files show the project untrusted, and is quiet where they show it trusted."""

from __future__ import annotations

import json
import os
from pathlib import Path

from helpers import git, run_handrail


def _repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": "", "CODEX_HOME": str(home / ".codex")}
    return repo, env


def _claude_state(env: dict[str, str], repo: Path, trusted: bool) -> None:
    state = {"projects": {os.path.realpath(repo): {"hasTrustDialogAccepted": trusted}}}
    Path(env["HOME"], ".claude.json").write_text(json.dumps(state))


def _doctor(repo: Path, env: dict[str, str]) -> list[dict[str, object]]:
    r = run_handrail("doctor", "--json", cwd=repo, env=env)
    return [f for f in json.loads(r.stdout)["findings"] if "trusted" in str(f["finding"])]


def test_init_names_each_harness_trust_step(tmp_path: Path) -> None:
    repo, env = _repo(tmp_path)
    r = run_handrail("init", "--json", cwd=repo, env=env)
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    steps = {t["tool"]: t for t in result["trust"]}
    assert {"claude", "codex", "gemini", "copilot"} <= set(steps)
    assert "/hooks" in str(steps["codex"]["must"]) and "--trust-folder" in str(steps["copilot"]["must"])
    assert any(n.startswith("claude: before its hooks run, ") for n in result["notes"])
    # Nothing of Claude's has run in this HOME: its files say nothing either way.
    assert steps["claude"]["trusted"] is None


def test_doctor_warns_where_the_client_shows_the_project_untrusted(tmp_path: Path) -> None:
    repo, env = _repo(tmp_path)
    assert run_handrail("init", cwd=repo, env=env).returncode == 0
    _claude_state(env, repo, trusted=False)
    (warning,) = [f for f in _doctor(repo, env) if str(f["finding"]).startswith("claude:")]
    assert warning["severity"] == "warning" and "trust dialog" in str(warning["hint"])
    _claude_state(env, repo, trusted=True)
    assert not [f for f in _doctor(repo, env) if str(f["finding"]).startswith("claude:")]
    # A rerun of init on a guarded repository still names the step the client shows undone.
    _claude_state(env, repo, trusted=False)
    r = run_handrail("init", "--json", cwd=repo, env=env)
    assert any(n.startswith("claude: before its hooks run") for n in json.loads(r.stdout)["notes"])
