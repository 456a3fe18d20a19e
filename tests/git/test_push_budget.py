"""A task's budget over a pushed branch as a whole: small commits, or small pushes, add up."""

from __future__ import annotations

from pathlib import Path

from gitkit import Project, refused
from helpers import git


def push(project: Project, *args: str):  # type: ignore[no-untyped-def]
    return project.git("push", "-q", *args, check=False)


def on_feature(project: Project, limits: dict[str, int]) -> None:
    """A task whose contract caps the change, main on origin, and a feature branch started from it."""
    project.task("t", contract={"governor": limits})
    project.write("README.md")
    assert project.commit("README.md").returncode == 0
    assert push(project, "origin", "main").returncode == 0
    project.git("switch", "-q", "-c", "feature")


def test_many_small_commits_in_one_push_are_judged_together(project: Project, remote: Path) -> None:
    on_feature(project, {"max_changed_files": 2})
    for name in ("a", "b", "c"):
        project.write(f"src/{name}.py")
        assert project.commit(f"src/{name}.py").returncode == 0  # each commit passes rule 4 on its own
    r = push(project, "origin", "feature")
    refused(r, "the sum of 3 commits under task 't'", "changes 3 files, more than task 't' allows (2)",
            "pushed as refs/heads/feature", action="push")
    assert git(remote, "rev-parse", "-q", "--verify", "refs/heads/feature", check=False).returncode != 0


def test_small_pushes_of_one_branch_add_up(project: Project, remote: Path) -> None:
    on_feature(project, {"max_diff_lines": 5})
    for i, name in enumerate(("a", "b")):
        project.write(f"src/{name}.py", "x\n" * 2)
        assert project.commit(f"src/{name}.py").returncode == 0
        assert push(project, "origin", "feature").returncode == 0, i  # 2, then 4 lines since main
    project.write("src/c.py", "x\n" * 2)
    assert project.commit("src/c.py").returncode == 0
    refused(push(project, "origin", "feature"), "changes 6 lines (+6 -0), more than task 't' allows (5)",
            action="push")


def test_work_merged_into_main_no_longer_counts(project: Project, remote: Path) -> None:
    on_feature(project, {"max_changed_files": 2})
    for name in ("a", "b"):
        project.write(f"src/{name}.py")
        assert project.commit(f"src/{name}.py").returncode == 0
    assert push(project, "origin", "feature").returncode == 0
    project.git("switch", "-q", "main")
    project.git("merge", "-q", "--ff-only", "feature")
    assert push(project, "origin", "main").returncode == 0
    project.git("switch", "-q", "feature")
    for name in ("c", "d"):
        project.write(f"src/{name}.py")
        assert project.commit(f"src/{name}.py").returncode == 0
    assert push(project, "origin", "feature").returncode == 0  # two files since main, not four
