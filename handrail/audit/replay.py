"""Past calls judged by the current policy: what it would refuse, or ask a human for.

Every judgement is the one the live layers make, called, never restated:
- a shell command: the classifier (`policy/shell/engine.classify`, from the call's folder) for
  its tier, and what it writes inside the project judged as edits, as the pre-tool hooks do;
- an edit or a write: can-edit's rules for the file (`policy/edits.judge_file`, relative to the
  work tree that holds it: the project or a linked worktree of its repository), with the tasks
  the task history shows in an edit phase at the call's time. Where it shows none (every task in
  another phase, or no task yet) the edit is what can-edit refuses (`no_edit_tasks`); a call
  with no time, or one that cannot be read, is judged the strictest way (`time_unknown`): no
  task can be shown to have allowed it;
- a read: the secrets rule the hooks' Read checks apply (`hooks/pretool.secret_at`);
- a search: the hooks' search judgement (`hooks/search.judge`), over the files there now and
  with the tool's own globs (a search of `*.py` reads no `.env`);
- a shell glob (`cat .en?`) names today's files, not those of the session's time: a finding
  on a command with one says so, and a glob of hidden names that could name a secret is `ask`
  even when it names none today (unknown is not harmless).
A session that ran in a folder above the project is judged only by its calls that reach into
the project (`Policy.reaches`).
A tier-3 command is `ask` (`refuse` where the policy denies tier 3); every other finding is
`refuse`. An unlisted command is no finding: the harness's own default decides it live too.
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple

from handrail.audit.calls import Call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

    from handrail.policy.protocol import Protocol
    from handrail.policy.scope import ContractScope
    from handrail.policy.tasks import Task


class Finding(NamedTuple):
    call: Call
    verdict: str  # "refuse" | "ask"
    rule: str  # the pattern or rule that decided
    why: str  # one line, as the live layer would say it


class TaskLine(NamedTuple):
    """A task, its contract's scope, and its phase changes in time order."""

    task: Task
    scope: ContractScope | None
    changes: list[tuple[datetime, str]]


class Policy:
    """The current policy of a project, loaded once for a whole audit."""

    def __init__(self, project: str, home: str) -> None:
        from handrail.policy import contract as contracts
        from handrail.policy import protocol as protocols
        from handrail.policy import tasks as taskmod
        from handrail.projectroot import Root, git_tree, linked_trees

        self.project = os.path.abspath(project)
        self.home = home
        tree = git_tree(self.project)
        self.root = Root(self.project, tree.common if tree is not None else None, "git")
        self.trees = [self.project, *linked_trees(self.root)]
        self.proto: Protocol = protocols.load(self.project)
        self.lines: list[TaskLine] = []
        for t in taskmod.load_all(self.project):
            contract = contracts.load(t.dir, os.path.join(taskmod.TASKS_DIR, t.slug, contracts.CONTRACT_FILE))
            self.lines.append(TaskLine(t, contract.scope() if contract else None, _changes(t)))

    def engine(self, harness: str) -> Any:
        from handrail.policy.shell import engine as commands

        # A protocol without this harness in its tools (a v1.0 file) is read for all tools, as the hooks read it.
        tool = harness if harness in (self.proto.data.get("tools") or {}) else None
        return commands.engine(self.proto, tool)

    def editing_at(self, when: str | None) -> list[tuple[Task, ContractScope | None]] | None:
        """The tasks in an edit phase at `when`, most recently moved first (none when no task
        was, or none existed yet); None when the time is missing or cannot be read."""
        from handrail.policy.tasks import EDIT_PHASES

        at = _parsed(when)
        if at is None:
            return None
        open_: list[tuple[datetime, TaskLine]] = []
        for line in self.lines:
            before = [(t, phase) for t, phase in line.changes if t <= at]
            if before and before[-1][1] in EDIT_PHASES:
                open_.append((before[-1][0], line))
        open_.sort(key=lambda x: (x[0], x[1].task.slug), reverse=True)
        return [(line.task, line.scope) for _t, line in open_]

    def phases_at(self, when: str | None) -> list[dict[str, str]]:
        """Each task that existed at `when`, with the phase its history shows then."""
        at = _parsed(when)
        out = []
        for line in self.lines:
            before = [phase for t, phase in line.changes if at is not None and t <= at]
            if before:
                out.append({"task": line.task.slug, "phase": before[-1]})
        return out

    def tree_of(self, path: str) -> str | None:
        """The work tree of the project's repository (the project, or a linked worktree) that
        holds the absolute `path`; None when it lies in none."""
        from handrail.hooks.pretool import inside
        from handrail.projectroot import work_tree_of

        tree = work_tree_of(path, self.root)
        return tree if inside(path, tree) is not None else None

    def reaches(self, call: Call) -> bool:
        """Whether a call is the project's: made in one of its work trees, or, from a folder
        above them, naming a path inside one (a path it was given, or one its command writes or
        names: `cd project && …` names the project's folder)."""
        from handrail.audit.jsonl import inside

        cwd = call.cwd if call.cwd and os.path.isabs(call.cwd) else None
        if cwd is None or any(inside(cwd, t) for t in self.trees):
            return True
        if any(self.tree_of(_absolute(p, cwd)) for p in call.paths if "\0" not in p):
            return True
        command = call.command or ""
        for tree in self.trees:
            for shown in {tree, os.path.realpath(tree), os.path.relpath(tree, cwd)}:
                if shown in command:
                    return True
        return False


def _changes(task: Task) -> list[tuple[datetime, str]]:
    out = []
    for entry in task.data.get("history", []):
        at = _parsed(entry.get("at")) if isinstance(entry.get("at"), str) else None
        if at is not None and isinstance(entry.get("to"), str):
            out.append((at, str(entry["to"])))
    return sorted(out, key=lambda x: x[0])


def _parsed(when: str | None) -> datetime | None:
    from handrail.records.clock import parse_iso

    if not when:
        return None
    try:
        return parse_iso(when)
    except ValueError:
        return None


def judge(call: Call, policy: Policy) -> Finding | None:
    """The finding for one call, or None when the policy would let it through."""
    cwd = call.cwd if call.cwd and os.path.isabs(call.cwd) else policy.project
    if call.kind == "shell" and call.command is not None:
        return _shell(call, policy, cwd)
    if call.kind in ("edit", "write"):
        return _edits(call, policy, cwd, list(call.paths))
    if call.kind == "read":
        return _read(call, policy, cwd)
    if call.kind == "search":
        return _search(call, policy, cwd)
    return None


def _absolute(path: str, cwd: str) -> str:
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))


TIME_UNKNOWN = "time_unknown"


def _edits(call: Call, policy: Policy, cwd: str, paths: list[str], command: str | None = None) -> Finding | None:
    """can-edit's answer for each path at the call's time. With no task in an edit phase then,
    an edit the rules that hold whatever the task let through is still refused, as can-edit
    refuses it (`no_edit_tasks`); with no time known, as `time_unknown`."""
    from handrail.policy.edits import explain, judge_file

    tasks = policy.editing_at(call.time)
    for given in paths:
        if "\0" in given or not given.strip():
            continue
        file = _absolute(given, cwd)
        answer = judge_file(policy.project, [t for t, _s in tasks or []], tasks or [], file,
                            tree=policy.tree_of(file) or policy.project)
        if answer["allowed"] and answer["reason"] == "no_task":
            answer = {"allowed": False, "reason": "no_edit_tasks", "file": answer["file"],
                      "tasks": policy.phases_at(call.time)}
        if answer["allowed"]:
            continue
        text = explain(answer, policy.project).removeprefix("denied: ")
        rule = str(answer.get("rule") or answer["reason"])
        if tasks is None:
            text = (f"the call's time is missing or cannot be read ({call.time!r}), so no task can be shown to "
                    f"have been in an edit phase: {text}")
            rule = TIME_UNKNOWN if answer["reason"] == "no_edit_tasks" else rule
        if command is not None:
            text = f"the command writes {answer.get('file', given)}, an edit: {text}"
        return Finding(call, "refuse", rule, text)
    return None


def _shell(call: Call, policy: Policy, cwd: str) -> Finding | None:
    from handrail.policy.shell import engine as commands
    from handrail.policy.shell import unwrap, writes
    from handrail.policy.shell.syntax import ShellSyntaxError

    command = call.command or ""
    try:
        parts: list[Any] | None = unwrap.split(command, cwd, policy.home)
    except ShellSyntaxError:
        parts = None  # classify answers tier 3 for it
    targets = [p for p in (writes.touched_paths(parts, policy.home) if parts is not None else [])
               if not p.startswith("/dev/") and policy.tree_of(p) is not None]
    if targets:
        found = _edits(call, policy, cwd, targets, command)
        if found is not None:
            return found
    answer = commands.classify(command, policy.engine(call.harness), cwd=cwd, project=policy.project,
                               home=policy.home, parts=parts)
    globs = [w for p in parts or [] for w in p.words[1:] if w.glob and not w.dyn]
    if answer["tier"] != 3:
        return _glob_could_name(call, globs)
    decisive = [r for r in answer["reasons"] if r.get("tier") == 3]
    rule = str(decisive[0].get("pattern") or decisive[0].get("rule") or "tier3") if decisive else "tier3"
    verdict = "refuse" if policy.proto.tier3_decision == "deny" else "ask"
    why = commands.summary(answer)
    if globs:
        why += f" (its glob{'s' if len(globs) > 1 else ''} {', '.join(w.raw for w in globs)} judged against the " \
               "files there now, not those there when it ran)"
    return Finding(call, verdict, rule, why)


def _glob_could_name(call: Call, globs: list[Any]) -> Finding | None:
    """`cat .en?` in a folder with no `.env` today: what it named when it ran is not known, and
    it could have been a secret. Ask, as for a file named only at run time. Only a glob for
    hidden names: those are what secrets are named (`.env`, `.netrc`), and a glob of every name
    (`*.json`, `src/*`) could name one as well, so asking for it would ask for every glob."""
    from handrail.policy.shell.overlap import name_meeting
    from handrail.policy.shell.reads import CREDENTIALS, SECRETS

    for w in globs:
        name = w.text.rstrip("/").rsplit("/", 1)[-1]
        pattern = name_meeting(name, SECRETS + CREDENTIALS) if name.startswith(".") else None
        if pattern is not None:
            return Finding(call, "ask", "glob-then", f"{w.raw} is a glob judged against the files there now: when "
                                                     f"the command ran it could have named a file matching '{pattern}'")
    return None


def _read(call: Call, policy: Policy, cwd: str) -> Finding | None:
    from handrail.hooks.pretool import secret_at

    for given in call.paths:
        if "\0" in given or not given.strip():
            continue
        found = secret_at(_absolute(given, cwd), policy.project)
        if found is not None:
            shown, refusal = found
            return Finding(call, "refuse", refusal.rule,
                           f"reading {shown}: rule '{refusal.rule}' from {refusal.source} ({refusal.why})")
    return None


def _search(call: Call, policy: Policy, cwd: str) -> Finding | None:
    from handrail.hooks.pretool import DENY, PREFIX, SEARCH, Question
    from handrail.hooks.search import judge as judge_search

    if any("\0" in p for p in call.paths + call.globs):
        return None
    q = Question(SEARCH, f"{call.harness} search", paths=list(call.paths), globs=list(call.globs), cwd=cwd)
    answer = judge_search(q, policy.project, cwd)
    if answer.verdict != DENY:
        return None
    return Finding(call, "refuse", "secrets", answer.message.removeprefix(PREFIX).removeprefix("denied: "))
