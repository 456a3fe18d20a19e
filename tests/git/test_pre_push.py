"""The pre-push hook with a real bare remote: every pushed ref, content from the commits."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gitkit import AGENT, Project, refused
from helpers import HANDRAIL, git

Z40 = "0" * 40


def push(project: Project, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return project.git("push", "-q", *args, check=False, env=env)


def remote_has(remote: Path, ref: str) -> bool:
    return git(remote, "rev-parse", "-q", "--verify", ref, check=False).returncode == 0


def started(project: Project) -> None:
    """A task in an edit phase and a first commit already on origin."""
    project.task("t")
    project.write("README.md")
    assert project.commit("README.md").returncode == 0
    assert push(project, "origin", "main").returncode == 0


def test_a_clean_new_branch_is_pushed(project: Project, remote: Path) -> None:
    started(project)
    project.git("switch", "-q", "-c", "feature")
    project.write("src/a.py")
    assert project.commit("src/a.py").returncode == 0
    assert push(project, "origin", "feature").returncode == 0
    assert remote_has(remote, "refs/heads/feature")


def test_several_refs_at_once_only_the_second_carries_a_no_verify_env(project: Project, remote: Path) -> None:
    started(project)
    project.git("switch", "-q", "-c", "one")
    project.write("one.txt")
    assert project.commit("one.txt").returncode == 0
    project.git("switch", "-q", "-c", "two", "main")
    project.write(".env", "PASSWORD=x\n")
    assert project.commit(".env", force_add=True, args=("--no-verify",), message="sneak").returncode == 0
    (project.path / ".env").unlink()  # content comes from the commit, not the work tree
    r = push(project, "origin", "one", "two")
    refused(r, ".env is forbidden", "sneak, pushed as refs/heads/two", action="push")
    assert "refs/heads/one]" not in r.stderr
    assert not remote_has(remote, "refs/heads/one") and not remote_has(remote, "refs/heads/two")
    assert push(project, "origin", "one").returncode == 0


def test_no_edit_task_refuses_pushing_commits_but_not_a_human_deletion(project: Project, remote: Path) -> None:
    started(project)
    project.git("switch", "-q", "-c", "old")
    project.write("x.txt")
    assert project.commit("x.txt").returncode == 0
    assert push(project, "origin", "old").returncode == 0
    project.phase("t", "done")
    project.write("y.txt")
    project.git("add", "y.txt")
    assert project.commit(args=("--no-verify",)).returncode == 0
    refused(push(project, "origin", "old"), "task 't' is in phase done", "--no-verify", action="push")
    assert push(project, "origin", "--delete", "old").returncode == 0
    assert not remote_has(remote, "refs/heads/old")


def test_every_commit_is_judged_on_its_own(project: Project, remote: Path) -> None:
    started(project)
    project.contract("t", {"governor": {"max_changed_files": 2}})
    for name in ("a", "b"):
        project.write(f"{name}.txt")
        assert project.commit(f"{name}.txt").returncode == 0
    assert push(project, "origin", "main").returncode == 0  # two commits of one file each
    for name in ("c", "d", "e"):
        project.write(f"{name}.txt")
    project.git("add", "c.txt", "d.txt", "e.txt")
    assert project.commit(args=("--no-verify",), message="too big").returncode == 0
    refused(push(project, "origin", "main"), "the commit changes 3 files", "too big", action="push")


def test_secrets_in_pushed_commits(project: Project, remote: Path) -> None:
    started(project)
    project.write("deploy.sh", "export AWS_ACCESS_KEY_ID=AKIA" + "7" * 16 + "\n")
    assert project.commit("deploy.sh", args=("--no-verify",), message="deploy").returncode == 0
    project.write("deploy.sh", "clean\n")
    assert project.commit("deploy.sh").returncode == 0  # removing it later does not unpush it
    refused(push(project, "origin", "main"), "deploy.sh:1 carries an AWS access key id", action="push")


def test_tags_are_checked(project: Project, remote: Path) -> None:
    started(project)
    project.git("switch", "-q", "-c", "tmp")
    project.write("server.key", "k\n")
    assert project.commit("server.key", args=("--no-verify",)).returncode == 0
    project.git("tag", "v1")
    project.git("tag", "-a", "v2", "-m", "annotated")
    refused(push(project, "origin", "v1"), "server.key is forbidden", "pushed as refs/tags/v1", action="push")
    refused(push(project, "origin", "v2"), "server.key is forbidden", "pushed as refs/tags/v2", action="push")


def test_a_remote_without_tracking_refs_checks_all_history(project: Project, tmp_path: Path) -> None:
    project.task("t")
    project.write("secrets/db.txt", "pw\n")
    assert project.commit("secrets/db.txt", args=("--no-verify",)).returncode == 0
    project.git("rm", "-q", "secrets/db.txt")
    assert project.commit().returncode == 0
    bare = tmp_path / "mirror.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    refused(push(project, str(bare), "main"), "secrets/db.txt is forbidden", action="push")


def test_an_agent_needs_the_publish_gate_to_force_push_delete_or_push_to_main(project: Project, remote: Path) -> None:
    started(project)
    project.write("a.txt")
    assert project.commit("a.txt").returncode == 0
    refused(push(project, "origin", "main", env=AGENT), "an agent (CLAUDECODE=1", "protected branch main",
            "handrail gate approve t publish", action="push")
    project.git("switch", "-q", "-c", "topic")
    assert push(project, "origin", "topic", env=AGENT).returncode == 0
    project.git("commit", "-q", "--amend", "-m", "rewritten")
    refused(push(project, "-f", "origin", "topic", env=AGENT), "force-pushes refs/heads/topic", action="push")
    refused(push(project, "origin", "--delete", "topic", env=AGENT), "deletes refs/heads/topic", action="push")
    project.approve("t", "publish")
    assert push(project, "-f", "origin", "topic", env=AGENT).returncode == 0
    assert push(project, "origin", "main", env=AGENT).returncode == 0
    assert push(project, "origin", "--delete", "topic", env=AGENT).returncode == 0


def test_a_human_may_force_push(project: Project, remote: Path) -> None:
    started(project)
    project.git("commit", "-q", "--amend", "-m", "rewritten")
    assert push(project, "-f", "origin", "main").returncode == 0


def test_a_merge_pushes_without_rejudging_what_a_parent_brought(project: Project, remote: Path) -> None:
    started(project)
    project.write("package-lock.json", "{}\n")
    assert project.commit("package-lock.json", message="human lock update").returncode == 0
    assert push(project, "origin", "main").returncode == 0
    project.git("switch", "-q", "-c", "agent-work", "HEAD~1")
    project.write("src/a.py")
    assert project.commit("src/a.py", env=AGENT).returncode == 0
    project.git("merge", "-q", "--no-edit", "main", env=AGENT)
    assert push(project, "origin", "agent-work", env=AGENT).returncode == 0


def test_plain_protocol_by_hand_and_bad_input(project: Project, remote: Path) -> None:
    started(project)
    head = project.head()
    line = f"refs/heads/main {head} refs/heads/main {Z40}\n"
    assert project.hook("pre-push", "origin", str(remote), input=line).returncode == 0
    refused(project.hook("pre-push", "origin", str(remote), input="garbage\n"), "cannot read", action="push")
    missing = "1" * 40
    refused(project.hook("pre-push", "origin", str(remote), input=f"refs/heads/x {missing} refs/heads/x {Z40}\n"),
            "is not in this repository", action="push")


# --------------------------------------------------------------------------- pre-commit framework


def framework(project: Project) -> None:
    """The real pre-commit framework runs `handrail hook pre-push` (installed, not fetched)."""
    assert HANDRAIL
    project.write(".pre-commit-config.yaml", (
        "repos:\n- repo: local\n  hooks:\n  - id: handrail-pre-push\n    name: handrail (push)\n"
        f"    entry: {HANDRAIL} hook pre-push\n    language: unsupported\n    stages: [pre-push]\n"
        "    pass_filenames: false\n    always_run: true\n"))
    (project.path / ".git" / "hooks" / "pre-push").unlink()  # else the framework would run it too
    pre_commit = str(Path(HANDRAIL).parent / "pre-commit")
    project.git("add", ".pre-commit-config.yaml")
    subprocess.run([pre_commit, "install", "-t", "pre-push"], cwd=project.path, check=True, capture_output=True)


def test_framework_checks_every_local_branch_not_on_the_remote(project: Project, remote: Path, tmp_path: Path,
                                                              monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path / "pre-commit-home"))
    started(project)
    framework(project)
    assert project.commit(message="framework config").returncode == 0
    project.git("switch", "-q", "-c", "one")
    project.write("one.txt")
    assert project.commit("one.txt").returncode == 0
    assert push(project, "origin", "one").returncode == 0
    project.git("switch", "-q", "-c", "two", "main")
    project.write("certs/site.pem", "x\n")
    assert project.commit("certs/site.pem", args=("--no-verify",)).returncode == 0
    project.git("switch", "-q", "one")
    project.write("more.txt")
    assert project.commit("more.txt").returncode == 0
    # The framework passes only the first range; the branch `two` must still be seen.
    r = project.git("push", "origin", "one", "two", check=False)
    assert r.returncode != 0
    assert "certs/site.pem is forbidden" in r.stdout + r.stderr
    assert "on local branch refs/heads/two, not yet on origin" in r.stdout + r.stderr
    assert "every local branch" in r.stdout + r.stderr
