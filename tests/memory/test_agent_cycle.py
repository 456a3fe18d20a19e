"""The living-memory cycle as an agent lives it, in a repository `handrail init` set up:
its relevant commit, `memory prepare` from the post-commit hook, its `memory commit`,
its commit of the bootstrap files (a write path: a notice), and what pre-push says."""

from __future__ import annotations

import json
import time
from pathlib import Path

from helpers import git, run_handrail
from memkit import BOOT, HOW, Mem, bumped

from handrail.policy import gates
from handrail.records import gate_states, task_states

AGENT = {"CLAUDECODE": "1"}


def claude_bash(repo: Path, command: str) -> tuple[str, str]:
    payload = {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(repo), "tool_name": "Bash",
               "tool_input": {"command": command}, "tool_use_id": "t1"}
    r = run_handrail("hook", "claude", cwd=repo, input=json.dumps(payload), env=AGENT)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)["hookSpecificOutput"]
    return out["permissionDecision"], out["permissionDecisionReason"]


def set_up(repo: Path, remote: Path) -> Mem:
    """What a human does: init, a task with a narrow contract, the description, all committed and pushed."""
    m = Mem(repo)
    assert m.hr("init").returncode == 0
    task_states.new_task(str(repo), "t", phase="implement")  # a person's step: the CLI wants a terminal
    (repo / ".handrail/tasks/t/harness-contract.json").write_text(json.dumps({"allowed_files": ["app/**"]}))
    assert m.hr("memory", "init").returncode == 0
    git(repo, "add", "-A")
    r = git(repo, "commit", "-q", "-m", "handrail set up", check=False)
    assert r.returncode == 0, r.stderr
    git(repo.parent, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    r = git(repo, "push", "-q", "origin", "main", check=False)
    assert r.returncode == 0, r.stderr
    return m


def test_an_agent_runs_the_whole_memory_cycle(repo: Path, tmp_path: Path) -> None:
    m = set_up(repo, tmp_path / "remote.git")

    # 1. the agent's relevant commit; the post-commit hook prepares a reflection
    m.write("app/routes.py", "GET /users\n")
    git(repo, "add", "app/routes.py")
    r = git(repo, "commit", "-q", "-m", "routes", check=False, env=AGENT)
    assert r.returncode == 0, r.stderr
    deadline = time.monotonic() + 30
    while m.manifest() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    manifest = m.manifest()
    assert manifest is not None and HOW in manifest["targets"]

    # 2. the agent's `memory commit`: tier 2 in the default policy, so its harness lets it run
    decision, why = claude_bash(repo, "handrail memory commit --output /tmp/update.json")
    assert decision == "allow" and "notice" in why
    out = tmp_path / "update.json"
    out.write_text(json.dumps({"files": {HOW: bumped(m.read(HOW))}}))
    r = m.hr("memory", "commit", "--output", str(out), "--json", env=AGENT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout.splitlines()[-1])["ok"] is True

    # 3. its commit of the bootstrap files: a write path, accepted with a notice, outside allowed_files
    assert claude_bash(repo, f"git add {BOOT}")[0] == "allow"
    git(repo, "add", BOOT)
    r = git(repo, "commit", "-q", "-m", "memory", check=False, env=AGENT)
    assert r.returncode == 0, r.stderr
    assert f"handrail: notice: {HOW} is protected, and open to agents by write_paths" in r.stderr
    assert m.events("commit_notified")[0]["agent"] == "claude"
    assert git(repo, "status", "--porcelain").stdout == ""  # backups and staging stay out of git

    # 4. its push: the harness asks a human; pre-push holds only the publish gate against it, not the files
    assert claude_bash(repo, "git push origin main")[0] == "ask"
    r = git(repo, "push", "-q", "origin", "main", check=False, env=AGENT)
    assert r.returncode != 0
    assert "publish" in r.stderr and "is protected" not in r.stderr
    gate_states.decide(str(repo), "t", "publish", gates.APPROVED, by="tester")
    r = git(repo, "push", "-q", "origin", "main", check=False, env=AGENT)
    assert r.returncode == 0, r.stderr
    assert git(repo, "rev-parse", "origin/main").stdout == git(repo, "rev-parse", "HEAD").stdout


def test_an_agent_edit_of_a_bootstrap_file_is_allowed_with_a_notice(repo: Path, tmp_path: Path) -> None:
    m = set_up(repo, tmp_path / "remote.git")
    payload = {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(repo), "tool_name": "Write",
               "tool_input": {"file_path": str(repo / HOW), "content": "x"}, "tool_use_id": "t1"}
    r = run_handrail("hook", "claude", cwd=repo, input=json.dumps(payload), env=AGENT)
    out = json.loads(r.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "allow"
    assert "open to agents by write_paths '.handrail/context/bootstrap/**'" in out["permissionDecisionReason"]
    assert m.events("edit_notified")[0]["payload"]["file"] == HOW
    r = m.hr("can-edit", "--file", HOW, "--json", env=AGENT)
    answer = json.loads(r.stdout.splitlines()[-1])
    assert r.returncode == 0 and answer["rule"] == ".handrail/context/bootstrap/**" and "notice" in answer
    # Next to it, the task's own files stay protected.
    r = m.hr("can-edit", "--file", ".handrail/tasks/t/task.json", "--json", env=AGENT)
    assert r.returncode == 1 and json.loads(r.stdout.splitlines()[-1])["reason"] == "protected_path"
