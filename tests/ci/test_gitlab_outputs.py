"""The GitLab Code Quality report built from a `handrail ci` report."""

from __future__ import annotations

import json

from outkit import every_rule, finding, report

from handrail.ci.gitlab import code_quality

SEVERITIES = {"info", "minor", "major", "critical", "blocker"}


def test_every_finding_is_an_issue_gitlab_can_show() -> None:
    rep = every_rule()
    issues = json.loads(json.dumps(code_quality(rep)))     # what the artifact holds
    assert len(issues) == len(rep["findings"])
    for issue, f in zip(issues, rep["findings"]):
        assert issue["check_name"] == f"handrail/{f['rule']}"
        assert issue["description"].startswith(f["message"])
        assert issue["severity"] in SEVERITIES
        assert isinstance(issue["location"]["path"], str) and issue["location"]["path"]
        assert not issue["location"]["path"].startswith("./")
        assert issue["location"]["lines"]["begin"] >= 1
    by_rule = {i["check_name"]: i for i in issues}
    assert by_rule["handrail/secret"]["severity"] == "critical"
    assert by_rule["handrail/secret"]["location"] == {"path": "config/settings.py", "lines": {"begin": 7}}
    assert by_rule["handrail/rewrite"]["location"] == {"path": ".", "lines": {"begin": 1}}
    assert len({i["fingerprint"] for i in issues}) == len(issues)


def test_two_findings_in_one_file_are_two_issues() -> None:
    """GitLab shows one issue per fingerprint: two secrets in one file keep theirs apart."""
    issues = code_quality(report([finding("secret", path="a.py", line=1, message="key one"),
                                  finding("secret", path="a.py", line=9, message="key two")]))
    assert issues[0]["fingerprint"] != issues[1]["fingerprint"]


def test_a_clean_report_is_an_empty_list() -> None:
    assert code_quality(report([])) == []
