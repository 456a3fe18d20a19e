"""A file with other hard links: an edit through one name changes every other name,
where no path rule looks. Refused for agents in can-edit and the pre-tool hooks; the
git hooks see content, not links, so a human's commit of it is not refused."""

from __future__ import annotations

import json
import os
from pathlib import Path

from helpers import git, prepared, run_handrail

from handrail.records import task_states

PROTOCOL = ".handrail/autonomy-protocol.json"
AGENT = {"CLAUDECODE": "1"}


def guarded(repo: Path) -> Path:
    """A repository handrail guards, a task in `implement`, and `src/policy.json` a
    second name of the protocol file."""
    prepared(repo, ("init",))
    task_states.new_task(str(repo), "t", phase="implement")
    (repo / "src").mkdir()
    os.link(repo / PROTOCOL, repo / "src" / "policy.json")
    return repo / "src" / "policy.json"


def test_can_edit_refuses_a_hard_linked_file_and_says_why(repo: Path) -> None:
    guarded(repo)
    r = run_handrail("can-edit", "--file", "src/policy.json", "--json", cwd=repo, env=AGENT)
    assert r.returncode == 1, r.stderr
    answer = json.loads(r.stdout.splitlines()[-1])
    assert answer["reason"] == "hard_linked" and answer["file"] == "src/policy.json"
    assert answer["rule"] == "st_nlink 2"
    text = run_handrail("can-edit", "--file", "src/policy.json", cwd=repo, env=AGENT).stdout
    assert "src/policy.json has other hard links" in text and "a human may edit it" in text
    # Its other name is the protocol, protected in its own right; a file of one name is fine.
    (repo / "src" / "own.py").write_text("x\n")
    assert run_handrail("can-edit", "--file", "src/own.py", cwd=repo, env=AGENT).returncode == 0


def test_a_symbolic_link_to_a_hard_linked_file_is_refused_too(repo: Path) -> None:
    guarded(repo)
    os.symlink("policy.json", repo / "src" / "alias.json")
    r = run_handrail("can-edit", "--file", "src/alias.json", "--json", cwd=repo, env=AGENT)
    assert r.returncode == 1 and json.loads(r.stdout.splitlines()[-1])["reason"] == "hard_linked"


def test_claude_write_and_edit_of_a_hard_linked_file_are_denied(repo: Path) -> None:
    linked = guarded(repo)
    before = (repo / PROTOCOL).read_text()
    for tool, tool_input in (("Write", {"file_path": str(linked), "content": "{}"}),
                             ("Edit", {"file_path": str(linked), "old_string": "a", "new_string": "b"})):
        payload = {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(repo), "tool_name": tool,
                   "tool_input": tool_input, "tool_use_id": "t1"}
        r = run_handrail("hook", "claude", cwd=repo, input=json.dumps(payload), env=AGENT)
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)["hookSpecificOutput"]
        assert out["permissionDecision"] == "deny", out
        assert "src/policy.json has other hard links" in out["permissionDecisionReason"]
    assert (repo / PROTOCOL).read_text() == before
    r = run_handrail("events", "--type", "edit_refused", "--json", cwd=repo)
    assert [json.loads(line)["topic"] for line in r.stdout.splitlines()] == ["hard_linked", "hard_linked"]


def test_a_shell_write_through_the_link_is_denied(repo: Path) -> None:
    guarded(repo)
    payload = {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(repo), "tool_name": "Bash",
               "tool_input": {"command": "printf '{}' > src/policy.json"}, "tool_use_id": "t1"}
    r = run_handrail("hook", "claude", cwd=repo, input=json.dumps(payload), env=AGENT)
    out = json.loads(r.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "hard links" in out["permissionDecisionReason"]


def test_a_humans_commit_of_a_hard_linked_file_is_not_refused(repo: Path) -> None:
    linked = guarded(repo)
    git(repo, "add", "-A")
    assert git(repo, "commit", "-q", "-m", "setup", check=False).returncode == 0
    linked.write_text(linked.read_text() + "\n")
    git(repo, "add", "src/policy.json")
    r = git(repo, "commit", "-q", "-m", "human edit", check=False)
    assert r.returncode == 0, r.stderr
