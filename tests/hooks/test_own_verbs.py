"""handrail's human-only verbs, as an agent tries them and as a person runs them.

An agent meets them at the hook (tier 3: Claude Code asks, Codex denies), whatever the
project's policy lists and however the command is spelled; past the hook, the command
itself refuses where no person can be (an agent's marker, no terminal, an agent's process
above a fake terminal). A person at a terminal runs them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import HANDRAIL, as_person, git, prepared, run_handrail

from handrail.policy import tasks
from handrail.policy.shell import selfverbs
from handrail.records import task_states

HOOK_ENV = {"CLAUDECODE": "1"}


@pytest.fixture
def project(repo: Path) -> Path:
    """Initialised, with task `login` frozen in review and an envelope for claude."""
    prepared(repo, ("init",), ("autonomy", "init", "claude"))
    task_states.new_task(str(repo), "login", phase="review", by="Test <test@example.com>")
    return repo


def phase(project: Path) -> str:
    return json.loads((project / ".handrail/tasks/login/task.json").read_text())["phase"]


def classify(project: Path, command: str, *extra: str) -> dict:
    r = run_handrail("classify", "--json", *extra, command, cwd=project)
    return json.loads(r.stdout.splitlines()[-1])


def hook(harness: str, project: Path, command: str) -> dict:
    payload = {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(project), "tool_name": "Bash",
               "tool_input": {"command": command}, "tool_use_id": "t1"}
    r = subprocess.run([HANDRAIL, "hook", harness], input=json.dumps(payload), text=True, capture_output=True,
                       cwd=project, env={**os.environ, **HOOK_ENV}, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])["hookSpecificOutput"]


def test_the_edit_phases_are_the_task_librarys() -> None:
    assert selfverbs.EDIT_PHASES == tasks.EDIT_PHASES


def test_the_rule_holds_under_a_policy_that_lets_them_through(project: Path, tmp_path: Path) -> None:
    """A policy listing `task phase` in tier 2 and not naming `gate approve` at all."""
    loose = {"version": "1.1", "tiers": {
        "tier1_silent": {"shell_patterns": ["ls *"], "handrail_commands": ["task list"]},
        "tier2_notified": {"handrail_commands": ["task phase", "task new", "gate approve", "autonomy set"]},
        "tier3_blocking": {"shell_patterns": ["git push --force *"]}}}
    path = tmp_path / "loose.json"
    path.write_text(json.dumps(loose))
    for command in ("handrail task phase login implement", "python -m handrail task phase login doc_review",
                    "handrail task new x --phase=implement", "handrail gate approve login publish",
                    "script -qec 'handrail gate approve login publish' /dev/null",
                    "handrail autonomy set claude shell fullyApproved"):
        answer = classify(project, command, "--protocol", str(path))
        assert answer["tier"] == 3, command
        assert any(r.get("rule") == "human-verbs" for r in answer["reasons"]), answer
    for command in ("handrail task phase login done", "handrail task new x",
                    "handrail autonomy set claude shell needsFullSupervision"):
        assert classify(project, command, "--protocol", str(path))["tier"] == 2, command


@pytest.mark.parametrize("command", [
    "handrail task phase login implement",
    "python3 -m handrail task phase login implement",
    "env -u CLAUDECODE setsid script -qec 'handrail task phase login implement' /dev/null",
    "python3 -c \"import pty; pty.spawn(['handrail', 'task', 'phase', 'login', 'implement'])\"",
])
def test_claude_asks_and_codex_denies_an_agent_reopening_its_phase(project: Path, command: str) -> None:
    claude = hook("claude", project, command)
    assert claude["permissionDecision"] == "ask", claude
    codex = hook("codex", project, command)
    assert codex["permissionDecision"] == "deny", codex
    assert "needs a human" in codex["permissionDecisionReason"]
    assert phase(project) == "review"


@pytest.mark.parametrize("command", ["bash", "sh -s", "python3", "node", "psql", "sqlite3 -readonly shop.db", "irb",
                                     "ssh build-host", "script /dev/null"])
def test_codex_denies_an_interactive_session_it_could_type_into(project: Path, command: str) -> None:
    codex = hook("codex", project, command)
    assert codex["permissionDecision"] == "deny", codex
    assert "interactive" in codex["permissionDecisionReason"]
    assert hook("claude", project, command)["permissionDecision"] == "ask"


# (arguments, what the refusal says a human does) for every human-only command
HUMAN_ONLY = [
    (("task", "phase", "login", "implement"), "a human opens an edit phase"),
    (("task", "new", "hotfix", "--phase", "doc_review"), "a human opens an edit phase"),
    (("gate", "approve", "login", "publish"), "a human decides gates"),
    (("gate", "reject", "login", "publish", "--reason", "no"), "a human decides gates"),
    (("loop", "reset", "login"), "a human resets a loop"),
    (("uninstall-hooks",), "a human removes handrail's git hooks"),
    (("init", "--force"), "a human replaces the protocol"),
    (("permissions", "--protocol", ".handrail/autonomy-protocol.json"), "a human writes the permission files"),
    (("autonomy", "set", "claude", "shell", "fullyApproved"), "promotion needs a person at a terminal"),
]


def snapshot(project: Path) -> dict[str, bytes]:
    skip = (".git/objects", ".git/logs", ".handrail/runtime")
    return {str(p.relative_to(project)): p.read_bytes() for p in sorted(project.rglob("*"))
            if p.is_file() and not str(p.relative_to(project)).startswith(skip)}


@pytest.mark.parametrize(("args", "who"), HUMAN_ONLY, ids=[" ".join(a[:2]) for a, _ in HUMAN_ONLY])
def test_every_human_only_command_refuses_an_agent(project: Path, args: tuple[str, ...], who: str) -> None:
    before = snapshot(project)
    r = run_handrail(*args, cwd=project, env={"CLAUDECODE": "1"})
    assert r.returncode in (1, 2), r  # 2: autonomy's "invalid state" exit code
    assert who in r.stderr and "CLAUDECODE=1" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert snapshot(project) == before


@pytest.mark.parametrize(("args", "who"), HUMAN_ONLY[:5], ids=[" ".join(a[:2]) for a, _ in HUMAN_ONLY[:5]])
def test_without_a_terminal_they_refuse_too(project: Path, args: tuple[str, ...], who: str) -> None:
    r = run_handrail(*args, cwd=project)
    assert r.returncode == 1 and who in r.stderr and "no interactive terminal" in r.stderr
    assert phase(project) == "review"


def _under_agent(project: Path, inner: str) -> subprocess.CompletedProcess[str]:
    """`inner` run by the agent's shell: the shell keeps HANDRAIL_AGENT, `inner` drops it."""
    script = f"env -u HANDRAIL_AGENT {inner}; true"  # `; true`: the shell stays, as an agent's does
    return subprocess.run(["sh", "-c", script], cwd=project, text=True, capture_output=True,
                          env={**os.environ, "HANDRAIL_AGENT": "bot"}, timeout=60)


@pytest.mark.skipif(shutil.which("script") is None, reason="util-linux `script` is not installed")
def test_a_fake_terminal_under_the_agent_is_seen_through(project: Path) -> None:
    r = _under_agent(project, f"script -qec '{HANDRAIL} task phase login implement' /dev/null")
    assert "refused: a human opens an edit phase, and it runs under an agent's process" in r.stdout, r
    assert "HANDRAIL_AGENT=bot" in r.stdout
    assert phase(project) == "review"


def test_pty_spawn_under_the_agent_is_seen_through(project: Path) -> None:
    spawn = f"import pty; pty.spawn([{HANDRAIL!r}, 'gate', 'approve', 'login', 'publish'])"
    r = _under_agent(project, f"python3 -c \"{spawn}\"")
    assert "refused: a human decides gates, and it runs under an agent's process" in r.stdout, r
    assert not (project / ".handrail/tasks/login/gates/publish.json").exists()


def test_a_person_at_a_terminal_reopens_the_phase_and_is_named(project: Path) -> None:
    git(project, "config", "user.name", "Pat Lead")
    git(project, "config", "user.email", "pat@example.com")
    r = as_person("task", "phase", "login", "implement", cwd=project)
    assert r.returncode == 0 and "review -> implement" in r.stdout, r.stdout
    entry = json.loads((project / ".handrail/tasks/login/task.json").read_text())["history"][-1]
    assert entry["by"] == "Pat Lead <pat@example.com>" and "evidence" not in entry
    r = as_person("gate", "approve", "login", "publish", cwd=project)
    assert r.returncode == 0 and "approved by" in r.stdout, r.stdout
