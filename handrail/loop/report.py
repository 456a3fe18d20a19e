"""What the loop tells people and agents: the feedback file, the status line, the
summary, `loop status` and `loop retro`. Reads progress; decides nothing."""

from __future__ import annotations

import os
from collections import Counter

from handrail.policy import loop as rules
from handrail.policy.gates import decide_commands

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FEEDBACK_FILE = "feedback.md"
TAIL_LINES = 40


def clock_text(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def limit_text(value: float | None, unit: str = "") -> str:
    return "unlimited" if value is None else f"{value:,}{unit}"


def agent_hint(run: dict[str, Any] | None) -> str:
    argv = (run or {}).get("agent") or ["AGENT", "…"]
    return " ".join(argv) if len(" ".join(argv)) <= 60 else f"{argv[0]} …"


# ----------------------------------------------------------------------------- during a run


def status_line(attempt: dict[str, Any], run: dict[str, Any], max_steps: int | None, ceiling: int | None,
                elapsed: float) -> str:
    passed = sum(c["status"] == "passed" for c in attempt.get("criteria", []))
    total = len(attempt.get("criteria", []))
    crit = f"criteria {passed}/{total} passed" if attempt.get("criteria_run") else "criteria not run"
    parts = [f"attempt {run['step']} of {limit_text(max_steps)}", f"{clock_text(elapsed)} elapsed",
             f"{run['tokens']:,}/{limit_text(ceiling)} tokens", crit]
    problems = len(attempt.get("violations", [])) + len(attempt.get("limits", []))
    if problems:
        parts.append(f"{problems} violation{'s' if problems != 1 else ''}")
    if attempt.get("agent", {}).get("exit_code") not in (0, None):
        parts.append(f"agent exit {attempt['agent']['exit_code']}")
    return "handrail loop: " + " · ".join(parts)


def feedback(slug: str, attempt_no: int, step: int, max_steps: int | None, previous: dict[str, Any] | None,
             contract_path: str | None, checks_dir: str | None) -> str:
    """What the agent reads before attempt `attempt_no`: what the last one got wrong."""
    lines = [f"# handrail loop: task {slug}, attempt {step} of {limit_text(max_steps)}", ""]
    if previous is None:
        lines += ["This is the first attempt of this run: nothing to report yet.",
                  f"The task's contract ({contract_path}) says which files you may change and which criteria must pass."
                  if contract_path else "", ""]
        return "\n".join(lines)
    lines.append(f"The previous attempt (#{previous['n']}) did not finish the task.")
    violations = previous.get("violations", [])
    if violations:
        lines += ["", "## Revert these paths: you may not change them", ""]
        lines += [f"- revert: {v['path']} ({v['message']})" for v in violations]
    if previous.get("limits"):
        lines += ["", "## Your change is too large", ""] + [f"- {m}" for m in previous["limits"]]
    failing = [c for c in previous.get("criteria", []) if c["status"] in ("failed", "timeout")]
    if failing:
        lines += ["", "## Failing criteria", ""]
        for c in failing:
            what = "timed out" if c["status"] == "timeout" else f"exit {c['exit_code']}"
            lines += [f"### {c['id']} ({what})", "", "```", *_tail(checks_dir, c["id"]), "```", ""]
    unverified = [c["id"] for c in previous.get("criteria", []) if c["status"] == "not_verified"]
    if unverified:
        lines += ["", f"Not verifiable yet (no command, or TODO): {', '.join(unverified)}"]
    if previous.get("agent", {}).get("exit_code") not in (0, None):
        lines += ["", f"Your previous run ended with exit code {previous['agent']['exit_code']}."]
    return "\n".join(lines) + "\n"


def _tail(checks_dir: str | None, cid: str) -> list[str]:
    if checks_dir is None:
        return []
    try:
        with open(os.path.join(checks_dir, f"{cid}.log"), encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return ["(log not found)"]
    body = text.split("---\n", 1)[-1]
    return body.rstrip("\n").splitlines()[-TAIL_LINES:]


# ----------------------------------------------------------------------------- next action


def next_action(slug: str, progress: dict[str, Any] | None, contract_path: str | None) -> str:
    if progress is None or (progress.get("run") is None and progress.get("state") is None):
        return f"start a loop: handrail loop run {slug} -- AGENT …"
    run = progress.get("run") or {}
    again = f"handrail loop run {slug} -- {agent_hint(run)}"
    circuit = progress["circuit"]
    if circuit["state"] == rules.OPEN:
        return (f"the circuit is open ({circuit.get('reason')}): a human reads `handrail loop retro {slug}`, "
                f"then runs `handrail loop reset {slug}`")
    state, reason = progress.get("state"), progress.get("reason")
    if state == rules.PAUSED and reason in (rules.HUMAN_GATE, rules.POLICY_CHANGED):
        pending = [g for g in run.get("gates", []) if g.get("status") == "pending"]
        theme = pending[0]["theme"] if pending else "THEME"
        approve, reject = decide_commands(slug, theme)
        return f"a human runs `{approve}` (or `{reject}`) in their own terminal, then: {again}"
    if state == rules.PAUSED and reason in (rules.BUDGET_EXCEEDED, rules.RUNTIME_EXCEEDED):
        key = "cost_ceiling_tokens" if reason == rules.BUDGET_EXCEEDED else "max_runtime_minutes"
        return (f"a human raises governor.{key} in {contract_path or 'the contract'} (the next run asks them to "
                f"approve that policy change), or ends this run with `handrail loop reset {slug}`")
    if state == rules.RUNNING:
        return f"a run was interrupted: {again} resumes it"
    if state == rules.FINISHED:
        return f"review the change (git diff) and commit it; {again} starts a new run"
    if reason == rules.GATE_REJECTED:
        return f"read the reason (`handrail gate list --task {slug}`), rework the task, then {again} starts a new run"
    if reason == rules.CRITERIA_UNVERIFIED:
        return f"give every criterion a verification command in {contract_path or 'the contract'}, then {again}"
    return f"{again} starts a new run"


# ----------------------------------------------------------------------------- status and retro


def status(slug: str, progress: dict[str, Any] | None, governor: dict[str, Any],
           contract_path: str | None) -> dict[str, Any]:
    if progress is None:
        return {"task": slug, "circuit": rules.CLOSED, "circuit_reason": None, "state": None, "reason": None,
                "run": None, "attempt": 0, "max_steps": governor.get("max_steps"), "tokens": 0,
                "token_ceiling": governor.get("cost_ceiling_tokens"), "runtime_seconds": 0,
                "runtime_ceiling_seconds": _minutes(governor.get("max_runtime_minutes")), "last_attempt": None,
                "last_signature": None, "pending_gates": [], "next": next_action(slug, None, contract_path)}
    run = progress.get("run") or {}
    last = progress["attempts"][-1] if progress["attempts"] else None
    signature = None
    for a in reversed(progress["attempts"]):
        failing = [c for c in a.get("criteria", []) if c.get("signature")]
        if failing:
            c = failing[0]
            signature = {"signature": c["signature"], "criterion": c["id"], "first_line": c.get("first_line"),
                         "attempt": a["n"]}
            break
    return {
        "task": slug,
        "circuit": progress["circuit"]["state"],
        "circuit_reason": progress["circuit"].get("reason"),
        "state": progress.get("state"),
        "reason": progress.get("reason"),
        "run": run.get("id"),
        "attempt": run.get("step", 0),
        "max_steps": run.get("max_steps", governor.get("max_steps")),
        "tokens": run.get("tokens", 0),
        "token_ceiling": governor.get("cost_ceiling_tokens"),
        "runtime_seconds": round(run.get("runtime_seconds", 0.0), 1),
        "runtime_ceiling_seconds": _minutes(governor.get("max_runtime_minutes")),
        "last_attempt": None if last is None else {
            "n": last["n"], "outcome": last.get("outcome"), "reason": last.get("reason"),
            "criteria": [{"id": c["id"], "status": c["status"]} for c in last.get("criteria", [])],
            "violations": [v["path"] for v in last.get("violations", [])],
        },
        "last_signature": signature,
        "pending_gates": [{"id": g["id"], "theme": g["theme"], "paths": g.get("paths", [])}
                          for g in run.get("gates", []) if g.get("status") == "pending"],
        "next": next_action(slug, progress, contract_path),
    }


def _minutes(value: int | None) -> int | None:
    return None if value is None else value * 60


def status_text(s: dict[str, Any]) -> list[str]:
    circuit = s["circuit"] + (f" ({s['circuit_reason']})" if s["circuit_reason"] else "")
    state = s["state"] or "never run"
    lines = [f"task {s['task']}: {state}{' (' + s['reason'] + ')' if s['reason'] else ''}",
             f"  circuit:  {circuit}",
             f"  attempt:  {s['attempt']} of {limit_text(s['max_steps'])}",
             f"  tokens:   {s['tokens']:,} of {limit_text(s['token_ceiling'])}",
             f"  runtime:  {clock_text(s['runtime_seconds'])} of "
             f"{'unlimited' if s['runtime_ceiling_seconds'] is None else clock_text(s['runtime_ceiling_seconds'])}"]
    last = s["last_attempt"]
    if last is not None:
        crit = ", ".join(f"{c['id']} {c['status']}" for c in last["criteria"]) or "not run"
        lines.append(f"  last attempt #{last['n']}: {last['outcome']}"
                     f"{' (' + last['reason'] + ')' if last.get('reason') else ''}; criteria: {crit}")
        if last["violations"]:
            lines.append(f"  violations: {', '.join(last['violations'])}")
    if s["last_signature"]:
        sig = s["last_signature"]
        lines.append(f"  last failure: {sig['criterion']} [{sig['signature']}] {sig.get('first_line') or ''}".rstrip())
    for g in s["pending_gates"]:
        decided = f", now {g['decision']}" if g.get("decision") not in (None, "pending") else ""
        lines.append(f"  gate: {g['theme']} ({g['id']}) for {', '.join(g['paths']) or 'a policy change'}{decided}")
    lines.append(f"  next: {s['next']}")
    return lines


def retro(slug: str, progress: dict[str, Any] | None, criterion_ids: list[str]) -> dict[str, Any]:
    attempts = (progress or {}).get("attempts", [])
    sigs: dict[str, dict[str, Any]] = {}
    violated: Counter[str] = Counter()
    rules_of: dict[str, str] = {}
    passed: set[str] = set()
    seen: list[str] = list(criterion_ids)
    for a in attempts:
        for c in a.get("criteria", []):
            if c["id"] not in seen:
                seen.append(c["id"])
            if c["status"] == "passed":
                passed.add(c["id"])
            if c.get("signature"):
                entry = sigs.setdefault(c["signature"], {"signature": c["signature"], "criterion": c["id"],
                                                         "first_line": c.get("first_line"), "count": 0, "attempts": []})
                entry["count"] += 1
                entry["attempts"].append(a["n"])
        for v in a.get("violations", []):
            violated[v["path"]] += 1
            rules_of.setdefault(v["path"], f"{v.get('reason')}: {v.get('rule')}")
    return {
        "task": slug,
        "attempts": len(attempts),
        "runs": len({a.get("run") for a in attempts}),
        "signatures": sorted(sigs.values(), key=lambda e: (-e["count"], e["attempts"][0])),
        "violated_paths": [{"path": p, "count": n, "rule": rules_of[p]} for p, n in violated.most_common()],
        "never_passed": [c for c in seen if c not in passed],
        "tokens": [{"attempt": a["n"], "tokens": a.get("tokens", 0), "source": a.get("tokens_source")}
                   for a in attempts],
        "total_tokens": sum(a.get("tokens", 0) for a in attempts),
    }


def retro_text(r: dict[str, Any]) -> list[str]:
    if not r["attempts"]:
        return [f"task {r['task']}: no attempts yet"]
    lines = [f"task {r['task']}: {r['attempts']} attempt(s) in {r['runs']} run(s), {r['total_tokens']:,} tokens"]
    lines.append("failure signatures (most frequent first):" if r["signatures"] else "failure signatures: none")
    for s in r["signatures"]:
        lines.append(f"  {s['count']}x  {s['criterion']} [{s['signature']}] {s.get('first_line') or ''}".rstrip()
                     + f"  (attempts {', '.join(map(str, s['attempts']))})")
    lines.append("violated paths:" if r["violated_paths"] else "violated paths: none")
    for v in r["violated_paths"]:
        lines.append(f"  {v['count']}x  {v['path']}  ({v['rule']})")
    lines.append(f"criteria that never passed: {', '.join(r['never_passed']) or 'none'}")
    lines.append("tokens per attempt: " + ", ".join(f"#{t['attempt']} {t['tokens']:,}" for t in r["tokens"]))
    return lines


def doctor_warnings(slug: str, progress: dict[str, Any] | None) -> list[str]:
    """What `handrail doctor` should say about a task's loop: an open circuit, a pause at a gate."""
    if progress is None:
        return []
    out = []
    if progress["circuit"]["state"] == rules.OPEN:
        out.append(f"task {slug}: loop circuit open ({progress['circuit'].get('reason')}): "
                   f"a human runs `handrail loop reset {slug}`")
    if progress.get("state") == rules.PAUSED and progress.get("reason") in (rules.HUMAN_GATE, rules.POLICY_CHANGED):
        out.append(f"task {slug}: loop paused at a human gate: {next_action(slug, progress, None)}")
    return out
