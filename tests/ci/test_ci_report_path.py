"""`handrail ci --output` never replaces a file handrail protects or forbids: the report over
`.claude/settings.json` would drop Claude's hook, over `.git/hooks/pre-commit` it would stay an
executable hook. Refused with exit 2 and one line, the file left as it was; a report path of
its own, or one outside the project, is written as before."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import git, run_handrail
from outkit import Branches, valid


def ci_to(branches: Branches, output: str, cwd: Path | None = None) -> tuple[int, str]:
    r = run_handrail("ci", "--base", branches.base, "--head", branches.agent, "--format", "sarif",
                     "--output", output, cwd=cwd or branches.repo)
    return r.returncode, r.stderr


@pytest.mark.parametrize("output, shown, why", [
    (".claude/settings.json", ".claude/settings.json", "'.claude/settings*.json'"),
    (".handrail/autonomy-protocol.json", ".handrail/autonomy-protocol.json", "'**/.handrail/**'"),
    (".git/hooks/pre-commit", ".git/hooks/pre-commit", "in git's folder"),
    (".husky/pre-commit", ".husky/pre-commit", "'.husky/**'"),
    ("src/../.handrail/runtime/audit.json", ".handrail/runtime/audit.json", "'**/.handrail/**'"),
    (".Env.production", ".Env.production", "'.env*'"),
])
def test_a_report_over_a_protected_or_forbidden_path_is_refused_and_the_file_kept(
        branches: Branches, output: str, shown: str, why: str) -> None:
    target = branches.repo / shown
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        target.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    before, mode = target.read_bytes(), target.stat().st_mode
    code, err = ci_to(branches, output)
    assert code == 2
    (line,) = err.strip().splitlines()
    assert line.startswith(f"handrail: error: --output {output}: ") and shown in line and why in line
    assert target.read_bytes() == before and target.stat().st_mode == mode


def test_a_link_into_git_hooks_or_onto_the_settings_is_judged_where_it_leads(branches: Branches) -> None:
    repo = branches.repo
    (repo / "src").mkdir(exist_ok=True)
    (repo / "src" / "hooks").symlink_to("../.git/hooks")
    (repo / "report.sarif").symlink_to(".claude/settings.json")
    hook = repo / ".git" / "hooks" / "pre-commit"
    settings = repo / ".claude" / "settings.json"
    kept = hook.read_bytes(), settings.read_bytes()
    code, err = ci_to(branches, "src/hooks/pre-commit")
    assert code == 2 and "is in git's folder" in err
    code, err = ci_to(branches, "report.sarif")
    assert code == 2 and ".claude/settings.json is protected" in err
    assert (hook.read_bytes(), settings.read_bytes()) == kept and (repo / "report.sarif").is_symlink()


def test_a_linked_worktrees_git_folder_outside_it_is_refused_too(branches: Branches, tmp_path: Path) -> None:
    tree = tmp_path / "second"
    git(branches.repo, "worktree", "add", "-q", str(tree), branches.agent)
    gitdir = git(tree, "rev-parse", "--absolute-git-dir").stdout.strip()
    for output in (os.path.join(gitdir, "HEAD"), str(branches.repo / ".git" / "hooks" / "pre-push")):
        before = Path(output).read_bytes() if os.path.exists(output) else None
        code, err = ci_to(branches, output, cwd=tree)
        assert code == 2 and "is in git's folder" in err, err
        assert (Path(output).read_bytes() if os.path.exists(output) else None) == before


def test_a_report_of_its_own_in_the_project_or_outside_it_is_written(branches: Branches, tmp_path: Path) -> None:
    runner_temp = tmp_path / "runner-temp"
    for output in ("report.sarif", "src/../handrail.sarif", str(runner_temp / "handrail.sarif")):
        code, err = ci_to(branches, output)
        assert code == 1, err  # the agent's branch has findings
        written = Path(output) if os.path.isabs(output) else branches.repo / output
        assert valid(json.loads(written.read_text(encoding="utf-8")))["runs"][0]["results"]
