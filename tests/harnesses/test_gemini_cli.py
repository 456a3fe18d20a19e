"""Gemini CLI: its search and listing tools, a headless run's asks, its folder trust, and the
real client reading handrail's Policy Engine file (no deprecated tools.allowed)."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

import pytest
from helpers import HANDRAIL, run_handrail
from hookkit import client, hook, make_project, needs_client
from modelserver import Call, ModelServer

from handrail.harnesses import gemini
from handrail.policy import agents

PUSH = "git push --force origin main"


def ask(project: Path, tool: str, tool_input: dict) -> dict:
    r = hook("gemini", {"session_id": "s", "cwd": str(project), "hook_event_name": "BeforeTool",
                        "tool_name": tool, "tool_input": tool_input}, cwd=project)
    assert r.code == 0, r
    assert isinstance(r.json, dict)
    return r.json


def test_grep_search_over_a_folder_holding_a_secret_is_refused_with_the_reason(project: Path) -> None:
    (project / "src" / "settings.py").write_text("DATABASE_URL = 'x'\n")
    out = ask(project, "grep_search", {"pattern": "DATABASE"})
    assert out["decision"] == "deny" and out["reason"].startswith("handrail: ") and "!.env" in out["reason"]
    assert ask(project, "grep_search", {"pattern": "DATABASE", "dir_path": "src"}) == {}
    assert ask(project, "grep_search", {"pattern": "DATABASE", "include_pattern": "*.py"}) == {}


def test_read_many_files_reads_its_include_globs_and_folders(project: Path) -> None:
    assert ask(project, "read_many_files", {"include": ["src"]}) == {}
    assert ask(project, "read_many_files", {"include": ["**/*"], "exclude": [".env"]}) == {}
    for include in (["."], ["**/*"], [".env"], [str(project / ".env")]):
        out = ask(project, "read_many_files", {"include": include})
        assert out["decision"] == "deny" and ".env" in out["reason"], include
    # a path outside the workspace is no include Gemini reads: refused as unreadable (exit 2)
    r = hook("gemini", {"hook_event_name": "BeforeTool", "cwd": str(project), "tool_name": "read_many_files",
                        "tool_input": {"include": ["/etc/passwd"]}}, cwd=project)
    assert r.code == 2 and "handrail: denied" in r.stderr and "tool_input.include" in r.stderr


def test_listings_print_names_and_only_a_secret_itself_is_refused(project: Path) -> None:
    assert ask(project, "list_directory", {"dir_path": str(project)}) == {}
    assert ask(project, "glob", {"pattern": "**/*.py"}) == {}
    out = ask(project, "glob", {"pattern": "*", "dir_path": ".env"})
    assert out["decision"] == "deny" and ".env" in out["reason"]


def under_gemini(project: Path, tmp_path: Path, payload: dict, *args: str) -> dict:
    """The hook run as Gemini runs it, by a process named `gemini` with these arguments
    (its input a pipe, as under `-p` or a script)."""
    fake = tmp_path / "bin" / "gemini"
    fake.parent.mkdir(exist_ok=True)
    fake.write_text(f"#!/bin/bash\n{HANDRAIL} hook gemini || exit 2\n")
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_ACTIONS")}
    r = subprocess.run([str(fake), *args], input=json.dumps(payload), text=True, capture_output=True, cwd=project,
                       env=env, timeout=60, check=False)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc: a headless run cannot be told")
def test_a_headless_run_gets_a_refusal_with_the_reason_instead_of_an_ask(project: Path, tmp_path: Path) -> None:
    payload = {"hook_event_name": "BeforeTool", "cwd": str(project), "tool_name": "run_shell_command",
               "tool_input": {"command": PUSH}}
    out = under_gemini(project, tmp_path, payload, "-p", "go")
    assert out["decision"] == "deny" and "tier 3 always needs a human and gemini cannot ask one here" in out["reason"]
    # started for a person (`-i`), it asks them
    assert under_gemini(project, tmp_path, payload, "-i", "go")["decision"] == "ask"


def test_trust_state_reads_trusted_folders(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "work" / "app"
    project.mkdir(parents=True)
    assert gemini.trust_state(str(project), str(home)) is None  # Gemini never ran here
    (home / ".gemini").mkdir(parents=True)
    assert gemini.trust_state(str(project), str(home)) is False
    rules = home / ".gemini" / "trustedFolders.json"
    rules.write_text(json.dumps({str(tmp_path / "work"): "TRUST_FOLDER"}))
    assert gemini.trust_state(str(project), str(home)) is True
    rules.write_text(json.dumps({str(tmp_path / "work"): "TRUST_FOLDER", str(project): "DO_NOT_TRUST"}))
    assert gemini.trust_state(str(project), str(home)) is False
    rules.write_text(json.dumps({str(project / "x"): "TRUST_PARENT"}))
    assert gemini.trust_state(str(project), str(home)) is True
    (home / ".gemini" / "settings.json").write_text(json.dumps({"security": {"folderTrust": {"enabled": False}}}))
    rules.write_text("{}")
    assert gemini.trust_state(str(project), str(home)) is True


def test_old_tools_allowed_entries_go_and_the_users_stay(project: Path) -> None:
    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"theme": "dark", "tools": {"allowed": ["run_shell_command(git status)"]},
                                    "hooks": {"BeforeTool": [{"hooks": [{"command": "handrail hook gemini"}]}]}}))
    assert run_handrail("permissions", cwd=project).returncode == 0
    data = json.loads(settings.read_text())
    assert "tools" not in data and data["theme"] == "dark"
    assert data["policyPaths"] == [".gemini/policies/handrail.toml", "~/.gemini/policies"]
    rules = tomllib.loads((project / ".gemini" / "policies" / "handrail.toml").read_text())["rule"]
    assert "git status" in rules[0]["commandPrefix"] and "git push" not in rules[0]["commandPrefix"]
    data["tools"] = {"allowed": ["run_shell_command(make docs)"]}
    settings.write_text(json.dumps(data))
    assert run_handrail("permissions", cwd=project).returncode == 0
    assert json.loads(settings.read_text())["tools"] == {"allowed": ["run_shell_command(make docs)"]}


# --------------------------------------------------------------------------- the real client


def run_gemini(project: Path, home: Path, calls: list[Call], *args: str) -> tuple[ModelServer,
                                                                                   subprocess.CompletedProcess[str]]:
    from drivers import gemini as driver

    assert HANDRAIL
    driver.settings(home)
    binary = client("gemini")
    assert binary is not None
    markers = {m.variable for m in agents.MARKERS}
    env = {k: v for k, v in os.environ.items() if k not in markers and not k.startswith("HANDRAIL_")}
    with ModelServer(calls) as srv:
        env.update(HOME=str(home), PATH=os.path.dirname(HANDRAIL) + os.pathsep + env.get("PATH", ""),
                   GOOGLE_GEMINI_BASE_URL=srv.url, GEMINI_API_KEY="x", GEMINI_CLI_TRUST_WORKSPACE="true")
        r = subprocess.run([binary, "-p", "go", "--output-format", "json", "-m", driver.MODEL, *args], cwd=project,
                           env=env, text=True, capture_output=True, stdin=subprocess.DEVNULL, timeout=300,
                           check=False)
    return srv, r


def guarded(tmp_path: Path) -> Path:
    project = make_project(tmp_path / "project")
    assert run_handrail("init", cwd=project).returncode == 0
    return project


@needs_client("gemini")
def test_the_real_client_reads_the_policy_file_and_warns_of_nothing(tmp_path: Path) -> None:
    project = guarded(tmp_path)
    # Without yolo, headless Gemini offers its shell tool only where a policy rule allows a
    # command: `git status` runs because handrail's policy file was loaded.
    srv, r = run_gemini(project, tmp_path / "home", [Call("run_shell_command", {"command": "git status"})],
                        "--approval-mode", "default")
    assert r.returncode == 0, r.stderr
    assert "deprecated" not in r.stderr and "Policy file error" not in r.stderr, r.stderr
    assert len(srv.results) == 1 and "On branch main" in srv.results[0], srv.results


@needs_client("gemini")
def test_the_shell_tool_environment_names_gemini(tmp_path: Path) -> None:
    # `env` itself is tier 3 (it prints every token): the shell tool echoes each marker instead
    # (git's author variables aside: echoing those is refused as a credential read).
    project = guarded(tmp_path)
    names = [m.variable for m in agents.MARKERS if not m.variable.startswith("GIT_")]
    command = "; ".join(f'echo "{v}=${v}"' for v in names)
    srv, r = run_gemini(project, tmp_path / "home", [Call("run_shell_command", {"command": command})],
                        "--approval-mode", "yolo")
    assert r.returncode == 0, r.stderr
    output = json.loads(srv.results[0])["output"]
    env = dict(line.split("=", 1) for line in output.splitlines() if line.split("=", 1)[0] in names)
    found = agents.detect({k: v for k, v in env.items() if v})
    assert found is not None and found.harness == "gemini", (found, output)
