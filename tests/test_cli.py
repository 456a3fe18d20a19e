"""The `handrail` command as a person types it: version, help, tasks, policy, demo."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from helpers import HANDRAIL, as_person, git

from handrail import __version__
from handrail.cli import cli
from handrail.policy import protocol as protocols

TEMPLATE = json.loads(Path(protocols.DEFAULT_PROTOCOL).read_text(encoding="utf-8"))
ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def last_json(stdout: str) -> dict:
    return json.loads(stdout.splitlines()[-1])


# ----------------------------------------------------------------------------- version and help


def test_version(handrail) -> None:  # type: ignore[no-untyped-def]
    r = handrail("--version")
    assert r.returncode == 0
    assert r.stdout.strip() == f"handrail, version {__version__}"


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_lists_every_command_on_one_line(handrail, flag: str) -> None:  # type: ignore[no-untyped-def]
    r = handrail(flag)
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    start = lines.index("Commands:") + 1
    listed = {}
    for line in lines[start:]:
        if not line.strip():
            break
        name, _, summary = line.strip().partition(" ")
        assert summary.strip(), f"command {name} has no summary"
        listed[name] = summary.strip()
    assert set(listed) == set(cli.commands)
    for name in ("can-edit", "classify", "demo", "task", "policy"):
        assert name in listed


def test_no_command_shows_usage(handrail) -> None:  # type: ignore[no-untyped-def]
    r = handrail()
    assert "Usage: handrail" in r.stdout + r.stderr
    assert "Traceback" not in r.stderr


def test_unknown_command_is_a_usage_error(handrail) -> None:  # type: ignore[no-untyped-def]
    r = handrail("frobnicate")
    assert r.returncode == 2
    assert "frobnicate" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("group", ["task", "policy"])
def test_group_help(handrail, group: str) -> None:  # type: ignore[no-untyped-def]
    r = handrail(group, "--help")
    assert r.returncode == 0
    for sub in cli.commands[group].commands:  # type: ignore[attr-defined]
        assert sub in r.stdout


# ----------------------------------------------------------------------------- tasks


def task_file(repo: Path, slug: str) -> Path:
    return repo / ".handrail" / "tasks" / slug / "task.json"


def test_task_new_writes_the_task(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    r = handrail("task", "new", "login", "--title", "Login form", "--project", str(repo))
    assert r.returncode == 0, r.stderr
    assert "login" in r.stdout and "plan" in r.stdout
    data = json.loads(task_file(repo, "login").read_text())
    assert (data["slug"], data["title"], data["phase"]) == ("login", "Login form", "plan")
    assert len(data["history"]) == 1
    entry = data["history"][0]
    assert entry["from"] is None and entry["to"] == "plan" and ISO_UTC.match(entry["at"])


def test_task_new_in_the_working_directory_with_json(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    r = as_person("task", "new", "fix-1.2_b", "--phase", "implement", "--json", cwd=repo)
    assert r.returncode == 0, r.stderr
    answer = last_json(r.stdout)
    assert answer["slug"] == "fix-1.2_b" and answer["phase"] == "implement" and answer["title"] == "fix-1.2_b"
    assert task_file(repo, "fix-1.2_b").is_file()


def test_task_new_twice_is_an_error_and_keeps_the_first(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    handrail("task", "new", "a", "--title", "first", "--project", str(repo))
    r = handrail("task", "new", "a", "--title", "second", "--project", str(repo))
    assert r.returncode == 2
    assert "already exists" in r.stderr
    assert json.loads(task_file(repo, "a").read_text())["title"] == "first"


@pytest.mark.parametrize("slug", ["../x", "/", "", "a/b", "..", ".hidden", "-x", "a b", "x" * 101])
def test_bad_slugs_are_rejected_and_nothing_is_written(handrail, repo: Path, slug: str) -> None:  # type: ignore[no-untyped-def]
    r = handrail("task", "new", slug, "--project", str(repo))
    assert r.returncode == 2
    assert r.stderr.startswith("handrail: error:") or r.stderr.startswith("Error:") or "Usage" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (repo / ".handrail").exists()
    assert not (repo.parent / "x").exists()


@pytest.mark.parametrize("slug", ["../x", "/", ""])
def test_bad_slugs_in_every_task_command(handrail, repo: Path, slug: str) -> None:  # type: ignore[no-untyped-def]
    for args in (("task", "phase", slug, "implement"), ("task", "show", slug)):
        r = handrail(*args, "--project", str(repo))
        assert r.returncode == 2, args
        assert "slug" in r.stderr
    assert not (repo / ".handrail").exists()


def test_unknown_phase_is_rejected(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    r = handrail("task", "new", "a", "--phase", "coding", "--project", str(repo))
    assert r.returncode == 2 and "coding" in r.stderr
    assert not task_file(repo, "a").exists()
    handrail("task", "new", "a", "--project", str(repo))
    r = handrail("task", "phase", "a", "coding", "--project", str(repo))
    assert r.returncode == 2 and "implement" in r.stderr
    assert json.loads(task_file(repo, "a").read_text())["phase"] == "plan"


def test_task_phase_records_history(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    handrail("task", "new", "a", "--project", str(repo))
    r = as_person("task", "phase", "a", "implement", "--project", str(repo))
    assert r.returncode == 0
    assert "plan -> implement" in r.stdout
    r = handrail("task", "phase", "a", "review", "--json", "--project", str(repo))
    assert r.returncode == 0
    answer = last_json(r.stdout)
    assert answer["phase"] == "review" and answer["previous_phase"] == "implement"
    history = json.loads(task_file(repo, "a").read_text())["history"]
    assert [(h["from"], h["to"]) for h in history] == [(None, "plan"), ("plan", "implement"), ("implement", "review")]
    assert all(ISO_UTC.match(h["at"]) for h in history)


def test_task_phase_to_the_same_phase_changes_nothing(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    as_person("task", "new", "a", "--phase", "implement", "--project", str(repo), cwd=repo)
    before = task_file(repo, "a").read_text()
    r = handrail("task", "phase", "a", "implement", "--project", str(repo))  # no change: no person needed
    assert r.returncode == 0 and "already" in r.stdout
    assert task_file(repo, "a").read_text() == before


def test_task_phase_of_unknown_task(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    r = handrail("task", "phase", "ghost", "implement", "--project", str(repo))
    assert r.returncode == 2
    assert "handrail task new ghost" in r.stderr
    assert not task_file(repo, "ghost").exists()


def test_history_names_who_acted(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    git(repo, "config", "user.name", "Alice Doe")
    git(repo, "config", "user.email", "alice@example.com")
    handrail("task", "new", "a", "--project", str(repo))
    as_person("task", "phase", "a", "implement", "--project", str(repo), cwd=repo)
    handrail("task", "phase", "a", "review", "--project", str(repo), env={"CLAUDECODE": "1"})
    history = json.loads(task_file(repo, "a").read_text())["history"]
    assert [h.get("by") for h in history] == ["Alice Doe <alice@example.com>"] * 2 + ["claude"]
    assert [h.get("evidence") for h in history] == [None, None, "CLAUDECODE=1 (Claude Code's Bash tool)"]
    r = handrail("task", "show", "a", "--project", str(repo))
    assert "implement -> review  by claude (CLAUDECODE=1 (Claude Code's Bash tool))" in r.stdout


def test_history_names_the_agent_a_wrapper_hid(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    """The agent's shell keeps its marker: a phase change under `env -u` is still the agent's."""
    handrail("task", "new", "a", "--project", str(repo))
    script = f"env -u HANDRAIL_AGENT {HANDRAIL} task phase a review --project {repo}; true"
    subprocess.run(["sh", "-c", script], env={**os.environ, "HANDRAIL_AGENT": "bot"}, check=True)
    entry = json.loads(task_file(repo, "a").read_text())["history"][-1]
    assert entry["by"] == "bot" and entry["evidence"].startswith("HANDRAIL_AGENT=bot")
    assert "in the environment of sh (pid " in entry["evidence"]


def test_task_list(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    r = handrail("task", "list", "--project", str(repo))
    assert r.returncode == 0 and "no tasks" in r.stdout and "handrail task new" in r.stdout
    assert last_json(handrail("task", "list", "--json", "--project", str(repo)).stdout) == {"tasks": []}
    as_person("task", "new", "b-task", "--phase", "implement", "--title", "Bee", "--project", str(repo), cwd=repo)
    handrail("task", "new", "a-task", "--project", str(repo))
    r = handrail("task", "list", "--project", str(repo))
    assert r.returncode == 0
    header, *lines = r.stdout.splitlines()
    assert header.split() == ["TASK", "PHASE", "EDITS", "UPDATED", "TITLE"]
    assert len(lines) == 2
    assert "a-task" in lines[0] and "plan" in lines[0]
    assert "b-task" in lines[1] and "implement" in lines[1] and "Bee" in lines[1]
    answer = last_json(handrail("task", "list", "--json", "--project", str(repo)).stdout)
    assert [(t["task"], t["phase"], t["editing"]) for t in answer["tasks"]] == [
        ("a-task", "plan", False), ("b-task", "implement", True)]
    assert answer["tasks"][1]["title"] == "Bee"


def test_task_list_with_a_broken_task_is_an_error(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    handrail("task", "new", "a", "--project", str(repo))
    task_file(repo, "a").write_text("{")
    r = handrail("task", "list", "--project", str(repo))
    assert r.returncode == 2
    assert ".handrail/tasks/a/task.json" in r.stderr and "line 1 column 2" in r.stderr


def test_task_show(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    handrail("task", "new", "a", "--title", "The A task", "--project", str(repo))
    as_person("task", "phase", "a", "implement", "--project", str(repo), cwd=repo)
    r = handrail("task", "show", "a", "--project", str(repo))
    assert r.returncode == 0
    assert "The A task" in r.stdout and "implement" in r.stdout and "edits allowed" in r.stdout
    assert "plan -> implement" in r.stdout and "contract: none" in r.stdout
    answer = last_json(handrail("task", "show", "a", "--json", "--project", str(repo)).stdout)
    assert answer["slug"] == "a" and answer["phase"] == "implement" and answer["editing"] is True
    assert answer["contract"] is None
    assert [(h["from"], h["to"]) for h in answer["history"]] == [(None, "plan"), ("plan", "implement")]
    assert all(set(h) >= {"at", "from", "to"} for h in answer["history"])


def test_task_show_with_a_contract(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    handrail("task", "new", "a", "--project", str(repo))
    contract = {"contract_mode": "safe", "allowed_files": ["src/**"], "forbidden_files": ["src/vendor/**"],
                "human_gate": {"required_for": ["auth_permission_change"]},
                "criteria": [{"id": "ok", "binary": True}]}
    (repo / ".handrail/tasks/a/harness-contract.json").write_text(json.dumps(contract))
    answer = last_json(handrail("task", "show", "a", "--json", "--project", str(repo)).stdout)
    c = answer["contract"]
    assert c["contract_mode"] == "safe"
    assert c["governor"]["max_steps"] == 10
    assert c["allowed_files"] == ["src/**"] and c["forbidden_files"] == ["src/vendor/**"]
    assert c["human_gate"] == {"auth_permission_change": ["**/auth/**"]}
    assert len(c["warnings"]) == 1
    r = handrail("task", "show", "a", "--project", str(repo))
    assert "src/vendor/**" in r.stdout and "auth_permission_change" in r.stdout and "warning" in r.stdout


def test_task_show_with_an_invalid_contract(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    handrail("task", "new", "a", "--project", str(repo))
    (repo / ".handrail/tasks/a/harness-contract.json").write_text(json.dumps({"alowed_files": []}))
    r = handrail("task", "show", "a", "--project", str(repo))
    assert r.returncode == 2
    assert "alowed_files" in r.stderr and "Traceback" not in r.stderr


# ----------------------------------------------------------------------------- policy


def test_policy_check_valid(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    proto = repo / ".handrail/autonomy-protocol.json"
    proto.parent.mkdir()
    proto.write_text(json.dumps(TEMPLATE))
    handrail("task", "new", "a", "--project", str(repo))
    r = handrail("policy", "check", "--project", str(repo))
    assert r.returncode == 0
    assert r.stdout.splitlines()[-1].startswith("valid: 2 files checked, 0 error(s)")
    r = handrail("policy", "check", "--json", "--project", str(repo))
    assert r.returncode == 0
    result = last_json(r.stdout)
    assert result["valid"] is True and result["errors"] == []
    assert result["files"] == [".handrail/autonomy-protocol.json", ".handrail/tasks/a/task.json"]


def test_policy_check_invalid(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    proto = repo / ".handrail/autonomy-protocol.json"
    proto.parent.mkdir()
    proto.write_text(json.dumps({**TEMPLATE, "globl_mode": "guarded"}))
    r = handrail("policy", "check", "--project", str(repo))
    assert r.returncode == 1
    assert "error: .handrail/autonomy-protocol.json: globl_mode: unknown key (did you mean 'global_mode'?)" in r.stdout
    assert r.stdout.splitlines()[-1].startswith("invalid:")
    r = handrail("policy", "check", "--json", "--project", str(repo))
    assert r.returncode == 1
    result = last_json(r.stdout)
    assert result["valid"] is False and len(result["errors"]) == 1


def test_policy_check_reports_every_problem_at_once(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    handrail("task", "new", "a", "--project", str(repo))
    handrail("task", "new", "b", "--project", str(repo))
    task_file(repo, "a").write_text('{"slug": "a", "phase": "coding"}')
    data = json.loads(task_file(repo, "b").read_text())
    data["history"] = "yesterday"
    task_file(repo, "b").write_text(json.dumps(data))
    (repo / ".handrail/tasks/bad name").mkdir()
    (repo / ".handrail/tasks/bad name/task.json").write_text("{}")
    r = handrail("policy", "check", "--json", "--project", str(repo))
    assert r.returncode == 1
    errors = last_json(r.stdout)["errors"]
    assert any(e.startswith(".handrail/tasks/a/task.json: phase") for e in errors)
    assert any(e.startswith(".handrail/tasks/b/task.json: history") for e in errors)
    assert any("bad name" in e for e in errors)


def test_policy_show_all_tools(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    r = handrail("policy", "show", "--json", "--project", str(repo))
    assert r.returncode == 0
    answer = last_json(r.stdout)
    assert set(answer["tools"]) == set(TEMPLATE["tools"])
    claude = answer["tools"]["claude"]
    assert set(claude) >= {"tool", "mode", "allow", "notify", "ask", "deny"}
    t1, t2, t3 = (TEMPLATE["tiers"][t]["shell_patterns"][0]
                  for t in ("tier1_silent", "tier2_notified", "tier3_blocking"))
    assert t1 in claude["allow"] and t2 in claude["notify"] and t3 in claude["ask"]
    r = handrail("policy", "show", "--project", str(repo))
    assert r.returncode == 0
    for tool in TEMPLATE["tools"]:
        assert f"\n{tool} (mode guarded)" in r.stdout
    assert "  tier 1, runs silently: " in r.stdout and "  tier 3, needs a human (ask): " in r.stdout
    r = handrail("policy", "show", "--all", "--project", str(repo))
    assert "  allow:" in r.stdout and "  notify:" in r.stdout and "  ask:" in r.stdout


def test_policy_show_one_tool(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    answer = last_json(handrail("policy", "show", "codex", "--json", "--project", str(repo)).stdout)
    assert list(answer["tools"]) == ["codex"]
    r = handrail("policy", "show", "codex", "--project", str(repo))
    assert "codex (mode" in r.stdout and "claude (mode" not in r.stdout


def test_policy_show_unknown_tool(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    r = handrail("policy", "show", "claud", "--project", str(repo))
    assert r.returncode == 2
    assert "claud" in r.stderr and "did you mean 'claude'" in r.stderr


# ----------------------------------------------------------------------------- demo


def test_demo(handrail, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    r = handrail("demo", cwd=tmp_path, env={"TMPDIR": str(scratch)})
    assert r.returncode == 0, r.stderr
    assert "✓ allowed" in r.stdout and "✗ refused" in r.stdout
    for reason in ("no_edit_tasks", "edit_task", "forbidden_file", "protected_path", "not_in_allowed_files",
                   "out_of_scope"):
        assert reason in r.stdout, reason
    assert "Traceback" not in r.stderr
    assert list(scratch.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tmp"]
