"""Where `base..head` comes from without flags: GitHub Actions' event files as Actions
writes them, GitLab CI's variables, and the pushes that rewrite a branch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cikit import CLAUDE, Repo, github_env

Z40 = "0" * 40
REPOSITORY = {"id": 1, "name": "app", "full_name": "team/app", "default_branch": "main",
              "clone_url": "https://github.com/team/app.git"}


def pull_request(base: str, head: str) -> dict[str, Any]:
    """The parts of a `pull_request` event handrail reads, among the others Actions writes."""
    return {"action": "synchronize", "number": 7,
            "pull_request": {"number": 7, "state": "open", "title": "Login form",
                             "user": {"login": "dev"},
                             "base": {"ref": "main", "sha": base, "repo": REPOSITORY},
                             "head": {"ref": "feature", "sha": head, "repo": REPOSITORY}},
            "repository": REPOSITORY, "sender": {"login": "dev"}}


def push(before: str, after: str, *, ref: str = "refs/heads/feature", forced: bool = False,
         created: bool = False) -> dict[str, Any]:
    return {"ref": ref, "before": before, "after": after, "created": created, "deleted": False,
            "forced": forced, "base_ref": None, "compare": "https://github.com/team/app/compare/x...y",
            "commits": [], "head_commit": None, "repository": REPOSITORY, "pusher": {"name": "dev"}}


def gitlab(**variables: str) -> dict[str, str]:
    return {"GITLAB_CI": "true", "CI": "true", "CI_DEFAULT_BRANCH": "main", **variables}


def test_a_github_pull_request_event_gives_base_and_head(project: Repo, tmp_path: Path) -> None:
    first = project.commit("login form", CLAUDE, files={"src/login.py": "x = 1\n"})
    project.commit("more", files={"src/more.py": "y\n"})
    head = project.head()
    project.git("switch", "-q", "main")  # the job checks out a merge commit: HEAD is not the head
    env = github_env(tmp_path, "pull_request", pull_request(project.head("main"), head))
    data = project.report(env=env, code=0)
    assert data["range_from"] == "github:pull_request"
    assert (data["base"], data["head"]) == (project.head("main"), head)
    assert data["commits"][0]["commit"] == first and data["counts"]["agent_commits"] == 1


def test_a_github_push_is_judged_from_before_to_after(project: Repo, tmp_path: Path) -> None:
    before = project.commit("one", files={"src/a.py": "1\n"})
    after = project.commit("two", files={"src/.env.local": "TOKEN=1\n"})
    data = project.report(env=github_env(tmp_path, "push", push(before, after)), code=1)
    assert data["range_from"] == "github:push" and data["base"] == before and data["rewritten"] is False
    assert [(f["rule"], f["commit"], f["path"]) for f in data["findings"]] == [("path", after, "src/.env.local")]


def test_a_new_branch_is_judged_against_the_default_branch(project: Repo, tmp_path: Path) -> None:
    project.commit("one", files={"src/a.py": "1\n"})
    after = project.commit("two", files={"src/b.py": "2\n"})
    data = project.report(env=github_env(tmp_path, "push", push(Z40, after, created=True)), code=0)
    assert data["base"] == project.head("origin/main") and data["counts"]["commits"] == 2
    assert data["rewritten"] is False


def test_a_forced_push_is_a_rewrite_finding(project: Repo, tmp_path: Path) -> None:
    project.commit("one", files={"src/a.py": "1\n"})
    old = project.commit("two", files={"src/b.py": "2\n"})
    project.git("reset", "-q", "--hard", "HEAD~1")
    new = project.commit("two, again", files={"src/c.py": "3\n"})
    data = project.report(env=github_env(tmp_path, "push", push(old, new, forced=True)), code=1)
    assert data["rewritten"] is True and data["base"] == project.head("origin/main")
    rewrite = [f for f in data["findings"] if f["rule"] == "rewrite"]
    assert len(rewrite) == 1 and rewrite[0]["commit"] is None and rewrite[0]["path"] is None
    assert old[:7] in rewrite[0]["message"] and "refs/heads/feature" in rewrite[0]["message"]
    assert data["counts"]["commits"] == 2  # judged from the default branch: both commits the branch now has


def test_a_push_whose_before_is_not_an_ancestor_is_a_rewrite_even_unflagged(project: Repo, tmp_path: Path) -> None:
    old = project.commit("one", files={"src/a.py": "1\n"})
    project.git("commit", "-q", "--amend", "-m", "one, reworded")
    new = project.head()
    data = project.report(env=gitlab(CI_COMMIT_BEFORE_SHA=old, CI_COMMIT_SHA=new, CI_COMMIT_BRANCH="feature"),
                          code=1)
    assert data["range_from"] == "gitlab:push" and data["rewritten"] is True
    assert [f["rule"] for f in data["findings"]] == ["rewrite"]


def test_gitlab_merge_request_variables(project: Repo) -> None:
    project.commit("one", files={"src/a.py": "1\n"})
    head = project.head()
    env = gitlab(CI_PIPELINE_SOURCE="merge_request_event", CI_MERGE_REQUEST_DIFF_BASE_SHA=project.head("main"),
                 CI_COMMIT_SHA=head, CI_COMMIT_BEFORE_SHA=Z40, CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main")
    data = project.report(env=env, code=0)
    assert data["range_from"] == "gitlab:merge_request" and (data["base"], data["head"]) == (project.head("main"), head)


def test_gitlab_push_of_a_new_branch(project: Repo) -> None:
    project.commit("one", files={"src/a.py": "1\n"})
    env = gitlab(CI_PIPELINE_SOURCE="push", CI_COMMIT_BEFORE_SHA=Z40, CI_COMMIT_SHA=project.head(),
                 CI_COMMIT_BRANCH="feature")
    data = project.report(env=env, code=0)
    assert data["range_from"] == "gitlab:push" and data["base"] == project.head("origin/main")


def test_flags_win_over_the_engine(project: Repo, tmp_path: Path) -> None:
    one = project.commit("one", files={"src/a.py": "1\n"})
    project.commit("two", files={"src/b.py": "2\n"})
    env = github_env(tmp_path, "push", push(Z40, project.head()))
    data = project.report("--base", one, env=env, code=0)
    assert data["range_from"] == "flags" and data["counts"]["commits"] == 1


def test_a_broken_event_file_is_an_error_naming_it_and_the_key(project: Repo, tmp_path: Path) -> None:
    env = github_env(tmp_path, "pull_request", {"pull_request": {"base": {}}})
    r = project.ci(env=env)
    assert r.returncode == 2 and "event.json: pull_request.base.sha: expected text" in r.stderr
    (tmp_path / "event.json").write_text("{")
    r = project.ci(env=env)
    assert r.returncode == 2 and "cannot read GitHub's event file" in r.stderr and "Traceback" not in r.stderr
