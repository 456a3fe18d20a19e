"""Whose commit is it? Each harness's variable makes the lock-file rule bind; a human's does not."""

from __future__ import annotations

import pytest
from gitkit import Project

from handrail.hooks import pre_commit
from handrail.policy import agents

# variable, value the harness sets, harness handrail names
HARNESSES = [
    ("HANDRAIL_AGENT", "reviewer-bot", "reviewer-bot"),
    ("CLAUDECODE", "1", "claude"),
    ("CLAUDE_CODE_ENTRYPOINT", "cli", "claude"),
    ("CODEX_SANDBOX", "seatbelt", "codex"),
    ("CODEX_SANDBOX_NETWORK_DISABLED", "1", "codex"),
    ("CODEX_THREAD_ID", "0199a1b2-thread", "codex"),
    ("CODEX_CI", "1", "codex"),
    ("OPENCODE", "1", "opencode"),
    ("OPENCODE_CLIENT", "cli", "opencode"),
    ("GEMINI_CLI", "1", "gemini"),
    ("CURSOR_AGENT", "1", "cursor"),
    ("CURSOR_EXTENSION_HOST_ROLE", "agent-exec", "cursor"),
    ("COPILOT_AGENT", "1", "copilot"),
    ("COPILOT_CLI", "1", "copilot"),
    ("COPILOT_AGENT_SESSION_ID", "5aacf7d0", "copilot"),
    ("CLINE_ACTIVE", "true", "cline"),
    ("CLINE_CONNECTOR_CLI_LAUNCH", '{"launcher":"/x/cline","connectArgsPrefix":["connect"]}', "cline"),
    ("QWEN_CODE", "1", "qwen"),
    ("GIT_COMMITTER_NAME", "Ada Lovelace (aider)", "aider"),
    ("GIT_AUTHOR_NAME", "Ada Lovelace (aider)", "aider"),
    ("AI_AGENT", "amp", "amp"),
]
HUMAN = [
    {},
    {"CLAUDECODE": "0"},
    {"CLINE_ACTIVE": ""},
    {"CURSOR_TRACE_ID": "abc"},            # every Cursor terminal, a human's too
    {"CURSOR_EXTENSION_HOST_ROLE": "user"},
    {"TERM_PROGRAM": "vscode"},
    {"GIT_COMMITTER_NAME": "Ada Lovelace"},
    {"AIDER_MODEL": "sonnet"},             # user configuration, not a marker
]


def test_every_marker_is_documented_and_tested() -> None:
    assert {v for v, _value, _h in HARNESSES} == set(agents.VARIABLES)
    for variable in agents.VARIABLES:
        assert variable in agents.__doc__


@pytest.mark.parametrize(("variable", "value", "harness"), HARNESSES)
def test_each_harness_variable_marks_an_agent(variable: str, value: str, harness: str) -> None:
    found = agents.detect({variable: value})
    assert found is not None and found.harness == harness
    assert found.evidence().startswith(f"{variable}={value}")


@pytest.mark.parametrize("env", HUMAN)
def test_a_human_environment_is_no_agent(env: dict[str, str]) -> None:
    assert agents.detect(env) is None


def test_handrail_agent_names_the_agent_the_harness_runs() -> None:
    found = agents.detect({"CLAUDECODE": "1", "HANDRAIL_AGENT": "planner"})
    assert found is not None and (found.name, found.harness) == ("planner", "claude")


@pytest.fixture
def lock_staged(project: Project, monkeypatch: pytest.MonkeyPatch) -> Project:
    project.task("t")
    project.write("yarn.lock", "# lock\n")
    project.git("add", "yarn.lock")
    monkeypatch.chdir(project.path)
    return project


@pytest.mark.parametrize(("variable", "value", "harness"), HARNESSES)
def test_each_harness_variable_makes_agent_rules_bind_in_the_hook(
        lock_staged: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        variable: str, value: str, harness: str) -> None:
    monkeypatch.setenv(variable, value)
    assert pre_commit.main([]) == 1
    err = capsys.readouterr().err
    assert "yarn.lock is forbidden" in err and "binds agents" in err


@pytest.mark.parametrize("env", HUMAN)
def test_a_human_may_commit_the_lock_file(lock_staged: Project, monkeypatch: pytest.MonkeyPatch,
                                          env: dict[str, str]) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert pre_commit.main([]) == 0


def test_the_refusal_is_recorded_with_the_agent(lock_staged: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    monkeypatch.setenv("GEMINI_CLI", "1")
    assert pre_commit.main([]) == 1
    db = lock_staged.path / ".handrail" / "runtime" / "events.sqlite"
    rows = sqlite3.connect(db).execute("SELECT event_type, agent, task, payload_json FROM agent_events").fetchall()
    assert [(r[0], r[1], r[2]) for r in rows] == [("commit_refused", "gemini", "t")]
    assert "GEMINI_CLI=1" in rows[0][3]
