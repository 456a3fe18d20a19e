"""`handrail permissions` over files the user wrote: what survives, what is replaced,
what is refused, what is backed up, and how drift is judged."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from permkit import read_json, small, tier, write_protocol

from handrail.policy import protocol as protocols
from handrail.policy.protocol import Protocol

USER_CLAUDE = {
    "model": "opus",
    "permissions": {
        "allow": ["Bash(make docs *)", "Bash(git status *)"],
        "deny": ["Read(/private/**)"],
        "defaultMode": "acceptEdits",
    },
    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-linter"}]}]},
    "env": {"FOO": "1"},
}


def last_json(stdout: str) -> dict:
    return json.loads(stdout.splitlines()[-1])


def tree(root: Path) -> dict[str, bytes]:
    """Every file but git's and the git-ignored runtime folder (where the run's lock lives)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts
            and p.relative_to(root).parts[:2] != (".handrail", "runtime")}


def test_every_user_rule_survives_and_nothing_is_written_twice(project: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(USER_CLAUDE))
    r = handrail("permissions", "--tool", "claude", cwd=project)
    assert r.returncode == 0, r.stderr
    got = read_json(settings)
    assert got["model"] == "opus" and got["env"] == {"FOO": "1"}
    assert got["permissions"]["defaultMode"] == "acceptEdits"
    # the user's allow rules, and no Bash allow rule of handrail's (its hook allows tier 1 and 2)
    assert got["permissions"]["allow"] == ["Bash(make docs *)", "Bash(git status *)"]
    # the user's deny kept, and no Read/Edit deny of handrail's: Claude would refuse those paths
    # before the hook could say why
    assert got["permissions"]["deny"] == ["Read(/private/**)"]
    assert got["permissions"]["ask"] == ["Bash(git push --force *)", "Bash(rm -rf /)"]
    commands = [h["command"] for g in got["hooks"]["PreToolUse"] for h in g["hooks"]]
    assert "my-linter" in commands and sum("handrail hook claude" in c for c in commands) == 1
    for key in ("allow", "ask", "deny"):
        assert len(got["permissions"][key]) == len(set(got["permissions"][key])), key

    before = settings.read_bytes()
    r = handrail("permissions", "--tool", "claude", cwd=project)
    assert r.returncode == 0 and "unchanged" in r.stdout and settings.read_bytes() == before


def test_a_pattern_the_protocol_drops_disappears_and_the_users_own_stays(project: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    user = {**USER_CLAUDE, "permissions": {**USER_CLAUDE["permissions"], "ask": ["Bash(git push --force *)"]}}
    settings.write_text(json.dumps(user))
    assert handrail("permissions", cwd=project).returncode == 0
    assert read_json(settings)["permissions"]["ask"] == ["Bash(rm -rf /)", "Bash(git push --force *)"]
    data = small()
    tier(data, "tier3_blocking").remove("rm -rf /")
    tier(data, "tier3_blocking").remove("git push --force *")
    tier(data, "tier1_silent").remove("ls *")
    tier(data, "tier1_silent").remove("git status *")
    tier(data, "tier2_notified").remove("git push *")
    tier(data, "tier3_blocking").append("git push *")  # moved up: asked, never allowed
    tier(data, "tier2_notified").append("make *")
    write_protocol(project, data)
    r = handrail("permissions", cwd=project)
    assert r.returncode == 0, r.stderr
    perms = read_json(settings)["permissions"]
    assert "Bash(rm -rf /)" not in perms["ask"]               # handrail's, dropped with the pattern
    assert "Bash(git push --force *)" in perms["ask"]         # the user wrote it too: theirs stays
    assert "Bash(git push *)" in perms["ask"]                 # moved up: asked, never allowed
    assert perms["allow"] == ["Bash(make docs *)", "Bash(git status *)"]  # only the user's, untouched
    opencode = read_json(project / "opencode.json")["permission"]["bash"]
    assert "ls *" not in opencode and opencode["git push *"] == "ask"


def test_the_bash_allow_rules_an_earlier_handrail_wrote_are_removed_and_the_users_stay(
        project: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(USER_CLAUDE))
    assert handrail("permissions", cwd=project).returncode == 0
    # What an earlier handrail left: tier 1 and 2 as Bash allow rules before the user's, and
    # in its record those it added (the user's `Bash(git status *)` stays the user's).
    policy = protocols.resolve_tool(Protocol(small(), None), "claude")
    earlier = [f"Bash({p.text})" for p in policy.allow]
    user_allow = USER_CLAUDE["permissions"]["allow"]
    owned = [rule for rule in earlier if rule not in user_allow]
    assert "Bash(ls *)" in owned and "Bash(git push *)" in owned
    old = read_json(settings)
    old["permissions"]["allow"] = owned + user_allow
    settings.write_text(json.dumps(old, indent=2) + "\n")
    record_path = project / ".handrail" / "generated.json"
    record = read_json(record_path)
    record["files"][".claude/settings.json"]["permissions.allow"] = owned
    record_path.write_text(json.dumps(record, indent=2) + "\n")
    assert handrail("permissions", "--check", cwd=project).returncode == 1

    r = handrail("permissions", cwd=project)
    assert r.returncode == 0, r.stderr
    got = read_json(settings)
    assert got["permissions"]["allow"] == user_allow                  # exactly the user's, in their order
    assert got["model"] == "opus" and got["env"] == {"FOO": "1"} and "Read(/private/**)" in got["permissions"]["deny"]
    assert got["permissions"]["ask"] == ["Bash(git push --force *)", "Bash(rm -rf /)"]
    assert read_json(record_path)["files"][".claude/settings.json"]["permissions.allow"] == []
    r = handrail("permissions", "--check", cwd=project)
    assert r.returncode == 0, r.stdout


def test_opencode_rules_keep_star_first_and_tier_3_last_around_the_users(project: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    (project / "opencode.json").write_text(json.dumps({
        "$schema": "https://opencode.ai/config.json", "model": "x/y",
        "permission": {"bash": {"terraform plan *": "allow", "git push *": "deny"}, "webfetch": "ask"}}))
    assert handrail("permissions", "--tool", "opencode", cwd=project).returncode == 0
    got = read_json(project / "opencode.json")
    assert got["model"] == "x/y" and got["permission"]["webfetch"] == "ask"
    bash = list(got["permission"]["bash"].items())
    keys = [k for k, _ in bash]
    assert keys[0] == "*" and bash[0][1] == "ask"
    # the user's own rule sits after handrail's allows (only exact command lines) and before tier 3,
    # so tier 3 wins over it
    assert "ls *" not in keys and keys.index("terraform plan *") > keys.index("git")
    assert keys[-2:] == ["git push --force *", "rm -rf /"]
    assert got["permission"]["bash"]["git push *"] == "deny"  # the user's stricter value outranks handrail's allow
    assert dict(got["permission"]["edit"])[".env*"] == "deny"
    assert (project / ".opencode" / "plugin" / "handrail.js").read_text().count("hook opencode") >= 1


def test_a_corrupt_settings_file_is_left_untouched_and_named(project: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(b'{"permissions": {"allow": ["Bash(ls)",]\n')
    before = tree(project)
    r = handrail("permissions", cwd=project)
    assert r.returncode == 2
    assert ".claude/settings.json: invalid JSON at line 1" in r.stderr and "untouched" in r.stderr
    assert "Traceback" not in r.stderr
    assert tree(project) == before  # not one file written, the corrupt one byte-identical


def test_a_value_of_the_wrong_kind_is_refused_naming_its_key(project: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"tools": {"allowed": "run_shell_command(ls)"}}')
    r = handrail("permissions", cwd=project)
    assert r.returncode == 2
    assert ".gemini/settings.json: tools.allowed: expected a list, found a string" in r.stderr


def test_backups_restore_what_was_overwritten(project: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    assert handrail("permissions", cwd=project).returncode == 0
    settings = project / ".claude" / "settings.json"
    edited = read_json(settings)
    edited["permissions"]["ask"].remove("Bash(rm -rf /)")
    settings.write_text(json.dumps(edited, indent=4))
    rules = project / ".codex" / "rules" / "handrail.rules"
    rules.write_text(rules.read_text() + "prefix_rule(pattern=['rm'], decision='allow')\n")
    hand_edits = {p: p.read_bytes() for p in (settings, rules)}

    r = handrail("permissions", "--json", cwd=project)
    out = last_json(r.stdout)
    backups = {f["path"]: f["backup"] for f in out["files"] if f.get("backup")}
    assert set(backups) == {".claude/settings.json", ".codex/rules/handrail.rules"}
    for path, backup in backups.items():
        assert backup.startswith(os.path.join(".handrail", "backups")) and f"/permissions/{path}" in backup
        assert (project / backup).read_bytes() == hand_edits[project / path]
        shutil.copy(project / backup, project / path)  # restoring is a copy back
        assert (project / path).read_bytes() == hand_edits[project / path]


def test_check_judges_drift_by_content_never_by_time(project: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    r = handrail("permissions", "--check", cwd=project)
    assert r.returncode == 1 and "missing" in r.stdout and not (project / ".claude").exists()
    assert handrail("permissions", cwd=project).returncode == 0
    assert handrail("permissions", "--check", cwd=project).returncode == 0

    settings = project / ".claude" / "settings.json"
    future = settings.stat().st_mtime + 3600
    os.utime(settings, (future, future))                             # newer, same content: in sync
    settings.write_text(json.dumps(read_json(settings), indent=8))   # other layout, same content: in sync
    assert handrail("permissions", "--check", cwd=project).returncode == 0

    data = read_json(settings)
    data["permissions"]["ask"].remove("Bash(git push --force *)")
    settings.write_text(json.dumps(data))                            # a hand edit: drift
    r = handrail("permissions", "--check", cwd=project)
    assert r.returncode == 1 and "differs" in r.stdout and ".claude/settings.json" in r.stdout
    assert "Bash(git push --force *)" not in settings.read_text()    # --check wrote nothing


def test_a_hook_script_that_lost_its_executable_bit_is_drift(project: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    assert handrail("permissions", "--tool", "cline", cwd=project).returncode == 0
    hook = project / ".clinerules" / "hooks" / "PreToolUse"
    hook.chmod(0o644)
    assert handrail("permissions", "--check", "--tool", "cline", cwd=project).returncode == 1
    assert handrail("permissions", "--tool", "cline", cwd=project).returncode == 0
    assert os.access(hook, os.X_OK)


def test_dry_run_prints_the_diff_and_writes_nothing(project: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    assert handrail("permissions", cwd=project).returncode == 0
    write_protocol(project, small(tiers={**small()["tiers"], "tier3_blocking": {"shell_patterns": ["rm -rf /"]}}))
    before = tree(project)
    r = handrail("permissions", "--dry-run", "--tool", "claude", cwd=project)
    assert r.returncode == 0, r.stderr
    assert "--- a/.claude/settings.json" in r.stdout and '-      "Bash(git push --force *)",' in r.stdout
    assert tree(project) == before


def test_unknown_and_unlisted_tools_are_usage_errors(project: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    r = handrail("permissions", "--tool", "aider", cwd=project)
    assert r.returncode == 2 and "--tool aider: no native files" in r.stderr
    write_protocol(project, small(tools={"claude": {"mode": "guarded", "derived_from_tiers": []}}))
    r = handrail("permissions", "--tool", "codex", cwd=project)
    assert r.returncode == 2 and "tools.codex: not listed in the protocol" in r.stderr
    r = handrail("permissions", "--json", cwd=project)
    assert [f["tool"] for f in last_json(r.stdout)["files"]] == ["claude", "handrail"]
