"""Every rule a `handrail ci` report can name, described once for every output that
explains a rule (SARIF's `rules[]`, the job summary's links, GitLab's check names).

The first six are the git hooks' own (policy/gitrules.py `RULES`, whose wording is
reused here; ci/judge.py leaves `human_gate` and `publish` to the local hooks, but a
report may still carry them); `policy_change` is gitrules' too, and `rewrite` and
`unattributed` exist only where a range of commits is judged (ci/judge.py), and
`unreadable` where a commit's policy or CI configuration cannot be read (ci/ciconfig.py).
"""

from __future__ import annotations

from typing import NamedTuple

from handrail.ci.ciconfig import UNREADABLE
from handrail.ci.judge import REWRITE, UNATTRIBUTED
from handrail.policy import gitrules
from handrail.policy.gitrules import POLICY_CHANGE


class Rule(NamedTuple):
    id: str
    name: str          # PascalCase, as SARIF's reportingDescriptor.name asks
    short: str         # one line
    full: str          # what the rule asks, from the table it comes from
    help: str          # what to do about a finding


_ASKS = {rule: asks for rule, _whom, asks in gitrules.RULES}

RULES: tuple[Rule, ...] = (
    Rule(gitrules.EDIT_TASK, "EditTask", "A commit made while no task was in an edit phase",
         _ASKS[gitrules.EDIT_TASK],
         "A human opens a task for the work (handrail task new SLUG --phase implement) and the commits "
         "are made under it."),
    Rule(gitrules.PATH, "Path", "A commit changes a path the policy forbids or protects",
         _ASKS[gitrules.PATH],
         "Take the path out of the commit, or have a human widen the task's contract (allowed_files) "
         "where the change is meant; default-forbidden paths are never committed."),
    Rule(gitrules.HUMAN_GATE, "HumanGate", "A change under a gate theme no human approved",
         _ASKS[gitrules.HUMAN_GATE],
         "A human reviews the change and approves the gate: handrail gate approve TASK THEME."),
    Rule(gitrules.GOVERNOR, "Governor", "A commit, or a task's commits together, exceed the contract's budget",
         _ASKS[gitrules.GOVERNOR],
         "Split the change into smaller commits (a task's commits over their total: into smaller pull "
         "requests), or have a human raise max_changed_files or max_diff_lines in the task's contract."),
    Rule(gitrules.SECRET, "Secret", "Committed content carries a private key or a token",
         _ASKS[gitrules.SECRET],
         "Revoke the credential now (it is in the history), then remove it from the branch and rewrite "
         "the commits that carry it before they are merged."),
    Rule(gitrules.PUBLISH, "Publish", "An agent's publishing step without the publish gate",
         _ASKS[gitrules.PUBLISH],
         "A human approves the task's publish gate (handrail gate approve TASK publish) or publishes "
         "the work themselves."),
    Rule(POLICY_CHANGE, "PolicyChange",
         "A commit changes the policy, the git hooks, a harness's permissions or the CI configuration",
         "a change to the autonomy protocol, the task contracts, the git hooks, a harness's permission, "
         "hook and MCP files, the CI configuration that runs this check, or a symbolic link or submodule "
         "that leads where no path rule looks, changes what agents may do, and is a human's call",
         "A reviewer who is not the change's author checks it before it is merged; an agent's commit of "
         "these files is refused locally, so an agent's one here went around the hooks."),
    Rule(UNREADABLE, "Unreadable", "A policy or CI configuration file handrail cannot read",
         "a protocol, task, contract, workflow or pipeline file the check cannot read (invalid, or nested "
         "too deeply) hides what it sets; the rest of the pull request is judged without it",
         "A human fixes or removes the file, and a reviewer checks what it was meant to say before it is merged."),
    Rule(REWRITE, "Rewrite", "The branch's history was rewritten (a force push)",
         "the engine reports that the pushed branch does not contain the commit it held before: "
         "commits were dropped or replaced",
         "A human checks what the rewrite dropped or changed (the finding names the old tip), and "
         "protects the branch against force pushes."),
    Rule(UNATTRIBUTED, "Unattributed", "A commit that carries no mark of who made it (--require-attribution)",
         "with --require-attribution, every commit must say who made it: an agent's trailer or name, "
         "or a human's signature made with a key the job's git verifies",
         "A human signs the commit with a key the job trusts (git commit --amend -S), or an agent's commit "
         "carries its trailer (handrail's prepare-commit-msg hook writes it)."),
)

BY_ID = {rule.id: rule for rule in RULES}


def known(rule_id: str) -> Rule:
    """The rule, or a plain description for an id this table does not know yet (a newer
    report read by an older renderer still renders)."""
    return BY_ID.get(rule_id) or Rule(rule_id, "".join(w.title() for w in rule_id.split("_")) or "Rule",
                                      rule_id, rule_id, "See the finding's fix.")
