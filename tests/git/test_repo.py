"""handrail.repo: what git is about to commit or push, read through pygit2."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gitkit import Project

from handrail import repo as git
from handrail.policy import gitrules, scope


@pytest.fixture
def r(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    monkeypatch.chdir(repo)
    return Project(repo)


def staged(project: Project) -> list[tuple[str, str, str | None]]:
    return sorted((c.status, c.path, c.old_path) for c in git.staged(git.open_repo(".")).changes)


def test_staged_sees_additions_renames_copies_deletions_and_odd_paths(r: Project) -> None:
    body = "".join(f"line {i}\n" for i in range(40))
    other = "".join(f"other {i}\n" for i in range(40))
    r.write("old.txt", other)
    r.write("src.txt", body)
    r.write("gone.txt")
    r.git("add", ".")
    r.git("commit", "-q", "-m", "base")
    r.git("mv", "old.txt", "new.txt")
    r.write("src.txt", body + "more\n")            # a modified source lets git find the copy
    r.write("copy.txt", body)
    r.git("rm", "-q", "gone.txt")
    r.write(b"na\xefve file.txt", "a different body\n")
    r.git("add", ".")
    assert staged(r) == sorted([
        ("R", "new.txt", "old.txt"), ("M", "src.txt", None), ("C", "copy.txt", "src.txt"),
        ("D", "gone.txt", None), ("A", os.fsdecode(b"na\xefve file.txt"), None)])
    assert gitrules.display(os.fsdecode(b"na\xefve file.txt")) == "na\\xefve file.txt"


def test_first_commit_lists_the_index_and_counts_its_lines(r: Project) -> None:
    r.write("a.txt", "one\ntwo\nno newline at the end")
    r.write("bin.dat", b"\0\1\2")
    r.git("add", ".")
    changes = git.staged(git.open_repo("."))
    assert sorted(c.path for c in changes.changes) == ["a.txt", "bin.dat"]
    assert changes.line_counts() == (4, 0)  # three lines of text, and the binary file's one (its 3 bytes)


def test_the_index_named_by_git_index_file_is_the_one_read(r: Project, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    r.write("a.txt")
    r.git("add", "a.txt")
    other = tmp_path / "other-index"
    r.git("read-tree", "--empty", env={"GIT_INDEX_FILE": str(other)})
    monkeypatch.setenv("GIT_INDEX_FILE", str(other))
    assert staged(r) == []


def test_no_git_env_drops_what_points_at_a_repository() -> None:
    env = {"GIT_DIR": "/x", "GIT_INDEX_FILE": "/x/i", "GIT_WORK_TREE": "/w", "GIT_SSH_COMMAND": "ssh",
           "GIT_CONFIG_KEY_0": "a", "GIT_AUTHOR_NAME": "A", "HOME": "/h"}
    assert git.no_git_env(env) == {"GIT_SSH_COMMAND": "ssh", "GIT_CONFIG_KEY_0": "a", "GIT_AUTHOR_NAME": "A",
                                   "HOME": "/h"}


def test_hooks_dir_follows_core_hooks_path_and_worktrees(r: Project, tmp_path: Path) -> None:
    r.write("a")
    r.git("add", "a")
    r.git("commit", "-q", "-m", "a")
    wt = tmp_path / "wt"
    r.git("worktree", "add", "-q", "-b", "w", str(wt))
    assert git.hooks_dir(git.open_path(str(wt))) == str(r.path / ".git" / "hooks")
    r.git("config", "core.hooksPath", "tools/hooks")
    assert git.hooks_dir(git.open_path(str(r.path))) == str(r.path / "tools" / "hooks")


def test_the_builtin_prefilter_never_misses_a_refused_path() -> None:
    paths = [".env", "a/.ENV.prod", "x/secrets/y.txt", "secrets", "node_modules/x", "a/node_modules/b/c",
             ".git", "sub/.git", ".git/config", "k.PEM", "a/b.key", "package-lock.json", "web/yarn.lock",
             ".handrail/tasks/t/task.json", ".claude/settings.local.json", ".codex/rules", "opencode.jsonc",
             ".github/hooks/x.json", ".pre-commit-config.yaml", "agents/a/autonomy-envelope.md",
             "src/app.py", "docs/env.md", "environment.py", "src/git/x.py", "keys/README", "my.keys"]
    for agent in (True, False):
        match = gitrules._builtin_any(agent)
        for p in paths:
            if scope.builtin_refusal(p, agent=agent) is not None:
                assert match(p), (p, agent)
