"""Secret reads whose answer depends on the tree: links that lead to a secret, folders too large
to look through, credential folders empty today, and what `git stash -u` would store."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import HANDRAIL

from handrail.policy import protocol as _protocols
from handrail.policy.shell import engine as _engine
from handrail.policy.shell import secrets


def _git(repo: Path, *argv: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", *argv], cwd=repo, env=env, check=True, capture_output=True)


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """(project, home): a git repository with `.env` ignored, and a home folder beside it."""
    project, home = tmp_path / "app", tmp_path / "home"
    (project / "src").mkdir(parents=True)
    home.mkdir()
    (project / "src" / "app.py").write_text("print(1)\n")
    (project / ".gitignore").write_text(".env\n")
    (project / ".env").write_text("TOKEN=x\n")
    _git(project, "init", "-q")
    return project, home


def _tier(command: str, project: Path, home: Path) -> tuple[int | None, str]:
    answer = _engine.classify(command, _engine.engine(_protocols.builtin()), cwd=str(project),
                              project=str(project), home=str(home))
    return answer["tier"], " ".join(r.get("why", "") for r in answer["reasons"])


def test_a_link_in_the_tree_is_read_through_to_the_secret_it_names(tree: tuple[Path, Path]) -> None:
    project, home = tree
    (project / "notes.txt").symlink_to(".env")
    (project / "docs").mkdir()
    (project / "docs" / "app.py").symlink_to("../src/app.py")
    r = subprocess.run([HANDRAIL, "classify", "--json", "cat notes.txt"], cwd=project, capture_output=True,
                       text=True, env={**os.environ, "HOME": str(home)}, check=False)
    answer = json.loads(r.stdout)
    assert (r.returncode, answer["decision"]) == (1, "ask"), answer
    assert "a link to" in json.dumps(answer)
    assert _tier("cat docs/app.py", project, home)[0] == 1


def test_a_link_made_to_a_secret_needs_a_human(tree: tuple[Path, Path]) -> None:
    project, home = tree
    assert _tier("ln -s .env notes.txt", project, home)[0] == 3
    assert _tier("ln -s src/app.py app.py", project, home)[0] == 2


def test_a_tree_past_the_walk_bound_is_unknown_not_clean(tree: tuple[Path, Path],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    project, home = tree
    (project / ".env").unlink()
    for i in range(40):
        (project / "src" / f"m{i}.py").write_text("x = 1\n")
    assert _tier("grep -r needle src", project, home)[0] == 1
    monkeypatch.setattr(secrets, "WALK_LIMIT", 10)
    secrets._WALKS.clear()
    tier, why = _tier("grep -r needle src", project, home)
    assert tier == 3 and "too large" in why
    assert _tier("find src | xargs cat", project, home)[0] == 3
    secrets._WALKS.clear()


def test_a_glob_over_an_empty_credential_folder_is_a_secret_read(tree: tuple[Path, Path]) -> None:
    project, home = tree
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519.pub").write_text("ssh-ed25519 AAAA me\n")
    assert _tier("cat ~/.ssh/*", project, home)[0] == 3
    assert _tier("cat ~/.ssh/*.pub", project, home)[0] == 1
    assert _tier("cat ~/.aws/*", project, home)[0] == 3  # not there at all
    assert _tier("cat ~/notes/*.md", project, home)[0] == 1


def test_stash_asks_when_an_untracked_secret_would_go_into_it(tree: tuple[Path, Path]) -> None:
    project, home = tree
    # `.env` is ignored: `-u` leaves it, `--all` takes it
    assert _tier("git stash -u", project, home)[0] != 3
    assert _tier("git stash --all", project, home)[0] == 3
    (project / "deploy.pem").write_text("-----BEGIN PRIVATE KEY-----\n")
    tier, why = _tier("git stash -u", project, home)
    assert tier == 3 and "deploy.pem" in why


def test_a_sed_script_file_is_read_for_its_file_commands(tree: tuple[Path, Path]) -> None:
    project, home = tree
    (project / "edit.sed").write_text("s/a/b/\n1r .env\n")
    (project / "fine.sed").write_text("s/a/b/\n$a\\\nr .env is only text\n")
    assert _tier("sed -f edit.sed src/app.py", project, home)[0] == 3
    assert _tier("sed -f fine.sed src/app.py", project, home)[0] == 1
