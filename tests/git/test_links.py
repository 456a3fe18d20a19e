"""Symbolic links and submodules at commit and push time: a link is a second name for what it
points at, and a submodule is code from elsewhere, so neither may carry an agent past the
path rules. An agent's commit of one that leads to or above a guarded path, out of the tree,
or nowhere the hook can place is refused like a protected path; a human's is the human's call."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from gitkit import AGENT, Project, commits, refused
from helpers import git, run_handrail


def link(project: Project, rel: str, target: str) -> None:
    where = project.path / rel
    where.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, where)


def started(project: Project) -> None:
    """A task in an edit phase, and a first commit so that HEAD exists."""
    project.task("t")
    project.write("src/app.py")
    assert project.commit("src/app.py").returncode == 0


def test_an_agents_link_to_the_policy_folder_is_refused(project: Project) -> None:
    started(project)
    link(project, "notes", ".handrail")
    r = project.commit("notes", env=AGENT)
    refused(r, "notes is a symbolic link to '.handrail'", "'**/.handrail/**'", "binds agents",
            "git rm --cached -q -- notes", "a human may commit the link")
    assert commits(project) == 1
    [event] = [json.loads(line) for line in run_handrail("events", "--type", "commit_refused", "--json",
                                                         cwd=project.path).stdout.splitlines()]
    assert event["agent"] == "claude" and event["payload"]["problems"][0]["path"] == "notes"


@pytest.mark.parametrize(("rel", "target", "said"), [
    ("src/conf", "../.claude", "which leads to '.claude'"),      # above a harness's settings
    ("src/all", "..", "which leads to 'the repository's root'"),  # a second name for every path
    ("src/out", "../../elsewhere", "climbs out of the repository"),
    ("src/etc", "/etc", "an absolute target"),
    ("src/hooks", "../.git/hooks", "'.git/**'"),
])
def test_an_agents_link_out_of_the_tree_or_above_a_guarded_path_is_refused(
        project: Project, rel: str, target: str, said: str) -> None:
    started(project)
    link(project, rel, target)
    refused(project.commit(rel, env=AGENT), f"{rel} is a symbolic link", said)
    assert commits(project) == 1


def test_a_link_is_followed_through_the_links_the_index_holds(project: Project) -> None:
    started(project)
    link(project, "src/conf", "../.claude")
    assert project.commit("src/conf").returncode == 0  # a human's link: the human's call
    link(project, "docs/conf", "../src/conf")           # harmless by its own words, not where it leads
    refused(project.commit("docs/conf", env=AGENT), "docs/conf is a symbolic link to '../src/conf', which "
                                                    "leads to '.claude'")
    # The index, not the work tree, is the tree followed: a link only on disk changes nothing.
    (project.path / "docs" / "conf").unlink()
    project.git("rm", "-q", "--cached", "docs/conf")
    link(project, "docs/v2", "../src")
    assert project.commit("docs/v2", env=AGENT).returncode == 0


def test_an_agents_link_inside_the_tree_passes(project: Project) -> None:
    started(project)
    link(project, "lib", "src")
    link(project, "docs/app.py", "../src/app.py")
    r = project.commit("lib", "docs/app.py", env=AGENT)
    assert r.returncode == 0, r.stderr
    assert commits(project) == 2


def test_an_agent_may_not_turn_a_file_into_a_link(project: Project) -> None:
    started(project)
    (project.path / "src" / "app.py").unlink()
    link(project, "src/app.py", "../.handrail/autonomy-protocol.json")
    refused(project.commit("src/app.py", env=AGENT),
            "src/app.py is a symbolic link to '../.handrail/autonomy-protocol.json'")
    assert commits(project) == 1


def test_a_humans_link_to_the_policy_folder_is_committed(project: Project) -> None:
    started(project)
    link(project, "notes", ".handrail")
    link(project, "src/out", "/etc")
    r = project.commit("notes", "src/out")
    assert r.returncode == 0, r.stderr
    assert commits(project) == 2


def test_once_the_link_is_on_disk_writes_through_it_are_judged_where_they_land(project: Project) -> None:
    started(project)
    link(project, "notes", ".handrail")
    assert project.commit("notes").returncode == 0
    r = run_handrail("can-edit", "--json", "--file", "notes/autonomy-protocol.json", cwd=project.path, env=AGENT)
    answer = json.loads(r.stdout.splitlines()[-1])
    assert r.returncode == 1 and answer["reason"] == "protected_path" and answer["rule"] == "**/.handrail/**"
    r = run_handrail("classify", "--json", "echo x > notes/autonomy-protocol.json", cwd=project.path, env=AGENT)
    answer = json.loads(r.stdout.splitlines()[-1])
    assert r.returncode == 1 and answer["tier"] == 3
    assert answer["reasons"][0]["rule"] == "protected-paths"


def library(tmp_path: Path) -> Path:
    lib = tmp_path / "lib"
    git(tmp_path, "init", "-q", "-b", "main", str(lib))
    (lib / "lib.py").write_text("v = 1\n")
    git(lib, "add", "lib.py")
    git(lib, "commit", "-q", "-m", "v1")
    return lib


def test_an_agents_submodule_is_refused_with_or_without_gitmodules(project: Project, tmp_path: Path) -> None:
    started(project)
    lib = library(tmp_path)
    project.git("submodule", "add", "-q", str(lib), "vendor/lib")
    refused(project.commit(env=AGENT), "vendor/lib is a submodule's commit", ".gitmodules is protected",
            "a human may add or move a submodule")
    # A gitlink staged by hand, with no .gitmodules entry, is still code no rule reads.
    project.git("rm", "-q", "--cached", "-f", ".gitmodules")
    head = git(lib, "rev-parse", "HEAD").stdout.strip()
    project.git("update-index", "--add", "--cacheinfo", f"160000,{head},vendor/other")
    r = project.commit(env=AGENT)
    refused(r, "vendor/other is a submodule's commit")
    assert ".gitmodules" not in r.stderr
    assert commits(project) == 1
    assert project.commit().returncode == 0  # a human adds it


def push(project: Project) -> subprocess.CompletedProcess[str]:
    return project.git("push", "-q", "origin", "main", check=False)


def test_pre_push_refuses_an_agents_link_committed_past_pre_commit(project: Project, remote: Path) -> None:
    started(project)
    assert push(project).returncode == 0
    link(project, "src/policy", "../.handrail")
    r = project.commit("src/policy", env=AGENT, args=("--no-verify",), message="shortcut")
    assert r.returncode == 0, r.stderr
    r = push(project)  # a human pushes it: the commit is still an agent's
    refused(r, "src/policy is a symbolic link to '../.handrail', which leads to '.handrail'",
            "made by an agent", "git rebase -i", action="push")
    assert git(remote, "rev-list", "--count", "main").stdout.strip() == "1"


def test_pre_push_lets_a_humans_link_through(project: Project, remote: Path) -> None:
    started(project)
    link(project, "src/policy", "../.handrail")
    assert project.commit("src/policy").returncode == 0
    r = push(project)
    assert r.returncode == 0, r.stderr
    assert git(remote, "rev-list", "--count", "main").stdout.strip() == "2"
