"""Autonomy envelopes as decisions: what an operator has approved an agent to do
without asking, per kind of task. Pure: no files, no click, no git.

Every layer asks the same question, `decide()`, after its own answer allowed the
action; the envelope can only take autonomy away, never grant what the policy refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Least autonomy first: promotion moves right, demotion left.
NEEDS_FULL_SUPERVISION = "needsFullSupervision"
CHECK_BEFORE_COMMITTING = "checkBeforeCommitting"
FULLY_APPROVED = "fullyApproved"
STATES = (NEEDS_FULL_SUPERVISION, CHECK_BEFORE_COMMITTING, FULLY_APPROVED)
MEANING = {
    FULLY_APPROVED: "act, don't ask",
    CHECK_BEFORE_COMMITTING: "draft freely; a human signs off before commit, push, publish or ship",
    NEEDS_FULL_SUPERVISION: "don't act; escalate every step",
}

# The task types handrail itself enforces; any other id is for the agent's own judgement.
CODE_INLINE = "code-inline"
GIT_COMMIT_PUSH = "git-commit-push"
SHELL = "shell"
ENFORCED = {
    CODE_INLINE: "File edits",
    GIT_COMMIT_PUSH: "Commits and pushes",
    SHELL: "Shell commands (tier 1 and tier 2)",
}

ALLOW, REFUSE, NEEDS_HUMAN = "allow", "refuse", "needs_human"
SUPERVISION = "envelope_supervision"
CHECK_BEFORE_COMMIT = "envelope_check_before_committing"
TIER3 = "tier3_blocking"

STALE_DAYS = 30
ENVELOPE_FILE = "autonomy-envelope.md"

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")

class Decision:
    """The envelope's word on one action. (A plain class: importing `typing` for a
    NamedTuple would cost the hot path milliseconds.)"""

    __slots__ = ("message", "reason", "state", "task_type", "verdict")

    def __init__(self, verdict: str, reason: str, task_type: str, state: str | None, message: str) -> None:
        self.verdict = verdict  # allow | refuse | needs_human
        self.reason = reason  # "" when allowed; else a stable word
        self.task_type = task_type
        self.state = state  # the envelope's state for the task type; None when it says nothing
        self.message = message  # one line for a person, naming the envelope file; "" when allowed

    def as_dict(self) -> dict[str, str | None]:
        return {"verdict": self.verdict, "reason": self.reason, "task_type": self.task_type,
                "state": self.state, "message": self.message}

    def __repr__(self) -> str:
        return f"Decision({self.verdict!r}, {self.reason!r}, {self.task_type!r}, {self.state!r})"


def name_error(name: str, what: str = "agent name") -> str | None:
    """Why `name` cannot be a folder or task-type id, or None."""
    if not name:
        return f"the {what} cannot be empty"
    if not _NAME.fullmatch(name) or ".." in name:
        return f"'{name}' is not a valid {what}: use letters, digits, '.', '_' and '-', starting with a letter or digit"
    return None


def envelope_path(agent: str) -> str:
    """Where an agent's envelope lies, relative to the project (or `--root`)."""
    return f"agents/{agent}/{ENVELOPE_FILE}"


def normalize_state(text: str) -> str | None:
    """The state named by `text`, ignoring case (`fullyapproved` is `fullyApproved`)."""
    for state in STATES:
        if state.lower() == text.strip().lower():
            return state
    return None


def rank(state: str) -> int:
    return STATES.index(state)


def change_kind(old: str | None, new: str) -> str:
    """`promoted`, `demoted` or `set`. A task type new to the envelope counts as coming
    from needsFullSupervision: adding it with any more autonomy is a promotion."""
    before = rank(old) if old is not None else 0
    after = rank(new)
    if after > before:
        return "promoted"
    if after < before:
        return "demoted"
    return "set"


def agent_evidence(environ: Mapping[str, str]) -> str | None:
    """What shows that an agent's harness, not a person, runs this process
    (`CLAUDECODE=1 (Claude Code's Bash tool)`), or None."""
    from handrail.policy.agents import detect  # imports typing: kept off the hot path

    agent = detect(environ)
    return agent.evidence() if agent is not None else None


def is_agent_env(environ: Mapping[str, str]) -> bool:
    return agent_evidence(environ) is not None


def states_of(front_matter: Mapping[str, object]) -> dict[str, str]:
    """Task-type id -> state, from a validated envelope's front matter."""
    out: dict[str, str] = {}
    for item in front_matter.get("taskTypes") or []:  # type: ignore[attr-defined]
        out[str(item["id"])] = str(item["state"])
    return out


def decide(states: Mapping[str, str] | None, task_type: str, *, agent: str, envelope: str,
           tier: int | None = None) -> Decision:
    """What the envelope makes of an action the policy already allowed.

    `task_type` is `code-inline` (a file edit), `git-commit-push` (a commit or push)
    or `shell` with its `tier` (1, 2 or 3). `states` is the agent's envelope
    (None: the agent has none). `envelope` is its path, named in every refusal.
    Tier 3 needs a human whatever the envelope says.
    """
    if task_type not in ENFORCED:
        raise ValueError(f"unknown task type {task_type!r} (handrail enforces {', '.join(ENFORCED)})")
    if task_type == SHELL and tier not in (1, 2, 3):
        raise ValueError("a shell decision needs the command's tier (1, 2 or 3)")
    state = (states or {}).get(task_type)
    if task_type == SHELL and tier == 3:
        return Decision(NEEDS_HUMAN, TIER3, task_type, state,
                        "tier-3 commands always need a human, whatever the agent's envelope says")
    if state == NEEDS_FULL_SUPERVISION:
        return Decision(REFUSE, SUPERVISION, task_type, state,
                        f"{envelope} puts {agent}'s {task_type} under {NEEDS_FULL_SUPERVISION} "
                        f"({MEANING[state]}): a human does this step, or changes the envelope with "
                        f"`handrail autonomy set {agent} {task_type} {CHECK_BEFORE_COMMITTING}`")
    if state == CHECK_BEFORE_COMMITTING and task_type == GIT_COMMIT_PUSH:
        return Decision(NEEDS_HUMAN, CHECK_BEFORE_COMMIT, task_type, state,
                        f"{envelope} puts {agent}'s {task_type} at {CHECK_BEFORE_COMMITTING}: "
                        f"a human signs off before this commit or push")
    return Decision(ALLOW, "", task_type, state, "")


def is_stale(days_untouched: float) -> bool:
    return days_untouched > STALE_DAYS


def refused_edit(answer: dict[str, Any], decision: Decision, agent: str, envelope: str) -> dict[str, Any]:
    """can-edit's allowed `answer`, turned into the envelope's refusal (stable keys)."""
    out: dict[str, object] = {
        "allowed": False,
        "reason": decision.reason,
        "agent": agent,
        "envelope": envelope,
        "task_type": decision.task_type,
        "state": decision.state,
        "message": decision.message,
    }
    primary = answer.get("primary_task") or {}
    if primary:
        out["task"] = primary.get("task")
        out["phase"] = primary.get("phase")
    if "file" in answer:
        out["file"] = answer["file"]
    return out
