"""A `handrail ci` report as SARIF 2.1.0, the format GitHub code scanning uploads.

One run; `tool.driver` is handrail, with one `rules[]` entry per rule id a report can
carry (ci/rules.py), so a rule's description and help stand beside each alert. Each
finding is one result at level error, located where ci/locate.py says (a finding
without a path on the repository root), its `partialFingerprints` stable per (rule,
commit, path) so that a re-run updates an alert instead of opening another.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from handrail import __version__
from handrail.ci import locate, rules

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FINGERPRINT_KEY = "handrailFinding/v1"
SRCROOT = "%SRCROOT%"


def to_sarif(report: Mapping[str, Any]) -> dict[str, Any]:
    findings = list(report.get("findings") or ())
    descriptors = list(rules.RULES)
    descriptors += [rules.known(r) for r in sorted({str(f["rule"]) for f in findings} - set(rules.BY_ID))]
    index = {rule.id: i for i, rule in enumerate(descriptors)}
    agents = locate.agents(report)
    driver: dict[str, Any] = {"name": "handrail", "version": __version__, "semanticVersion": __version__}
    home = information_uri()
    if home:
        driver["informationUri"] = home
    driver["rules"] = [_descriptor(rule) for rule in descriptors]
    run: dict[str, Any] = {
        "tool": {"driver": driver},
        "results": [_result(f, index[str(f["rule"])], agents) for f in findings],
        "properties": {k: report.get(k) for k in ("base", "head", "range_from", "rewritten", "counts", "result")},
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def information_uri() -> str | None:
    """Where handrail is documented: the home page its installed distribution names
    (`[project.urls]` in pyproject.toml). handrail has no address of its own to invent
    here, so where the distribution names none, SARIF's optional property is left out."""
    from importlib import metadata

    try:
        meta = metadata.metadata("handrail")
    except metadata.PackageNotFoundError:
        return None
    for entry in meta.get_all("Project-URL") or ():
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("homepage", "home", "documentation", "source", "repository"):
            return url.strip() or None
    return next(iter(meta.get_all("Home-page") or ()), None) or None


def _descriptor(rule: rules.Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.short},
        "fullDescription": {"text": _sentence(rule.full)},
        "help": {"text": rule.help},
        "defaultConfiguration": {"level": "error"},
    }


def _result(finding: Mapping[str, Any], rule_index: int, agents: Mapping[str, str]) -> dict[str, Any]:
    where = locate.place(finding)
    physical: dict[str, Any] = {"artifactLocation": {"uri": uri(where.path), "uriBaseId": SRCROOT},
                                "region": {"startLine": where.line}}
    commit = finding.get("commit")
    return {
        "ruleId": str(finding["rule"]),
        "ruleIndex": rule_index,
        "level": "error",
        "message": {"text": message(finding, agents)},
        "locations": [{"physicalLocation": physical}],
        "partialFingerprints": {FINGERPRINT_KEY: locate.fingerprint(finding)},
        "properties": {"commit": commit, "made_by": finding.get("made_by"), "agent": agents.get(str(commit)),
                       "source": finding.get("source"), "fix": finding.get("fix"),
                       "path": finding.get("path"), "line": finding.get("line")},
    }


def message(finding: Mapping[str, Any], agents: Mapping[str, str]) -> str:
    """One line: what, in which commit by whom, and what to do (shared by the annotations)."""
    commit = finding.get("commit")
    made = locate.who({"made_by": finding.get("made_by"), "agent": agents.get(str(commit))})
    where = f" (commit {locate.short(commit)}, made by {made})" if commit else f" (made by {made})"
    fix = finding.get("fix")
    return f"{finding.get('message')}{where}" + (f". Next: {fix}" if fix else "")


def uri(path: str) -> str:
    """A repository-relative path as a relative URI reference: spaces, `%`, `#`, `?` and a
    `:` that would read as a scheme are percent-encoded; bytes that are not UTF-8 too."""
    return quote(path.encode("utf-8", "surrogateescape"), safe="/")



def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
