"""aider, a harness without a pre-tool hook: `handrail init` gives its `.aider.conf.yml` the
settings that make its commits meet the git hooks as an agent's, `handrail doctor` says
when they are gone, and the real aider's commits are then judged by pre-commit."""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml
from drivers import aider as driver
from helpers import HANDRAIL, git, run_handrail
from hookkit import make_project, needs_client
from modelserver import ModelServer
from test_parity import base_env

CONFIG = ".aider.conf.yml"
ON_PATH = {"PATH": f"{Path(HANDRAIL or 'handrail').parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def settings(project: Path) -> dict[str, object]:
    data = yaml.safe_load((project / CONFIG).read_text())
    assert isinstance(data, dict)
    return data


def doctor_says(project: Path) -> list[str]:
    r = run_handrail("doctor", "--json", cwd=project, env=ON_PATH)
    report = json.loads(r.stdout.splitlines()[-1])
    return [f"{f['severity']}: {f['finding']}" for f in report["findings"] if "aider" in f["finding"]]


# --------------------------------------------------------------------------- init and doctor


def test_init_writes_aiders_settings_and_a_second_run_keeps_them(repo: Path) -> None:
    r = run_handrail("init", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert f"{CONFIG}" in r.stdout and "created" in r.stdout.split(CONFIG, 1)[1].splitlines()[0]
    assert settings(repo) == {"git-commit-verify": True, "attribute-committer": True}
    assert "aider: no native files" not in r.stdout
    before = (repo / CONFIG).read_bytes()
    again = run_handrail("init", cwd=repo)
    assert again.returncode == 0 and "nothing changed" in again.stdout
    assert (repo / CONFIG).read_bytes() == before


def test_init_keeps_the_users_keys_and_comments(repo: Path) -> None:
    mine = ("# my aider setup\nmodel: sonnet  # the one I like\n"
            "git-commit-verify: false   # slow hooks\ndark-mode: true\n")
    (repo / CONFIG).write_text(mine)
    r = run_handrail("init", cwd=repo)
    assert r.returncode == 0, r.stderr
    text = (repo / CONFIG).read_text()
    assert text.startswith("# my aider setup\nmodel: sonnet  # the one I like\n")
    assert "git-commit-verify: true   # slow hooks\n" in text and "dark-mode: true\n" in text
    assert settings(repo) == {"model": "sonnet", "git-commit-verify": True, "dark-mode": True,
                              "attribute-committer": True}
    backups = list((repo / ".handrail" / "backups").rglob(CONFIG))
    assert [b.read_text() for b in backups] == [mine]


def test_init_leaves_an_invalid_config_alone_and_names_it(repo: Path) -> None:
    (repo / CONFIG).write_text("model: [unclosed\n")
    r = run_handrail("init", cwd=repo)
    assert r.returncode != 0
    assert f"{CONFIG}: invalid YAML at line" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert (repo / CONFIG).read_text() == "model: [unclosed\n"


def test_init_for_other_tools_only_writes_no_aider_config(repo: Path) -> None:
    assert run_handrail("init", "--tools", "claude", cwd=repo).returncode == 0
    assert not (repo / CONFIG).exists()


def test_init_for_aider_alone_writes_its_config_and_no_permission_files(repo: Path) -> None:
    r = run_handrail("init", "--tools", "aider", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert settings(repo)["git-commit-verify"] is True
    assert not (repo / ".claude").exists() and not (repo / "opencode.json").exists()


def test_doctor_warns_when_aiders_settings_are_missing_or_off_and_fix_restores_them(repo: Path) -> None:
    assert run_handrail("init", cwd=repo).returncode == 0
    assert doctor_says(repo) == []
    (repo / CONFIG).write_text("git-commit-verify: false\nattribute-committer: true\n")
    assert doctor_says(repo) == [f"warning: aider: {CONFIG} does not set `git-commit-verify: true`, so aider "
                                 "commits with --no-verify, so the pre-commit hook never sees its commits"]
    (repo / CONFIG).unlink()
    said = doctor_says(repo)
    assert len(said) == 1 and f"{CONFIG} is missing" in said[0] and "--no-verify" in said[0]
    r = run_handrail("doctor", "--fix", cwd=repo, env=ON_PATH)
    assert "Traceback" not in r.stderr
    assert settings(repo) == {"git-commit-verify": True, "attribute-committer": True}
    assert doctor_says(repo) == []


def test_there_is_no_aider_hook() -> None:
    r = run_handrail("hook", "aider", input="{}")
    assert r.returncode == 2 and "No such command 'aider'" in r.stderr


def test_aiders_config_is_protected_from_agents(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    assert run_handrail("init", cwd=project).returncode == 0
    r = run_handrail("can-edit", "--file", CONFIG, "--json", cwd=project, env={"HANDRAIL_AGENT": "aider"})
    assert r.returncode == 1 and json.loads(r.stdout.splitlines()[-1])["reason"] == "protected_path"


# --------------------------------------------------------------------------- the real aider


def play(project: Path, tmp_path: Path, *scenarios: str) -> str:
    """Run the real aider once per scenario's edit; what it printed."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    calls = [c for s in scenarios for c in driver.calls(s, project)]  # type: ignore[union-attr]
    with ModelServer(calls, **driver.SERVER) as server:  # type: ignore[arg-type]
        r = driver.run(project, home, server.url, base_env(home))
    assert "Traceback" not in r.stderr, r.stderr
    return r.stdout + r.stderr


@needs_client("aider")
def test_aiders_commits_meet_pre_commit_as_an_agents(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    assert run_handrail("init", cwd=project).returncode == 0
    shown = play(project, tmp_path, "in-scope-write", "out-of-scope-write")
    # The in-scope edit is committed, by "<name> (aider)", which handrail's prepare-commit-msg reads.
    assert (project / "src" / "app.py").read_text() == "print('new')\n"
    head = git(project, "log", "-1", "--format=%cn%n%B", "--", "src/app.py").stdout
    assert head.startswith("Dev (aider)\n") and "Handrail-Agent: aider (GIT_COMMITTER_NAME=Dev (aider))" in head
    # The out-of-scope file is written (no hook runs before aider's edits) but never committed.
    assert (project / "docs" / "notes.md").exists()
    assert git(project, "log", "--all", "--format=%H", "--", "docs/notes.md").stdout == ""
    assert "handrail: commit refused" in shown and "docs/notes.md is outside the allowed_files" in shown


@needs_client("aider")
def test_without_handrails_settings_aider_commits_past_pre_commit(tmp_path: Path) -> None:
    """Why init writes them: aider's own defaults skip the pre-commit hook."""
    project = make_project(tmp_path / "project")
    assert run_handrail("init", cwd=project).returncode == 0
    (project / CONFIG).unlink()
    play(project, tmp_path, "out-of-scope-write")
    assert git(project, "log", "--all", "--format=%cn", "--", "docs/notes.md").stdout.strip() == "Dev"

