"""`handrail guard`: every rule in force for a repository, whom it binds, where it comes from."""

from __future__ import annotations

import os
from collections.abc import Mapping

from handrail.policy import agents, gitrules, scope, secretscan
from handrail.policy import contract as contracts
from handrail.policy import gates as gatemod
from handrail.policy import protocol as protocols
from handrail.policy import tasks as taskmod

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _rule(kind: str, pattern: str, binds: str, source: str, why: str, task: str | None = None) -> dict[str, Any]:
    return {"kind": kind, "pattern": pattern, "binds": binds, "source": source, "why": why, "task": task}


def load_policy(project: str, env: Mapping[str, str]) -> gitrules.GitPolicy:
    """The rules in force in `project`: its protocol, tasks, contracts and approved gates, as the
    git hooks enforce them and `handrail guard` shows them (the one builder of both).

    A broken policy file raises PolicyError: the hook refuses rather than guesses.
    """
    proto = protocols.load(project)
    required_for = proto.data.get("git", {}).get("edit_task_required_for", gitrules.EVERYONE)
    every = taskmod.load_all(project)
    edit = []
    for task in taskmod.edit_tasks(every):
        shown = os.path.join(taskmod.TASKS_DIR, task.slug, contracts.CONTRACT_FILE)
        edit.append(gitrules.task_rules(task.slug, contracts.load(task.dir, shown), gatemod.approved_themes(task.dir)))
    return gitrules.GitPolicy(
        agent=agents.detect(env),
        edit_task_required_for=required_for,
        protocol=proto.source if proto.path is None else os.path.relpath(proto.source, project),
        tasks=tuple(gitrules.TaskState(t.slug, t.phase, t.editing) for t in every),
        edit=tuple(edit),
        protected_branches=tuple(proto.protected_branches),
        write_paths=proto.write_paths(project),
    )


def rules_in_force(project: str) -> dict[str, Any]:
    """One object with every path rule, gate, budget and git rule, each with its origin: what
    `load_policy` hands the git hooks, rendered."""
    policy = load_policy(project, {})
    rules = [_rule("forbidden", p, who, scope.BUILTIN_FORBIDDEN, why) for p, who, why in scope.DEFAULT_FORBIDDEN]
    rules += [_rule("protected", p, who, scope.BUILTIN_PROTECTED, why) for p, who, why in scope.PROTECTED]
    opened = policy.write_paths
    if opened is not None:
        rules += [_rule("write_path", p, scope.AGENTS, f"{scope.WRITE_PATHS_KEY} in {opened.source}",
                        "a protected path agents may write and commit, with a notice")
                  for p in opened.patterns.patterns]
    budgets = []
    for t in policy.edit:
        if t.scope is None or t.contract is None:
            continue
        rules += [_rule("contract_forbidden", p, gitrules.EVERYONE, t.contract, "forbidden by the task contract",
                        t.slug) for p in t.scope.forbidden.patterns]
        rules += [_rule("contract_allowed", p, gitrules.EVERYONE, t.contract,
                        "only these may change (a path must be in the allowed_files of some edit task)", t.slug)
                  for p in t.scope.allowed.patterns]
        budgets.append({"task": t.slug, "source": t.contract, "binds": gitrules.EVERYONE,
                        **{k: t.limits[k] for k in ("max_changed_files", "max_diff_lines")}})
    editing = {t.slug for t in policy.edit}
    gates = [g for g in (gatemod.list_gates(project) if policy.tasks else []) if g["task"] in editing]
    required_for = policy.edit_task_required_for
    return {
        "protocol": policy.protocol,
        "tasks": [{"task": t.slug, "phase": t.phase, "editing": t.editing} for t in policy.tasks],
        "path_rules": rules,
        "human_gates": gates,
        "budgets": budgets,
        "secrets": {"binds": gitrules.EVERYONE, "source": gitrules.SECRETS_SOURCE,
                    "patterns": [name for name, _rx in secretscan.SECRET_PATTERNS]},
        "git": {
            "edit_task_required_for": required_for,
            "edit_task_source": f"{gitrules.PROTOCOL_KEY} in {policy.protocol}",
            "protected_branches": list(policy.protected_branches),
            "rules": [{"rule": name, "binds": required_for if name == gitrules.EDIT_TASK else whom, "what": what}
                      for name, whom, what in gitrules.RULES],
        },
    }
