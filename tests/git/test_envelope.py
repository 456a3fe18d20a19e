"""An agent's autonomy envelope on its commits and pushes; people are never bound by it."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitkit import AGENT, Project, commits, refused


def envelope(project: Project, agent: str, state: str | None, *, broken: bool = False) -> None:
    if broken:
        project.write(f"agents/{agent}/autonomy-envelope.md", "---\nagent: [unclosed\n---\n")
        return
    types = "taskTypes: []" if state is None else (
        "taskTypes:\n  - id: git-commit-push\n    label: commits\n"
        f"    state: {state}\n    stateSince: 2026-01-01T00:00:00Z\n    operatorNote: test")
    project.write(f"agents/{agent}/autonomy-envelope.md",
                  f"---\nagent: {agent}\nowner: operator\nupdated: 2026-01-01T00:00:00Z\n{types}\n---\n# {agent}\n")
    # the envelope itself is not what these commits change
    (project.path / ".git" / "info" / "exclude").write_text(".handrail/\nagents/\n")


@pytest.mark.parametrize("state, allowed", [
    (None, True),
    ("fullyApproved", True),
    ("checkBeforeCommitting", False),
    ("needsFullSupervision", False),
])
def test_each_state_on_an_agents_commit(project: Project, state: str | None, allowed: bool) -> None:
    project.task("t1")
    envelope(project, "claude", state)
    project.write("src/app.py")
    r = project.commit("src/app.py", env={**AGENT, "HANDRAIL_AGENT": "claude"})
    if allowed:
        assert r.returncode == 0, r.stderr
        assert commits(project) == 1
    else:
        refused(r, "agents/claude/autonomy-envelope.md", state)
        assert commits(project) == 0
    # a person's commit of the same change is never bound by an agent's envelope
    if not allowed:
        assert project.commit(message="by a person").returncode == 0


def test_the_envelope_of_the_agent_the_harness_names(project: Project) -> None:
    """CLAUDECODE alone names the agent `claude`, so its envelope applies."""
    project.task("t1")
    envelope(project, "claude", "needsFullSupervision")
    project.write("src/app.py")
    refused(project.commit("src/app.py", env=AGENT), "needsFullSupervision")
    envelope(project, "claude", "fullyApproved")
    assert project.commit(env=AGENT).returncode == 0


def test_a_broken_envelope_refuses_the_agents_commit(project: Project) -> None:
    project.task("t1")
    envelope(project, "claude", None, broken=True)
    (project.path / ".git" / "info" / "exclude").write_text(".handrail/\nagents/\n")
    project.write("src/app.py")
    refused(project.commit("src/app.py", env=AGENT), "autonomy-envelope.md")
    assert commits(project) == 0


def test_check_before_committing_stops_an_agents_push(project: Project, remote: Path) -> None:
    project.task("t1")
    project.write("src/app.py")
    assert project.commit("src/app.py").returncode == 0
    envelope(project, "claude", "checkBeforeCommitting")
    r = project.git("push", "-q", "origin", "main", check=False, env=AGENT)
    refused(r, "checkBeforeCommitting", action="push")
    assert project.git("push", "-q", "origin", "main", check=False).returncode == 0
