"""Whom the path rules bind at commit time: humans commit handrail's own files, agents
commit the protocol's write_paths with a notice, and nothing else of `.handrail/`."""

from __future__ import annotations

import json
from pathlib import Path

from gitkit import AGENT, Project, commits, refused
from helpers import run_handrail

RESTRICTIVE = {"allowed_files": ["src/**"]}
BOOT = ".handrail/context/bootstrap/what-is.md"


def events(project: Project, kind: str) -> list[dict]:
    r = run_handrail("events", "--type", kind, "--json", cwd=project.path)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in r.stdout.splitlines() if line.strip()]


def test_a_human_commits_a_tasks_own_files_under_a_restrictive_contract(project: Project) -> None:
    project.task("t", contract=RESTRICTIVE)
    project.write("src/a.py")
    r = project.commit(".handrail/tasks/t/task.json", ".handrail/tasks/t/harness-contract.json", "src/a.py",
                       force_add=True)
    assert r.returncode == 0, r.stderr
    assert commits(project) == 1


def test_an_agent_commit_of_the_same_task_files_is_refused(project: Project) -> None:
    project.task("t", contract=RESTRICTIVE)
    r = project.commit(".handrail/tasks/t/task.json", force_add=True, env=AGENT)
    refused(r, ".handrail/tasks/t/task.json is protected", "binds agents", "a human may make this change")
    assert commits(project) == 0


def test_a_humans_commit_outside_allowed_files_is_still_refused(project: Project) -> None:
    project.task("t", contract=RESTRICTIVE)
    project.write("docs/a.md")
    r = project.commit("docs/a.md")
    refused(r, "docs/a.md is outside the allowed_files of every edit task")


def test_a_human_commits_what_init_wrote_before_any_task_exists(repo: Path) -> None:
    r = run_handrail("init", cwd=repo)
    assert r.returncode == 0, r.stderr
    p = Project(repo)
    p.git("add", "-A")
    r = p.git("commit", "-q", "-m", "handrail init", check=False)
    assert r.returncode == 0, r.stderr
    tracked = p.git("ls-files").stdout.split()
    assert ".handrail/autonomy-protocol.json" in tracked and ".claude/settings.json" in tracked
    # The same files by an agent, or a human's commit that also carries code, still need a task.
    p.write("src/a.py")
    p.git("add", "src/a.py")
    refused(p.git("commit", "-q", "-m", "code", check=False), "no task exists")


def test_an_agent_commits_write_paths_with_a_notice_and_an_event(project: Project) -> None:
    project.protocol()  # the default policy: write_paths name the bootstrap and feature folders
    project.task("t", contract=RESTRICTIVE)
    project.write(BOOT, "---\ngenerated_at: 2026-01-01T00:00:00Z\n---\nwhat it is\n")
    r = project.commit(BOOT, force_add=True, env=AGENT)
    assert r.returncode == 0, r.stderr
    assert f"handrail: notice: {BOOT} is protected, and open to agents by write_paths" in r.stderr
    assert "tiers.tier2_notified.write_paths in .handrail/autonomy-protocol.json" in r.stderr
    [event] = events(project, "commit_notified")
    assert event["agent"] == "claude" and event["payload"]["notices"][0].startswith(BOOT)


def test_a_write_path_is_still_bound_by_the_contracts_forbidden_files(project: Project) -> None:
    project.protocol()
    project.task("t", contract={"allowed_files": ["src/**"], "forbidden_files": [".handrail/context/**"]})
    project.write(BOOT)
    refused(project.commit(BOOT, force_add=True, env=AGENT), f"{BOOT} is forbidden by task 't'")


def test_without_write_paths_the_bootstrap_files_are_protected(project: Project) -> None:
    data = json.loads(Path(__file__).parents[2].joinpath("handrail/template/autonomy-protocol.json").read_text())
    data["tiers"]["tier2_notified"]["write_paths"] = []
    project.write(".handrail/autonomy-protocol.json", json.dumps(data))
    project.task("t")
    project.write(BOOT)
    refused(project.commit(BOOT, force_add=True, env=AGENT), f"{BOOT} is protected")
    assert project.commit(env={}).returncode == 0  # the same staged file, committed by a human


def test_the_policy_change_gate_does_not_hold_back_a_write_path(project: Project) -> None:
    project.protocol()
    project.task("t", contract={"human_gate": {"required_for": ["policy_change"]}})
    project.write(BOOT)
    assert project.commit(BOOT, force_add=True, env=AGENT).returncode == 0, "write paths are no policy change"
    project.write(".claude/settings.json", "{}\n")
    r = project.commit(".claude/settings.json")
    refused(r, "needs the human gate 'policy_change' of task 't'")
