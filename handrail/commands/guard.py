"""`handrail guard`: the rules in force here, each with whom it binds and where it comes from."""

from __future__ import annotations

from handrail.commands.render import echo, emit_json
from handrail.errors import EXIT_OK


def guard(*, project: str, as_json: bool) -> int:
    from handrail.policy.guard import rules_in_force

    found = rules_in_force(project)
    if as_json:
        emit_json(found)
        return EXIT_OK
    echo(f"protocol: {found['protocol']}")
    editing = [t["task"] for t in found["tasks"] if t["editing"]]
    echo(f"tasks in an edit phase: {', '.join(editing) or 'none'}")
    echo("\npath rules (first match refuses):")
    width = max(len(r["pattern"]) for r in found["path_rules"])
    echo(f"  {'KIND':<18} {'PATTERN':<{width}}  {'BINDS':<14}  SOURCE  (WHY)")
    for r in found["path_rules"]:
        echo(f"  {r['kind']:<18} {r['pattern']:<{width}}  binds {r['binds']:<8}  {r['source']}  ({r['why']})")
    for g in found["human_gates"]:
        paths = ", ".join(g["paths"]) or "force push, ref deletion, protected branch (agents)"
        echo(f"  human gate         {g['theme']} of task {g['task']}: {g['status']}  ({paths})")
    for b in found["budgets"]:
        lim = ", ".join(f"{k}={'unlimited' if b[k] is None else b[k]}" for k in ("max_changed_files", "max_diff_lines"))
        echo(f"  budget             task {b['task']}: {lim}  binds everyone  {b['source']}")
    s = found["secrets"]
    echo(f"  secrets            {', '.join(s['patterns'])}  binds everyone  {s['source']}")
    g = found["git"]
    echo("\ngit hooks:")
    echo(f"  {'RULE':<11} {'BINDS':<17} WHAT")
    for r in g["rules"]:
        echo(f"  {r['rule']:<11} binds {r['binds']:<11} {r['what']}")
    echo(f"  (edit_task: {g['edit_task_source']}; protected branches: {', '.join(g['protected_branches'])})")
    return EXIT_OK
