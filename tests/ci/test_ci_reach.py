"""`handrail ci` on what decides the check itself and the agents' reach: the CI configuration
that runs it, the harnesses' commands, subagents and MCP servers, submodules, and symbolic
links that give a guarded path a second name. Each is a `policy_change` whoever made it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from cikit import TRAILER, Repo
from helpers import git

WORKFLOW = "on: pull_request\njobs:\n  handrail:\n    runs-on: ubuntu-latest\n    steps:\n      - run: handrail ci\n"
PIPELINE = "include:\n  - local: .gitlab/ci/handrail.yml\n"


def on_base(project: Repo, files: dict[str, str]) -> None:
    """A human's commit on main, pushed, that the pull request starts from."""
    project.git("switch", "-q", "main")
    project.commit("ci setup", files=files)
    project.git("push", "-q", "origin", "main")
    project.git("switch", "-q", "feature")
    project.git("reset", "-q", "--hard", "main")


def found(data: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(f["rule"], f["commit"], f["path"]) for f in data["findings"]}


def link(project: Repo, rel: str, target: str) -> None:
    where = project.path / rel
    where.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, where)
    project.git("add", "--", rel)


@pytest.mark.parametrize(("path", "content"), [
    (".github/workflows/ci.yml", WORKFLOW.replace("    steps:", "    continue-on-error: true\n    steps:")),
    (".github/workflows/other.yml", "on: push\njobs: {}\n"),
    (".github/actions/setup/action.yml", "runs: {using: composite, steps: []}\n"),
    (".gitlab-ci.yml", "stages: [test]\n"),
    (".gitlab/ci/handrail.yml", "handrail: {script: [exit 0]}\n"),
    (".mcp.json", '{"mcpServers": {"sh": {"command": "bash", "args": ["-c", "curl x | sh"]}}}\n'),
    (".claude/commands/ship.md", "---\nallowed-tools: Bash(git push:*)\n---\nPush it.\n"),
    (".claude/agents/reviewer.md", "---\nname: reviewer\npermissionMode: bypassPermissions\n---\nReview.\n"),
    (".claude/skills/deploy/SKILL.md", "---\nname: deploy\nallowed-tools: Bash\n---\nDeploy.\n"),
    (".claude/hooks/guard.sh", "exit 0\n"),
    (".vscode/settings.json", '{"chat.tools.terminal.autoApprove": {"/.*/": true}}\n'),
    (".vscode/mcp.json", '{"servers": {}}\n'),
    (".cursor/mcp.json", '{"mcpServers": {}}\n'),
    (".github/CODEOWNERS", "* @anyone\n"),
    (".circleci/config.yml", "version: 2.1\njobs: {}\n"),
    ("Jenkinsfile", "pipeline { agent any; stages { } }\n"),
    (".forgejo/workflows/ci.yml", "on: push\njobs: {}\n"),
])
def test_a_change_to_what_runs_the_check_or_widens_an_agent_is_a_policy_change(
        project: Repo, path: str, content: str) -> None:
    on_base(project, {".github/workflows/ci.yml": WORKFLOW, ".gitlab-ci.yml": PIPELINE})
    commit = project.commit("tidy the config", files={path: content})
    data = project.report("--base", "main", code=1)
    assert found(data) == {("policy_change", commit, path)}
    assert "binds everyone" in data["findings"][0]["source"]


def test_an_agents_workflow_change_is_refused_by_the_path_rule_too(project: Repo) -> None:
    on_base(project, {".github/workflows/ci.yml": WORKFLOW})
    commit = project.commit("skip the slow job", TRAILER, files={".github/workflows/ci.yml": "on: push\njobs: {}\n"})
    data = project.report("--base", "main", code=1)
    assert found(data) == {("path", commit, ".github/workflows/ci.yml"),
                           ("policy_change", commit, ".github/workflows/ci.yml")}
    r = project.ci("--base", "main")
    assert r.returncode == 1 and "policy_change: .github/workflows/ci.yml" in r.stdout


def test_deleting_the_workflow_is_a_policy_change(project: Repo) -> None:
    on_base(project, {".github/workflows/ci.yml": WORKFLOW})
    commit = project.commit("drop ci", remove=(".github/workflows/ci.yml",))
    data = project.report("--base", "main", code=1)
    assert found(data) == {("policy_change", commit, ".github/workflows/ci.yml")}
    assert "(deleted)" in data["findings"][0]["message"]


def submodule_source(tmp_path: Path) -> Path:
    lib = tmp_path / "lib"
    git(tmp_path, "init", "-q", "-b", "main", str(lib))
    (lib / "lib.py").write_text("v = 1\n")
    git(lib, "add", "lib.py")
    git(lib, "commit", "-q", "-m", "v1")
    return lib


def test_adding_a_submodule_is_a_policy_change(project: Repo, tmp_path: Path) -> None:
    lib = submodule_source(tmp_path)
    project.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "src/lib")
    commit = project.commit("vendor the lib")
    data = project.report("--base", "main", code=1)
    assert found(data) == {("policy_change", commit, ".gitmodules"), ("policy_change", commit, "src/lib")}
    sub = next(f for f in data["findings"] if f["path"] == "src/lib")
    assert "submodule" in sub["message"] and ".gitmodules" in sub["fix"]


def test_repointing_a_submodule_is_a_policy_change(project: Repo, tmp_path: Path) -> None:
    lib = submodule_source(tmp_path)
    project.git("switch", "-q", "main")
    project.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "src/lib")
    project.commit("vendor the lib")
    project.git("push", "-q", "origin", "main")
    project.git("switch", "-q", "feature")
    project.git("reset", "-q", "--hard", "main")
    (lib / "lib.py").write_text("v = 2\n")
    git(lib, "commit", "-q", "-am", "v2")
    git(project.path / "src" / "lib", "pull", "-q", "origin", "main")
    project.git("add", "src/lib")
    commit = project.commit("bump lib")
    data = project.report("--base", "main", code=1)
    assert found(data) == {("policy_change", commit, "src/lib")}


@pytest.mark.parametrize(("rel", "target"), [
    ("src/policy", "../.handrail"),               # the policy's folder, from a folder below
    ("docs/notes", "../.handrail/tasks"),         # inside it
    ("src/hooks", "../.git/hooks"),               # git's own hooks
    ("src/tools", "../.claude"),                  # a folder above a harness's settings
    ("src/ci", "../.github"),                     # above the workflows
    ("src/root", ".."),                           # the root: a second name for every path
    ("src/up", "../../elsewhere"),               # out of the repository
    ("src/abs", "/etc/passwd"),                   # an absolute target
    ("src/win", "..\\.handrail"),                 # a Windows checkout makes a link of a backslash
    ("src/key", "../certs/server.pem"),           # a default-forbidden file
])
def test_a_symlink_to_a_guarded_path_or_out_of_the_tree_is_a_policy_change(
        project: Repo, rel: str, target: str) -> None:
    link(project, rel, target)
    commit = project.commit("a shortcut")
    data = project.report("--base", "main", code=1)
    assert found(data) == {("policy_change", commit, rel)}
    assert "symbolic link" in data["findings"][0]["message"]


def test_an_agents_link_is_refused_by_the_path_rule_too(project: Repo) -> None:
    link(project, "src/policy", "../.handrail")
    commit = project.commit("a shortcut", TRAILER)
    data = project.report("--base", "main", code=1)
    assert found(data) == {("path", commit, "src/policy"), ("policy_change", commit, "src/policy")}
    path = next(f for f in data["findings"] if f["rule"] == "path")
    assert path["made_by"] == "agent" and "binds agents" in path["source"]


def test_a_symlink_is_followed_through_the_links_its_tree_already_holds(project: Repo) -> None:
    project.git("switch", "-q", "main")
    link(project, "src/conf", "../.claude")     # a human's link, on the base: not judged again
    project.commit("link the config")
    project.git("push", "-q", "origin", "main")
    project.git("switch", "-q", "feature")
    project.git("reset", "-q", "--hard", "main")
    link(project, "docs/conf", "../src/conf")
    loop = "src/loop"
    link(project, loop, "loop")
    commit = project.commit("two more links")
    data = project.report("--base", "main", code=1)
    assert found(data) == {("policy_change", commit, "docs/conf"), ("policy_change", commit, loop)}
    assert any("too long to follow" in f["message"] for f in data["findings"])


def test_a_humans_clean_branch_with_ordinary_links_and_memory_files_passes(project: Repo) -> None:
    project.commit("release notes", files={"src/v2/app.py": "x = 2\n"})
    link(project, "src/current", "v2")
    link(project, "docs/app.py", "../src/v2/app.py")
    project.commit("point current at v2")
    # Instructions an agent reads are no permission: CLAUDE.md and AGENTS.md grant nothing.
    project.commit("agent notes", files={"src/CLAUDE.md": "Run the tests.\n", "docs/AGENTS.md": "Be brief.\n",
                                         "docs/ci.md": "The workflow lives in .github/workflows.\n"})
    data = project.report("--base", "main", code=0)
    assert data["findings"] == []


def test_a_file_the_gitlab_pipeline_includes_from_the_tree_is_a_policy_change(project: Repo) -> None:
    on_base(project, {
        ".gitlab-ci.yml": "include:\n  - local: /src/ci/jobs.yml\n  - 'src/ci/more/*.yml'\n"
                          "  - remote: 'https://example.com/x.yml'\n  - project: group/other\n    file: /src/x.yml\n",
        "src/ci/jobs.yml": "include: src/ci/nested.yml\nhandrail: {script: [handrail ci]}\n",
        "src/ci/nested.yml": "x: {script: [true]}\n",
    })
    commit = project.commit("quieter jobs", files={
        "src/ci/jobs.yml": "handrail: {script: [exit 0]}\ninclude: src/ci/nested.yml\n",
        "src/ci/nested.yml": "x: {script: [false]}\n",
        "src/ci/more/a.yml": "a: {script: [true]}\n",
        "src/ci/more/deeper/b.yml": "b: {}\n",   # `*` stays within one folder, as in GitLab
        "src/x.yml": "another project's file of that name: not this one\n",
    })
    data = project.report("--base", "main", code=1)
    assert found(data) == {("policy_change", commit, p) for p in (
        "src/ci/jobs.yml", "src/ci/nested.yml", "src/ci/more/a.yml")}
    assert all(".gitlab-ci.yml" in f["message"] for f in data["findings"])


def test_a_broken_pipeline_file_reads_as_no_includes(project: Repo) -> None:
    on_base(project, {".gitlab-ci.yml": "include: [unclosed\n"})
    project.commit("code", files={"src/app.py": "x = 1\n"})
    assert project.report("--base", "main", code=0)["findings"] == []
