"""`handrail ci` on real repositories: its SARIF and Code Quality files, and what it
gives GitHub Actions (the job summary, annotations, a log no commit can give commands to)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from helpers import run_handrail
from outkit import Branches, valid


def test_sarif_goes_to_the_output_file_and_the_log_gets_the_text(branches: Branches, tmp_path: Path) -> None:
    out = tmp_path / "reports" / "handrail.sarif"
    r = run_handrail("ci", "--base", branches.base, "--head", branches.agent, "--format", "sarif",
                     "--output", str(out), cwd=branches.repo)
    assert r.returncode == 1, r.stderr
    assert "the check fails" in r.stdout and not r.stdout.lstrip().startswith("{")
    log = valid(json.loads(out.read_text(encoding="utf-8")))
    results = log["runs"][0]["results"]
    where = {(x["ruleId"], x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
              x["locations"][0]["physicalLocation"]["region"]["startLine"]) for x in results}
    assert ("secret", "src/config.py", 1) in where
    assert ("policy_change", ".handrail/autonomy-protocol.json", 1) in where
    assert ("secret", "notes%0A%3A%3Awarning%20title%3Dx%3A%3Ainjected%20by%20a%20commit", 1) in where
    assert all(x["properties"]["made_by"] == "agent" and x["properties"]["agent"] == "claude" for x in results)


def test_a_humans_clean_branch_is_an_empty_sarif_run(branches: Branches, tmp_path: Path) -> None:
    out = tmp_path / "handrail.sarif"
    r = run_handrail("ci", "--base", branches.base, "--head", branches.human, "--format", "sarif",
                     "--output", str(out), cwd=branches.repo)
    assert r.returncode == 0, r.stdout + r.stderr
    assert valid(json.loads(out.read_text(encoding="utf-8")))["runs"][0]["results"] == []


def test_the_code_quality_report_names_each_file(branches: Branches, tmp_path: Path) -> None:
    out = tmp_path / "gl-code-quality-report.json"
    r = run_handrail("ci", "--base", branches.base, "--head", branches.agent, "--format", "codequality",
                     "--output", str(out), cwd=branches.repo)
    assert r.returncode == 1, r.stderr
    issues = json.loads(out.read_text(encoding="utf-8"))
    assert {(i["check_name"], i["location"]["path"]) for i in issues} >= {
        ("handrail/secret", "src/config.py"), ("handrail/policy_change", ".handrail/autonomy-protocol.json")}


def github_env(branches: Branches, tmp_path: Path, head: str) -> dict[str, str]:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"base": {"sha": branches.base, "ref": "main"},
                                                  "head": {"sha": head, "ref": "agent"}}}), encoding="utf-8")
    return {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event),
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}


def test_on_github_the_summary_is_appended_and_each_finding_annotated(branches: Branches, tmp_path: Path) -> None:
    env = github_env(branches, tmp_path, branches.agent)
    Path(env["GITHUB_STEP_SUMMARY"]).write_text("earlier step\n", encoding="utf-8")
    r = run_handrail("ci", cwd=branches.repo, env=env)
    assert r.returncode == 1, r.stderr
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    assert summary.startswith("earlier step\n### handrail ci: ")
    assert "| `src/config.py:1` | `secret`: " in summary and "| agent (claude) |" in summary
    lines = r.stdout.splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    assert any(line.startswith("::error file=src/config.py,line=1,title=handrail%3A secret::") for line in errors)
    assert any("file=notes\\n%3A%3Awarning title=x%3A%3Ainjected" in line for line in errors)
    # The text report quotes the commits: it is printed where the runner reads no command.
    start = next(i for i, line in enumerate(lines) if line.startswith("::stop-commands::"))
    token = lines[start].removeprefix("::stop-commands::")
    assert re.fullmatch(r"[0-9a-f]{32}", token) and lines[-1] == f"::{token}::"
    # and the path's line break is shown escaped, so no line of it starts a command
    assert not any(line.startswith("::warning") for line in lines)
    assert any("notes\\n::warning" in line for line in lines[start:])
    assert lines.count(f"::{token}::") == 1 and sum(line.startswith("::stop-commands::") for line in lines) == 1


def test_on_github_a_json_report_on_stdout_stays_exactly_the_report(branches: Branches, tmp_path: Path) -> None:
    env = github_env(branches, tmp_path, branches.agent)
    r = run_handrail("ci", "--format", "json", cwd=branches.repo, env=env)
    assert r.returncode == 1, r.stderr
    report = json.loads(r.stdout)
    assert report["range_from"] == "github:pull_request" and report["head"] == branches.agent
    assert sum(line.startswith("::error ") for line in r.stderr.splitlines()) == report["counts"]["findings"]


def test_a_clean_pull_request_on_github_has_a_summary_and_no_annotation(branches: Branches, tmp_path: Path) -> None:
    env = github_env(branches, tmp_path, branches.human)
    r = run_handrail("ci", cwd=branches.repo, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "::error" not in r.stdout + r.stderr
    assert Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8").startswith("### handrail ci: clean")


def test_a_summary_file_that_cannot_be_written_is_an_error_naming_it(branches: Branches, tmp_path: Path) -> None:
    env = github_env(branches, tmp_path, branches.human)
    env["GITHUB_STEP_SUMMARY"] = str(tmp_path / "no-such-folder" / "summary.md")
    r = run_handrail("ci", cwd=branches.repo, env=env)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1].startswith(f"handrail: error: {env['GITHUB_STEP_SUMMARY']}: ")
    assert "Traceback" not in r.stderr


def test_the_pre_commit_frameworks_refs_are_the_range(branches: Branches) -> None:
    """`pre-commit run --hook-stage manual handrail-ci --from-ref A --to-ref B` sets these."""
    for head, code in ((branches.human, 0), (branches.agent, 1)):
        r = run_handrail("ci", "--format", "json", cwd=branches.repo,
                         env={"PRE_COMMIT_FROM_REF": branches.base, "PRE_COMMIT_TO_REF": head})
        assert r.returncode == code, r.stderr
        assert json.loads(r.stdout)["head"] == head


def test_on_github_a_range_that_cannot_be_judged_is_an_error_annotation(branches: Branches, tmp_path: Path) -> None:
    env = github_env(branches, tmp_path, "f" * 40)     # a head this clone does not hold
    r = run_handrail("ci", cwd=branches.repo, env=env)
    assert r.returncode == 2
    annotation, last = r.stderr.strip().splitlines()[-2:]
    assert annotation.startswith("::error title=handrail ci%3A error::") and last.startswith("handrail: error: ")
    assert not Path(env["GITHUB_STEP_SUMMARY"]).exists() and "Traceback" not in r.stderr
