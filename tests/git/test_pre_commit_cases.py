"""Every way of committing the pre-commit hook must understand, through real git."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from gitkit import AGENT, Project, commits, refused
from helpers import git

TOKEN = "ghp_" + "Tk3n" * 9


def staged_names(project: Project) -> list[str]:
    return project.git("diff", "--cached", "--name-only").stdout.split()


def test_first_commit_of_a_repository(project: Project) -> None:
    project.task("t")
    project.write("README.md")
    project.write(".env.production", "SECRET=1\n")
    refused(project.commit("README.md", ".env.production"), ".env.production is forbidden")
    project.git("rm", "-q", "--cached", ".env.production")
    assert project.commit().returncode == 0
    assert commits(project) == 1


def test_commit_all_judges_the_temporary_index_git_builds(project: Project) -> None:
    project.task("t")
    project.write("app.cfg", "clean\n")
    assert project.commit("app.cfg").returncode == 0
    project.write("app.cfg", f"token={TOKEN}\n")  # modified, not staged
    project.write("notes.txt")
    assert project.commit("notes.txt").returncode == 0  # the secret is not part of it
    refused(project.commit(args=("-a",)), "app.cfg:1 carries a GitHub token")


def test_partial_commit_judges_only_the_named_paths(project: Project) -> None:
    project.task("t")
    project.write("src/a.py", "a = 1\n")
    assert project.commit("src/a.py").returncode == 0
    project.write(".env", "A=1\n")
    project.git("add", "-f", ".env")
    project.write("src/a.py", "a = 2\n")
    # `git commit src/a.py` commits from an index that holds HEAD plus src/a.py only.
    assert project.git("commit", "-q", "-m", "partial", "src/a.py", check=False).returncode == 0
    assert staged_names(project) == [".env"]
    refused(project.git("commit", "-q", "-m", "partial", ".env", check=False), ".env is forbidden")


def test_amend_is_judged_and_a_message_only_amend_passes(project: Project) -> None:
    project.task("t")
    project.write("a.txt")
    assert project.commit("a.txt").returncode == 0
    project.write("id_rsa.pem", "x\n")
    project.git("add", "id_rsa.pem")
    refused(project.commit(args=("--amend",)), "id_rsa.pem is forbidden")
    project.git("rm", "-q", "--cached", "id_rsa.pem")
    project.phase("t", "review")  # no edit task: a commit that changes no file still passes
    assert project.commit(message="better message", args=("--amend",)).returncode == 0
    assert project.git("log", "-1", "--format=%s").stdout.strip() == "better message"


def test_allow_empty_is_not_refused_for_being_empty(project: Project) -> None:
    assert project.commit(message="empty", args=("--allow-empty",)).returncode == 0
    assert commits(project) == 1


def _conflicted_merge(project: Project) -> None:
    project.write("f.txt", "base\n")
    assert project.commit("f.txt").returncode == 0
    project.git("switch", "-q", "-c", "side")
    project.write("f.txt", "side\n")
    project.write("package-lock.json", "{}\n")  # a human's lock file update on the side branch
    assert project.commit("f.txt", "package-lock.json").returncode == 0
    project.git("switch", "-q", "main")
    project.write("f.txt", "main\n")
    assert project.commit("f.txt").returncode == 0
    assert project.git("merge", "-q", "side", check=False).returncode != 0  # conflict in f.txt


def test_concluding_a_merge_judges_only_what_no_parent_carries(project: Project) -> None:
    project.task("t")
    _conflicted_merge(project)
    project.write("f.txt", "resolved\n")
    project.git("add", "f.txt")
    # The agent concludes the merge: the lock file came from a parent, so it is not the agent's change.
    assert project.git("commit", "-q", "--no-edit", check=False, env=AGENT).returncode == 0
    assert len(project.git("log", "-1", "--format=%P").stdout.split()) == 2


def test_a_merge_resolution_that_adds_a_secret_is_refused(project: Project) -> None:
    project.task("t")
    _conflicted_merge(project)
    project.write("f.txt", f"resolved {TOKEN}\n")
    project.git("add", "f.txt")
    r = project.git("commit", "-q", "--no-edit", check=False, env=AGENT)
    refused(r, "f.txt:1 carries a GitHub token")
    assert "package-lock.json" not in r.stderr


def test_paths_with_spaces_and_bytes_that_are_not_utf8(project: Project) -> None:
    project.task("t", contract={"allowed_files": ["docs/**"], "forbidden_files": ["docs/private notes/**"]})
    raw = b"caf\xe9 menu.txt"
    project.write(raw)
    project.write("docs/private notes/plan.md")
    project.write("docs/read me.md")
    r = project.commit(os.fsdecode(raw), "docs/private notes/plan.md", "docs/read me.md")
    refused(r, "caf\\xe9 menu.txt is outside the allowed_files", "docs/private notes/plan.md is forbidden by task 't'",
            "git rm --cached -q -- 'caf\\xe9 menu.txt'")
    assert "docs/read me.md is" not in r.stderr
    project.git("rm", "-q", "--cached", os.fsdecode(raw), "docs/private notes/plan.md")
    assert project.commit().returncode == 0


def test_submodule_changes(project: Project, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q", "-b", "main")
    (lib / "lib.py").write_text("v = 1\n")
    git(lib, "add", "lib.py")
    git(lib, "commit", "-q", "-m", "v1")
    project.task("t", contract={"allowed_files": ["src/**"]})
    project.git("submodule", "add", "-q", str(lib), "vendor/lib")
    r = project.commit()
    refused(r, "vendor/lib is outside the allowed_files")
    # .gitmodules is a protected path: a human's change to it is outside no contract's scope
    assert ".gitmodules is outside" not in r.stderr
    project.contract("t", {"allowed_files": ["src/**", "vendor/**"]})
    assert project.commit().returncode == 0
    (lib / "lib.py").write_text("v = 2\n")
    git(lib, "commit", "-q", "-am", "v2")
    git(project.path / "vendor" / "lib", "pull", "-q", "origin", "main")
    project.git("add", "vendor/lib")
    assert project.commit(message="bump lib").returncode == 0
    project.contract("t", {"allowed_files": ["src/**"]})
    git(lib, "commit", "-q", "--allow-empty", "-m", "v3")
    git(project.path / "vendor" / "lib", "pull", "-q", "origin", "main")
    project.git("add", "vendor/lib")
    refused(project.commit(message="bump lib again"), "vendor/lib is outside the allowed_files")


def test_linked_worktree_uses_its_own_index_and_the_main_tasks(project: Project, tmp_path: Path) -> None:
    project.task("t")
    project.write("a.txt")
    assert project.commit("a.txt").returncode == 0
    project.phase("t", "review")
    tree = tmp_path / "wt"
    project.git("worktree", "add", "-q", "-b", "feature", str(tree))
    other = Project(tree)
    other.write(".git-blame-ignore-revs")  # a file whose name starts like .git, but is fine
    other.task("wt-task")  # a task written in a linked worktree is not read: the main repository's are
    refused(other.commit(".git-blame-ignore-revs"), "task 't' is in phase review")
    project.phase("t", "implement")
    assert other.commit().returncode == 0
    other.write(".envrc", "export A=1\n")
    refused(other.commit(".envrc"), ".envrc is forbidden")
    assert project.git("log", "-1", "--format=%s", "feature").stdout.strip() == "change"


def test_the_hook_run_by_hand_reads_the_index(project: Project) -> None:
    project.task("t")
    project.write(".env")
    project.git("add", "-f", ".env")
    r = project.hook("pre-commit")
    refused(r, ".env is forbidden")
    project.git("rm", "-q", "--cached", ".env")
    assert project.hook("pre-commit").returncode == 0


def said(r: subprocess.CompletedProcess[str]) -> list[str]:
    """The refusal's lines, without the one that says where handrail is when the
    committer's PATH has none (the test runs the hooks from a PATH without it)."""
    return [line for line in r.stderr.strip().splitlines() if "`handrail` is not on this PATH" not in line]


def test_a_broken_contract_refuses_in_one_line(project: Project) -> None:
    project.task("t")
    (project.path / ".handrail" / "tasks" / "t" / "harness-contract.json").write_text("{not json")
    project.write("a.txt")
    r = project.commit("a.txt")
    refused(r, ".handrail/tasks/t/harness-contract.json: invalid JSON", "handrail policy check")
    assert len(said(r)) <= 2


def test_internal_errors_fail_closed_in_one_line(project: Project, tmp_path: Path) -> None:
    project.task("t")
    garbage = tmp_path / "index"
    garbage.write_bytes(b"DIRC garbage that is no index")
    r = project.hook("pre-commit", env={"GIT_INDEX_FILE": str(garbage)})
    refused(r)
    assert len(said(r)) == 1


def test_outside_a_repository_the_hook_refuses(tmp_path: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    r = handrail("hook", "pre-commit", cwd=tmp_path, env={"GIT_CEILING_DIRECTORIES": str(tmp_path.parent)})
    refused(r, "not inside a git repository")
