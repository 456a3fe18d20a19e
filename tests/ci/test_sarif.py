"""`handrail ci`'s SARIF, validated against the official SARIF 2.1.0 JSON Schema
(tests/data/sarif-schema-2.1.0.json, the OASIS errata01 schema: outkit.valid) and held to
what GitHub code scanning needs: a location on every result, stable fingerprints."""

from __future__ import annotations

from typing import Any

import pytest
from outkit import AGENT_COMMIT, HUMAN_COMMIT, every_rule, finding, report, valid

from handrail import __version__
from handrail.ci import rules
from handrail.ci.sarif import to_sarif


def test_a_report_with_every_rule_is_valid_sarif_with_one_result_per_finding() -> None:
    rep = every_rule()
    log = valid(to_sarif(rep))
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-schema-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "handrail" and driver["version"] == __version__
    ids = [r["id"] for r in driver["rules"]]
    assert ids == [r.id for r in rules.RULES] and len(set(ids)) == len(ids)
    for descriptor in driver["rules"]:
        assert descriptor["shortDescription"]["text"] and descriptor["fullDescription"]["text"]
        assert descriptor["help"]["text"]
    assert [r["ruleId"] for r in run["results"]] == [f["rule"] for f in rep["findings"]]
    for result in run["results"]:
        assert result["level"] == "error"
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        # code scanning refuses a result without a location
        (location,) = result["locations"]
        assert location["physicalLocation"]["artifactLocation"]["uri"]


def test_locations_are_repository_relative_with_the_line_the_rule_knows() -> None:
    rep = every_rule()
    results = {r["ruleId"]: r for r in to_sarif(rep)["runs"][0]["results"]}

    def where(rule: str) -> tuple[str, int]:
        physical = results[rule]["locations"][0]["physicalLocation"]
        return physical["artifactLocation"]["uri"], physical["region"]["startLine"]

    assert where("secret") == ("config/settings.py", 7)
    assert where("policy_change") == (".handrail/autonomy-protocol.json", 1)
    assert where("rewrite") == (".", 1)          # no path: the repository root
    assert where("unattributed") == (".", 1)
    assert results["secret"]["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%"


def test_the_message_says_the_commit_who_made_it_and_what_to_do() -> None:
    result = to_sarif(report([finding("secret", line=3, message="a GitHub token")]))["runs"][0]["results"][0]
    text = result["message"]["text"]
    assert text.startswith("a GitHub token") and AGENT_COMMIT[:12] in text
    assert "made by agent (claude)" in text and "fix secret" in text
    assert result["properties"]["commit"] == AGENT_COMMIT and result["properties"]["agent"] == "claude"


def test_fingerprints_are_stable_per_rule_commit_and_path() -> None:
    def fp(f: dict[str, Any]) -> str:
        return to_sarif(report([f]))["runs"][0]["results"][0]["partialFingerprints"]["handrailFinding/v1"]

    same = fp(finding("path", path="src/x.py", message="one wording"))
    assert same == fp(finding("path", path="src/x.py", message="another wording"))
    assert same != fp(finding("path", path="src/y.py"))
    assert same != fp(finding("governor", path="src/x.py"))
    assert same != fp(finding("path", path="src/x.py", commit=HUMAN_COMMIT))


@pytest.mark.parametrize(("path", "uri"), [
    ("docs/my notes.md", "docs/my%20notes.md"),
    ("a:b.txt", "a%3Ab.txt"),                      # would read as a scheme
    ("100%.txt", "100%25.txt"),
    ("q?#.py", "q%3F%23.py"),
    ("héllo.py", "h%C3%A9llo.py"),
    ("bad\udcff.py", "bad%FF.py"),                 # a name that is not UTF-8, as git hands it over
])
def test_paths_become_valid_relative_uri_references(path: str, uri: str) -> None:
    log = valid(to_sarif(report([finding("path", path=path)])))
    assert log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == uri


def test_a_clean_report_is_a_run_without_results_and_still_lists_the_rules() -> None:
    log = valid(to_sarif(report([])))
    assert log["runs"][0]["results"] == [] and len(log["runs"][0]["tool"]["driver"]["rules"]) == len(rules.RULES)


def test_a_rule_this_version_does_not_know_still_gets_a_descriptor() -> None:
    log = valid(to_sarif(report([finding("future_rule")])))
    run = log["runs"][0]
    assert run["tool"]["driver"]["rules"][run["results"][0]["ruleIndex"]]["id"] == "future_rule"


def test_the_schema_check_refuses_what_code_scanning_would() -> None:
    """The validator is not vacuous: a broken level and a raw space in a URI are caught."""
    log = to_sarif(report([finding("path", path="src/a.py")]))
    result = log["runs"][0]["results"][0]
    result["level"] = "fatal"
    result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = "src/a b.py"
    with pytest.raises(AssertionError) as caught:
        valid(log)
    assert "'fatal' is not one of" in str(caught.value) and "uri-reference" in str(caught.value)
