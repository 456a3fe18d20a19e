"""`handrail ci` over real repositories: what a pull request's commits carry, judged by the
rules pre-push applies, each commit by the policy its own tree holds."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cikit import CLAUDE, CONTRACT, KEY, TRAILER, Repo
from helpers import git


def agent_branch(project: Repo) -> tuple[str, str]:
    """An agent's pull request: a secret, then a contract widened to let it in anywhere."""
    secret = project.commit("add the client config", CLAUDE,
                            files={"src/config.py": f"URL = 'https://x'\nKEY = '{KEY}'\n"})
    loosen = project.commit("let the task change anything", TRAILER, files={
        ".handrail/tasks/login/harness-contract.json": json.dumps({**CONTRACT, "allowed_files": ["**"]})})
    return secret, loosen


def test_an_agents_branch_with_a_secret_and_a_looser_contract_fails(project: Repo) -> None:
    secret, loosen = agent_branch(project)
    data = project.report("--base", "main", code=1)
    assert data["range_from"] == "flags" and data["rewritten"] is False
    assert data["base"] == project.head("main") and data["head"] == loosen
    assert [c["commit"] for c in data["commits"]] == [secret, loosen]
    assert [c["made_by"] for c in data["commits"]] == ["agent", "agent"]
    assert data["commits"][0]["agent"] == "claude" and data["commits"][0]["evidence"] == CLAUDE
    assert data["commits"][1]["evidence"] == TRAILER
    assert data["counts"] == {"commits": 2, "agent_commits": 2, "unknown_commits": 0, "findings": 3}
    found = {(f["rule"], f["commit"], f["path"], f["line"]) for f in data["findings"]}
    contract = ".handrail/tasks/login/harness-contract.json"
    assert found == {("secret", secret, "src/config.py", 2), ("path", loosen, contract, None),
                     ("policy_change", loosen, contract, None)}
    assert all(f["made_by"] == "agent" for f in data["findings"])
    assert KEY not in json.dumps(data)  # the report names the secret, never shows it


def test_the_text_report_names_commit_file_rule_and_fix(project: Repo) -> None:
    secret, loosen = agent_branch(project)
    r = project.ci("--base", "main")
    assert r.returncode == 1 and r.stderr == ""
    out = r.stdout
    assert f"commit {secret[:7]} 'add the client config'" in out and f"made by an agent ({CLAUDE})" in out
    assert "secret: src/config.py:2 carries an Anthropic API key" in out
    assert f"fix:  remove it from commit {secret[:7]} and rotate it" in out
    assert f"commit {loosen[:7]}" in out and "policy_change: .handrail/tasks/login/harness-contract.json" in out
    assert "3 findings in 2 of 2 commits: the check fails" in out
    assert KEY not in out


def test_a_humans_clean_branch_passes_and_says_who_is_unknown(project: Repo) -> None:
    one = project.commit("login form", files={"src/login.py": "def login(): ...\n"})
    two = project.commit("its test", files={"tests/test_login.py": "def test(): ...\n"})
    data = project.report("--base", "main", code=0)
    assert data["result"] == "clean" and data["findings"] == []
    assert [(c["commit"], c["made_by"], c["agent"], c["evidence"]) for c in data["commits"]] == [
        (one, "unknown", None, None), (two, "unknown", None, None)]
    assert data["counts"] == {"commits": 2, "agent_commits": 0, "unknown_commits": 2, "findings": 0}
    r = project.ci("--base", "main")
    assert r.returncode == 0 and "clean" in r.stdout


def test_require_attribution_fails_each_commit_without_a_mark(project: Repo) -> None:
    plain = project.commit("login form", files={"src/login.py": "x = 1\n"})
    project.commit("agent's part", CLAUDE, files={"src/more.py": "y = 2\n"})
    data = project.report("--base", "main", "--require-attribution", code=1)
    assert [(f["rule"], f["commit"], f["made_by"]) for f in data["findings"]] == [("unattributed", plain, "unknown")]


def test_a_merge_brings_in_its_second_parents_problem(project: Repo) -> None:
    project.commit("login form", files={"src/login.py": "x = 1\n"})
    project.git("switch", "-q", "-c", "side", "main")
    side = project.commit("local settings", files={".env": "PASSWORD=hunter2\n"})
    project.git("switch", "-q", "feature")
    project.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    merge = project.head()
    data = project.report("--base", "main", code=1)
    assert merge in [c["commit"] for c in data["commits"]] and side in [c["commit"] for c in data["commits"]]
    assert [(f["rule"], f["commit"], f["path"]) for f in data["findings"]] == [("path", side, ".env")]
    assert ".env is forbidden" in data["findings"][0]["message"]


def test_each_commit_is_judged_by_the_contract_its_own_tree_holds_not_the_work_tree(project: Repo) -> None:
    outside = project.commit("notes", files={"notes/todo.md": "x\n"})
    # The work tree's contract says nothing; the commits' does.
    (project.path / ".handrail/tasks/login/harness-contract.json").write_text("{}")
    data = project.report("--base", "main", code=1)
    assert [(f["rule"], f["commit"], f["path"]) for f in data["findings"]] == [("path", outside, "notes/todo.md")]
    assert "outside the allowed_files" in data["findings"][0]["message"]
    assert ".handrail/tasks/login/harness-contract.json" in data["findings"][0]["source"]


def test_a_commit_whose_tree_has_no_edit_task_is_a_finding(project: Repo) -> None:
    done = dict(json.loads((project.path / ".handrail/tasks/login/task.json").read_text()), phase="done")
    project.commit("close the task", files={".handrail/tasks/login/task.json": json.dumps(done)})
    late = project.commit("one more change", files={"src/late.py": "x\n"})
    data = project.report("--base", "main", code=1)
    rules = [(f["rule"], f["commit"]) for f in data["findings"]]
    assert ("edit_task", late) in rules
    assert "task 'login' is in phase done" in next(f["message"] for f in data["findings"] if f["rule"] == "edit_task")


def test_without_flags_or_an_engine_the_base_is_origin_main(project: Repo) -> None:
    project.commit("login form", files={"src/login.py": "x = 1\n"})
    data = project.report(code=0)
    assert data["range_from"] == "default" and data["base"] == project.head("origin/main")


def test_an_unknown_base_is_an_error_naming_the_fix(project: Repo) -> None:
    r = project.ci("--base", "nope")
    assert r.returncode == 2 and "base nope is not in this repository" in r.stderr and "--base REF" in r.stderr


def test_outside_a_repository_ci_refuses(tmp_path: Path, project: Repo) -> None:
    lone = tmp_path / "lone"
    lone.mkdir()
    r = project.ci(cwd=lone)
    assert r.returncode == 2 and "not inside a git repository" in r.stderr


def test_a_shallow_clone_without_the_base_names_fetch_depth(project: Repo, tmp_path: Path) -> None:
    project.commit("one", files={"src/a.py": "1\n"})
    project.commit("two", files={"src/b.py": "2\n"})
    project.git("push", "-q", "origin", "feature")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{project.remote}", str(clone))
    r = project.ci("--base", project.head("main"), cwd=clone)
    assert r.returncode == 2 and r.stdout == ""
    assert "shallow clone" in r.stderr and "fetch-depth: 0" in r.stderr and "GIT_DEPTH: 0" in r.stderr


def test_a_shallow_clone_that_has_the_base_but_not_the_history_between_is_refused(project: Repo,
                                                                                  tmp_path: Path) -> None:
    project.commit("one", files={"src/a.py": "1\n"})
    project.git("push", "-q", "origin", "feature")
    project.git("switch", "-q", "main")
    project.commit("main moves on", files={"README.md": "more\n"})
    project.git("push", "-q", "origin", "main")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "--no-single-branch", f"file://{project.remote}", str(clone))
    r = project.ci("--base", "origin/main", "--head", "origin/feature", cwd=clone)
    assert r.returncode == 2 and "this shallow clone ends at commit" in r.stderr and "fetch-depth: 0" in r.stderr
    full = tmp_path / "full"
    git(tmp_path, "clone", "-q", f"file://{project.remote}", str(full))
    r = project.ci("--base", "origin/main", "--head", "origin/feature", "--format", "json", cwd=full)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["counts"]["commits"] == 1


def signing_key(project: Repo, tmp_path: Path, *, trusted: bool = True) -> None:
    """An SSH signing key for the person committing, listed in the allowed signers the job trusts."""
    key = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "dev", "-f", str(key)], check=True)
    allowed = tmp_path / "allowed_signers"
    allowed.write_text(f"committer@example.com {(tmp_path / 'id_ed25519.pub').read_text()}" if trusted else "")
    project.git("config", "gpg.format", "ssh")
    project.git("config", "user.signingkey", str(key))
    project.git("config", "gpg.ssh.allowedSignersFile", str(allowed))


def test_a_commit_signed_by_a_key_the_job_trusts_is_a_humans(project: Repo, tmp_path: Path) -> None:
    signing_key(project, tmp_path)
    project.write("src/login.py", "x = 1\n")
    project.git("add", "src/login.py")
    project.git("commit", "-q", "-S", "-m", "signed login form")
    signed = project.head()
    plain = project.commit("unsigned", files={"src/b.py": "2\n"})
    data = project.report("--base", "main", "--require-attribution", code=1)
    made = {c["commit"]: (c["made_by"], c["evidence"] or "") for c in data["commits"]}
    assert made[signed][0] == "human" and made[signed][1].startswith("signature: Good")
    assert made[plain] == ("unknown", "")
    assert [(f["rule"], f["commit"]) for f in data["findings"]] == [("unattributed", plain)]
    assert "0 by an agent, 1 by a human (signed), 1 unknown" in project.ci("--base", "main").stdout


def test_a_signature_the_job_cannot_verify_proves_nothing(project: Repo, tmp_path: Path) -> None:
    signing_key(project, tmp_path, trusted=False)
    project.write("src/login.py", "x = 1\n")
    project.git("add", "src/login.py")
    project.git("commit", "-q", "-S", "-m", "signed by a key nobody listed")
    data = project.report("--base", "main", code=0)
    assert [c["made_by"] for c in data["commits"]] == ["unknown"]


def test_output_writes_the_report_to_a_file_and_the_text_report_to_the_log(project: Repo, tmp_path: Path) -> None:
    agent_branch(project)
    target = tmp_path / "report.json"
    r = project.ci("--base", "main", "--format", "json", "--output", str(target))
    assert r.returncode == 1 and "the check fails" in r.stdout
    written = json.loads(target.read_text())
    assert written == project.report("--base", "main", code=1)
