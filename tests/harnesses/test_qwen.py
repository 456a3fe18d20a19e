"""Qwen Code: `handrail hook qwen` as Qwen calls it, the `.qwen/settings.json` that init
writes, folder trust, and the real client offline against the scripted model server."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from drivers import qwen as driver
from helpers import HANDRAIL, git, run_handrail
from hookkit import Reply, events, hook, make_project, needs_client
from modelserver import Call, ModelServer

from handrail.harnesses import qwen


def call(project: Path, tool: str, args: dict[str, Any], event: str = "PreToolUse") -> Reply:
    payload = {"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": str(project), "hook_event_name": event,
               "timestamp": "2026-01-01T00:00:00Z", "permission_mode": "yolo", "tool_name": tool,
               "tool_input": args, "tool_use_id": "toolu_1"}
    return hook("qwen", payload, cwd=project)


def decision(r: Reply) -> tuple[str, str]:
    """What Qwen makes of the reply: (allow | deny | none, the reason the agent is told)."""
    if r.code == 2:
        return "deny", r.stderr
    assert r.code == 0, r
    if r.json is None:
        return "none", ""
    out = r.json["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse"
    return out["permissionDecision"], out["permissionDecisionReason"]


# --------------------------------------------------------------------------- the hook protocol


def test_a_tier_3_command_is_refused_with_handrails_reason_since_qwen_cannot_ask(project: Path) -> None:
    verdict, reason = decision(call(project, "run_shell_command", {"command": "git push --force origin main"}))
    assert verdict == "deny"
    assert reason.startswith("handrail: refused") and "qwen cannot ask one here" in reason
    assert any(e["event_type"] == "command_blocked" and e["payload"]["tool"] == "qwen" for e in events(project))


def test_monitor_runs_a_shell_command_and_is_judged_as_one(project: Path) -> None:
    verdict, reason = decision(call(project, "monitor", {"command": "cat .env", "description": "watch"}))
    assert verdict == "deny" and "secret-read" in reason


def test_the_shell_tools_directory_is_where_the_command_runs(project: Path) -> None:
    (project / "src" / "secrets").mkdir()
    (project / "src" / "secrets" / "k").write_text("x")
    verdict, _ = decision(call(project, "run_shell_command", {"command": "cat k", "directory": "src/secrets"}))
    assert verdict == "deny"
    assert decision(call(project, "run_shell_command", {"command": "cat app.py", "directory": "src"}))[0] == "allow"


def test_a_tier_2_command_is_allowed_with_a_notice_for_the_user(project: Path) -> None:
    r = call(project, "run_shell_command", {"command": "mkdir -p build/out"})
    assert decision(r)[0] == "allow"
    assert r.json is not None and r.json["systemMessage"].startswith("handrail: notice")


def test_file_tools_are_judged_by_the_tasks_scope(project: Path) -> None:
    assert decision(call(project, "write_file", {"file_path": str(project / "src" / "a.py"), "content": "x"}))[0] \
        == "allow"
    verdict, reason = decision(call(project, "write_file", {"file_path": str(project / "docs" / "n.md"),
                                                            "content": "x"}))
    assert verdict == "deny" and reason.startswith("handrail: denied")
    for tool in ("edit", "replace"):  # `replace` is the older name Qwen still accepts
        verdict, _ = decision(call(project, tool, {"file_path": str(project / ".qwen" / "settings.json"),
                                                   "old_string": "a", "new_string": "b"}))
        assert verdict == "deny"


def test_reads_of_secrets_are_refused_whichever_tool_reads(project: Path) -> None:
    env = str(project / ".env")
    assert decision(call(project, "read_file", {"file_path": env}))[0] == "deny"
    assert decision(call(project, "lsp", {"operation": "documentSymbol", "filePath": env}))[0] == "deny"
    assert decision(call(project, "read_file", {"file_path": str(project / "src" / "app.py")}))[0] == "none"


def test_a_search_that_reaches_a_secret_file_is_refused(project: Path) -> None:
    (project / "src" / "settings.py").write_text("DATABASE_URL = 'postgres://db'\n")
    for tool in ("grep_search", "search_file_content"):
        verdict, reason = decision(call(project, tool, {"pattern": "DATABASE"}))
        assert verdict == "deny" and ".env" in reason and reason.startswith("handrail: denied")
    # Narrowed by its own path or glob, the same search reaches no secret.
    assert decision(call(project, "grep_search", {"pattern": "DATABASE", "path": str(project / "src")}))[0] == "none"
    assert decision(call(project, "grep_search", {"pattern": "DATABASE", "glob": "*.py"}))[0] == "none"


def test_glob_lists_names_only_so_it_gets_no_opinion(project: Path) -> None:
    # A secret's name is no secret: the file's contents never reach the agent through glob.
    assert decision(call(project, "glob", {"pattern": "**/.env*"}))[0] == "none"


def test_other_tools_and_other_events_get_no_opinion(project: Path) -> None:
    assert decision(call(project, "list_directory", {"path": str(project)}))[0] == "none"
    assert decision(call(project, "web_fetch", {"url": "https://example.com", "prompt": "x"}))[0] == "none"
    assert decision(call(project, "run_shell_command", {"command": "git push"}, event="PostToolUse"))[0] == "none"


@pytest.mark.parametrize(("tool", "args", "field"), [
    ("run_shell_command", {}, "tool_input.command"),
    ("run_shell_command", {"command": "ls", "directory": 3}, "tool_input.directory"),
    ("grep_search", {"pattern": "x", "path": ["src"]}, "tool_input.path"),
    ("write_file", {"content": "x"}, "tool_input"),
])
def test_a_payload_qwen_cannot_have_meant_is_refused_naming_the_field(project: Path, tool: str,
                                                                      args: dict[str, Any], field: str) -> None:
    r = call(project, tool, args)
    assert r.code == 2 and field in r.stderr and r.stderr.startswith("handrail: denied")


def test_an_event_qwen_never_sends_is_refused(project: Path) -> None:
    r = call(project, "run_shell_command", {"command": "ls"}, event="BeforeTool")
    assert r.code == 2 and "BeforeTool is no event" in r.stderr


# --------------------------------------------------------------------------- native files


def test_init_writes_qwens_settings_with_the_hook_and_no_rule_that_admits_tier_3(project: Path) -> None:
    r = run_handrail("init", cwd=project)
    assert r.returncode == 0, r.stderr
    data = json.loads((project / ".qwen" / "settings.json").read_text())
    (group,) = data["hooks"]["PreToolUse"]
    assert group["hooks"][0]["command"] == "handrail hook qwen || exit 2"
    # Qwen tests the matcher as a regular expression against the tool's name.
    for tool in ("run_shell_command", "monitor", "write_file", "edit", "read_file", "grep_search"):
        assert re.search(group["matcher"], tool), tool
    assert not re.search(group["matcher"], "notebook_edit_x") and not re.search(group["matcher"], "list_directory")
    assert not re.search(group["matcher"], "glob")
    # Every allow prefix admits some tier-3 command (`Bash(cat)` admits `cat .env`): none is written.
    assert "permissions" not in data
    assert data["hooks"]["SessionStart"][0]["hooks"][0]["command"] == "handrail hook session-start --harness qwen"


def test_the_users_qwen_settings_are_kept_and_handrails_replaced(project: Path) -> None:
    (project / ".qwen").mkdir()
    user = {"model": {"name": "qwen3-coder"}, "permissions": {"allow": ["Bash(make lint)"]},
            "hooks": {"PreToolUse": [{"matcher": "^edit$", "hooks": [{"type": "command", "command": "./fmt.sh"}]}]}}
    (project / ".qwen" / "settings.json").write_text(json.dumps(user))
    for _ in range(2):
        r = run_handrail("permissions", "--tool", "qwen", cwd=project)
        assert r.returncode == 0, r.stderr
    data = json.loads((project / ".qwen" / "settings.json").read_text())
    assert data["model"] == {"name": "qwen3-coder"}
    assert "Bash(make lint)" in data["permissions"]["allow"]
    commands = [h["command"] for g in data["hooks"]["PreToolUse"] for h in g["hooks"]]
    assert commands == ["handrail hook qwen || exit 2", "./fmt.sh"]
    assert run_handrail("permissions", "--check", "--tool", "qwen", cwd=project).returncode == 0


def test_doctor_reports_qwens_hook_removed_and_fix_puts_it_back(project: Path) -> None:
    assert run_handrail("init", cwd=project).returncode == 0
    path = project / ".qwen" / "settings.json"
    data = json.loads(path.read_text())
    data["hooks"]["PreToolUse"] = []
    path.write_text(json.dumps(data))
    r = run_handrail("doctor", "--json", cwd=project)
    report = json.loads(r.stdout.strip().splitlines()[-1])
    assert r.returncode == 1
    assert any("qwen: its hook is not registered" in f["finding"] for f in report["findings"])
    # The hooks start `handrail` from the agent's PATH: doctor checks it is there.
    on_path = {"PATH": f"{os.path.dirname(HANDRAIL or 'handrail')}{os.pathsep}{os.environ.get('PATH', '')}"}
    assert run_handrail("doctor", "--fix", cwd=project, env=on_path).returncode == 0
    assert "handrail hook qwen" in path.read_text()


def test_an_agent_may_not_edit_qwens_settings(project: Path) -> None:
    r = run_handrail("can-edit", "--file", ".qwen/settings.json", "--json", cwd=project)
    assert r.returncode == 1 and json.loads(r.stdout.strip().splitlines()[-1])["reason"] == "protected_path"


# --------------------------------------------------------------------------- folder trust


def _home(tmp_path: Path, settings: object, folders: object | None = None) -> Path:
    home = tmp_path / "home"
    (home / ".qwen").mkdir(parents=True)
    (home / ".qwen" / "settings.json").write_text(settings if isinstance(settings, str) else json.dumps(settings))
    if folders is not None:
        (home / ".qwen" / "trustedFolders.json").write_text(json.dumps(folders))
    return home


def test_folder_trust_off_loads_every_projects_settings(tmp_path: Path) -> None:
    assert qwen.trust_state(str(tmp_path / "p"), str(tmp_path / "nohome")) is True
    home = _home(tmp_path, "// Qwen allows comments\n{\"security\": {\"folderTrust\": {\"enabled\": false}}}")
    assert qwen.trust_state(str(tmp_path / "p"), str(home)) is True


def test_with_folder_trust_on_only_an_untrusted_folder_loses_its_settings(tmp_path: Path) -> None:
    on = {"security": {"folderTrust": {"enabled": True}}}
    p = tmp_path / "work" / "p"
    assert qwen.trust_state(str(p), str(_home(tmp_path / "a", on, {str(p): "DO_NOT_TRUST"}))) is False
    assert qwen.trust_state(str(p), str(_home(tmp_path / "b", on, {str(p): "TRUST_FOLDER"}))) is True
    # TRUST_PARENT on a sibling trusts its parent, and so this folder.
    assert qwen.trust_state(str(p), str(_home(tmp_path / "c", on, {str(p.parent / "q"): "TRUST_PARENT"}))) is True
    assert qwen.trust_state(str(p), str(_home(tmp_path / "d", on, {}))) is True  # no rule: Qwen loads it
    assert qwen.trust_state(str(p), str(_home(tmp_path / "e", "{not json"))) is None


# --------------------------------------------------------------------------- the real client


@pytest.fixture
def guarded(tmp_path: Path) -> Path:
    project = make_project(tmp_path / "project")
    r = run_handrail("init", cwd=project)
    assert r.returncode == 0, r.stderr
    git(project, "add", "-A")
    git(project, "commit", "-q", "--no-verify", "-m", "handrail init")
    return project


def qwen_run(project: Path, home: Path, calls: list[Call]) -> tuple[ModelServer, dict[str, Any]]:
    assert HANDRAIL
    env = {**os.environ, "PATH": os.pathsep.join([os.path.dirname(HANDRAIL), os.environ.get("PATH", "")])}
    with ModelServer(calls) as srv:
        r: subprocess.CompletedProcess[str] = driver.run(project, home, srv.url, env)
    assert r.returncode == 0, r.stderr[-2000:]
    messages = json.loads(r.stdout)
    (result,) = [m for m in messages if m.get("type") == "result"]
    return srv, result


@pytest.mark.slow
@needs_client("qwen")
def test_the_real_qwen_runs_handrails_hook_before_its_tools(guarded: Path, tmp_path: Path) -> None:
    scenarios = ("force-push", "shell-read-env", "tool-search-secret", "in-scope-write", "out-of-scope-write",
                 "protected-write", "tier-2")
    scripted = {s: driver.calls(s, guarded) for s in scenarios}
    calls = [c for s in scenarios for c in scripted[s]]  # type: ignore[union-attr]
    srv, result = qwen_run(guarded, tmp_path / "home", calls)

    assert len(srv.results) == len(calls)
    told, at = {}, 0
    for s in scenarios:  # the result of each scenario's last call
        at += len(scripted[s])
        told[s] = srv.results[at - 1]
    assert told["force-push"].startswith("handrail: refused") and "git push --force origin main" in told["force-push"]
    assert told["shell-read-env"].startswith("handrail: refused") and "secret-read" in told["shell-read-env"]
    assert told["tool-search-secret"].startswith("handrail: denied") and ".env" in told["tool-search-secret"]
    assert "hunter2" not in srv.told()
    assert (guarded / "src" / "app.py").read_text() == "print('new')\n"
    assert told["out-of-scope-write"].startswith("handrail: denied") and not (guarded / "docs").exists()
    assert told["protected-write"].startswith("handrail: denied") and "protected" in told["protected-write"]
    assert '"guarded"' in (guarded / ".handrail" / "autonomy-protocol.json").read_text()
    assert (guarded / "build" / "out").is_dir() and "Exit Code: 0" in told["tier-2"]
    assert [d["tool_name"] for d in result["permission_denials"]] == [
        "run_shell_command", "run_shell_command", "grep_search", "write_file", "edit"]
    assert {"command_blocked", "command_notified"} <= {e["event_type"] for e in events(guarded)}


@pytest.mark.slow
@needs_client("qwen")
def test_qwens_shell_carries_its_marker_and_its_commits_say_so(guarded: Path, tmp_path: Path) -> None:
    calls = [Call("run_shell_command", {"command": "printenv QWEN_CODE"}),
             Call("run_shell_command", {"command": "git add src/app.py && git commit -q -m 'agent change'"})]
    (guarded / "src" / "app.py").write_text("print('agent')\n")
    srv, _ = qwen_run(guarded, tmp_path / "home", calls)
    assert "Output: 1\n" in srv.results[0]
    message = git(guarded, "log", "-1", "--format=%B").stdout
    assert "Handrail-Agent: qwen (QWEN_CODE=1" in message
