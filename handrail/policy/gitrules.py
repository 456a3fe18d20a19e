"""What git's hooks refuse: pure decisions over data the hooks have already read.

Pre-commit rules, each binding whom the table below says:

1. `edit_task`   no task is in an edit phase (binds everyone, or only agents when the
                 protocol says `"git": {"edit_task_required_for": "agents"}`);
2. `path`        a changed path (both sides of a rename or copy) is default-forbidden
                 or protected (each pattern says whom it binds), forbidden by an edit
                 task's contract, or outside the `allowed_files` of every edit task
                 whose contract has them. Protected paths are handrail's and the
                 harnesses' own files: a human's change to one is outside every
                 contract's scope rules, and an agent's change to one the protocol's
                 `write_paths` open passes with a notice (`write_path_notices`),
                 bound only by the contracts' `forbidden_files`. An agent's symbolic
                 link or submodule that leads where no path rule looks is refused
                 the same way (policy/links.py, through hooks/gitcheck.py);
3. `human_gate`  a changed path falls under a gate theme an edit task's contract
                 requires, and no human approved that gate;
4. `governor`    the change exceeds `max_changed_files` or `max_diff_lines`;
5. `secret`      the new content, or the name of a path a change adds, carries a private
                 key or a well-known token (policy/secretscan.py finds them).

Pre-push judges each pushed commit by who made it (policy/authorship.py): rules that
bind agents bind an agent's commit whoever pushes it, and never a human's. It adds
`publish`, which binds the pusher: an agent's force push, ref deletion, tag push or
push to a protected branch needs a human to approve the task's `publish` gate, and so
does a push by anyone that brings an agent's commits onto a protected branch or a tag
(a release of the agent's work is not made a human's call by unsetting a variable).
A human's own force push or deletion is the human's call.

Nothing here imports git or click; the hooks hand in paths, counts and bytes.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple, Protocol

from handrail.policy import scope
from handrail.policy.agents import Agent
from handrail.policy.globs import PatternSet
from handrail.policy.secretscan import find_secrets, in_name
from handrail.policy.tasks import EDIT_PHASES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.contract import Contract

EDIT_TASK, PATH, HUMAN_GATE, GOVERNOR, SECRET, PUBLISH = (
    "edit_task", "path", "human_gate", "governor", "secret", "publish")
EVERYONE, AGENTS = scope.EVERYONE, scope.AGENTS
SECRETS_SOURCE = "handrail built-in secret patterns"
PROTOCOL_KEY = "git.edit_task_required_for"

# Each rule, whom it binds by default (`path` rules say it per pattern, in scope.py;
# the protocol may narrow `edit_task` to agents), and what it asks.
RULES: tuple[tuple[str, str, str], ...] = (
    (EDIT_TASK, EVERYONE, "a commit that changes files, and a push that carries commits, need a task in an edit phase"),
    (PATH, "per pattern", "changed paths (both sides of a rename or copy) must pass every path rule"),
    (HUMAN_GATE, EVERYONE, "a path under a gate theme the contract requires waits for a human's approval"),
    (GOVERNOR, EVERYONE, "each commit, and a task's commits of a push or pull request together, stay within "
                         "max_changed_files and max_diff_lines"),
    (SECRET, EVERYONE, "no private key or well-known token in committed content"),
    (PUBLISH, AGENTS, "a force push, a ref deletion, a tag or a push to a protected branch waits for the publish "
                      "gate; agents' commits onto a protected branch or a tag wait for it whoever pushes"),
)


class ChangeLike(Protocol):
    """What a rule needs to know of one changed path (repo.Change fits)."""

    @property
    def status(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def old_path(self) -> str | None: ...


class Problem(NamedTuple):
    """One reason to refuse: what, which rule from which file, and the way forward."""

    rule: str
    what: str
    source: str
    fix: str
    path: str | None = None
    commit: str | None = None
    line: int | None = None                       # where in `path`, when the rule knows (a secret's line)

    def render(self, number: int) -> str:
        return f"  {number}. {self.what}\n     rule: {self.source}\n     next: {self.fix}"

    def as_dict(self) -> dict[str, str | None]:
        return {"rule": self.rule, "what": self.what, "source": self.source, "fix": self.fix,
                "path": self.path, "commit": self.commit}


class TaskRules(NamedTuple):
    """One edit task, as the git rules see it (read from its files by the hook)."""

    slug: str
    contract: str | None                          # the contract's path, for messages
    scope: scope.ContractScope | None
    gates: tuple[tuple[str, PatternSet], ...]     # required theme -> its paths
    approved: frozenset[str]                      # themes a human approved
    limits: dict[str, int | None]                 # max_changed_files, max_diff_lines


def task_rules(slug: str, contract: Contract | None, approved: frozenset[str]) -> TaskRules:
    """The rules one task's contract sets: what the git hooks and the loop runner both judge by."""
    if contract is None:
        return TaskRules(slug, None, None, (), approved, {})
    gates = tuple((theme, PatternSet(list(paths), ignore_case=True))
                  for theme, paths in contract.gate_paths().items() if paths)
    gov = contract.governor()
    limits = {k: gov[k] for k in ("max_changed_files", "max_diff_lines")}
    return TaskRules(slug, contract.path, contract.scope(contract.path), gates, approved, limits)


class TaskState(NamedTuple):
    slug: str
    phase: str
    editing: bool = False                         # in an edit phase handrail itself set


class GitPolicy(NamedTuple):
    agent: Agent | None
    edit_task_required_for: str                   # EVERYONE or AGENTS
    protocol: str                                 # where that setting comes from
    tasks: tuple[TaskState, ...]                  # every task, for rule 1's message
    edit: tuple[TaskRules, ...]                   # tasks in an edit phase, most recent first
    protected_branches: tuple[str, ...]
    write_paths: scope.WritePaths | None = None   # the protocol's tiers.tier2_notified.write_paths


# Where no policy can be read (a commit whose protocol is unreadable, in ci): every path rule
# that binds everyone still holds, and no task is in an edit phase.
NO_POLICY = GitPolicy(None, EVERYONE, "no readable policy", (), (), ())


def display(path: str) -> str:
    """A path fit to print: bytes that are not UTF-8 shown as `\\xNN`, and what a terminal
    would act on or hide (`\\r`, ESC, zero-width and bidi characters) escaped as `repr`
    escapes it, so the log a person reads shows what the path holds."""
    text = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def quoted(path: str) -> str:
    return shlex.quote(display(path))


def binds(policy: GitPolicy, whom: str) -> bool:
    return whom == EVERYONE or policy.agent is not None


def _who(policy: GitPolicy) -> str:
    return f"an agent ({policy.agent.evidence()})" if policy.agent else "a human"


# --------------------------------------------------------------------------- rule 1


def edit_task_problem(policy: GitPolicy, *, pushing: bool = False,
                      changes: Iterable[ChangeLike] | None = None) -> Problem | None:
    """Rule 1. A human's commit of handrail's own files only (what `init` wrote, a
    task's files, the description) is setting handrail up, and needs no task."""
    if policy.edit or not binds(policy, policy.edit_task_required_for):
        return None
    if policy.agent is None and changes is not None and _only_own(changes):
        return None
    phases = ", ".join(EDIT_PHASES)
    source = (f"edits need a task in an edit phase ({phases}); binds {policy.edit_task_required_for} "
              f"({PROTOCOL_KEY} in {policy.protocol})")
    if len(policy.tasks) == 1:
        t = policy.tasks[0]
        what = f"task '{t.slug}' is in phase {t.phase}, not an edit phase"
        fix = f"a human moves it on: handrail task phase {t.slug} implement"
    elif policy.tasks:
        what = f"no task is in an edit phase ({', '.join(f'{t.slug}: {t.phase}' for t in policy.tasks)})"
        fix = "a human moves one on: handrail task phase SLUG implement"
    else:
        what = "no task exists, so nothing may be committed" if not pushing else "no task exists"
        fix = "a human starts one: handrail task new SLUG --phase implement"
    if pushing:
        what += " (this is what catches work committed with --no-verify)"
    return Problem(EDIT_TASK, what, source, fix)


def _only_own(changes: Iterable[ChangeLike]) -> bool:
    paths = [p for c in changes for p in (c.path, c.old_path) if p]
    return bool(paths) and all(scope.handrail_own(p) for p in paths)


# --------------------------------------------------------------------------- rule 2


def _builtin_any(agent: bool) -> Callable[[str], object]:
    """One regex for every built-in pattern binding this audience. Most paths match
    none, and one search costs far less than thirty: a path it lets through is
    refused by no built-in rule (the tables hold no negations), and a path it flags
    goes to `scope.builtin_refusal` for the rule and the reason."""
    if agent not in _ANY:
        audience = (EVERYONE, AGENTS) if agent else (EVERYONE,)
        patterns = [p for table in (scope.DEFAULT_FORBIDDEN, scope.PROTECTED)
                    for p, who, _why in table if who in audience]
        _ANY[agent] = _union(patterns)
    return _ANY[agent]


def _union(patterns: list[str]) -> Callable[[str], object]:
    try:
        from handrail.policy.globs import pattern_regexes
    except ImportError:  # the matcher changed shape: send every path the slow way
        return lambda _path: True
    parts = []
    for pattern in patterns:
        rx = pattern_regexes(pattern)
        if rx is None:
            continue
        _negated, names, covers = rx
        if names is not None:
            parts.append(f"(?:{names})$")
        if covers is not None:
            parts.append(f"(?:{covers})")
    if not parts:
        return lambda _path: None
    return re.compile("|".join(parts), re.IGNORECASE | re.DOTALL).match


_ANY: dict[bool, Callable[[str], object]] = {}
_BINDS = {p: who for table in (scope.DEFAULT_FORBIDDEN, scope.PROTECTED) for p, who, _why in table}


def path_fix(path: str, commit: str | None, added: bool = False) -> str:
    if commit:
        return f"take it out of commit {commit[:7]} and push again: git rebase -i {commit[:7]}^"
    if added:  # `restore --staged` needs a HEAD, and only `rm --cached` unstages a new file
        return f"unstage it (the file stays on disk): git rm --cached -q -- {quoted(path)}"
    return f"unstage it: git restore --staged -- {quoted(path)}"


def path_problems(change: ChangeLike, policy: GitPolicy, commit: str | None = None) -> list[Problem]:
    """Rule 2 for both sides of one change; the first rule that refuses a side wins."""
    out = []
    sides = (change.path,) if not change.old_path or change.old_path == change.path else (change.path, change.old_path)
    for path in sides:
        problem = _one_path(path, change, policy, commit)
        if problem is not None:
            out.append(problem)
    return out


def _one_path(path: str, change: ChangeLike, policy: GitPolicy, commit: str | None) -> Problem | None:
    agent = policy.agent is not None
    shown = display(path)
    how = {"D": " (deleted)", "R": " (a side of a rename)", "C": " (a side of a copy)"}.get(change.status, "")
    added = change.status == "A" or (change.status in ("R", "C") and path == change.path)
    opened = False
    if _builtin_any(agent)(path):
        refusal = scope.builtin_refusal(path, agent=agent, write_paths=policy.write_paths if agent else None)
        opened = agent and refusal is None
        # A human deleting a tracked secret is fixing a leak, not making one.
        human_cleanup = (not agent and change.status == "D" and path == change.path
                         and refusal is not None and refusal.reason == scope.FORBIDDEN_FILE)
        if refusal is not None and not human_cleanup:
            whom = _BINDS.get(refusal.rule, EVERYONE)
            state = "is forbidden" if refusal.reason == scope.FORBIDDEN_FILE else "is protected"
            fix = path_fix(path, commit, added)
            if whom == AGENTS:
                fix += " (a human may make this change)"
            return Problem(PATH, f"{shown}{how} {state}: {refusal.why}",
                           f"'{refusal.rule}' from {refusal.source}; binds {whom}", fix, path, commit)
    if not any(t.scope is not None for t in policy.edit) or (not agent and scope.handrail_own(path)):
        return None  # no contract scopes handrail's own files for a human
    bounded = [] if opened else [t for t in policy.edit if t.scope is not None and t.scope.allowed.patterns]
    for t in policy.edit:
        if t.scope is None:
            continue
        hit = t.scope.forbidden.match(path)
        if hit is not None:
            return Problem(PATH, f"{shown}{how} is forbidden by task '{t.slug}'",
                           f"forbidden_files '{hit}' from {t.contract}; binds everyone",
                           path_fix(path, commit, added), path, commit)
    if bounded and not any(t.scope is not None and t.scope.allowed.match(path) is not None for t in bounded):
        sources = "; ".join(f"allowed_files {', '.join(t.scope.allowed.patterns)} from {t.contract}"  # type: ignore[union-attr]
                            for t in bounded)
        fix = (path_fix(path, commit, added) if commit else
               f"{path_fix(path, commit, added)}, or a human widens allowed_files in {bounded[0].contract}")
        return Problem(PATH, f"{shown}{how} is outside the allowed_files of every edit task",
                       f"{sources}; binds everyone", fix, path, commit)
    return None


def write_path_notices(changes: Iterable[ChangeLike], policy: GitPolicy) -> list[str]:
    """One line per protected path an agent's commit changes that write_paths open."""
    if policy.agent is None or policy.write_paths is None:
        return []
    out = []
    for change in changes:
        for path in dict.fromkeys(p for p in (change.path, change.old_path) if p):
            pattern = scope.write_path_hit(path, policy.write_paths)
            if pattern is not None:
                out.append(policy.write_paths.notice(display(path), pattern))
    return out


# --------------------------------------------------------------------------- rule 3


POLICY_CHANGE = "policy_change"


def _opened(path: str, policy: GitPolicy) -> bool:
    """A write path is open to agents by the policy itself: changing it is no policy change."""
    return scope.write_path_hit(path, policy.write_paths) is not None


def gate_problems(changes: Iterable[ChangeLike], policy: GitPolicy) -> list[Problem]:
    """Rule 3: one problem per (task, theme) still waiting for a human, naming the paths."""
    if not any(theme not in t.approved for t in policy.edit for theme, _spec in t.gates):
        return []
    paths = [p for change in changes for p in dict.fromkeys(q for q in (change.path, change.old_path) if q)]
    out = []
    for t in policy.edit:
        for theme, (hit, pattern) in gate_hits(paths, t, opened=lambda p: _opened(p, policy)).items():
            out.append(_gate_problem(t, theme, hit, pattern))
    return out


def gate_hits(paths: Iterable[str], t: TaskRules, *, opened: Callable[[str], bool] = lambda _p: False,
              skip: Iterable[str] = ()) -> dict[str, tuple[list[str], str]]:
    """Theme -> (the paths under it, the first pattern that matched), for each of task `t`'s
    gates a human has not approved (nor one in `skip`). A path the protocol's write_paths
    open (`opened`) is no policy change. The git hooks and the loop runner both ask this."""
    out: dict[str, tuple[list[str], str]] = {}
    skipped = set(skip) | t.approved
    for path in paths:
        for theme, spec in t.gates:
            if theme in skipped or (theme == POLICY_CHANGE and opened(path)):
                continue
            hit = spec.match(path)
            if hit is not None:
                out.setdefault(theme, ([], hit))[0].append(path)
    return out


def _gate_problem(t: TaskRules, theme: str, paths: list[str], hit: str) -> Problem:
    slug = t.slug
    shown = ", ".join(display(p) for p in paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
    return Problem(HUMAN_GATE, f"{shown} needs the human gate '{theme}' of task '{slug}', not approved",
                   f"human_gate.required_for '{theme}' (path '{hit}') from {t.contract}; binds everyone",
                   f"a human approves it: handrail gate approve {slug} {theme}", paths[0])


def policy_change_problems(changes: Iterable[ChangeLike], policy: GitPolicy,
                           commit: str | None = None) -> list[Problem]:
    """A change to the policy itself, whoever made it: one problem per path under the
    `policy_change` gate's paths (every protected path: handrail's policy, tasks and
    contracts, the git hooks' config, each harness's permission files). A write path
    is open by the policy itself: no policy change. The CI check reports these, so a
    pull request that loosens the rules it is judged by says so to its reviewer."""
    out = []
    for change in changes:
        for path in dict.fromkeys(p for p in (change.path, change.old_path) if p):
            found = scope.protected_rule(path)
            if found is None or _opened(path, policy):
                continue
            pattern, why = found
            how = {"D": " (deleted)", "R": " (a side of a rename)", "C": " (a side of a copy)"}.get(change.status, "")
            out.append(Problem(POLICY_CHANGE, f"{display(path)}{how} changes the policy: {why}",
                               f"'{pattern}' from {scope.BUILTIN_PROTECTED} (the {POLICY_CHANGE} gate's paths); "
                               "binds everyone",
                               "a reviewer who is not its author checks the change before it is merged",
                               path, commit))
    return out


# --------------------------------------------------------------------------- rule 4


def governor_problems(files: int, lines: Callable[[], tuple[int, int]], policy: GitPolicy,
                      commit: str | None = None) -> list[Problem]:
    """Rule 4 against each edit task's limits (so the strictest decides).

    `lines` is called only when some task limits diff lines: counting reads every blob.
    """
    where = "the commit" if commit else "this commit"
    split = (f"split {where} into smaller commits: git rebase -i {commit[:7]}^" if commit
             else "commit fewer files at a time: git restore --staged -- PATH…")
    counted: list[tuple[int, int]] = []

    def once() -> tuple[int, int]:
        if not counted:
            counted.append(lines())
        return counted[0]

    return [p for t in policy.edit for p in limit_problems(t, files, once, where=where, fix=split, commit=commit)]


def limit_problems(t: TaskRules, files: int, lines: Callable[[], tuple[int, int]], *, where: str, fix: str,
                   commit: str | None = None) -> list[Problem]:
    """Task `t`'s governor against a change of `files` files and `lines()` (added, removed)
    lines, `where` naming the change (`this commit`, `attempt #2`): the git hooks' rule 4,
    which the loop runner asks of each attempt too."""
    out: list[Problem] = []
    limit = t.limits.get("max_changed_files")
    if limit is not None and files > limit:
        out.append(Problem(GOVERNOR, f"{where} changes {files} files, more than task '{t.slug}' allows ({limit})",
                           f"governor.max_changed_files from {t.contract}; binds everyone", fix, commit=commit))
    limit = t.limits.get("max_diff_lines")
    if limit is not None:
        added, removed = lines()
        if added + removed > limit:
            out.append(Problem(GOVERNOR, f"{where} changes {added + removed} lines (+{added} -{removed}), "
                                         f"more than task '{t.slug}' allows ({limit})",
                               f"governor.max_diff_lines from {t.contract}; binds everyone", fix, commit=commit))
    return out


# --------------------------------------------------------------------------- rule 5
# The finder is policy/secretscan.py; these say what each hit means for a commit.


def message_secret_problems(message: str, commit: str) -> list[Problem]:
    """A key or a token in a commit's message: the message is in the history as much as the files are."""
    out = []
    for hit in find_secrets(message.encode("utf-8", "surrogateescape")):
        out.append(Problem(SECRET, f"the message of commit {commit[:7]} carries {_article(hit.kind)} {hit.kind} "
                                   f"({hit.preview})",
                           f"{hit.kind} pattern from {SECRETS_SOURCE}; binds everyone",
                           f"rotate it, then reword the commit: git rebase -i {commit[:7]}^ (reword)",
                           None, commit, hit.line))
    return out


def _article(kind: str) -> str:
    return "an" if kind[0] in "AEIOU" else "a"


def name_secret_problems(change: ChangeLike, commit: str | None = None) -> list[Problem]:
    """A token in the name of a path a change adds (or renames or copies to): a file name
    is in the history as much as its content. The path is shown with the token cut down
    to its preview, so the report does not publish it again."""
    if change.status == "D":
        return []
    hits, shown = in_name(change.path)
    fix = (f"rotate it, then rename the file (git ls-files | grep -F '{hits[0].preview.rstrip('…')}' finds it)"
           if hits else "")
    fix += "" if commit is None else f" in commit {commit[:7]}: git rebase -i {commit[:7]}^"
    return [Problem(SECRET, f"the file name {display(shown)} carries {_article(h.kind)} {h.kind} ({h.preview})",
                    f"{h.kind} pattern from {SECRETS_SOURCE}; binds everyone", fix, display(shown), commit)
            for h in hits]


def identity_secret_problems(author: str, committer: str, commit: str) -> list[Problem]:
    """A token in a commit's author or committer (name or address): both are published with it."""
    out = []
    for role, who in (("author", author), ("committer", committer)):
        for h in in_name(who)[0]:
            out.append(Problem(SECRET, f"the {role} of commit {commit[:7]} carries {_article(h.kind)} {h.kind} "
                                       f"({h.preview})",
                               f"{h.kind} pattern from {SECRETS_SOURCE}; binds everyone",
                               f"rotate it, then remake the commit under a real {role}: git rebase -i "
                               f"{commit[:7]}^ (edit, then git commit --amend --reset-author)",
                               None, commit))
    return out


def secret_problems(path: str, data: bytes, commit: str | None = None) -> list[Problem]:
    out = []
    for hit in find_secrets(data):
        where = f"{display(path)}:{hit.line}"
        fix = (f"remove it from the file, then: git add -- {quoted(path)}" if commit is None
               else f"remove it from commit {commit[:7]} and rotate it: git rebase -i {commit[:7]}^")
        out.append(Problem(SECRET, f"{where} carries {_article(hit.kind)} {hit.kind} ({hit.preview})",
                           f"{hit.kind} pattern from {SECRETS_SOURCE}; binds everyone", fix, path, commit,
                           hit.line))
    return out


# --------------------------------------------------------------------------- pre-push rule 3


class RefUpdate(NamedTuple):
    """One line git hands to pre-push, with what the hook worked out about it."""

    local_ref: str
    local_oid: str | None          # None: the ref is being deleted
    remote_ref: str
    remote_oid: str | None         # None: the remote has no such ref yet
    force: bool                    # the remote's tip is not an ancestor of the new one


def branch_name(ref: str) -> str | None:
    return ref[len("refs/heads/"):] if ref.startswith("refs/heads/") else None


def protected(ref: str, branches: Sequence[str]) -> str | None:
    """The protected-branch entry `ref` falls under, if any (exact names or shell globs)."""
    name = branch_name(ref)
    if name is None:
        return None
    for b in branches:
        if fnmatch.fnmatchcase(name, b.removeprefix("refs/heads/")):
            return b
    return None


def is_tag(ref: str) -> bool:
    return ref.startswith("refs/tags/")


def publish_problems(update: RefUpdate, policy: GitPolicy, made_by: Agent | None = None) -> list[Problem]:
    """What of this ref update waits for a human's approval of some edit task's
    `publish` gate. `policy.agent` is the pusher (from the environment); `made_by`
    the agent that made one of the commits this update brings, if any."""
    if any("publish" in t.approved for t in policy.edit):
        return []
    gate = "needs a human's approval of the task's publish gate"
    what: list[tuple[str, str]] = []
    name = branch_name(update.remote_ref)
    hit = protected(update.remote_ref, policy.protected_branches)
    if policy.agent is not None:
        if update.local_oid is None:
            what.append((f"deletes {update.remote_ref}", f"deleting a remote ref {gate}"))
        else:
            if update.force:
                what.append((f"force-pushes {update.remote_ref} (the remote's tip is not an ancestor of the new one)",
                             f"a force push {gate}"))
            if hit is not None:
                what.append((f"pushes to the protected branch {name}",
                             f"protected_branches '{hit}' from {policy.protocol}: a push there {gate}"))
            elif is_tag(update.remote_ref):
                what.append((f"pushes the tag {update.remote_ref} (a tag is a release)", f"a tag push {gate}"))
    elif made_by is not None and update.local_oid is not None and (hit is not None or is_tag(update.remote_ref)):
        where = f"the protected branch {name}" if hit is not None else f"the tag {update.remote_ref}"
        rule = f"protected_branches '{hit}' from {policy.protocol}" if hit is not None else "a tag is a release"
        what.append((f"brings commits an agent made ({made_by.value}) onto {where}",
                     f"{rule}: an agent's work lands there once a human approves the task's publish gate, "
                     f"whoever pushes it"))
    if not what:
        return []
    slug = policy.edit[0].slug if policy.edit else "SLUG"
    return [Problem(PUBLISH, f"{_who(policy)} {w}", f"{why}; binds agents",
                    f"a human approves it: handrail gate approve {slug} publish")
            for w, why in what]


def held_elsewhere(problem: Problem) -> Problem:
    """The same problem, for a commit another branch or a remote already holds:
    rewriting it would fork that history, so no rebase is suggested."""
    if problem.commit is None:
        return problem
    c = problem.commit[:7]
    if problem.rule == SECRET:
        fix = (f"rotate it now: commit {c} is already on another branch or a remote, so the secret stays in "
               f"that history; then a human decides whether to rewrite every branch that holds it")
    else:
        fix = (f"commit {c} is already on another branch or a remote, so rewriting it would fork that history: "
               f"a human decides whether this push goes ahead as it is, or its work moves to a new branch "
               f"that does not carry {c}")
    return problem._replace(fix=fix)


SHOWN = 10


def render(problems: Sequence[Problem], action: str, limit: int = SHOWN) -> str:
    """The whole refusal: a headline, then the first `limit` problems with their rule
    and next step, then how many more there are (the event log keeps every one)."""
    n = len(problems)
    head = f"handrail: {action} refused: {n} problem{'s' if n != 1 else ''}"
    lines = [head, *(p.render(i) for i, p in enumerate(problems[:limit], 1))]
    if n > limit:
        lines.append(f"  … and {n - limit} more (every one is in the event log: "
                     f"handrail events --type {action}_refused --json)")
    return "\n".join(lines)
