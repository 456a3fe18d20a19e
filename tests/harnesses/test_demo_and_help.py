"""What a person sees of the pre-tool hooks: the demo's layer, and `handrail hook --help`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_handrail
from hookkit import HARNESSES

from handrail import demo


def test_the_demo_shows_claude_code_refusing_a_force_push_and_an_env_edit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "repo"
    demo.setup(str(project))
    demo.layer_pretool(str(project))
    out = capsys.readouterr().out
    assert "✗ refused  Bash: git push --force" in out and "ask:" in out
    assert "Claude Code asks the user: handrail: needs a human: 'git push --force origin main'" in out
    assert "✗ refused  Edit: .env" in out
    assert "Claude Code tells the agent: handrail: denied: .env is forbidden: rule '.env*'" in out


def test_the_demo_shows_an_agent_refused_when_it_reopens_its_own_phase(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "repo"
    demo.setup(str(project))
    demo.layer_own_verbs(str(project))
    out = capsys.readouterr().out
    assert "✗ refused  claude: reopen implement" in out and "ask: Claude Code asks its user" in out
    assert "'handrail task phase login implement' matches 'handrail task phase *'" in out
    assert "✗ refused  codex: reopen implement" in out and "deny: the call does not run" in out
    assert "(via python -m)" in out
    assert "handrail task phase: refused: a human opens an edit phase, and the environment shows an agent " \
           "(CLAUDECODE=1" in out
    assert "task login: phase review" in out  # nothing reopened it
    assert json.loads((project / ".handrail/tasks/login/task.json").read_text())["phase"] == "review"


def test_hook_help_lists_every_harness() -> None:
    r = run_handrail("hook", "--help")
    assert r.returncode == 0
    for name in HARNESSES:
        assert f"  {name} " in r.stdout
    r = run_handrail("hook", "codex", "--help")
    assert r.returncode == 0 and "Codex" in r.stdout
