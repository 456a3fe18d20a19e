"""`handrail ci` judges the pull request's net change (merge-base..head) as well as each commit:
a merge that takes old files from a parent in the base's history, or drops handrail's files,
changes nothing "new to every parent", and only the net change shows it."""

from __future__ import annotations

import json

from cikit import CONTRACT, KEY, TASK, TRAILER, Repo
from helpers import git


def merge_with(project: Repo, other: str, message: str, tree_from: str | None = None,
               remove: tuple[str, ...] = ()) -> str:
    """An agent's merge of HEAD and `other` made with git's plumbing, its tree the index after
    taking `tree_from`'s copy of every file it holds (and dropping `remove`)."""
    if tree_from is not None:
        project.git("checkout", "-q", tree_from, "--", ".")
    if remove:
        project.git("rm", "-rq", "--cached", "--", *remove)
    tree = project.git("write-tree")
    merge = project.git("commit-tree", tree, "-p", "HEAD", "-p", other, "-m", f"{message}\n\n{TRAILER}")
    project.git("reset", "-q", "--hard", merge)
    return merge


def on_main(project: Repo, message: str, files: dict[str, str], remove: tuple[str, ...] = ()) -> str:
    project.git("switch", "-q", "main")
    oid = project.commit(message, files=files, remove=remove)
    project.git("switch", "-q", "feature")
    return oid


def whole(data: dict[str, object]) -> list[dict[str, object]]:
    return [f for f in data["findings"] if f["commit"] is None]  # type: ignore[index, union-attr]


def test_a_merge_that_keeps_the_branchs_open_task_over_mains_closed_one_is_a_policy_change(project: Repo) -> None:
    project.commit("work", TRAILER, files={"tests/t.py": "t = 1\n"})
    on_main(project, "close the task", {".handrail/tasks/login/task.json": json.dumps({**TASK, "phase": "done"})})
    project.git("merge", "-q", "--no-verify", "-s", "ours", "main", "-m", "Merge main")
    project.commit("more work after the task closed", TRAILER, files={"tests/more.py": "m = 1\n"})
    r = project.ci("--base", "main")
    data = project.report("--base", "main", code=1)
    assert [(f["rule"], f["path"]) for f in data["findings"]] == [
        ("policy_change", ".handrail/tasks/login/task.json")]
    assert "the pull request as a whole (merge-base..head" in data["findings"][0]["message"]
    assert "the pull request as a whole (merge-base..head)" in r.stdout and r.returncode == 1


def test_a_merge_with_an_older_commit_of_main_undoes_a_tightened_contract(project: Repo) -> None:
    older = project.head("main")
    tight = on_main(project, "tighten the contract", {
        ".handrail/tasks/login/harness-contract.json": json.dumps({**CONTRACT, "allowed_files": ["tests/**"]})})
    project.git("reset", "-q", "--hard", tight)
    project.commit("work", TRAILER, files={"tests/t.py": "t = 1\n"})
    merge_with(project, older, "Merge an old main", tree_from=older)
    data = project.report("--base", tight, code=1)
    assert [(f["rule"], f["path"], f["commit"]) for f in data["findings"]] == [
        ("policy_change", ".handrail/tasks/login/harness-contract.json", None)]
    assert project.git("show", "HEAD:.handrail/tasks/login/harness-contract.json") == json.dumps(CONTRACT)


def test_a_merge_with_a_commit_from_before_handrail_that_drops_it_is_a_policy_change_per_file(
        project: Repo) -> None:
    readme = project.git("rev-parse", "HEAD:README.md")
    tree = git(project.path, "mktree", input=f"100644 blob {readme}\tREADME.md\n").stdout.strip()
    before = project.git("commit-tree", tree, "-m", "a first commit, from before handrail")
    project.commit("work", TRAILER, files={"tests/t.py": "t = 1\n"})
    merge_with(project, before, "Merge the first commit", remove=(".handrail",))
    data = project.report("--base", "main", code=1)
    assert {(f["rule"], f["path"]) for f in whole(data)} == {
        ("policy_change", ".handrail/tasks/login/task.json"),
        ("policy_change", ".handrail/tasks/login/harness-contract.json")}
    assert all("(deleted)" in str(f["message"]) for f in whole(data))


def test_a_merge_that_brings_back_a_removed_secret_file_is_found_on_the_whole(project: Repo) -> None:
    leaked = on_main(project, "a leak", {"config/.env": f"KEY={KEY}\n"})
    on_main(project, "remove the leak", {}, remove=("config/.env",))
    project.git("reset", "-q", "--hard", "main")
    project.commit("work", TRAILER, files={"tests/t.py": "t = 1\n"})
    project.git("checkout", "-q", leaked, "--", "config/.env")
    merge_with(project, leaked, "Merge an old main")
    data = project.report("--base", "main", code=1)
    assert {(f["rule"], f["path"]) for f in whole(data)} == {("path", "config/.env"), ("secret", "config/.env")}
    assert all("take it out of the pull request" in str(f["fix"]) for f in whole(data))


def test_a_change_a_commit_already_reports_is_not_reported_again_on_the_whole(project: Repo) -> None:
    wide = project.commit("widen", TRAILER, files={
        ".handrail/tasks/login/harness-contract.json": json.dumps({**CONTRACT, "allowed_files": ["**"]})})
    data = project.report("--base", "main", code=1)
    hits = [f for f in data["findings"] if f["path"] == ".handrail/tasks/login/harness-contract.json"]
    assert {(f["rule"], f["commit"]) for f in hits} == {("path", wide), ("policy_change", wide)}


def test_a_humans_ordinary_merge_of_main_leaves_the_branch_clean(project: Repo) -> None:
    project.commit("work", TRAILER, files={"src/login.py": "x = 1\n"})
    on_main(project, "someone else's work", {"src/other.py": "y = 1\n"})
    project.git("merge", "-q", "--no-verify", "main", "-m", "Merge main")
    project.commit("more", TRAILER, files={"tests/t.py": "t = 1\n"})
    data = project.report("--base", "main", code=0)
    assert data["findings"] == [] and data["counts"]["commits"] == 3
