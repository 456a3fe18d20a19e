"""Where a finding is shown: one answer for every output that needs a place.

GitHub's code scanning rejects a result without a location ("expected at least one
location") and shows a result whose location names no file as it is, and GitLab's Code
Quality report needs a path and a line on every issue. So a finding without a path (a
rewritten branch, a commit nobody is named for) is placed on the repository root, `.`,
and one without a line on line 1.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, NamedTuple

ROOT = "."


class Place(NamedTuple):
    path: str           # repository-relative, `/`-separated; ROOT for the whole repository
    line: int           # 1-based
    exact: bool         # the rule knew this line (a secret's), not the default


def place(finding: Mapping[str, Any]) -> Place:
    path = finding.get("path") or ROOT
    line = finding.get("line")
    if isinstance(line, int) and not isinstance(line, bool) and line >= 1:
        return Place(str(path), line, True)
    return Place(str(path), 1, False)


def fingerprint(finding: Mapping[str, Any], *, exact: bool = False) -> str:
    """Stable across runs for the same (rule, commit, path): code scanning matches alerts
    by it, so a re-run of the same pull request updates an alert rather than adding one.
    `exact` adds the line and the message, for a report that must tell two findings of
    one file apart (GitLab shows one issue per fingerprint)."""
    parts = [finding.get("rule"), finding.get("commit"), finding.get("path")]
    if exact:
        parts += [finding.get("line"), finding.get("message")]
    text = "\0".join("" if p is None else str(p) for p in parts)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def short(commit: object) -> str:
    return str(commit)[:12] if commit else ""


def who(finding_or_commit: Mapping[str, Any]) -> str:
    """`agent (claude)`, `human`, `unknown`: who made the commit, as every output says it."""
    made_by = str(finding_or_commit.get("made_by") or "unknown")
    agent = finding_or_commit.get("agent")
    return f"{made_by} ({agent})" if made_by == "agent" and agent else made_by


def agents(report: Mapping[str, Any]) -> dict[str, str]:
    """Each agent commit's agent name: findings say who made their commit, the commits say which agent."""
    return {str(c.get("commit")): str(c["agent"]) for c in report.get("commits") or () if c.get("agent")}
