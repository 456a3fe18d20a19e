"""GitHub Copilot CLI, the real client, offline against the scripted model server in a
repository set up by `handrail init`: what its model is told, what lands on disk, and
what its hooks receive (both handrail's .github/hooks file and the Claude-format hook in
.claude/settings.json, which Copilot runs too)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from drivers import copilot as driver
from helpers import git, run_handrail
from hookkit import hook, make_project, needs_client
from modelserver import Call, ModelServer
from test_parity import base_env

from handrail.harnesses import copilot
from handrail.policy import agents

pytestmark = [pytest.mark.slow]
real = needs_client("copilot")


@pytest.fixture
def guarded(tmp_path: Path) -> Path:
    project = make_project(tmp_path / "project")
    (project / "src" / "settings.py").write_text("DATABASE_URL = 'from the environment'\n")
    git(project, "add", "src/settings.py")
    git(project, "commit", "-q", "--no-verify", "-m", "settings")
    r = run_handrail("init", cwd=project)
    assert r.returncode == 0, r.stderr
    return project


def play(project: Path, calls: list[Call], *, trust: bool = True, model: str = driver.MODEL,
         home: Path | None = None) -> tuple[ModelServer, subprocess.CompletedProcess[str]]:
    home = home or project.parent / "home"
    home.mkdir(exist_ok=True)
    with ModelServer(calls) as srv:
        r = driver.run(project, home, srv.url, base_env(home), trust=trust, model=model)
    assert r.returncode == 0, r.stdout[-1500:] + r.stderr[-1500:]
    return srv, r


@real
def test_copilot_views_creates_and_edits_in_scope_files(guarded: Path) -> None:
    app = str(guarded / "src" / "app.py")
    srv, _ = play(guarded, [
        Call("view", {"path": app}),
        Call("create", {"path": str(guarded / "src" / "login.py"), "file_text": "LOGIN = 1\n"}),
        Call("edit", {"path": app, "old_str": "print('old')", "new_str": "print('new')"}),
    ])
    assert len(srv.results) == 3, srv.results
    assert "print('old')" in srv.results[0]
    assert not any("Denied" in r for r in srv.results), srv.results
    assert (guarded / "src" / "login.py").read_text() == "LOGIN = 1\n"
    assert (guarded / "src" / "app.py").read_text() == "print('new')\n"


@real
def test_copilot_is_refused_out_of_scope_and_secret_reads_with_handrails_reason(guarded: Path) -> None:
    srv, _ = play(guarded, [
        Call("create", {"path": str(guarded / "docs" / "notes.md"), "file_text": "notes\n"}),
        Call("view", {"path": str(guarded / ".env")}),
    ])
    assert not (guarded / "docs" / "notes.md").exists()
    assert all(r.startswith("Denied by preToolUse hook: handrail: denied") for r in srv.results), srv.results
    assert "hunter2" not in srv.told()


@real
def test_a_grep_over_the_project_is_narrowed_so_the_secret_never_reaches_the_model(guarded: Path) -> None:
    srv, _ = play(guarded, [Call("grep", {"pattern": "DATABASE", "output_mode": "content"})])
    assert len(srv.results) == 1
    assert "src/settings.py" in srv.results[0] and "DATABASE_URL" in srv.results[0]
    assert "hunter2" not in srv.told()
    assert "handrail: narrowed: searched without .env" in srv.told()  # preToolUse additionalContext


@real
def test_a_grep_with_its_own_glob_over_the_secret_is_refused(guarded: Path) -> None:
    srv, _ = play(guarded, [Call("grep", {"pattern": "DATABASE", "glob": ".e*", "output_mode": "content"}),
                            Call("grep", {"pattern": "DATABASE", "paths": [str(guarded / "src")]})])
    assert srv.results[0].startswith("Denied by preToolUse hook: handrail: denied: grep would search")
    assert "src/settings.py" in srv.results[1] or "settings.py" in srv.results[1]
    assert "hunter2" not in srv.told()


@real
def test_apply_patch_of_a_codex_model_is_judged_by_the_files_it_names(guarded: Path) -> None:
    outside = "*** Begin Patch\n*** Add File: docs/notes.md\n+notes\n*** End Patch\n"
    inside = "*** Begin Patch\n*** Add File: src/login.py\n+LOGIN = 1\n*** End Patch\n"
    srv, _ = play(guarded, [Call("apply_patch", {"input": outside}, custom=True),
                            Call("apply_patch", {"input": inside}, custom=True)], model="gpt-5-codex")
    assert srv.results[0].startswith("Denied by preToolUse hook: handrail: denied"), srv.results
    assert not (guarded / "docs" / "notes.md").exists()
    assert (guarded / "src" / "login.py").read_text() == "LOGIN = 1\n"


@real
def test_without_trust_copilot_runs_no_hook_and_trust_state_tells(guarded: Path) -> None:
    home = guarded.parent / "home"
    notes = guarded / "notes.md"  # outside the task's scope (src/**, tests/**)
    assert copilot.trust_state(str(guarded), str(home)) is None  # Copilot never ran here: no config to read
    play(guarded, [Call("create", {"path": str(notes), "file_text": "notes\n"})], trust=False, home=home)
    assert notes.exists()  # no hook ran: the out-of-scope file was written
    assert copilot.trust_state(str(guarded), str(home)) is False
    notes.unlink()
    config = home / ".copilot" / "config.json"
    lines = config.read_text().splitlines()
    body = json.loads("\n".join(line for line in lines if not line.lstrip().startswith("//")))
    body["trustedFolders"] = [str(guarded.parent)]  # a folder above trusts the project too
    config.write_text("// This file is managed automatically.\n" + json.dumps(body))
    assert copilot.trust_state(str(guarded), str(home)) is True
    srv, _ = play(guarded, [Call("create", {"path": str(notes), "file_text": "notes\n"})], trust=False, home=home)
    assert not notes.exists()
    assert srv.results[0].startswith("Denied by preToolUse hook: handrail:")


@real
def test_copilots_shell_commands_carry_its_agent_marker(tmp_path: Path) -> None:
    # handrail refuses `env` (it prints every token): run it where no hook guards.
    plain = tmp_path / "plain"
    plain.mkdir()
    git(plain, "init", "-q", "-b", "main")
    srv, _ = play(plain, [Call("bash", {"command": "env", "description": "environment"})])
    seen = dict(line.split("=", 1) for line in srv.results[0].splitlines() if "=" in line and not line.startswith("<"))
    found = agents.detect(seen)
    assert found is not None and found.harness == "copilot", found
    assert seen.get("COPILOT_CLI") == "1" and seen.get("COPILOT_AGENT_SESSION_ID")


# --------------------------------------------------------------------------- payloads as the client sent them


def test_text_typed_into_a_running_shell_is_judged_as_the_command_it_runs(guarded: Path) -> None:
    def typed(text: str) -> dict:
        r = hook("copilot", {"sessionId": "s", "timestamp": 1, "cwd": str(guarded), "toolName": "write_bash",
                             "toolArgs": {"shellId": "s1", "input": text, "delay": 1}}, cwd=guarded)
        assert r.code == 0 and r.json is not None, r
        return r.json

    assert typed("cat .env\n")["permissionDecision"] in ("ask", "deny")
    assert typed("git push --force origin main{enter}")["permissionDecision"] == "ask"
    assert typed("git status\n")["permissionDecision"] == "allow"
    replay = typed("{up}{enter}")
    assert replay["permissionDecision"] == "deny" and "replay" in replay["permissionDecisionReason"]
    assert typed("cat .e")["permissionDecision"] == "deny"  # an unfinished line runs with what comes next
    assert typed("echo ${HOME}\n")["permissionDecision"] == "allow"


def test_the_claude_format_hook_reads_copilots_own_arguments(guarded: Path) -> None:
    def claude(tool: str, tool_input: object) -> dict | None:
        r = hook("claude", {"hook_event_name": "PreToolUse", "session_id": "s", "timestamp": "2026-12-02T01:38:51Z",
                            "cwd": str(guarded), "tool_name": tool, "tool_input": tool_input}, cwd=guarded)
        assert r.code == 0, r
        return r.json

    assert claude("Write", {"path": str(guarded / "src" / "x.py"), "file_text": "x\n"}) is not None
    assert (claude("Edit", {"path": str(guarded / "src" / "app.py"), "old_str": "a", "new_str": "b"})
            or {})["hookSpecificOutput"]["permissionDecision"] == "allow"
    read = claude("Read", {"path": str(guarded / ".env")})
    assert read is not None and read["hookSpecificOutput"]["permissionDecision"] == "deny"
    patch = claude("Edit", "*** Begin Patch\n*** Add File: docs/n.md\n+x\n*** End Patch\n")
    assert patch is not None and "handrail: denied" in patch["hookSpecificOutput"]["permissionDecisionReason"]
    broken = claude("Edit", "*** Begin Patch\nno file\n")  # refused in JSON, with the reason Copilot shows
    assert broken is not None and "names no file" in broken["hookSpecificOutput"]["permissionDecisionReason"]
    grep = claude("Grep", {"pattern": "DATABASE", "paths": [str(guarded)]})
    assert grep is not None and grep["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert claude("Grep", {"pattern": "DATABASE", "paths": [str(guarded)], "glob": "!.env"}) is None


def test_trust_state_reads_copilots_trusted_folders(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = tmp_path / "work" / "project"
    project.mkdir(parents=True)
    assert copilot.trust_state(str(project), str(home)) is None
    (home / ".copilot").mkdir(parents=True)
    config = home / ".copilot" / "config.json"
    config.write_text("// User settings belong in settings.json.\n{\"trustedFolders\": [\"" + str(project) + "x\"]}")
    assert copilot.trust_state(str(project), str(home)) is False  # a sibling's name is no parent
    config.write_text(json.dumps({"trustedFolders": [str(tmp_path / "work")]}))
    assert copilot.trust_state(str(project), str(home)) is True
    config.write_text("{not json")
    assert copilot.trust_state(str(project), str(home)) is None
