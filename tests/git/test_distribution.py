"""`.pre-commit-hooks.yaml` through the real framework, and `handrail guard`."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from gitkit import Project, checkout_snapshot
from helpers import HANDRAIL

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
PRE_COMMIT = str(Path(HANDRAIL or "handrail").parent / "pre-commit")


def test_manifest_validates_and_declares_the_six_hooks() -> None:
    r = subprocess.run([PRE_COMMIT, "validate-manifest", str(MANIFEST)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    hooks = {h["id"]: h for h in yaml.safe_load(MANIFEST.read_text())}
    assert set(hooks) == {"handrail-pre-commit", "handrail-prepare-commit-msg", "handrail-pre-push",
                          "handrail-post-commit", "handrail-policy-check", "handrail-ci"}
    # the CI check over a range runs only when asked: `pre-commit run --hook-stage manual handrail-ci`
    ci = hooks["handrail-ci"]
    assert ci["stages"] == ["manual"] and ci["entry"] == "handrail ci" and ci["always_run"]
    for h in hooks.values():
        # Only the message hook is given a file: the one git prepares the message in.
        assert h["pass_filenames"] is (h["id"] == "handrail-prepare-commit-msg")
        assert h["language"] == "python" and h["minimum_pre_commit_version"]
    trailer = hooks["handrail-prepare-commit-msg"]
    assert trailer["stages"] == ["prepare-commit-msg"] and trailer["entry"] == "handrail hook prepare-commit-msg"
    assert hooks["handrail-pre-commit"]["stages"] == ["pre-commit"] and hooks["handrail-pre-commit"]["always_run"]
    assert hooks["handrail-pre-push"]["stages"] == ["pre-push"] and hooks["handrail-pre-push"]["always_run"]
    assert hooks["handrail-post-commit"]["stages"] == ["post-commit"] and hooks["handrail-post-commit"]["always_run"]
    assert hooks["handrail-policy-check"]["entry"] == "handrail policy check"
    files = re.compile(hooks["handrail-policy-check"]["files"])
    assert files.search(".handrail/tasks/a/task.json") and not files.search("src/.handrail.py")


def test_try_repo_on_a_real_repository(tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pre-commit pip-installs this repository into a fresh environment (try-repo keeps no
    cache: about 20 s) and runs its pre-commit-stage hooks on what is staged."""
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path / "pre-commit-home"))
    src = checkout_snapshot(tmp_path)
    p = Project(repo)
    p.task("t")
    p.task("later", phase="plan", contract={"contract_mode": "wild"})  # invalid, but not in force yet
    p.write(".env", "A=1\n")
    p.git("add", "-f", ".env", ".handrail/tasks/later/harness-contract.json")
    r = subprocess.run([PRE_COMMIT, "try-repo", str(src)], cwd=repo, capture_output=True, text=True, timeout=600)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert re.search(r"handrail \(commit\)\.+Failed", out) and ".env is forbidden" in out, out
    assert re.search(r"handrail policy check\.+Failed", out) and "contract_mode" in out, out
    assert "Traceback" not in out


def test_guard_lists_each_rule_whom_it_binds_and_where_it_comes_from(project: Project, handrail) -> None:  # type: ignore[no-untyped-def]
    project.task("login", contract={"allowed_files": ["src/**"], "forbidden_files": ["src/vendor/**"],
                                    "human_gate": {"required_for": ["auth_permission_change"]},
                                    "governor": {"max_diff_lines": 300}})
    project.protocol(git={"edit_task_required_for": "agents"}, protected_branches=["main", "release/*"])
    r = handrail("guard", "--json", cwd=project.path)
    assert r.returncode == 0, r.stderr
    found = json.loads(r.stdout.splitlines()[-1])
    rules = {(x["kind"], x["pattern"]): x for x in found["path_rules"]}
    assert rules[("forbidden", ".env*")]["binds"] == "everyone"
    assert rules[("forbidden", "package-lock.json")]["binds"] == "agents"
    assert rules[("protected", "**/.handrail/**")]["source"] == "handrail protected paths"
    contract = ".handrail/tasks/login/harness-contract.json"
    assert rules[("contract_forbidden", "src/vendor/**")]["source"] == contract
    assert rules[("contract_allowed", "src/**")]["task"] == "login"
    assert {(g["theme"], g["status"]) for g in found["human_gates"]} == {("auth_permission_change", "pending"),
                                                                       ("publish", "pending")}
    assert found["budgets"][0]["max_diff_lines"] == 300
    assert found["git"]["edit_task_required_for"] == "agents"
    assert found["git"]["protected_branches"] == ["main", "release/*"]
    text = handrail("guard", cwd=project.path).stdout
    assert "package-lock.json" in text and "binds agents" in text and contract in text


def test_hook_help_is_the_module_docstring(handrail) -> None:  # type: ignore[no-untyped-def]
    r = handrail("hook", "pre-push", "--help", cwd=os.getcwd())
    assert r.returncode == 0 and "PRE_COMMIT_" in r.stdout
