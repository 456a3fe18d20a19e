"""Git hooks judge the commit, not the shell that pushes: plain git, a real bare remote,
driven with an agent's environment (`CLAUDECODE=1`) and without it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from gitkit import AGENT, Project, refused
from helpers import git


def push(project: Project, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return project.git("push", "-q", *args, check=False, env=env)


def unmarked_push(project: Project, *args: str) -> subprocess.CompletedProcess[str]:
    """What an agent runs to look like a human: its markers stripped for the push only."""
    return subprocess.run(["env", "-u", "CLAUDECODE", "git", "push", "-q", *args], cwd=project.path, text=True,
                          capture_output=True, env={**os.environ, **AGENT})


def message(project: Project, rev: str = "HEAD") -> str:
    return project.git("log", "-1", "--format=%B", rev).stdout


def remote_has(remote: Path, ref: str) -> bool:
    return git(remote, "rev-parse", "-q", "--verify", ref, check=False).returncode == 0


def started(project: Project) -> None:
    project.task("t")
    project.write("README.md")
    assert project.commit("README.md", message="human start").returncode == 0
    assert push(project, "origin", "main").returncode == 0


# --------------------------------------------------------------------------- the trailer


def test_an_agents_commit_carries_the_trailer_and_a_humans_does_not(project: Project, remote: Path) -> None:
    project.task("t")
    project.write("a.txt")
    assert project.commit("a.txt", message="human work").returncode == 0
    assert "Handrail-Agent" not in message(project)
    project.write("b.txt")
    assert project.commit("b.txt", message="agent work", env=AGENT).returncode == 0
    assert "Handrail-Agent: claude (CLAUDECODE=1)" in message(project)
    # --no-verify skips pre-commit and commit-msg, not prepare-commit-msg; --amend adds no second one.
    project.write("c.txt")
    assert project.commit("c.txt", args=("--no-verify",), env=AGENT).returncode == 0
    assert project.git("commit", "-q", "--amend", "--no-verify", "--no-edit", env=AGENT).returncode == 0
    assert message(project).count("Handrail-Agent: claude (CLAUDECODE=1)") == 1
    (project.path / "msg.txt").write_text("from a file\n\nSigned-off-by: A <a@example.com>\n")
    project.write("d.txt")
    project.git("add", "d.txt")
    assert project.git("commit", "-q", "-F", "msg.txt", env=AGENT, check=False).returncode == 0
    body = message(project)
    assert body.startswith("from a file") and "Signed-off-by: A <a@example.com>" in body
    assert body.rstrip().endswith("Handrail-Agent: claude (CLAUDECODE=1)")


def test_an_agents_merge_carries_the_trailer(project: Project, remote: Path) -> None:
    started(project)
    project.git("switch", "-q", "-c", "side")
    project.write("side.txt")
    assert project.commit("side.txt").returncode == 0
    project.git("switch", "-q", "main")
    project.write("main.txt")
    assert project.commit("main.txt").returncode == 0
    project.git("merge", "-q", "--no-ff", "--no-edit", "side", env=AGENT)
    assert "Handrail-Agent: claude (CLAUDECODE=1)" in message(project)
    assert "Handrail-Agent" not in message(project, "HEAD^1")


# --------------------------------------------------------------------------- who pushes, who made it


def test_an_agents_commits_pushed_to_main_without_its_markers_need_the_publish_gate(
        project: Project, remote: Path) -> None:
    started(project)
    project.write("src/a.py")
    assert project.commit("src/a.py", message="agent change", env=AGENT).returncode == 0
    r = unmarked_push(project, "origin", "main")
    refused(r, "a human brings commits an agent made (Handrail-Agent: claude (CLAUDECODE=1))",
            "protected branch main", "handrail gate approve t publish", action="push")
    assert git(remote, "rev-parse", "main").stdout.strip() != project.head()
    # A feature branch is the human's call; main waits for the gate.
    assert unmarked_push(project, "origin", "main:refs/heads/feature").returncode == 0
    project.approve("t", "publish")
    assert unmarked_push(project, "origin", "main").returncode == 0


def test_agent_only_rules_bind_an_agents_commit_whoever_pushes_it(project: Project, remote: Path) -> None:
    started(project)
    project.git("switch", "-q", "-c", "deps")
    project.write("yarn.lock", "# lock\n")
    assert project.commit("yarn.lock", args=("--no-verify",), message="bump", env=AGENT).returncode == 0
    r = push(project, "origin", "deps")
    refused(r, "yarn.lock is forbidden", "binds agents", "made by an agent: Handrail-Agent: claude", action="push")
    assert not remote_has(remote, "refs/heads/deps")


def test_a_harness_trailer_marks_the_commit_too(project: Project, remote: Path) -> None:
    started(project)
    project.git("switch", "-q", "-c", "deps")
    project.write("package-lock.json", "{}\n")
    project.git("add", "package-lock.json")
    msg = "bump\n\nCo-Authored-By: Claude Opus 4.5 <noreply@anthropic.com>\n"
    assert project.git("commit", "-q", "--no-verify", "-m", msg, check=False).returncode == 0
    refused(push(project, "origin", "deps"), "package-lock.json is forbidden",
            "made by an agent: Co-Authored-By: Claude Opus 4.5 <noreply@anthropic.com>", action="push")


def test_a_humans_setup_commits_pushed_by_an_agent_are_not_refused_for_agent_only_rules(
        project: Project, tmp_path: Path) -> None:
    project.task("t")
    project.write("package-lock.json", "{}\n")
    project.write("node_modules/x/index.js")
    project.write(".claude/settings.json", "{}\n")
    assert project.commit("package-lock.json", ".claude/settings.json", message="human setup").returncode == 0
    project.git("add", "-f", "node_modules")
    assert project.commit(message="vendored").returncode == 0
    fresh = tmp_path / "fresh.git"
    git(tmp_path, "init", "-q", "--bare", str(fresh))
    project.git("switch", "-q", "-c", "agent-branch")
    project.write("src/a.py")
    assert project.commit("src/a.py", env=AGENT).returncode == 0
    r = push(project, str(fresh), "agent-branch", env=AGENT)
    assert r.returncode == 0, r.stderr
    assert remote_has(fresh, "refs/heads/agent-branch")


def test_aiders_committer_name_marks_the_commit(project: Project, remote: Path) -> None:
    started(project)
    project.git("switch", "-q", "-c", "deps")
    project.write("yarn.lock", "# lock\n")
    project.git("add", "yarn.lock")
    aider = {"GIT_COMMITTER_NAME": "Test Committer (aider)"}
    # No hook at all runs (so no Handrail-Agent trailer): the committer's name still says who.
    assert project.git("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "aider: bump",
                       env=aider, check=False).returncode == 0
    assert "Handrail-Agent" not in message(project)
    refused(push(project, "origin", "deps"), "yarn.lock is forbidden", "committer 'Test Committer (aider)",
            action="push")


# --------------------------------------------------------------------------- what the remote really has


def test_a_forged_tracking_ref_does_not_hide_a_forbidden_file(project: Project, remote: Path) -> None:
    started(project)
    project.git("switch", "-q", "-c", "x")
    project.write(".env", "PASSWORD=x\n")
    assert project.commit(".env", force_add=True, args=("--no-verify",), message="sneak", env=AGENT).returncode == 0
    project.git("fetch", "-q", ".", "x:refs/remotes/origin/x", env=AGENT)
    refused(push(project, "origin", "x", env=AGENT), ".env is forbidden", "refs/remotes/origin/x was not written "
            "by a fetch from origin", action="push")
    project.git("update-ref", "-d", "refs/remotes/origin/x")
    project.git("update-ref", "refs/remotes/origin/main", "HEAD", env=AGENT)
    refused(push(project, "origin", "x", env=AGENT), ".env is forbidden", action="push")
    assert not remote_has(remote, "refs/heads/x")


def test_tracking_refs_a_real_fetch_wrote_hide_what_the_remote_has(project: Project, remote: Path,
                                                                    tmp_path: Path) -> None:
    started(project)
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote), str(other))
    (other / "server.key").write_text("k\n")
    git(other, "add", "server.key")
    git(other, "commit", "-q", "--no-verify", "-m", "someone else's key")
    git(other, "push", "-q", "--no-verify", "origin", "HEAD:refs/heads/theirs")
    project.git("fetch", "-q", "origin")
    project.git("switch", "-q", "-c", "mine", "origin/theirs")
    project.write("src/b.py")
    assert project.commit("src/b.py").returncode == 0
    assert push(project, "origin", "mine").returncode == 0  # their commit is on origin already


def test_a_fresh_clone_trusts_the_refs_it_cloned(project: Project, remote: Path, tmp_path: Path) -> None:
    started(project)
    project.write("bulk.txt", "".join(f"{i}\n" for i in range(50)))
    assert project.commit("bulk.txt", message="big human commit").returncode == 0
    assert push(project, "origin", "main").returncode == 0
    clone = Project(tmp_path / "clone")
    git(tmp_path, "clone", "-q", str(remote), str(clone.path))
    from handrail import install_hooks

    install_hooks.install(str(clone.path / ".git" / "hooks"), str(clone.path))
    clone.task("t", contract={"governor": {"max_diff_lines": 10}})
    (clone.path / ".git" / "info" / "exclude").write_text(".handrail/\n")
    clone.git("switch", "-q", "-c", "small")
    clone.write("src/c.py")
    assert clone.commit("src/c.py").returncode == 0
    r = push(clone, "origin", "small", env=AGENT)
    assert r.returncode == 0, r.stderr  # the big commit came with the clone: not checked again


# --------------------------------------------------------------------------- tags, git am, the list


def test_an_agents_tag_push_needs_the_publish_gate(project: Project, remote: Path) -> None:
    started(project)
    project.git("tag", "v1")
    project.git("tag", "-a", "v2", "-m", "release")
    refused(push(project, "origin", "v1", env=AGENT), "pushes the tag refs/tags/v1 (a tag is a release)",
            "handrail gate approve t publish", action="push")
    refused(push(project, "origin", "v2", env=AGENT), "pushes the tag refs/tags/v2", action="push")
    assert not remote_has(remote, "refs/tags/v1")
    assert push(project, "origin", "v1").returncode == 0  # a human's tag of a human's commit
    project.approve("t", "publish")
    assert push(project, "origin", "v2", env=AGENT).returncode == 0
    assert remote_has(remote, "refs/tags/v2")


def test_git_am_by_an_agent_meets_the_pre_commit_rules(project: Project, remote: Path, tmp_path: Path) -> None:
    started(project)
    project.git("switch", "-q", "-c", "patch")
    project.write(".claude/settings.json", '{"permissions": {"allow": ["Bash(*)"]}}\n')
    assert project.commit(".claude/settings.json", message="loosen").returncode == 0  # a human may
    patches = tmp_path / "patches"
    project.git("format-patch", "-q", "-1", "-o", str(patches))
    project.git("switch", "-q", "main")
    patch = str(next(patches.iterdir()))
    r = project.git("am", "-q", patch, check=False, env=AGENT)
    refused(r, ".claude/settings.json", "is protected", "binds agents")
    project.git("am", "--abort")
    assert project.head() == git(remote, "rev-parse", "main").stdout.strip()
    project.write("notes.txt")
    assert project.commit("notes.txt", message="notes").returncode == 0
    project.git("format-patch", "-q", "-1", "-o", str(tmp_path / "ok"))
    project.git("reset", "-q", "--hard", "HEAD~1")
    assert project.git("am", "-q", str(next((tmp_path / "ok").iterdir())), check=False, env=AGENT).returncode == 0
    assert "Handrail-Agent: claude (CLAUDECODE=1)" in message(project)


def test_a_long_list_is_capped_and_commits_other_refs_hold_get_no_rebase(project: Project, remote: Path) -> None:
    started(project)
    project.git("switch", "-q", "-c", "keys")
    for i in range(12):
        project.write(f"k{i}.key", "k\n")
        assert project.commit(f"k{i}.key", args=("--no-verify",), message=f"key {i}").returncode == 0
    project.git("branch", "keep-a-copy")
    r = push(project, "origin", "keys")
    refused(r, "12 problems", "and 2 more", "handrail events --type push_refused", action="push")
    assert r.stderr.count("is forbidden") == 10
    assert "rebase -i" not in r.stderr and "already on another branch or a remote" in r.stderr
    project.git("branch", "-D", "keep-a-copy")
    assert "rebase -i" in push(project, "origin", "keys").stderr  # only this branch holds them
