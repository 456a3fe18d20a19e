"""What `handrail init` says it adds, and its refusal to replace a tracked hooks folder's
hooks without `--force`."""

from __future__ import annotations

import json
import re
from pathlib import Path

from helpers import as_person, git, tracked_hooks_folder


def test_init_says_once_what_it_adds(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    (repo / "opencode.json").write_text('{"model": "x"}\n')
    r = handrail("init", cwd=repo)
    assert r.returncode == 0, r.stderr
    added = [line for line in r.stdout.splitlines() if line.startswith("added: ")]
    assert len(added) == 1
    files = int(re.match(r"added: (\d+) files", added[0]).group(1))
    assert files == sum(" created" in line or " updated" in line for line in r.stdout.splitlines()
                        if line.startswith("  "))
    assert "1 of yours merged, backed up first" in added[0]
    # the rule counts per harness are those in its files
    rules = json.loads(handrail("init", "--json", cwd=repo).stdout.splitlines()[-1])["rules"]
    asks = json.loads((repo / ".claude" / "settings.json").read_text())["permissions"]["ask"]
    assert rules["claude"] == {"ask": len(asks)} and f"claude {len(asks)} ask" in added[0]
    opencode = json.loads((repo / "opencode.json").read_text())["permission"]
    assert sum(rules["opencode"].values()) == sum(len(opencode[k]) for k in ("bash", "edit", "read"))
    assert "a commit needs a task in an edit phase" in r.stdout
    # a second init adds nothing and says nothing of the kind
    again = handrail("init", cwd=repo)
    assert "added: " not in again.stdout and "nothing changed" in again.stdout


def test_init_refuses_to_replace_a_tracked_hook_without_force(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    hooks = tracked_hooks_folder(repo)
    r = handrail("init", cwd=repo)
    assert r.returncode == 2
    assert ".githooks/pre-commit: tracked by git" in r.stderr and "--force" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert (hooks / "pre-commit").read_text() == "#!/bin/sh\necho team hook\n"
    assert sorted(p.name for p in hooks.iterdir()) == ["pre-commit"]
    assert not (repo / ".claude").exists() and not (repo / ".handrail" / "autonomy-protocol.json").exists()


def test_a_forced_init_warns_naming_the_hook_and_where_it_went(repo: Path) -> None:
    hooks = tracked_hooks_folder(repo)
    r = as_person("init", "--force", cwd=repo)
    assert r.returncode == 0, r.stdout
    warning = next(line for line in r.stdout.splitlines() if line.startswith("warning: "))
    assert ".githooks/pre-commit is tracked" in warning and ".githooks/pre-commit.handrail-saved" in warning
    assert (hooks / "pre-commit.handrail-saved").read_text() == "#!/bin/sh\necho team hook\n"
    assert "handrail deinit" in warning


def test_init_pre_commit_with_a_hooks_path_refuses_before_writing(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    """The framework will not install under core.hooksPath: init says so first, and leaves
    neither a protocol, nor a changed config, nor a recorded handrail behind."""
    tracked_hooks_folder(repo)
    config = "repos: []  # the team's\n"
    (repo / ".pre-commit-config.yaml").write_text(config)
    r = handrail("init", "--pre-commit", cwd=repo)
    assert r.returncode == 2
    assert "core.hooksPath is set (.githooks)" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert (repo / ".pre-commit-config.yaml").read_text() == config
    assert not (repo / ".handrail" / "autonomy-protocol.json").exists()
    assert git(repo, "config", "--get", "handrail.bin", check=False).returncode == 1
    assert git(repo, "status", "--porcelain").stdout == "?? .pre-commit-config.yaml\n"
