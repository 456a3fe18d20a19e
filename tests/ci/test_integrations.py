"""The shipped integrations, run: action.yml's steps and the GitLab template's script
lines as bash scripts against a real repository, with the variables each engine sets,
installing handrail from a copy of this checkout into a Python that has none."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from outkit import ROOT, Branches, fresh_python, snapshot, valid

pytestmark = [pytest.mark.slow]  # each builds and installs handrail with pip (about 15 s)

ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
GITLAB = yaml.safe_load((ROOT / "ci" / "gitlab" / "handrail.gitlab-ci.yml").read_text(encoding="utf-8"))
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def bash(script: str, *, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A step as the engines run it: GitHub's `shell: bash` is `bash --noprofile --norc -eo pipefail`,
    and GitLab's shell stops at the first line that fails too."""
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def engine_env(bin_dir: Path, **extra: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "CI_", "GITLAB_"))}
    return {**keep, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "CI": "true",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1", **extra}


def evaluate(text: str, context: dict[str, str]) -> str:
    """The few expressions action.yml puts in `env:` and `with:` (inputs.*, github.action_path);
    any other is a failure here, so the action grows none the test does not see."""
    def one(m: re.Match[str]) -> str:
        assert m.group(1) in context, f"action.yml: expression {m.group(0)} is not one this test knows"
        return context[m.group(1)]
    return EXPRESSION.sub(one, text)


def test_the_action_declares_its_inputs_and_outputs() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {"python-version", "version", "base", "head", "require-attribution", "sarif",
                                     "sarif-file"}
    assert all(spec["description"] for spec in ACTION["inputs"].values())
    assert set(ACTION["outputs"]) == {"result", "sarif-file"}
    uses = [s["uses"].split("@")[0] for s in ACTION["runs"]["steps"] if "uses" in s]
    assert uses == ["actions/setup-python", "github/codeql-action/upload-sarif"]
    for step in ACTION["runs"]["steps"]:
        if "run" in step:
            assert step["shell"] == "bash"
            assert "${{" not in step["run"], f"{step['name']}: inputs reach a script as variables, never as text"


def test_the_actions_steps_judge_a_pull_request_and_write_the_sarif(branches: Branches, tmp_path: Path) -> None:
    source = snapshot(tmp_path)
    bin_dir = fresh_python(tmp_path)
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"base": {"sha": branches.base}, "head": {"sha": branches.agent}}}),
                     encoding="utf-8")
    files = {name: tmp_path / name for name in ("output", "summary", "path", "env")}
    for f in files.values():
        f.write_text("", encoding="utf-8")
    env = engine_env(bin_dir, GITHUB_ACTIONS="true", GITHUB_EVENT_NAME="pull_request", GITHUB_EVENT_PATH=str(event),
                     GITHUB_WORKSPACE=str(branches.repo), GITHUB_ACTION_PATH=str(source),
                     GITHUB_OUTPUT=str(files["output"]), GITHUB_STEP_SUMMARY=str(files["summary"]),
                     GITHUB_PATH=str(files["path"]), GITHUB_ENV=str(files["env"]), RUNNER_TEMP=str(tmp_path))
    given = {"sarif": "true"}
    context = {f"inputs.{name}": given.get(name, str(spec.get("default", "")))
               for name, spec in ACTION["inputs"].items()}
    context["github.action_path"] = str(source)
    ran: dict[str, subprocess.CompletedProcess[str]] = {}
    for step in ACTION["runs"]["steps"]:
        if "uses" in step:
            continue  # GitHub's own actions; what they are given is checked below
        step_env = {**env, **{k: evaluate(str(v), context) for k, v in (step.get("env") or {}).items()}}
        ran[step["name"]] = r = bash(step["run"], cwd=branches.repo, env=step_env)
        if step["name"] == "Install handrail":
            assert r.returncode == 0, r.stdout + r.stderr
            assert (bin_dir / "handrail").exists()  # the engine's Python got the checkout's handrail
    check = ran["handrail ci"]
    assert check.returncode == 1, check.stdout + check.stderr            # the agent's branch fails the job
    outputs = dict(line.split("=", 1) for line in files["output"].read_text(encoding="utf-8").splitlines())
    assert outputs == {"result": "findings", "sarif-file": "handrail.sarif"}
    sarif = valid(json.loads((branches.repo / "handrail.sarif").read_text(encoding="utf-8")))
    assert {"secret", "policy_change"} <= {r["ruleId"] for r in sarif["runs"][0]["results"]}
    assert sarif["runs"][0]["properties"]["range_from"] == "github:pull_request"
    assert "| `secret`: " in files["summary"].read_text(encoding="utf-8")
    assert "::error file=src/config.py,line=1," in check.stdout
    upload = next(s for s in ACTION["runs"]["steps"] if s.get("uses", "").startswith("github/codeql-action/"))
    assert upload["if"].startswith("always() && inputs.sarif == 'true'")   # runs after the failing check
    assert evaluate(upload["with"]["sarif_file"], context) == outputs["sarif-file"]


def test_the_gitlab_template_is_a_merge_request_job_with_a_code_quality_report() -> None:
    job = GITLAB["handrail-ci"]
    assert job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    assert job["variables"]["GIT_DEPTH"] == "0"
    report = job["artifacts"]["reports"]["codequality"]
    assert any(f"--format codequality --output {report}" in line for line in job["script"])
    assert job["artifacts"]["when"] == "always" and set(job["artifacts"]["paths"]) == {report, "handrail-ci.json"}


def gitlab_job(branches: Branches, tmp_path: Path, head: str, **variables: str) -> subprocess.CompletedProcess[str]:
    """The job's lines in one shell, as the runner runs them; a Python without handrail
    only where there is something to install."""
    job: dict[str, Any] = GITLAB["handrail-ci"]
    bin_dir = fresh_python(tmp_path) if variables.get("HANDRAIL_INSTALL") else tmp_path
    env = engine_env(bin_dir, GITLAB_CI="true", CI_PIPELINE_SOURCE="merge_request_event",
                     CI_MERGE_REQUEST_DIFF_BASE_SHA=branches.base, CI_COMMIT_SHA=head,
                     CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main", CI_PROJECT_DIR=str(branches.repo),
                     **({k: str(v) for k, v in job["variables"].items()} | variables))
    return bash("\n".join(job["before_script"] + job["script"]), cwd=branches.repo, env=env)


def test_the_gitlab_jobs_lines_write_both_reports_and_fail_the_agents_branch(branches: Branches,
                                                                            tmp_path: Path) -> None:
    r = gitlab_job(branches, tmp_path, branches.agent, HANDRAIL_INSTALL=str(snapshot(tmp_path)))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "the check fails" in r.stdout
    report = json.loads((branches.repo / "handrail-ci.json").read_text(encoding="utf-8"))
    assert report["range_from"] == "gitlab:merge_request" and report["head"] == branches.agent
    issues = json.loads((branches.repo / "gl-code-quality-report.json").read_text(encoding="utf-8"))
    assert ("handrail/secret", "src/config.py") in {(i["check_name"], i["location"]["path"]) for i in issues}
    assert len(issues) == report["counts"]["findings"]


def test_the_gitlab_job_without_an_install_source_says_so(branches: Branches, tmp_path: Path) -> None:
    r = gitlab_job(branches, tmp_path, branches.human)
    assert r.returncode == 2 and "set HANDRAIL_INSTALL" in r.stderr
    assert not (branches.repo / "handrail-ci.json").exists()


def readme_blocks() -> list[Any]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("\n### Setting it up: GitHub Actions, GitLab CI, elsewhere\n"):]
    section = section[:section.index("\n## ", 1)]
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", section, re.S)]


def test_the_readmes_workflow_and_include_use_what_the_integrations_declare() -> None:
    workflow, include = readme_blocks()
    steps = workflow["jobs"]["handrail"]["steps"]
    assert steps[0]["uses"].startswith("actions/checkout@") and steps[0]["with"]["fetch-depth"] == 0
    assert set(steps[1]["with"]) <= set(ACTION["inputs"])
    assert include["include"][0]["remote"].endswith("/ci/gitlab/handrail.gitlab-ci.yml")
    assert set(include["variables"]) <= set(GITLAB["handrail-ci"]["variables"])
