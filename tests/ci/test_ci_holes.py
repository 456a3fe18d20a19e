"""`handrail ci` on what a pull request can plant to be judged less: CI configuration named from
the pipeline (child pipelines, `./` includes, local actions), a report path through a committed
link, files nested past what a reader follows, and a force-pushed pull request."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from cikit import TRAILER, Repo, github_env
from helpers import git


def on_base(project: Repo, files: dict[str, str]) -> None:
    project.git("switch", "-q", "main")
    project.commit("ci setup", files=files)
    project.git("push", "-q", "origin", "main")
    project.git("switch", "-q", "feature")
    project.git("reset", "-q", "--hard", "main")


def changed(data: dict[str, Any], rule: str) -> set[str]:
    return {f["path"] for f in data["findings"] if f["rule"] == rule}


def test_child_pipelines_and_dot_slash_includes_are_ci_configuration(project: Repo) -> None:
    on_base(project, {
        ".gitlab-ci.yml": "include: ./src/ci/a.yml\nchild: {trigger: {include: src/ci/child.yml}}\n"
                          "kids:\n  trigger:\n    include: [src/ci/k1.yml, {local: /src/ci/k2.yml}]\n"
                          "other: {trigger: group/other-project}\n",
        "src/ci/child.yml": "include: {local: src/ci/grand.yml}\njob: {script: [handrail ci]}\n",
    })
    files = {f"src/ci/{n}.yml": "job: {script: [exit 0]}\n" for n in ("a", "child", "k1", "k2", "grand")}
    project.commit("quieter pipelines", files={**files, "src/app.py": "x = 1\n"})
    data = project.report("--base", "main", code=1)
    assert changed(data, "policy_change") == set(files)


def test_a_local_action_a_workflow_runs_is_ci_configuration(project: Repo) -> None:
    on_base(project, {
        ".github/workflows/ci.yml": "on: pull_request\njobs:\n  check:\n    runs-on: ubuntu-latest\n"
                                    "    steps:\n      - uses: ./src/act\n      - run: handrail ci\n",
        "src/act/action.yml": "runs:\n  using: composite\n  steps:\n    - uses: ./src/inner\n",
        "src/inner/action.yml": "runs: {using: composite, steps: [{run: handrail ci, shell: bash}]}\n",
    })
    project.commit("skip the check", files={"src/act/run.sh": "exit 0\n",
                                            "src/inner/action.yml": "runs: {using: composite, steps: []}\n",
                                            "src/app.py": "x = 1\n"})
    data = project.report("--base", "main", code=1)
    assert changed(data, "policy_change") == {"src/act/run.sh", "src/inner/action.yml"}
    assert all("local action" in f["message"] for f in data["findings"])


def test_a_local_action_the_pull_request_stops_naming_is_still_judged_by_the_base(project: Repo) -> None:
    workflow = ("on: pull_request\njobs:\n  check:\n    runs-on: ubuntu-latest\n"
                "    steps:\n      - uses: ./src/act\n")
    on_base(project, {".github/workflows/ci.yml": workflow, "src/act/action.yml": "runs: {using: node20}\n"})
    project.commit("drop it", files={".github/workflows/ci.yml": workflow.replace("./src/act", "actions/x@v1"),
                                     "src/act/action.yml": "runs: {using: node20, main: evil.js}\n"})
    data = project.report("--base", "main", code=1)
    assert changed(data, "policy_change") == {".github/workflows/ci.yml", "src/act/action.yml"}


def test_a_report_through_a_committed_folder_link_out_of_the_project_is_refused(
        project: Repo, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    os.symlink(str(victim), project.path / "outdir")
    project.git("add", "outdir")
    project.commit("a link")
    for output in ("outdir/report.json", "outdir/../report.json"):
        r = project.ci("--base", "main", "--format", "json", "--output", output)
        assert r.returncode == 2 and r.stdout == "", r.stdout
        assert r.stderr.count("\n") == 1 and "leads out of the project through a symbolic link" in r.stderr
    assert list(victim.iterdir()) == [] and not (tmp_path / "report.json").exists()
    r = project.ci("--base", "main", "--format", "json", "--output", "report.json")
    assert r.returncode == 1 and json.loads((project.path / "report.json").read_text())["result"] == "findings"


DEEP_JSON = "[" * 60000 + "]" * 60000


@pytest.mark.parametrize(("path", "content"), [
    (".handrail/tasks/login/harness-contract.json", DEEP_JSON),
    (".handrail/autonomy-protocol.json", "{"),
    (".handrail/tasks/login/task.json", DEEP_JSON),
    (".gitlab-ci.yml", "include: " + "[" * 20000 + "]" * 20000 + "\n"),
])
def test_a_file_handrail_cannot_read_is_a_finding_and_the_rest_is_judged(project: Repo, path: str,
                                                                        content: str) -> None:
    bad = project.commit("planted", files={path: content})
    leak = project.commit("and a leak", TRAILER, files={"src/k.txt": "AKIA" + "ABCDEFGHIJKLMNOP\n"})
    r = project.ci("--base", "main", "--format", "json")
    assert "Recursion" not in r.stdout + r.stderr and r.stderr == "" and r.returncode == 1
    findings = json.loads(r.stdout)["findings"]
    found = {(f["rule"], f["commit"], f["path"]) for f in findings}
    assert ("unreadable", bad, path) in found and ("policy_change", bad, path) in found
    assert ("secret", leak, "src/k.txt") in found
    assert all(f["message"].startswith(path) for f in findings if f["rule"] == "unreadable")  # not a temp copy


def test_folders_nested_deeper_than_a_reader_would_follow_are_judged(project: Repo) -> None:
    blob = git(project.path, "hash-object", "-w", "--stdin", input="x\n").stdout.strip()
    tree = git(project.path, "mktree", input=f"100644 blob {blob}\tf\n").stdout.strip()
    for _ in range(1500):
        tree = git(project.path, "mktree", input=f"040000 tree {tree}\td\n").stdout.strip()
    src = git(project.path, "mktree", input=f"040000 tree {tree}\tdeep\n").stdout.strip()
    top = project.git("ls-tree", "HEAD") + f"\n040000 tree {src}\tsrc\n"
    commit = project.git("commit-tree", git(project.path, "mktree", input=top).stdout.strip(), "-p", "HEAD",
                         "-m", "deep")
    project.git("update-ref", "refs/heads/feature", commit)  # never checked out: no file system nests so deep
    assert project.report("--base", "main", code=0)["counts"]["commits"] == 1


def test_a_forced_push_that_changes_nothing_says_so(project: Repo, tmp_path: Path) -> None:
    tip = project.commit("one", files={"src/a.py": "1\n"})
    event = {"ref": "refs/heads/feature", "before": tip, "after": tip, "forced": True, "created": False,
             "deleted": False, "repository": {"default_branch": "main"}}
    data = project.report(env=github_env(tmp_path, "push", event), code=1)
    [rewrite] = [f["message"] for f in data["findings"] if f["rule"] == "rewrite"]
    assert "not an ancestor" not in rewrite and "forced" in rewrite and tip[:7] in rewrite


def test_a_force_pushed_pull_request_is_a_rewrite(project: Repo, tmp_path: Path) -> None:
    old = project.commit("one", files={"src/a.py": "1\n"})
    project.git("commit", "-q", "--amend", "-m", "one, reworded")
    new = project.head()
    base = project.head("main")

    def event(before: str) -> dict[str, Any]:
        return {"action": "synchronize", "before": before, "after": new, "number": 1,
                "pull_request": {"base": {"sha": base, "ref": "main"}, "head": {"sha": new, "ref": "feature"}}}

    data = project.report(env=github_env(tmp_path, "pull_request", event(old)), code=1)
    assert data["rewritten"] is True and data["base"] == base
    [rewrite] = [f["message"] for f in data["findings"] if f["rule"] == "rewrite"]
    assert f"its old tip {old[:7]} is not an ancestor of the new tip {new[:7]}" in rewrite
    assert "pull request" in rewrite
    project.commit("two", files={"src/b.py": "2\n"})
    later = {**event(new), "after": project.head()}
    later["pull_request"]["head"]["sha"] = project.head()
    assert project.report(env=github_env(tmp_path, "pull_request", later), code=0)["rewritten"] is False
