"""The pure envelope decision every layer calls: states x actions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from handrail.policy import envelope as policy

FILE = "agents/claude/autonomy-envelope.md"


def decide(states: dict[str, str] | None, task_type: str, tier: int | None = None) -> policy.Decision:
    return policy.decide(states, task_type, agent="claude", envelope=FILE, tier=tier)


@pytest.mark.parametrize(("state", "edit", "commit", "shell1", "shell2"), [
    (None, "allow", "allow", "allow", "allow"),
    ("fullyApproved", "allow", "allow", "allow", "allow"),
    ("checkBeforeCommitting", "allow", "needs_human", "allow", "allow"),
    ("needsFullSupervision", "refuse", "refuse", "refuse", "refuse"),
])
def test_each_state_for_each_action(state: str | None, edit: str, commit: str, shell1: str, shell2: str) -> None:
    states = {t: state for t in ("code-inline", "git-commit-push", "shell")} if state else {}
    assert decide(states, "code-inline").verdict == edit
    assert decide(states, "git-commit-push").verdict == commit
    assert decide(states, "shell", 1).verdict == shell1
    assert decide(states, "shell", 2).verdict == shell2


@pytest.mark.parametrize("state", [None, *policy.STATES])
def test_tier_3_needs_a_human_whatever_the_envelope_says(state: str | None) -> None:
    d = decide({"shell": state} if state else None, "shell", 3)
    assert (d.verdict, d.reason) == ("needs_human", "tier3_blocking")


def test_refusals_name_the_envelope_and_the_way_forward() -> None:
    d = decide({"code-inline": "needsFullSupervision"}, "code-inline")
    assert d.reason == "envelope_supervision" and FILE in d.message
    assert "handrail autonomy set claude code-inline" in d.message
    d = decide({"git-commit-push": "checkBeforeCommitting"}, "git-commit-push")
    assert d.reason == "envelope_check_before_committing" and FILE in d.message


def test_only_the_matching_task_type_counts() -> None:
    states = {"code-inline": "needsFullSupervision", "docs": "needsFullSupervision"}
    assert decide(states, "git-commit-push").verdict == "allow"
    assert decide(states, "shell", 2).verdict == "allow"


def test_bad_calls_raise() -> None:
    with pytest.raises(ValueError):
        decide({}, "docs")
    with pytest.raises(ValueError):
        decide({}, "shell")


@pytest.mark.parametrize(("old", "new", "kind"), [
    (None, "needsFullSupervision", "set"),
    (None, "checkBeforeCommitting", "promoted"),  # adding a type with autonomy is a promotion
    ("needsFullSupervision", "fullyApproved", "promoted"),
    ("fullyApproved", "checkBeforeCommitting", "demoted"),
    ("checkBeforeCommitting", "checkBeforeCommitting", "set"),
])
def test_change_kinds(old: str | None, new: str, kind: str) -> None:
    assert policy.change_kind(old, new) == kind


def test_agent_environment() -> None:
    assert not policy.is_agent_env({"USER": "alice", "TERM": "xterm"})
    assert policy.is_agent_env({"CLAUDECODE": "1"})
    assert policy.is_agent_env({"HANDRAIL_AGENT": "codex"})


def test_shell_supervision_makes_classify_ask(project: Path, write_envelope) -> None:  # type: ignore[no-untyped-def]
    from helpers import run_handrail

    write_envelope(project, "claude", {"shell": "needsFullSupervision"})
    r = run_handrail("classify", "--json", "--agent", "claude", "git status", cwd=project)
    answer = json.loads(r.stdout.splitlines()[-1])
    assert r.returncode == 1 and answer["decision"] == "ask" and answer["tier"] == 1
    assert answer["envelope"]["reason"] == "envelope_supervision"
    assert "agents/claude/autonomy-envelope.md" in answer["envelope"]["message"]
    # through the environment, and in words
    r = run_handrail("classify", "git status", cwd=project, env={"HANDRAIL_AGENT": "claude"})
    assert r.returncode == 1 and "needs a human" in r.stdout
    # another agent, a fully approved one, or tier 3 whatever the envelope says
    assert run_handrail("classify", "--agent", "codex", "git status", cwd=project).returncode == 0
    write_envelope(project, "claude", {"shell": "fullyApproved"})
    assert run_handrail("classify", "--agent", "claude", "git status", cwd=project).returncode == 0
    assert run_handrail("classify", "--agent", "claude", "git push --force", cwd=project).returncode == 1


def test_a_broken_envelope_is_an_error_for_classify(project: Path) -> None:
    from helpers import run_handrail

    path = project / "agents" / "claude" / "autonomy-envelope.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\nagent: [\n---\n")
    r = run_handrail("classify", "--json", "--agent", "claude", "git status", cwd=project)
    assert r.returncode == 2 and "autonomy-envelope.md" in r.stderr
