"""`handrail deinit`: init (and permissions) then deinit leaves the repository as it was:
every file the user had byte for byte, the ones handrail created gone, the user's hooks
back; what the user wrote since init stays; a dry run and a second run write nothing."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from helpers import as_person, git, tracked_hooks_folder

from handrail.init import pre_commit_executable

# What a user already has in each harness's files before handrail comes (written compactly,
# with their own layout, so that a byte comparison shows a reformatted file).
USER_FILES = {
    ".claude/settings.json": '{"model": "opus",\n "permissions": {"allow": ["Bash(npm test)"], '
                             '"ask": ["Bash(make deploy)"]},\n "hooks": {"PreToolUse": [{"matcher": "Bash", '
                             '"hooks": [{"type": "command", "command": "./scripts/audit.sh"}]}]}}\n',
    ".codex/hooks.json": '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}',
    # `"edit": "ask"`: a rule map written as one word, which init spells out as {"*": "ask"}
    "opencode.json": '{\n\t"model": "anthropic/claude",\n\t"permission": {"edit": "ask", "bash": {"npm test": '
                     '"allow"}}\n}\n',
    # `git status` is also a prefix handrail allows: the user's own entry all the same
    ".gemini/settings.json": '{"theme": "dark", "policyPaths": ["team/policy.toml"], '
                             '"tools": {"allowed": ["run_shell_command(git status)"]}}\n',
    ".cursor/hooks.json": '{"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}]}}\n',
    ".qwen/settings.json": '{"model": {"name": "qwen3-coder"}}\n',
    ".clinerules/hooks/PreToolUse": "#!/bin/sh\n# the team's own Cline hook\ncat >/dev/null\necho '{}'\n",
    ".aider.conf.yml": "# our aider settings\nmodel: sonnet\ngit-commit-verify: false\n",
}
USER_HOOKS = {"pre-commit": "#!/bin/sh\necho our lint\n", "pre-push": "#!/bin/sh\necho our checks\n"}


def files(root: Path) -> dict[str, bytes]:
    """Every file of the work tree and the git hooks, `.handrail/` aside (the user's records, kept)."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if not p.is_file() or rel.parts[0] == ".handrail" or (rel.parts[0] == ".git" and rel.parts[1] != "hooks"):
            continue
        out[str(rel)] = p.read_bytes()
    return out


def everything(root: Path) -> dict[str, bytes]:
    """Every file but git's objects and index and the lock in runtime/, `.handrail/` included."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "objects" not in p.parts and p.name not in ("index", "permissions.lock")}


def deinit(repo: Path, *args: str) -> tuple[int, str]:
    r = as_person("deinit", *args, cwd=repo)
    assert "Traceback" not in r.stdout
    return r.returncode, r.stdout


@pytest.fixture
def lived_in(repo: Path) -> Path:
    """A repository with the user's own keys, rules and hooks in every harness file."""
    for rel, text in USER_FILES.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    (repo / ".clinerules/hooks/PreToolUse").chmod(0o755)
    for name, text in USER_HOOKS.items():
        hook = repo / ".git" / "hooks" / name
        hook.write_text(text)
        hook.chmod(0o755)
    return repo


def test_init_permissions_then_deinit_leave_every_file_as_it_was(lived_in: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    before = files(lived_in)
    assert handrail("init", cwd=lived_in).returncode == 0
    assert handrail("permissions", cwd=lived_in).returncode == 0
    assert files(lived_in) != before
    code, out = deinit(lived_in)
    assert code == 0, out
    assert files(lived_in) == before
    hook = lived_in / ".git" / "hooks" / "pre-commit"
    assert os.access(hook, os.X_OK) and hook.read_text() == USER_HOOKS["pre-commit"]
    for rel in (".codex/rules/handrail.rules", ".opencode/plugin/handrail.js", ".gemini/policies/handrail.toml",
                ".github/hooks/handrail.json", ".handrail/generated.json", ".git/hooks/post-commit"):
        assert not (lived_in / rel).exists(), rel
    assert not (lived_in / ".codex" / "rules").exists() and not (lived_in / ".opencode").exists()
    # it says what it did, file by file, and where the backup of it all is
    assert "removed (handrail created it)" in out and ".codex/rules/handrail.rules" in out
    assert "restored (as it was before handrail wrote it)" in out and ".claude/settings.json" in out
    backup = next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("backup of every file"))
    assert b"handrail hook claude" in (lived_in / backup / ".claude" / "settings.json").read_bytes()
    # .handrail/ is the user's record: it stays, and the output says how to remove it too
    assert (lived_in / ".handrail" / "autonomy-protocol.json").is_file()
    assert "--purge" in out


def test_a_repository_without_harness_files_gets_none_back(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    before = files(repo)
    assert handrail("init", cwd=repo).returncode == 0
    code, out = deinit(repo)
    assert code == 0, out
    assert files(repo) == before
    assert sorted(p.name for p in repo.iterdir()) == [".git", ".handrail"]


def test_dry_run_writes_nothing_and_says_what_it_would_do(lived_in: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    assert handrail("init", cwd=lived_in).returncode == 0
    before = everything(lived_in)
    r = handrail("deinit", "--dry-run", cwd=lived_in)  # no terminal needed: it changes nothing
    assert r.returncode == 0, r.stderr
    assert everything(lived_in) == before
    assert "would remove (handrail created it)" in r.stdout
    assert "would restore" in r.stdout and "git hook pre-commit" in r.stdout
    r = handrail("deinit", "--dry-run", "--json", cwd=lived_in)
    answer = json.loads(r.stdout.splitlines()[-1])
    assert answer["dry_run"] is True and answer["backup_dir"] is None
    assert {f["path"]: f["action"] for f in answer["files"]}[".codex/rules/handrail.rules"] == "remove"
    assert everything(lived_in) == before


def test_deinit_twice_changes_nothing_the_second_time(lived_in: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    assert handrail("init", cwd=lived_in).returncode == 0
    assert deinit(lived_in)[0] == 0
    before = everything(lived_in)
    code, out = deinit(lived_in)
    assert code == 0, out
    assert "nothing to take out" in out
    assert everything(lived_in) == before  # not even a new backup folder


def test_what_the_user_wrote_after_init_survives(lived_in: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    assert handrail("init", cwd=lived_in).returncode == 0
    claude = lived_in / ".claude" / "settings.json"
    data = json.loads(claude.read_text())
    data["permissions"]["deny"].append("Bash(terraform destroy *)")
    data["env"] = {"TEAM": "web"}
    claude.write_text(json.dumps(data, indent=2) + "\n")
    rules = lived_in / ".codex" / "rules" / "handrail.rules"
    rules.write_text(rules.read_text() + 'prefix_rule(pattern = ["make"], decision = "allow")\n')
    code, out = deinit(lived_in)
    assert code == 0, out
    after = json.loads(claude.read_text())
    assert after["env"] == {"TEAM": "web"} and after["model"] == "opus"
    assert after["permissions"] == {"allow": ["Bash(npm test)"], "ask": ["Bash(make deploy)"],
                                    "deny": ["Bash(terraform destroy *)"]}
    assert after["hooks"] == json.loads(USER_FILES[".claude/settings.json"])["hooks"]
    assert "handrail" not in claude.read_text()
    # a whole file of handrail's that was edited since is kept, and the output says why
    assert rules.is_file() and "make" in rules.read_text()
    assert any(".codex/rules/handrail.rules" in line and "kept" in line for line in out.splitlines())


def test_a_tracked_hooks_folder_is_put_back_after_a_forced_init(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    hooks = tracked_hooks_folder(repo)
    r = as_person("init", "--force", cwd=repo)
    assert r.returncode == 0, r.stdout
    assert deinit(repo)[0] == 0
    assert git(repo, "status", "--porcelain", ".githooks").stdout == ""
    assert stat.S_IMODE((hooks / "pre-commit").stat().st_mode) & 0o111


def test_an_agent_cannot_take_handrail_out(lived_in: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    assert handrail("init", cwd=lived_in).returncode == 0
    before = everything(lived_in)
    r = handrail("deinit", cwd=lived_in, env={"CLAUDECODE": "1"})
    assert r.returncode == 1
    assert "refused" in r.stderr and "handrail deinit" in r.stderr
    assert everything(lived_in) == before
    asked = json.loads(handrail("classify", "--json", "handrail deinit", cwd=lived_in).stdout.splitlines()[-1])
    assert asked["tier"] == 3


def test_purge_removes_handrail_folder_but_keeps_a_copy(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    assert handrail("init", cwd=repo).returncode == 0
    protocol = (repo / ".handrail" / "autonomy-protocol.json").read_bytes()
    code, out = deinit(repo, "--purge")
    assert code == 0, out
    assert sorted(p.name for p in (repo / ".handrail").iterdir()) == ["backups"]
    backup = next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("backup of every file"))
    assert (repo / backup / ".handrail" / "autonomy-protocol.json").read_bytes() == protocol
    assert ".handrail/autonomy-protocol.json" in out and "removed (--purge)" in out


@pytest.mark.skipif(pre_commit_executable() is None, reason="the pre-commit framework is not installed")
def test_the_pre_commit_framework_config_comes_back_as_it_was(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    config = repo / ".pre-commit-config.yaml"
    text = "# our hooks\nrepos:\n  - repo: local\n    hooks:\n      - id: lint\n        name: lint\n" \
           "        entry: true\n        language: system\n"
    config.write_text(text)
    assert handrail("init", "--pre-commit", cwd=repo).returncode == 0
    assert "handrail-pre-commit" in config.read_text()
    code, out = deinit(repo)
    assert code == 0, out
    assert config.read_bytes() == text.encode()
    assert git(repo, "config", "--local", "--get", "handrail.bin", check=False).stdout == ""
    assert "pre-commit uninstall" in out  # its hooks stay for the user's own, and it says how to remove them


@pytest.mark.skipif(pre_commit_executable() is None, reason="the pre-commit framework is not installed")
def test_a_pre_commit_config_handrail_created_goes_with_its_hooks(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    hook = repo / ".git" / "hooks" / "pre-commit"
    assert handrail("init", "--pre-commit", cwd=repo).returncode == 0
    assert hook.is_file()
    code, out = deinit(repo)
    assert code == 0, out
    assert not (repo / ".pre-commit-config.yaml").exists()
    for name in ("pre-commit", "prepare-commit-msg", "pre-push", "post-commit"):
        assert not (repo / ".git" / "hooks" / name).exists(), name
    assert git(repo, "config", "--local", "--get", "handrail.bin", check=False).stdout == ""
    assert "git config handrail.bin" in out


def test_a_repository_handrail_never_guarded_is_left_alone(lived_in: Path) -> None:
    before = everything(lived_in)
    code, out = deinit(lived_in)
    assert code == 0, out
    assert "nothing to take out" in out
    assert everything(lived_in) == before and not (lived_in / ".handrail").exists()


def test_without_the_record_handrails_hooks_still_go_and_the_users_stay(lived_in: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    assert handrail("init", cwd=lived_in).returncode == 0
    (lived_in / ".handrail" / "generated.json").unlink()
    code, out = deinit(lived_in)
    assert code == 0, out
    for rel in (".claude/settings.json", ".codex/hooks.json", ".cursor/hooks.json", ".qwen/settings.json"):
        assert b"handrail hook" not in (lived_in / rel).read_bytes(), rel
    assert json.loads((lived_in / ".claude/settings.json").read_text())["hooks"] == \
        json.loads(USER_FILES[".claude/settings.json"])["hooks"]
