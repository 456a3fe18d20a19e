"""`handrail guard`: every rule in force for a repository, whom it binds, where it comes from."""

from __future__ import annotations

import os

from handrail.policy import contract as contracts
from handrail.policy import gates as gatemod
from handrail.policy import gitrules, scope
from handrail.policy import protocol as protocols
from handrail.policy import tasks as taskmod

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _rule(kind: str, pattern: str, binds: str, source: str, why: str, task: str | None = None) -> dict[str, Any]:
    return {"kind": kind, "pattern": pattern, "binds": binds, "source": source, "why": why, "task": task}


def rules_in_force(project: str) -> dict[str, Any]:
    """One object with every path rule, gate, budget and git rule, each with its origin."""
    proto = protocols.load(project)
    proto_source = proto.source if proto.path is None else os.path.relpath(proto.source, project)
    required_for = proto.data.get("git", {}).get("edit_task_required_for", gitrules.EVERYONE)
    rules = [_rule("forbidden", p, who, scope.BUILTIN_FORBIDDEN, why) for p, who, why in scope.DEFAULT_FORBIDDEN]
    rules += [_rule("protected", p, who, scope.BUILTIN_PROTECTED, why) for p, who, why in scope.PROTECTED]
    opened = proto.write_paths(project)
    if opened is not None:
        rules += [_rule("write_path", p, scope.AGENTS, f"{scope.WRITE_PATHS_KEY} in {opened.source}",
                        "a protected path agents may write and commit, with a notice")
                  for p in opened.patterns.patterns]
    every = taskmod.load_all(project)
    editing = taskmod.edit_tasks(every)
    budgets, gates = [], []
    for task in editing:
        shown = os.path.join(taskmod.TASKS_DIR, task.slug, contracts.CONTRACT_FILE)
        c = contracts.load(task.dir, shown)
        if c is None:
            continue
        rules += [_rule("contract_forbidden", p, gitrules.EVERYONE, shown, "forbidden by the task contract", task.slug)
                  for p in c.data.get("forbidden_files", [])]
        rules += [_rule("contract_allowed", p, gitrules.EVERYONE, shown,
                        "only these may change (a path must be in the allowed_files of some edit task)", task.slug)
                  for p in c.data.get("allowed_files", [])]
        gov = c.governor()
        budgets.append({"task": task.slug, "source": shown, "binds": gitrules.EVERYONE,
                        "max_changed_files": gov["max_changed_files"], "max_diff_lines": gov["max_diff_lines"]})
    for g in (gatemod.list_gates(project) if every else []):
        if any(t.slug == g["task"] for t in editing):
            gates.append(g)
    return {
        "protocol": proto_source,
        "tasks": [{"task": t.slug, "phase": t.phase, "editing": t.editing} for t in every],
        "path_rules": rules,
        "human_gates": gates,
        "budgets": budgets,
        "secrets": {"binds": gitrules.EVERYONE, "source": gitrules.SECRETS_SOURCE,
                    "patterns": [name for name, _rx in gitrules.SECRET_PATTERNS]},
        "git": {
            "edit_task_required_for": required_for,
            "edit_task_source": f"{gitrules.PROTOCOL_KEY} in {proto_source}",
            "protected_branches": proto.protected_branches,
            "rules": [{"rule": name, "binds": required_for if name == gitrules.EDIT_TASK else whom, "what": what}
                      for name, whom, what in gitrules.RULES],
        },
    }
