"""The real Claude Code, offline: the scripted model server plays its tool calls, and the
project's .claude/settings.json runs `handrail hook claude` before each of them. What was
refused is read from the result's `permission_denials`, what the agent was told from the
tool results it sent back, what ran from the repository itself."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import HANDRAIL, git, run_handrail
from hookkit import client, needs_client
from modelserver import Call, ModelServer

from handrail.policy import agents

pytestmark = [pytest.mark.slow, needs_client("claude")]


def settings(project: Path, matcher: str) -> None:
    hooks = {"PreToolUse": [{"matcher": matcher,
                             "hooks": [{"type": "command", "command": f"{HANDRAIL} hook claude", "timeout": 30}]}]}
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def generated(project: Path) -> dict:
    """`handrail init`'s .claude/settings.json, as written."""
    r = run_handrail("init", cwd=project)
    assert r.returncode == 0, r.stderr
    return json.loads((project / ".claude" / "settings.json").read_text())


def claude(project: Path, calls: list[Call], *args: str) -> tuple[dict, list[str]]:
    """Run `claude -p` against the model server; (its final JSON, the tool results it sent back)."""
    exe = client("claude")
    assert exe is not None and HANDRAIL
    home = project.parent / "home"
    home.mkdir(exist_ok=True)
    markers = set(agents.VARIABLES)
    with ModelServer(calls) as srv:
        env = {k: v for k, v in os.environ.items() if k not in markers}
        env.update(HOME=str(home), PATH=os.path.dirname(HANDRAIL) + os.pathsep + env.get("PATH", ""),
                   ANTHROPIC_BASE_URL=srv.url, ANTHROPIC_API_KEY="sk-test-offline", DISABLE_AUTOUPDATER="1",
                   DISABLE_TELEMETRY="1", DISABLE_ERROR_REPORTING="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                   IS_SANDBOX="1")  # lets --dangerously-skip-permissions run as root
        r = subprocess.run([exe, "-p", "do the task", "--output-format", "json", *args],
                           cwd=project, env=env, capture_output=True, text=True, timeout=180)
        results = list(srv.results)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1]), results


def bash(command: str) -> Call:
    return Call("Bash", {"command": command, "description": "x"})


def denied(result: dict) -> list[tuple[str, str]]:
    return [(d["tool_name"], d["tool_input"].get("command") or d["tool_input"].get("file_path")
             or d["tool_input"].get("pattern")) for d in result["permission_denials"]]


def test_claude_code_runs_the_hook_before_every_tool_call(project: Path) -> None:
    # Read is left out of the matcher here: Claude Code edits only files it has read.
    settings(project, "Bash|Edit|Write|MultiEdit|NotebookEdit")
    env_file, app = project / ".env", project / "src" / "app.py"
    result, results = claude(project, [
        bash("git push --force origin main"),
        Call("Read", {"file_path": str(env_file)}),
        Call("Edit", {"file_path": str(env_file), "old_string": "hunter2", "new_string": "pwned"}),
        Call("Read", {"file_path": str(app)}),
        Call("Edit", {"file_path": str(app), "old_string": "print('old')", "new_string": "print('new')"}),
        bash("git status --short > /dev/null && echo tier-one-ran"),
    ], "--allowedTools", "Bash")
    assert denied(result) == [("Bash", "git push --force origin main"), ("Edit", str(env_file))]
    # The refused edit did not happen; the one inside the task's scope did.
    assert env_file.read_text() == "DATABASE_PASSWORD=hunter2\n"
    assert app.read_text() == "print('new')\n"
    assert git(project, "diff", "--name-only").stdout.split() == ["src/app.py"]
    # The agent was told why (under -p no one can ask: tier 3 is refused), and tier 1 ran.
    assert "handrail:" in results[0] and "git push --force" in results[0] and "tier 3" in results[0]
    assert ".env*" in results[2]
    assert "tier-one-ran" in results[5]


def test_claude_code_cannot_read_a_secret(project: Path) -> None:
    settings(project, "Bash|Edit|Write|MultiEdit|NotebookEdit|Read")
    result, results = claude(project, [Call("Read", {"file_path": str(project / ".env")}),
                                       Call("Read", {"file_path": str(project / "src" / "app.py")})])
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Read"]
    assert "hunter2" not in results[0] and "ask a human" in results[0]
    assert "print('old')" in results[1]


def test_every_refusal_of_the_generated_settings_reaches_the_agent_with_its_reason(project: Path) -> None:
    # As `handrail init` writes them, with Claude told to approve everything itself: each refusal
    # is the hook's, listed in permission_denials, with handrail's reason (a settings Edit/Read
    # deny would refuse first, unlisted, saying only "denied by your permission settings").
    generated(project)
    env_file = project / ".env"
    result, results = claude(project, [
        Call("Read", {"file_path": str(env_file)}),
        Call("Write", {"file_path": str(project / "docs" / "notes.md"), "content": "x\n"}),
        bash("git push --force origin main"),
    ], "--dangerously-skip-permissions")
    assert denied(result) == [("Read", str(env_file)), ("Write", str(project / "docs" / "notes.md")),
                              ("Bash", "git push --force origin main")]
    assert all(text.startswith("handrail: ") for text in results), results
    assert "hunter2" not in "".join(results)
    assert not (project / "docs").exists()


def test_the_generated_bash_rules_catch_a_branch_deletion_without_the_hook(project: Path, tmp_path: Path) -> None:
    # `Bash(git push * :*)` would be the literal prefix `git push * ` to Claude: no rule ends in `:*`,
    # and `git push origin :feature` is caught by a rule Claude reads as meant, with the hook gone
    # and every permission skipped.
    data = generated(project)
    assert not [r for r in data["permissions"]["ask"] + data["permissions"]["deny"] if ":*" in r]
    del data["hooks"]
    (project / ".claude" / "settings.json").write_text(json.dumps(data))
    remote = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(project, "remote", "add", "origin", str(remote))
    git(project, "push", "-q", "--no-verify", "origin", "main", "main:feature")
    result, _results = claude(project, [bash("git push origin :feature")], "--dangerously-skip-permissions")
    assert denied(result) == [("Bash", "git push origin :feature")]
    assert git(remote, "branch", "--list", "feature").stdout.strip() == "feature"


def test_grep_over_a_secret_is_narrowed_or_refused(project: Path) -> None:
    (project / "src" / "settings.py").write_text("DATABASE_URL = 'postgres://db'\n")
    generated(project)
    result, results = claude(project, [
        # No glob of its own: run with `glob: "!.env"`, which keeps the secret out.
        Call("Grep", {"pattern": "DATABASE", "output_mode": "content"}),
        # Its own glob would let .env in: refused, with the reason.
        Call("Grep", {"pattern": "DATABASE", "output_mode": "content", "glob": ".env*"}),
    ], "--dangerously-skip-permissions", "--allowedTools", "Grep")
    assert "DATABASE_URL" in results[0] and "hunter2" not in results[0]
    assert denied(result) == [("Grep", "DATABASE")]
    assert results[1].startswith("handrail: denied") and "hunter2" not in results[1]


def test_the_bash_tool_is_named_claude_by_the_agent_markers(project: Path) -> None:
    # No hook here: handrail refuses `env` (it prints every token), and this asks what Claude exports.
    _result, results = claude(project, [bash("env")], "--dangerously-skip-permissions")
    assert results and "CLAUDECODE=" in results[0], results
    env = dict(line.split("=", 1) for line in results[0].splitlines() if "=" in line)
    found = agents.detect(env)
    assert found is not None and found.harness == "claude", sorted(env)


def _victim(project: Path) -> Path:
    victim = project / "victim"
    (victim / "deep").mkdir(parents=True)
    (victim / "deep" / "keep.txt").write_text("still here\n")
    return victim


def test_a_lone_surrogate_in_a_tier_3_command_does_not_silence_the_hook(project: Path) -> None:
    # The server sends the command as JSON, the surrogate as its escape `\ud800`, as a model's API would.
    settings(project, "Bash")
    victim = _victim(project)
    command = "find victim -delete -o -name 'x\ud800'"
    result, results = claude(project, [bash(command)], "--allowedTools", "Bash")
    assert (victim / "deep" / "keep.txt").read_text() == "still here\n"
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Bash"]
    assert "keep.txt" not in "".join(results)


def test_a_command_slow_to_judge_is_refused_and_the_victim_survives(project: Path) -> None:
    settings(project, "Bash")
    victim = _victim(project)
    command = "find victim -delete; echo " + "{a,b}" * 20
    result, results = claude(project, [bash(command)], "--allowedTools", "Bash")
    assert (victim / "deep" / "keep.txt").read_text() == "still here\n"
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Bash"]
    # Judged, not timed out: brace expansion is counted as it expands, so 2**20 words are refused
    # at once as more than handrail reads (the whole command then needs a human).
    told = "".join(results)
    assert "took too long to judge" not in told
    assert "brace expansion makes more than 256 words" in told
