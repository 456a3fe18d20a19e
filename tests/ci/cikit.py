"""Reports shaped as `handrail ci --format json` prints them, for the output tests."""

from __future__ import annotations

from typing import Any

from handrail.ci import rules

BASE, HEAD = "1" * 40, "2" * 40
AGENT_COMMIT, HUMAN_COMMIT, UNKNOWN_COMMIT = "a" * 40, "b" * 40, "c" * 40

COMMITS = [
    {"commit": AGENT_COMMIT, "summary": "Add login", "author": "Claude <noreply@anthropic.com>",
     "made_by": "agent", "agent": "claude", "evidence": "Co-Authored-By: Claude"},
    {"commit": HUMAN_COMMIT, "summary": "Fix typo", "author": "Ann <ann@example.com>",
     "made_by": "human", "agent": None, "evidence": "Handrail-Human trailer"},
    {"commit": UNKNOWN_COMMIT, "summary": "WIP", "author": "Bob <bob@example.com>",
     "made_by": "unknown", "agent": None, "evidence": None},
]


def finding(rule: str, *, commit: str | None = AGENT_COMMIT, path: str | None = "src/a.py",
            line: int | None = None, message: str | None = None, made_by: str = "agent") -> dict[str, Any]:
    return {"rule": rule, "commit": commit, "path": path, "line": line,
            "message": message or f"{rule} broken in {path}", "fix": f"fix {rule}",
            "source": f"{rule} from .handrail/autonomy-protocol.json", "made_by": made_by}


def report(findings: list[dict[str, Any]], *, rewritten: bool = False) -> dict[str, Any]:
    return {"version": 1, "base": BASE, "head": HEAD, "range_from": "github:pull_request",
            "rewritten": rewritten, "commits": COMMITS, "findings": findings,
            "counts": {"commits": len(COMMITS), "agent_commits": 1, "unknown_commits": 1,
                       "findings": len(findings)},
            "result": "findings" if findings else "clean"}


def every_rule() -> dict[str, Any]:
    """One finding per rule id a report can carry, each as its rule places it."""
    found = []
    for rule in rules.RULES:
        if rule.id == rules.REWRITE:
            found.append(finding(rule.id, commit=None, path=None, made_by="unknown",
                                 message="the branch was force-pushed"))
        elif rule.id == rules.UNATTRIBUTED:
            found.append(finding(rule.id, commit=UNKNOWN_COMMIT, path=None, made_by="unknown",
                                 message="nothing says who made this commit"))
        elif rule.id == "secret":
            found.append(finding(rule.id, path="config/settings.py", line=7, message="an AWS access key"))
        elif rule.id == rules.POLICY_CHANGE:
            found.append(finding(rule.id, path=".handrail/autonomy-protocol.json",
                                 message="the policy was loosened"))
        elif rule.id == "edit_task":
            found.append(finding(rule.id, path=None, message="no task was in an edit phase"))
        else:
            found.append(finding(rule.id))
    return report(found)
