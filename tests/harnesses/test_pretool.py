"""The one decision behind every harness, seen through `handrail hook claude`:
edits by can-edit, shell commands by tier (their writes as edits), secret reads refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_handrail
from hookkit import HARNESSES, events, hook


def claude(project: Path, tool: str, tool_input: dict, **kw: object) -> tuple[str | None, str, dict | None]:
    """(permissionDecision or None, its reason, the whole reply) for one Claude Code call."""
    payload = {"session_id": "s1", "hook_event_name": "PreToolUse", "cwd": str(project), "tool_name": tool,
               "tool_input": tool_input, "tool_use_id": "toolu_1"}
    r = hook("claude", payload, cwd=project, **kw)  # type: ignore[arg-type]
    assert r.code == 0, r
    if r.json is None:
        return None, "", None
    out = r.json["hookSpecificOutput"]
    return out["permissionDecision"], out["permissionDecisionReason"], r.json


def bash(project: Path, command: str, **kw: object) -> tuple[str | None, str, dict | None]:
    return claude(project, "Bash", {"command": command, "description": "x"}, **kw)


def edit(project: Path, path: str, tool: str = "Edit") -> tuple[str | None, str, dict | None]:
    return claude(project, tool, {"file_path": str(project / path), "old_string": "a", "new_string": "b"})


# --------------------------------------------------------------------------- edits


def test_an_edit_inside_the_scope_is_allowed(project: Path) -> None:
    decision, why, _ = edit(project, "src/app.py")
    assert decision == "allow"
    assert "src/app.py" in why


@pytest.mark.parametrize("path, rule", [
    (".env", ".env*"),
    ("src/vendor/lib.js", "src/vendor/**"),
    ("README.md", "src/**, tests/**"),
    (".handrail/autonomy-protocol.json", ".handrail/**"),
    (".claude/settings.json", ".claude/settings*.json"),
])
def test_an_edit_the_policy_refuses_is_denied_with_the_rule(project: Path, path: str, rule: str) -> None:
    decision, why, _ = edit(project, path, tool="Write")
    assert decision == "deny"
    assert rule in why and path in why


def test_an_edit_outside_the_project_is_denied(project: Path) -> None:
    decision, why, _ = claude(project, "Write", {"file_path": str(project.parent / "elsewhere.txt"), "content": ""})
    assert decision == "deny"
    assert "outside the project" in why


def test_edits_need_a_task_in_an_edit_phase(project: Path) -> None:
    run_handrail("task", "phase", "login", "review", cwd=project)
    decision, why, _ = edit(project, "src/app.py")
    assert decision == "deny"
    assert "handrail task phase login implement" in why


def test_a_refused_edit_is_recorded(project: Path) -> None:
    edit(project, "src/vendor/lib.js")
    refused = [e for e in events(project) if e["event_type"] == "edit_refused"]
    assert refused and refused[-1]["payload"]["file"] == "src/vendor/lib.js"
    assert refused[-1]["agent"] == "claude"


def test_the_agents_envelope_can_take_an_edit_away(project: Path) -> None:
    assert run_handrail("autonomy", "init", "claude", "--owner", "op", cwd=project).returncode == 0
    r = run_handrail("autonomy", "set", "claude", "code-inline", "needsFullSupervision", "--note", "new", cwd=project)
    assert r.returncode == 0, r.stderr
    decision, why, _ = edit(project, "src/app.py")
    assert decision == "deny"
    assert "needsFullSupervision" in why
    # The same call under another agent's name is not bound by claude's envelope.
    _, _, reply = claude(project, "Edit", {"file_path": str(project / "src/app.py")}, args=("--agent", "other"))
    assert reply is not None and reply["hookSpecificOutput"]["permissionDecision"] == "allow"


# --------------------------------------------------------------------------- shell commands


def test_tier_1_is_allowed_silently(project: Path) -> None:
    decision, why, reply = bash(project, "git status --short")
    assert decision == "allow"
    assert reply is not None and "systemMessage" not in reply
    assert "git status *" in why


def test_tier_2_is_allowed_with_a_notice_shown_and_recorded(project: Path) -> None:
    decision, _, reply = bash(project, "npm install")
    assert decision == "allow"
    assert reply is not None and "npm install *" in reply["systemMessage"]
    assert any(e["event_type"] == "command_notified" for e in events(project))


def test_tier_3_asks_a_human_and_is_recorded(project: Path) -> None:
    decision, why, _ = bash(project, "sudo env X=1 git push --force origin main")
    assert decision == "ask"
    assert "git push --force" in why
    assert any(e["event_type"] == "command_blocked" for e in events(project))


def test_tier_3_is_denied_where_the_policy_denies_it_even_if_the_harness_could_ask(project: Path) -> None:
    from handrail.policy import protocol

    data = json.loads(Path(protocol.DEFAULT_PROTOCOL).read_text())
    data["tiers"]["tier3_blocking"]["decision"] = "deny"
    (project / ".handrail" / "autonomy-protocol.json").write_text(json.dumps(data))
    decision, why, _ = bash(project, "git push --force origin main")
    assert decision == "deny" and "the policy denies tier 3" in why and why.startswith("handrail: refused")


def test_an_unlisted_command_gets_no_opinion(project: Path) -> None:
    assert bash(project, "frobnicate --all") == (None, "", None)


@pytest.mark.parametrize("command, written", [
    ("echo TOKEN=1 > .env", ".env"),
    ("printf x >> src/vendor/lib.js", "src/vendor/lib.js"),
    ("git log | tee notes.txt", "notes.txt"),
    ("sed -i s/a/b/ README.md", "README.md"),
    ("cp src/app.py src/vendor/", "src/vendor/app.py"),
    ("mv src/app.py docs/app.py", "docs/app.py"),
    ("cd src && bash -c 'echo x > vendor/v.js'", "src/vendor/v.js"),
    ("handrail ci --format sarif --output docs/handrail.sarif", "docs/handrail.sarif"),
])
def test_what_a_command_writes_is_an_edit_with_the_same_scope_check(project: Path, command: str,
                                                                    written: str) -> None:
    decision, why, _ = bash(project, command)
    assert decision == "deny"
    assert f"writes {written}" in why


@pytest.mark.parametrize("command, written", [
    ("handrail ci --output .claude/settings.json", ".claude/settings.json"),
    ("python3 -m handrail ci --format sarif --output=.handrail/autonomy-protocol.json",
     ".handrail/autonomy-protocol.json"),
    ("handrail ci --output .git/hooks/pre-commit", ".git/hooks/pre-commit"),
    ("handrail ci --output .husky/pre-commit", ".husky/pre-commit"),
    ("handrail ci --output src/../.handrail/runtime/audit.json", ".handrail/runtime/audit.json"),
])
def test_handrail_cis_report_over_a_protected_path_is_denied(project: Path, command: str, written: str) -> None:
    decision, why, _ = bash(project, command)
    assert decision == "deny"
    assert f"writes {written}" in why and "a human must make this change" in why


def test_a_report_path_only_known_at_run_time_asks_and_memory_commits_update_file_is_read(project: Path) -> None:
    decision, why, _ = bash(project, 'handrail ci --output "$REPORT"')
    assert decision == "ask" and 'writes "$REPORT", a path only known at run time' in why
    # `memory commit --output F` names the update it reads: no edit of F, so no edit scope refuses it
    decision, why, _ = bash(project, "handrail memory commit --output .claude/settings.json")
    assert decision == "allow" and "handrail memory commit *" in why


@pytest.mark.parametrize("command, removed", [
    ("rm README.md", "README.md"),
    ("rm -f src/vendor/lib.js", "src/vendor/lib.js"),
    ("mv src/vendor/lib.js src/lib.js", "src/vendor/lib.js"),
    ("git rm docs/guide.md", "docs/guide.md"),
])
def test_what_a_command_deletes_or_moves_away_is_an_edit_too(project: Path, command: str, removed: str) -> None:
    decision, why, _ = bash(project, command)
    assert decision == "deny"
    assert f"writes {removed}" in why or removed in why


def test_deleting_inside_the_scope_or_a_regenerable_output_runs(project: Path) -> None:
    decision, _, _ = bash(project, "rm src/old.py && rm -rf src/__pycache__ node_modules")
    assert decision == "allow"


def test_a_command_that_writes_inside_the_scope_runs(project: Path) -> None:
    decision, _, reply = bash(project, "echo hi > src/new.py && cp src/app.py tests/")
    assert decision == "allow"  # tier 2 (a redirection writes a file): allowed with a notice
    assert reply is not None and "systemMessage" in reply


def test_writes_outside_the_project_and_to_devices_are_left_to_the_tiers(project: Path) -> None:
    decision, _, _ = bash(project, "git status > /dev/null 2>&1")
    assert decision == "allow"


# --------------------------------------------------------------------------- reads


@pytest.mark.parametrize("path", [".env", "config/secrets/db.yml", "certs/server.pem", "deploy.key", ".ENV.local"])
def test_reading_a_secret_is_denied(project: Path, path: str) -> None:
    decision, why, _ = claude(project, "Read", {"file_path": str(project / path)})
    assert decision == "deny"
    assert "reading" in why and "ask a human" in why


def test_reading_a_secret_through_a_link_is_denied(project: Path) -> None:
    (project / "src" / "cfg.txt").symlink_to("../.env")
    decision, why, _ = claude(project, "Read", {"file_path": str(project / "src" / "cfg.txt")})
    assert decision == "deny" and "src/cfg.txt (a link to .env)" in why


@pytest.mark.parametrize("path", [".env.example", "web/.env.sample", ".env.template"])
def test_reading_an_environment_template_gets_no_opinion(project: Path, path: str) -> None:
    assert claude(project, "Read", {"file_path": str(project / path)})[0] is None


def test_an_environment_template_in_the_secrets_folder_is_still_a_secret(project: Path) -> None:
    assert claude(project, "Read", {"file_path": str(project / "config/secrets/.env.example")})[0] == "deny"


def test_other_reads_and_tools_get_no_opinion(project: Path) -> None:
    assert claude(project, "Read", {"file_path": str(project / "src/app.py")})[0] is None
    assert claude(project, "WebFetch", {"url": "https://example.com"})[0] is None
    assert claude(project, "mcp__github__create_issue", {"title": "x"})[0] is None


# --------------------------------------------------------------------------- fail closed


def test_an_unreadable_policy_denies_every_command(project: Path) -> None:
    (project / ".handrail" / "autonomy-protocol.json").write_text("{ not json")
    r = hook("claude", {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(project),
                        "tool_input": {"command": "git status"}}, cwd=project)
    assert r.code == 2
    assert r.stdout == ""
    assert "autonomy-protocol.json" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_an_unreadable_policy_denies_every_edit_too(project: Path) -> None:
    (project / ".handrail" / "autonomy-protocol.json").write_text("{ not json")
    r = hook("claude", {"hook_event_name": "PreToolUse", "tool_name": "Write", "cwd": str(project),
                        "tool_input": {"file_path": str(project / "src" / "app.py"), "content": "x"}}, cwd=project)
    assert r.code == 2 and r.stdout == "" and "autonomy-protocol.json" in r.stderr
    r2 = run_handrail("can-edit", "--file", "src/app.py", "--json", cwd=project)
    assert r2.returncode == 2 and json.loads(r2.stdout.splitlines()[-1])["reason"] == "invalid_policy"


def test_a_broken_task_file_denies_every_edit(project: Path) -> None:
    (project / ".handrail" / "tasks" / "login" / "task.json").write_text("[]")
    r = hook("claude", {"hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": str(project),
                        "tool_input": {"file_path": str(project / "src/app.py")}}, cwd=project)
    assert r.code == 2
    assert "task.json" in r.stderr


def test_an_unknown_option_denies(project: Path) -> None:
    r = hook("claude", {"tool_name": "Bash", "tool_input": {"command": "ls"}}, cwd=project, args=("--bogus",))
    assert r.code == 2 and "--bogus" in r.stderr


@pytest.mark.parametrize("name", HARNESSES)
def test_the_hook_never_loads_click_or_the_heavy_libraries(project: Path, name: str) -> None:
    import subprocess
    import sys

    code = (f"import sys, io, json; sys.argv = ['handrail', 'hook', {name!r}];"
            f"sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps({{'tool_name': 'Bash', 'cwd': {str(project)!r},"
            "'tool_input': {'command': 'git status'}}).encode()));"
            "from handrail.main import main; rc = main();"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('click', 'pygit2', 'jsonschema',"
            " 'yaml', 'sqlite3'))), file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=project)
    assert json.loads(r.stderr.strip().splitlines()[-1]) == []


def test_an_envelope_that_withholds_shell_makes_every_command_a_humans_call(project: Path) -> None:
    assert run_handrail("autonomy", "init", "claude", "--owner", "op", cwd=project).returncode == 0
    r = run_handrail("autonomy", "set", "claude", "shell", "needsFullSupervision", "--note", "new", cwd=project)
    assert r.returncode == 0, r.stderr
    decision, why, _ = bash(project, "git status")
    assert decision == "ask" and "needsFullSupervision" in why
    payload = {"tool": "bash", "args": {"command": "git status"}, "directory": str(project)}
    out = hook("opencode", payload, cwd=project, env={"HANDRAIL_AGENT": "claude"}).json
    assert out is not None and out["decision"] == "deny" and "needsFullSupervision" in out["message"]
