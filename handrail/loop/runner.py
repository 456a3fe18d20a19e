"""`handrail loop run TASK [--max-steps N] -- AGENT …`

Before the first attempt of a run: the contract is validated, the preset fills the
governor, the work tree's baseline is taken and the protocol and contract are pinned
by hash. After each attempt, in this order: artifacts, scope, diff limits, human
gates, criteria, budget, circuit. A failed agent still goes through every guard (it
may have written files before failing).

Where several guards speak at once, the attempt ends on the strongest: a second
scope violation (circuit open) before a policy change (gate) before a new human gate
(criteria are then not run); after the criteria, done before a tripped circuit before
unverifiable criteria before a budget or runtime pause. The protocol and contract
pins outlive a run: a change between runs needs a human's approval too.

One `loop run` (or `loop reset`) per task at a time: a lock file refuses a second.

Exit 0 done, 1 stopped by a guard, 2 contract or usage error, 3 paused for a human.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time

import pygit2

from handrail.errors import HandrailError, PolicyError
from handrail.fsio import atomic_write
from handrail.loop import agent as agents
from handrail.loop import criteria as checks
from handrail.loop import report, state, worktree
from handrail.policy import contract as contracts
from handrail.policy import gates, gitrules, scope
from handrail.policy import loop as rules
from handrail.policy import protocol as protocols
from handrail.policy import tasks as taskmod
from handrail.records import clock, gate_states
from handrail.records.events import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

POLICY_THEME = "policy_change"


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class Ctx:
    """What one `loop run` works with; `progress` is saved after every step."""

    __slots__ = (
        "agent_name",
        "argv",
        "base",
        "contract",
        "progress",
        "project",
        "repo",
        "requested_steps",
        "slug",
        "started",
        "task",
    )

    def __init__(self, project: str, slug: str, task: taskmod.Task, contract: contracts.Contract,
                 progress: dict[str, Any], repo: pygit2.Repository, argv: list[str],
                 requested_steps: int | None) -> None:
        self.project = project
        self.slug = slug
        self.task = task
        self.contract = contract
        self.progress = progress
        self.repo = repo
        self.argv = argv
        self.requested_steps = requested_steps
        self.base = 0.0
        self.started = time.monotonic()
        self.agent_name = os.path.basename(argv[0]) if argv else None

    @property
    def run(self) -> dict[str, Any]:
        current: dict[str, Any] = self.progress["run"]
        return current

    def elapsed(self) -> float:
        return self.base + (time.monotonic() - self.started)

    def max_steps(self) -> int | None:
        return rules.effective_max_steps(self.contract.governor()["max_steps"], self.requested_steps)

    def event(self, kind: str, message: str, *, topic: str | None = None, **payload: object) -> None:
        run = self.progress.get("run") or {}
        record(self.project, kind, agent=self.agent_name, task=self.slug, topic=topic or "loop", message=message,
               payload={"run": run.get("id"), **payload})


def load_contract(project: str, task: taskmod.Task, *, agent: str | None = None) -> contracts.Contract:
    """The task's contract, which the loop cannot do without. Invalid: contract_schema_invalid."""
    where = state.shown(task.slug, contracts.CONTRACT_FILE)
    try:
        found = contracts.load(task.dir, where)
    except PolicyError as e:
        record(project, "loop_stopped", agent=agent, task=task.slug, topic=rules.CONTRACT_SCHEMA_INVALID,
               message=str(e), payload={"reason": rules.CONTRACT_SCHEMA_INVALID})
        raise HandrailError(f"{e} [{rules.CONTRACT_SCHEMA_INVALID}: the agent was not called]",
                            reason=rules.CONTRACT_SCHEMA_INVALID) from None
    if found is None:
        raise HandrailError(f"{where}: not found: the loop needs a contract with criteria to know when it is done",
                            reason="bad_arguments")
    return found


def pins(project: str, task: taskmod.Task) -> dict[str, Any]:
    """The protocol's and the contract's content hashes (None: the file is absent)."""
    out = {}
    for key, path in (("protocol", protocols.discover(project)), ("contract", contracts.contract_path(task.dir))):
        digest = None
        if path is not None and os.path.exists(path):
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
        shown = os.path.relpath(path, project).replace(os.sep, "/") if path else protocols.PROTOCOL_PATHS[0]
        out[key] = {"path": shown, "sha256": digest}
    return out


# ----------------------------------------------------------------------------- the command


def run(project: str, slug: str, argv: list[str], *, max_steps: int | None = None) -> int:
    task = taskmod.load_task(project, slug)
    name = os.path.basename(argv[0]) if argv else None
    contract = load_contract(project, task, agent=name)
    protocols.load(project)  # a broken protocol stops the loop as a broken contract does
    if not task.editing:
        raise HandrailError(f"task '{slug}' is in phase {task.phase}, not an edit phase: a human moves it on with "
                            f"`handrail task phase {slug} implement`", reason="task_not_editing")
    agents.check_command(argv, project)
    with state.locked(task.dir, slug):
        return _run_locked(project, slug, task, contract, argv, max_steps)


def _run_locked(project: str, slug: str, task: taskmod.Task, contract: contracts.Contract, argv: list[str],
                max_steps: int | None) -> int:
    progress = state.load(task.dir, slug)
    repo = worktree.open_repo(project)
    ctx = Ctx(project, slug, task, contract, progress or state.fresh(slug), repo, argv, max_steps)
    if ctx.progress["circuit"]["state"] == rules.OPEN:
        circuit = ctx.progress["circuit"]
        ctx.event("loop_refused", f"circuit open ({circuit.get('reason')}): the agent was not called",
                  topic=circuit.get("reason"))
        say(f"handrail loop: task {slug}: refused: the circuit is open ({circuit.get('reason')} at attempt "
            f"#{circuit.get('attempt')}); the agent was not called")
        say(f"  next: {report.next_action(slug, ctx.progress, contract.path)}")
        return rules.EXIT_STOPPED
    try:
        code = prepare(ctx)
        return code if code is not None else iterate(ctx)
    except KeyboardInterrupt:
        if ctx.progress.get("run") is not None:
            for a in ctx.progress["attempts"]:
                if a.get("outcome") == "running":
                    a["outcome"], a["ended_at"] = "interrupted", clock.now_iso()
            save(ctx)
        ctx.event("loop_interrupted", "interrupted (Ctrl-C): the next `loop run` resumes this run")
        say(f"handrail loop: interrupted; `handrail loop run {slug} -- …` resumes this run")
        return 130


def save(ctx: Ctx) -> None:
    if ctx.progress.get("run") is not None:
        ctx.run["runtime_seconds"] = round(ctx.elapsed(), 3)
    state.save(ctx.task.dir, ctx.progress)


def prepare(ctx: Ctx) -> int | None:
    """Start a new run, or resume the current one; an exit code when the agent must not run."""
    p = ctx.progress
    if p["state"] == rules.PAUSED:
        ctx.base = float(ctx.run.get("runtime_seconds", 0.0))
        ctx.started = time.monotonic()
        return resume(ctx)
    if p["state"] == rules.RUNNING:
        ctx.base = float(ctx.run.get("runtime_seconds", 0.0))
        ctx.started = time.monotonic()
        if pins(ctx.project, ctx.task) != p["policy"]:
            return open_policy_gate(ctx, "while the run was interrupted")
        ctx.event("loop_resumed", "resuming an interrupted run", topic="interrupted")
        say(f"handrail loop: task {ctx.slug}: resuming an interrupted run at attempt {ctx.run['step'] + 1}")
        return None
    return new_run(ctx)


def new_run(ctx: Ctx) -> int | None:
    p, contract = ctx.progress, ctx.contract
    all_criteria = contract.criteria()
    if not checks.runnable(all_criteria):
        raise HandrailError(f"{contract.path}: criteria: no criterion has a verification command, so the loop could "
                            "never know it is done", reason="bad_arguments")
    for c in all_criteria:
        if c not in checks.runnable(all_criteria):
            say(f"handrail loop: warning: criterion '{c['id']}' has no command (or a TODO one): it counts as not "
                "verified, so this run cannot end done")
    copies = state.baseline_dir(ctx.task.dir)
    shutil.rmtree(copies, ignore_errors=True)
    baseline = worktree.take_baseline(ctx.repo, copies)
    p["run"] = {
        "id": state.new_id(), "started_at": clock.now_iso(), "agent": ctx.argv, "step": 0,
        "max_steps": ctx.max_steps(), "tokens": 0, "budget_warned": False, "runtime_seconds": 0.0,
        "signatures": {}, "violations": 0, "error_streak": 0, "touched": [], "guarded": {}, "gates": [],
        "baseline": baseline,
    }
    p["state"], p["reason"] = rules.RUNNING, None
    ctx.base, ctx.started = 0.0, time.monotonic()
    current = pins(ctx.project, ctx.task)
    if p["policy"] is not None and p["policy"] != current:
        return open_policy_gate(ctx, "since the last run")
    p["policy"] = current
    save(ctx)
    dirty = len(baseline["dirty"])
    ctx.event("loop_started", f"run {ctx.run['id']} started: {' '.join(ctx.argv)}", agent_argv=ctx.argv,
              baseline={"commit": baseline["commit"], "dirty": dirty}, circuit=p["circuit"]["state"],
              max_steps=ctx.run["max_steps"])
    half = " (circuit half-open: the first failure re-opens it)" if p["circuit"]["state"] == rules.HALF_OPEN else ""
    say(f"handrail loop: task {ctx.slug}: run {ctx.run['id']}, baseline {baseline['commit'][:7]}"
        f"{f' with {dirty} file(s) already dirty' if dirty else ''}{half}")
    return None


def resume(ctx: Ctx) -> int | None:
    """A paused run goes on only when what paused it is settled."""
    p, run = ctx.progress, ctx.run
    for g in run["gates"]:
        if g["status"] != gates.PENDING:
            continue
        found = gates.request_status(ctx.task.dir, g["theme"], g["id"])
        if found == "missing":
            # The request was removed or overwritten: ask again rather than guess.
            gate_states.request(ctx.task.dir, ctx.slug, g["theme"], g["id"], paths=g["paths"], why=g.get("why", ""))
            ctx.event("loop_gate_opened", f"gate {g['theme']} asked again: its request was missing", topic=g["theme"],
                      gate=g["id"])
            found = gates.PENDING
        if found == gates.PENDING:
            say(f"handrail loop: task {ctx.slug}: still paused: gate {g['theme']} ({g['id']}) waits for a human")
            say(f"  next: {report.next_action(ctx.slug, p, ctx.contract.path)}")
            return rules.EXIT_PAUSED
        g["status"], g["decided_at"] = found, clock.now_iso()
        if found == gates.APPROVED and g["theme"] == POLICY_THEME and g.get("pins"):
            p["policy"] = g["pins"]
    rejected = [g for g in run["gates"] if g["status"] == gates.REJECTED]
    if rejected:
        return stop(ctx, rules.GATE_REJECTED, f"a human rejected gate {rejected[0]['theme']} ({rejected[0]['id']})")
    if pins(ctx.project, ctx.task) != p["policy"]:
        return open_policy_gate(ctx, "while the loop was paused")
    gov = ctx.contract.governor()
    if rules.budget_level(run["tokens"], gov["cost_ceiling_tokens"]) == rules.EXCEEDED:
        say(f"handrail loop: task {ctx.slug}: still paused: {run['tokens']:,} tokens used of "
            f"{report.limit_text(gov['cost_ceiling_tokens'])}")
        say(f"  next: {report.next_action(ctx.slug, p, ctx.contract.path)}")
        return rules.EXIT_PAUSED
    if rules.budget_level(ctx.elapsed(), _seconds(gov["max_runtime_minutes"])) == rules.EXCEEDED:
        say(f"handrail loop: task {ctx.slug}: still paused: {report.clock_text(ctx.elapsed())} of "
            f"{gov['max_runtime_minutes']} minutes used")
        say(f"  next: {report.next_action(ctx.slug, p, ctx.contract.path)}")
        return rules.EXIT_PAUSED
    was = p["reason"]
    p["state"], p["reason"] = rules.RUNNING, None
    save(ctx)
    ctx.event("loop_resumed", f"resumed after {was}", topic=was)
    say(f"handrail loop: task {ctx.slug}: resumed after {was}, at attempt {run['step'] + 1}")
    return None


def _seconds(minutes: int | None) -> float | None:
    return None if minutes is None else minutes * 60.0


def iterate(ctx: Ctx) -> int:
    while True:
        limit = ctx.max_steps()
        ctx.run["max_steps"] = limit
        if limit is not None and ctx.run["step"] >= limit:
            return stop(ctx, rules.MAX_STEPS_REACHED, f"{ctx.run['step']} attempt(s) of {limit} without success",
                        circuit=True)
        code = attempt(ctx)
        if code is not None:
            return code


# ----------------------------------------------------------------------------- one attempt


def attempt(ctx: Ctx) -> int | None:
    p, run, task, contract = ctx.progress, ctx.run, ctx.task, ctx.contract
    n = state.next_attempt(p)
    run["step"] += 1
    folder = state.attempt_dir(task.dir, n)
    previous = p["attempts"][-1] if p["attempts"] and p["attempts"][-1].get("run") == run["id"] else None
    prev_checks = (os.path.join(state.attempts_root(task.dir), str(previous["n"]), state.CHECKS_DIR)
                   if previous else None)
    feedback = os.path.abspath(os.path.join(folder, report.FEEDBACK_FILE))
    atomic_write(feedback, report.feedback(ctx.slug, n, run["step"], run["max_steps"], previous, contract.path,
                                           prev_checks))
    record_ = {"n": n, "run": run["id"], "step": run["step"], "started_at": clock.now_iso(), "outcome": "running",
               "reason": None, "criteria": [], "criteria_run": False, "violations": [], "limits": [], "gates": []}
    p["attempts"].append(record_)
    p["state"] = rules.RUNNING
    save(ctx)

    tree = run["baseline"]["tree"]
    before, guard_before = worktree.snapshot(ctx.repo, tree), worktree.guarded(ctx.repo)
    ctx.event("loop_attempt_started", f"attempt {run['step']} of {report.limit_text(run['max_steps'])} (#{n})",
              attempt=n, step=run["step"])
    say(f"handrail loop: attempt {run['step']} of {report.limit_text(run['max_steps'])} (#{n}): {' '.join(ctx.argv)}")
    runtime_limit = _seconds(contract.governor()["max_runtime_minutes"])
    timeout = None if runtime_limit is None else max(runtime_limit - ctx.elapsed(), 1.0)
    ran = agents.run(ctx.argv, project=ctx.project, env=agents.environment(ctx.argv, ctx.slug, n, feedback),
                     log=os.path.join(folder, "agent.log"), timeout=timeout)
    record_["agent"] = {"exit_code": ran.exit_code, "timed_out": ran.timed_out, "seconds": round(ran.seconds, 3)}
    record_["tokens"], record_["tokens_source"] = ran.tokens, ran.tokens_source
    run["tokens"] += ran.tokens
    after, guard_after = worktree.snapshot(ctx.repo, tree), worktree.guarded(ctx.repo)

    # Who touched what: the agent, in its window; not the criteria between windows.
    touched = worktree.changed(before.dirty, after.dirty)
    run["touched"] = sorted(set(run["touched"]) | touched)
    window = worktree.changed(guard_before, guard_after, default=None)
    owned = state.owned_prefixes(ctx.slug)
    for path in sorted(window):
        if not path.startswith(owned):
            run["guarded"].setdefault(path, guard_before.get(path))
    still = {path for path, was in run["guarded"].items() if guard_after.get(path) != was}
    guarded_now = sorted(still | window)

    # 1. artifacts
    since = worktree.changed(run["baseline"]["dirty"], after.dirty)
    mine = since & set(run["touched"])
    found = worktree.changes(ctx.repo, run["baseline"], after, mine)
    added, removed = worktree.write_artifacts(
        ctx.repo, run["baseline"], state.baseline_dir(task.dir), found, folder,
        {"attempt": n, "this_attempt": sorted(touched | window), "guarded": guarded_now,
         "not_by_agent": sorted(since - mine)})
    record_["changes"] = len(found)
    record_["lines"] = {"added": added, "removed": removed}

    # 2. scope
    contract_scope = contract.scope(contract.path)
    violations = []
    for change in found:
        for path in change.paths():
            refusal = scope.path_refusal(path, contract_scope, agent=True)
            if refusal is not None:
                violations.append(_violation(path, refusal))
    hooks = worktree.hooks_rel(ctx.repo)
    # The protocol's write_paths (the living memory) are open to the agent: a notice, not a violation.
    write_paths = protocols.load(ctx.project).write_paths(ctx.project)
    written = [path for path in guarded_now if scope.write_path_hit(path, write_paths) is not None]
    violations += [_violation(path, worktree.guarded_refusal(path, hooks)) for path in guarded_now
                   if path not in written]
    record_["violations"] = violations
    if written:
        ctx.event("loop_write_path", f"wrote {', '.join(written)}, open to agents by the protocol's write_paths",
                  attempt=n, paths=written)

    # 3. diff limits
    gov = contract.governor()
    # the git hooks' governor rule: a commit of this attempt would be refused for the same limit
    rules_ = gitrules.task_rules(ctx.slug, contract, frozenset())
    limits = [f"{p.what} ({p.source.split(';')[0]})" for p in gitrules.limit_problems(
        rules_, len(found), lambda: (added, removed), where=f"attempt #{n}", fix="")]
    record_["limits"] = limits
    if violations:
        ctx.event("loop_scope_violation", "; ".join(v["message"] for v in violations), attempt=n,
                  paths=[v["path"] for v in violations])
        for v in violations:
            say(f"handrail loop: scope: {v['message']}")
    if limits:
        ctx.event("loop_diff_limit_exceeded", "; ".join(limits), attempt=n, files=len(found), lines=added + removed)
        for m in limits:
            say(f"handrail loop: size: {m}")
    if violations or limits:
        run["violations"] += 1
    circuit = p["circuit"]["state"]
    if run["violations"] >= rules.limits(circuit).violations:
        show_status(ctx, record_)
        return end_attempt(ctx, record_, stop(ctx, rules.SCOPE_VIOLATION_REPEAT,
                                              f"{run['violations']} attempt(s) in this run left the task's scope",
                                              circuit=True, attempt=record_))
    if pins(ctx.project, task) != p["policy"]:
        show_status(ctx, record_)
        ctx.event("loop_policy_changed", "the protocol or the contract changed during the run", attempt=n)
        return end_attempt(ctx, record_, open_policy_gate(ctx, f"during attempt #{n}", attempt=record_))

    # 4. human gates: one per theme per run
    # A write path is open by the policy itself: no policy_change.
    changed_paths = {path for change in found for path in change.paths()} | (set(guarded_now) - set(written))
    opened = []
    for theme, paths in gate_hits(contract, changed_paths, ctx.slug).items():
        if any(g["theme"] == theme for g in run["gates"]):
            continue
        opened.append(open_gate(ctx, theme, paths, f"attempt #{n} changed {', '.join(paths[:5])}", n))
    if opened:
        show_status(ctx, record_)
        record_["gates"] = [g["theme"] for g in opened]
        themes = ", ".join(g["theme"] for g in opened)
        return end_attempt(ctx, record_, pause(ctx, rules.HUMAN_GATE, f"changes under {themes} wait for a human",
                                               attempt=record_))

    # 5. criteria
    results = checks.run_all(ctx.project, contract, ctx.slug, contract.criteria(),
                             os.path.join(folder, state.CHECKS_DIR))
    record_["criteria"] = [{k: v for k, v in r.items() if k != "log"} for r in results]
    record_["criteria_run"] = True
    failing = [r for r in results if r["status"] in (checks.FAILED, checks.TIMEOUT)]
    unverified = [r for r in results if r["status"] == checks.NOT_VERIFIED]
    for r in failing:
        entry = run["signatures"].setdefault(r["signature"], {"criterion": r["id"], "first_line": r["first_line"],
                                                              "count": 0})
        entry["count"] += 1
    passed, total = checks.tally(results)
    ctx.event("loop_criteria_checked", f"{passed}/{total} criteria passed", attempt=n,
              results={r["id"]: r["status"] for r in results})

    # 6. budget
    ceiling = gov["cost_ceiling_tokens"]
    level = rules.budget_level(run["tokens"], ceiling)
    if level != rules.OK and not run["budget_warned"]:
        run["budget_warned"] = True
        ctx.event("loop_budget_warning", f"{run['tokens']:,} of {ceiling:,} tokens used", tokens=run["tokens"],
                  ceiling=ceiling)
        say(f"handrail loop: budget: {run['tokens']:,} of {ceiling:,} tokens used")
    runtime_level = rules.budget_level(ctx.elapsed(), _seconds(gov["max_runtime_minutes"]))

    # 7. circuit
    agent_failed = ran.exit_code not in (0, None)
    run["error_streak"] = run["error_streak"] + 1 if agent_failed else 0
    show_status(ctx, record_)
    if not failing and not unverified and not violations and not limits:
        return end_attempt(ctx, record_, done(ctx, record_))
    tripped = rules.trip(circuit, signature_counts=[e["count"] for e in run["signatures"].values()],
                         violations=run["violations"], error_streak=run["error_streak"])
    if tripped is not None:
        why = {rules.REPEATED_FAILURE: "the same failure twice in this run",
               rules.ERROR_STREAK_LIMIT: f"{run['error_streak']} agent failure(s) in a row"}.get(tripped, tripped)
        return end_attempt(ctx, record_, stop(ctx, tripped, why, circuit=True, attempt=record_))
    if not failing and not violations and not limits and unverified:
        names = ", ".join(r["id"] for r in unverified)
        return end_attempt(ctx, record_, stop(ctx, rules.CRITERIA_UNVERIFIED,
                                              f"every runnable criterion passed, but {names} cannot be verified",
                                              attempt=record_))
    if level == rules.EXCEEDED:
        return end_attempt(ctx, record_, pause(ctx, rules.BUDGET_EXCEEDED,
                                               f"{run['tokens']:,} tokens used, ceiling {ceiling:,}", attempt=record_))
    if runtime_level == rules.EXCEEDED:
        return end_attempt(ctx, record_, pause(ctx, rules.RUNTIME_EXCEEDED,
                                               f"{report.clock_text(ctx.elapsed())} used of "
                                               f"{gov['max_runtime_minutes']} minutes", attempt=record_))
    record_["outcome"], record_["ended_at"] = "continue", clock.now_iso()
    save(ctx)
    ctx.event("loop_attempt_finished", f"attempt #{n}: {passed}/{total} criteria passed, "
                                       f"{len(violations) + len(limits)} violation(s); trying again",
              attempt=n, outcome="continue")
    return None


def show_status(ctx: Ctx, record_: dict[str, Any]) -> None:
    """The attempt's one status line: n of max, elapsed, tokens, criteria passed."""
    say(report.status_line(record_, ctx.run, ctx.run["max_steps"], ctx.contract.governor()["cost_ceiling_tokens"],
                           ctx.elapsed()))


def end_attempt(ctx: Ctx, record_: dict[str, Any], code: int) -> int:
    ctx.event("loop_attempt_finished", f"attempt #{record_['n']}: {record_['outcome']} ({record_.get('reason')})",
              attempt=record_["n"], outcome=record_["outcome"], reason=record_.get("reason"))
    return code


def _violation(path: str, refusal: scope.Refusal) -> dict[str, Any]:
    return {"path": path, "reason": refusal.reason, "rule": refusal.rule, "source": refusal.source,
            "message": refusal.describe(path)}


def gate_hits(contract: contracts.Contract, paths: set[str], slug: str) -> dict[str, list[str]]:
    """Required gate themes whose paths the change touches, by the git hooks' own matching
    (policy_change is judged by pins). Each run asks its human once per theme, so an approval
    from an earlier run does not count here."""
    rules_ = gitrules.task_rules(slug, contract, frozenset())
    hits = gitrules.gate_hits(sorted(paths), rules_, skip=(POLICY_THEME,))
    return {theme: found for theme, (found, _pattern) in hits.items()}


# ----------------------------------------------------------------------------- endings


def open_gate(ctx: Ctx, theme: str, paths: list[str], why: str, attempt_no: int | None,
              **extra: object) -> dict[str, Any]:
    run = ctx.run
    gate_id = f"{run['id']}-{theme}-{len(run['gates']) + 1}"
    gate_states.request(ctx.task.dir, ctx.slug, theme, gate_id, paths=paths, why=why)
    entry = {"id": gate_id, "theme": theme, "paths": paths, "why": why, "attempt": attempt_no,
             "opened_at": clock.now_iso(), "status": gates.PENDING, **extra}
    run["gates"].append(entry)
    ctx.event("loop_gate_opened", f"gate {theme} ({gate_id}): {why}", topic=theme, gate=gate_id, paths=paths)
    return entry


def open_policy_gate(ctx: Ctx, when: str, attempt: dict[str, Any] | None = None) -> int:
    current = pins(ctx.project, ctx.task)
    pinned = ctx.progress["policy"] or {}
    paths = [current[k]["path"] for k in ("protocol", "contract") if pinned.get(k) != current[k]]
    why = f"{', '.join(paths)} changed {when}"
    open_gate(ctx, POLICY_THEME, paths, why, attempt["n"] if attempt else None, pins=current)
    return pause(ctx, rules.POLICY_CHANGED, f"{why}: an agent may not loosen its own leash mid-run", attempt=attempt)


def pause(ctx: Ctx, reason: str, why: str, attempt: dict[str, Any] | None = None) -> int:
    return _end(ctx, rules.PAUSED, reason, why, attempt, rules.EXIT_PAUSED)


def stop(ctx: Ctx, reason: str, why: str, *, circuit: bool = False, attempt: dict[str, Any] | None = None) -> int:
    if circuit:
        c = ctx.progress["circuit"]
        c.update(state=rules.OPEN, reason=reason, at=clock.now_iso(), attempt=attempt["n"] if attempt else None)
        ctx.event("loop_circuit_open", f"circuit open: {reason}: {why}", topic=reason, reason=reason)
    return _end(ctx, rules.STOPPED, reason, why, attempt, rules.EXIT_STOPPED)


def done(ctx: Ctx, attempt: dict[str, Any]) -> int:
    c = ctx.progress["circuit"]
    if c["state"] != rules.CLOSED:
        c.update(state=rules.CLOSED, reason=None, at=clock.now_iso(), attempt=attempt["n"])
    return _end(ctx, rules.FINISHED, rules.DONE, "every criterion passed with no violation", attempt, rules.EXIT_DONE)


def _end(ctx: Ctx, new_state: str, reason: str, why: str, attempt: dict[str, Any] | None, code: int) -> int:
    p = ctx.progress
    p["state"], p["reason"] = new_state, reason
    if attempt is not None:
        attempt["outcome"] = new_state
        attempt["reason"] = reason
        attempt["ended_at"] = clock.now_iso()
    save(ctx)
    kind = {rules.PAUSED: "loop_paused", rules.STOPPED: "loop_stopped", rules.FINISHED: "loop_done"}[new_state]
    ctx.event(kind, f"{reason}: {why}", topic=reason, reason=reason, tokens=ctx.run["tokens"], step=ctx.run["step"])
    summary(ctx, new_state, reason, why)
    return code


def summary(ctx: Ctx, new_state: str, reason: str, why: str) -> None:
    run = ctx.run
    mine = [a for a in ctx.progress["attempts"] if a.get("run") == run["id"]]
    word = {rules.PAUSED: "paused", rules.STOPPED: "stopped", rules.FINISHED: "done"}[new_state]
    head = word if new_state == rules.FINISHED else f"{word} ({reason})"
    say(f"handrail loop: task {ctx.slug}: {head}: {why}")
    say(f"  attempts: {len(mine)} in this run (step {run['step']} of {report.limit_text(run['max_steps'])}); "
        f"{report.clock_text(ctx.elapsed())} elapsed; {run['tokens']:,} tokens")
    last = mine[-1] if mine else None
    if last and last.get("criteria_run"):
        say("  criteria: " + ", ".join(f"{c['id']} {c['status']}" for c in last["criteria"]))
    say(f"  artifacts: {state.shown(ctx.slug, state.ATTEMPTS_DIR)}/")
    say(f"  next: {report.next_action(ctx.slug, ctx.progress, ctx.contract.path)}")
