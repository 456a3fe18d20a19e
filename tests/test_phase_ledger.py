"""A task's phase cannot be reopened through git: task.json is a file of the work tree that git
can bring back (`git stash`, `git checkout`, `git revert`), so handrail also keeps the phase it
last set in the repository's own folder, and only where both agree is an edit phase open."""

from __future__ import annotations

import json
import os
from pathlib import Path

from helpers import git, run_handrail

from handrail.records import task_states

AGENT = {"CLAUDECODE": "1"}


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "app"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "p@example.com")
    git(repo, "config", "user.name", "Person")
    assert run_handrail("init", cwd=repo).returncode == 0
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print(1)\n")
    task_states.new_task(str(repo), "t", phase="implement", by="Person <p@example.com>")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "set up")
    return repo


def _can_edit(repo: Path) -> dict[str, object]:
    r = run_handrail("can-edit", "--json", "--file", "src/app.py", cwd=repo, env=AGENT)
    answer = json.loads(r.stdout.splitlines()[-1])
    assert isinstance(answer, dict)
    return answer


def test_a_phase_the_person_closed_stays_closed_when_git_brings_task_json_back(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    assert _can_edit(repo)["allowed"] is True
    task_states.set_phase(str(repo), "t", "review", by="Person <p@example.com>")  # the person closes it
    assert _can_edit(repo)["allowed"] is False
    # the agent puts the committed task.json (implement) back
    git(repo, "stash", "push", "-q", "--", ".handrail/tasks", env=AGENT)
    assert json.loads((repo / ".handrail/tasks/t/task.json").read_text())["phase"] == "implement"
    answer = _can_edit(repo)
    assert answer["allowed"] is False and answer["reason"] == "no_edit_tasks"
    assert answer["tasks"] == [{"task": "t", "phase": "implement", "recorded_phase": "review"}]
    shown = run_handrail("task", "show", "t", cwd=repo)
    assert "handrail last set it to review" in shown.stdout
    # and the git hook agrees: an agent's commit needs an open edit phase
    (repo / "src" / "app.py").write_text("print(2)\n")
    git(repo, "add", "src/app.py")
    refused = git(repo, "commit", "-q", "-m", "agent edit", check=False, env=AGENT)
    assert refused.returncode != 0 and "edit phase" in (refused.stderr + refused.stdout)


def test_the_agent_cannot_confirm_the_phase_git_brought_back(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    task_states.set_phase(str(repo), "t", "review")
    git(repo, "checkout", "-q", "--", ".handrail/tasks/t/task.json")  # task.json says implement again
    r = run_handrail("task", "phase", "t", "implement", cwd=repo, env=AGENT)
    assert r.returncode == 1 and "a human opens an edit phase" in r.stderr
    assert json.loads((repo / ".git" / "handrail" / "phases.json").read_text()) == {"t": "review"}
    assert _can_edit(repo)["allowed"] is False


def test_setting_the_phase_again_through_handrail_reopens_it(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    task_states.set_phase(str(repo), "t", "review")
    git(repo, "checkout", "-q", "--", ".handrail/tasks/t/task.json")  # back to implement, by git
    assert _can_edit(repo)["allowed"] is False
    task, _old = task_states.set_phase(str(repo), "t", "implement", by="Person <p@example.com>")
    assert task.editing and _can_edit(repo)["allowed"] is True
    assert task.data["history"][-1]["from"] == "implement"  # recorded, although task.json said it already


def test_the_ledger_lives_in_the_repository_folder_which_agents_may_not_write(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    ledger = repo / ".git" / "handrail" / "phases.json"
    assert json.loads(ledger.read_text()) == {"t": "implement"}
    r = run_handrail("classify", "--json", f"echo '{{\"t\": \"implement\"}}' > {ledger}", cwd=repo, env=AGENT)
    assert json.loads(r.stdout.splitlines()[-1])["decision"] == "ask"


def test_a_task_from_before_the_ledger_is_read_as_its_file_says(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    os.remove(repo / ".git" / "handrail" / "phases.json")
    assert _can_edit(repo)["allowed"] is True
