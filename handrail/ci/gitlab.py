"""A `handrail ci` report as a GitLab Code Quality report (`artifacts:reports:codequality`).

GitLab reads a JSON array of issues, a subset of the Code Climate spec: `description`,
`check_name`, `fingerprint` (one issue per fingerprint: two with the same one show as
one), `severity` (info, minor, major, critical, blocker) and `location.path` with
`location.lines.begin`. Every handrail finding blocks the merge, so each is `major` and
`critical` for a secret (a credential in the history must be revoked, not only removed).
A finding without a path stands on the repository root (ci/locate.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from handrail.ci import locate, rules, sarif
from handrail.policy import gitrules

SEVERITY = {gitrules.SECRET: "critical"}
DEFAULT_SEVERITY = "major"


def code_quality(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    agents = locate.agents(report)
    issues = []
    for finding in report.get("findings") or ():
        rule = str(finding.get("rule"))
        where = locate.place(finding)
        issues.append({
            "type": "issue",
            "description": sarif.message(finding, agents),
            "check_name": f"handrail/{rule}",
            "categories": ["Security"],
            "content": {"body": rules.known(rule).help},
            "fingerprint": locate.fingerprint(finding, exact=True),
            "severity": SEVERITY.get(rule, DEFAULT_SEVERITY),
            "location": {"path": where.path, "lines": {"begin": where.line}},
        })
    return issues
