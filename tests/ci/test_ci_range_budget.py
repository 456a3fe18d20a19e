"""`handrail ci` judges a pull request's budget as a whole, over the range it really is."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from cikit import CONTRACT, Repo, github_env


def capped(project: Repo, **limits: int) -> None:
    """The login task's contract on main caps the change; feature starts again from there."""
    project.git("switch", "-q", "main")
    project.commit("cap the login task", files={
        ".handrail/tasks/login/harness-contract.json": json.dumps({**CONTRACT, "governor": limits})})
    project.git("push", "-q", "origin", "main")
    project.git("switch", "-q", "-C", "feature", "main")


def lines(n: int) -> str:
    return "".join(f"x{i} = {i}\n" for i in range(n))


def test_a_change_split_into_small_commits_is_judged_as_one(project: Repo) -> None:
    capped(project, max_diff_lines=250)
    for i in range(5):
        project.commit(f"part {i}", files={f"src/part{i}.py": lines(100)})  # each within the budget
    data = project.report("--base", "main", code=1)
    found = [(f["rule"], f["commit"], f["message"]) for f in data["findings"]]
    assert found == [("governor", None, f"the sum of 5 commits under task 'login' ({data['commits'][0]['commit'][:7]}.."
                                        f"{data['commits'][-1]['commit'][:7]}) changes 500 lines (+500 -0), more than "
                                        "task 'login' allows (250)")]
    assert "the range" in project.ci("--base", "main").stdout


def test_a_pull_request_within_its_budget_passes_however_many_commits(project: Repo) -> None:
    capped(project, max_changed_files=2, max_diff_lines=250)
    for i in range(4):
        project.commit(f"edit {i}", files={"src/a.py": lines(10 + i)})
    assert project.report("--base", "main", code=0)["counts"]["commits"] == 4


def test_raising_the_limit_inside_the_range_buys_no_budget(project: Repo) -> None:
    capped(project, max_changed_files=1)
    project.commit("one", files={"src/a.py": "1\n"})
    project.commit("raise my own limit", files={
        ".handrail/tasks/login/harness-contract.json": json.dumps({**CONTRACT, "governor": {"max_changed_files": 99}})})
    project.commit("two", files={"src/b.py": "2\n"})
    data = project.report("--base", "main", code=1)
    rules = sorted(f["rule"] for f in data["findings"])
    assert rules == ["governor", "policy_change"]
    assert "allows (1)" in next(f["message"] for f in data["findings"] if f["rule"] == "governor")


def test_a_target_that_moved_on_is_not_counted_as_the_pull_requests(project: Repo) -> None:
    capped(project, max_diff_lines=50)
    fork = project.head()
    project.commit("one", files={"src/a.py": lines(20)})
    project.commit("two", files={"src/b.py": lines(20)})
    project.git("switch", "-q", "main")
    project.commit("main rewrites the readme", files={"README.md": lines(400)})
    project.git("push", "-q", "origin", "main")
    tip = project.head()
    project.git("switch", "-q", "feature")
    event = {"pull_request": {"base": {"sha": tip, "ref": "main"}, "head": {"sha": project.head()}}}
    data = project.report(env=github_env(project.path.parent, "pull_request", event), code=0)
    assert data["base"] == fork and data["counts"]["commits"] == 2  # the merge base, not the target's tip


def test_a_head_the_event_is_not_about_is_an_error(project: Repo) -> None:
    project.commit("one", files={"src/a.py": "1\n"})
    pr_head = project.head()
    project.git("switch", "-q", "-c", "other", "main")
    other = project.commit("elsewhere", files={"src/b.py": "2\n"})
    event = {"pull_request": {"base": {"sha": project.head("main"), "ref": "main"}, "head": {"sha": pr_head}}}
    env = github_env(project.path.parent, "pull_request", event)
    r = project.ci("--head", other, env=env)
    assert r.returncode == 2 and f"the head {other[:7]} is not the github:pull_request event's head" in r.stderr
    assert "leave --head out" in r.stderr
    project.git("merge", "-q", "--no-edit", pr_head)  # a commit built on the event's head is fine
    assert project.ci("--head", "HEAD", env=env).returncode == 0


def test_a_base_that_does_not_exist_is_an_error(project: Repo) -> None:
    project.commit("one", files={"src/a.py": "1\n"})
    r = project.ci("--base", "f" * 40)
    assert r.returncode == 2 and "is not in this repository" in r.stderr


def gitlab_mr(project: Repo, base: str) -> dict[str, str]:
    return {"GITLAB_CI": "true", "CI_MERGE_REQUEST_DIFF_BASE_SHA": base, "CI_COMMIT_SHA": project.head(),
            "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main", "CI_DEFAULT_BRANCH": "main"}


def test_a_merge_request_base_that_would_skip_its_first_commits_is_refused(project: Repo) -> None:
    project.git("fetch", "-q", "origin")
    first = project.commit("the secret", files={"src/a.py": "KEY = 'sk-ant-" + "a1" * 20 + "'\n"})
    project.commit("harmless", files={"src/b.py": "2\n"})
    r = project.ci(env=gitlab_mr(project, first))  # as `git push -o ci.variable=...` can set it
    assert r.returncode == 2 and f"CI_MERGE_REQUEST_DIFF_BASE_SHA {first[:7]} is not on the history main" in r.stderr
    data = project.report(env=gitlab_mr(project, project.head("origin/main")), code=1)
    assert [f["rule"] for f in data["findings"]] == ["secret"]
