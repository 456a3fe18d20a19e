"""click commands: parse, call, print. No decisions here.

The hot-path commands (`can-edit`, `classify`) are routed by `handrail.main` before
click is imported; they are declared here too so that `--help` lists them.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

import click

from handrail import __version__
from handrail.errors import EXIT_ERROR, HandrailError

F = Callable[..., Any]


def _pinned(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """The project root around the folder given (handrail/projectroot.py): a subfolder,
    a nested `.handrail` or a linked worktree never chooses another policy. A folder
    named on the command line is where the search starts; by default, the harness's
    project folder or the current one."""
    if value is None:
        return None
    from click.core import ParameterSource

    from handrail.projectroot import find_root

    if ctx.get_parameter_source(param.name or "") == ParameterSource.DEFAULT:
        return find_root(value, os.environ)
    return find_root(value, os.environ, given=os.path.abspath(value))


def project_option(f: F) -> F:
    return click.option(
        "--project", "-p", default=".", show_default=True, type=click.Path(file_okay=False), callback=_pinned,
        help="A folder of the repository handrail guards (its root is found from there).",
    )(f)


def protocol_option(f: F) -> F:
    return click.option(
        "--protocol", type=click.Path(dir_okay=False),
        help="Read this protocol file instead of discovering one.",
    )(f)


def json_option(f: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="One JSON object on the last line.")(f)


def emit_json(data: object) -> None:
    click.echo(json.dumps(data, ensure_ascii=False))


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110, "terminal_width": 110})
@click.version_option(__version__, "--version", prog_name="handrail")
def cli() -> None:
    """Keep AI coding agents inside the autonomy their operator granted."""


def _passthrough(name: str, module: str, summary: str, group: click.Group | None = None) -> None:
    """Declare a hot-path command for --help; `handrail.main` runs it without click."""
    @(group or cli).command(name, help=summary, context_settings={"ignore_unknown_options": True,
                                                                  "allow_extra_args": True, "help_option_names": []})
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def command(args: tuple[str, ...]) -> None:
        import importlib

        if any(a in ("-h", "--help") for a in args):
            click.echo(importlib.import_module(module).__doc__)
            raise SystemExit(0)
        raise SystemExit(importlib.import_module(module).main(list(args)))


_passthrough("can-edit", "handrail.hooks.can_edit", "May an agent edit now (and this file)? Exit 0 yes, 1 no, 2 error.")
_passthrough("classify", "handrail.hooks.classify",
             "Which tier is a shell command in? Exit 0 runs, 1 needs a human, 2 error.")


@cli.command()
def demo() -> None:
    """Show every enforcement layer firing in a throwaway repository."""
    from handrail.demo import run_demo

    raise SystemExit(run_demo())


# ----------------------------------------------------------------------------- tasks


@cli.group()
def task() -> None:
    """Create tasks and move them between phases."""


@task.command("new")
@click.argument("slug")
@click.option("--phase", default="plan", show_default=True, help="plan, implement, doc_review, review or done.")
@click.option("--title", help="A human title (defaults to the slug).")
@project_option
@json_option
def task_new(slug: str, phase: str, title: str | None, project: str, as_json: bool) -> None:
    """Create a task in .handrail/tasks/SLUG/."""
    from handrail.policy import tasks

    tasks.check_slug(slug)
    tasks.check_phase(phase)
    if phase in tasks.EDIT_PHASES:
        require_human("task new", f"{slug} --phase {phase}", "a human opens an edit phase")
    by, evidence = who_acts(project)
    t = tasks.new_task(project, slug, phase=phase, title=title, by=by, evidence=evidence)
    _record_phase(project, slug, None, t.phase, by)
    if as_json:
        emit_json(t.data)
    else:
        click.echo(f"created task '{t.slug}' in phase {t.phase} ({t.display})")


@task.command("phase")
@click.argument("slug")
@click.argument("phase")
@project_option
@json_option
def task_phase(slug: str, phase: str, project: str, as_json: bool) -> None:
    """Move task SLUG to PHASE."""
    from handrail.policy import tasks

    tasks.check_phase(phase)
    now = tasks.load_task(project, slug)
    if phase in tasks.EDIT_PHASES and not (now.phase == phase and now.editing):
        # (a task.json that git brought back says the phase already, but opens nothing: see the ledger)
        require_human("task phase", f"{slug} {phase}", "a human opens an edit phase")
    by, evidence = who_acts(project)
    t, old = tasks.set_phase(project, slug, phase, by=by, evidence=evidence)
    if old != phase:
        _record_phase(project, slug, old, phase, by)
    if as_json:
        emit_json({**t.data, "previous_phase": old})
    elif old == phase:
        click.echo(f"task '{slug}' is already in phase {phase}")
    else:
        click.echo(f"task '{slug}': {old} -> {phase}")


@task.command("list")
@project_option
@json_option
def task_list(project: str, as_json: bool) -> None:
    """List tasks with their phases."""
    from handrail.policy import tasks

    found = tasks.load_all(project)
    if as_json:
        emit_json({"tasks": [{**t.summary(), "title": t.data.get("title", t.slug),
                               "updated_at": t.updated_at, "editing": t.editing} for t in found]})
        return
    if not found:
        click.echo("no tasks; create one with `handrail task new SLUG --phase implement`")
        return
    width = max(len(t.slug) for t in found)
    for t in found:
        mark = "*" if t.editing else " "
        click.echo(f"{mark} {t.slug:<{width}}  {t.phase:<10}  {t.updated_at}  {t.data.get('title', '')}")


@task.command("show")
@click.argument("slug")
@project_option
@json_option
def task_show(slug: str, project: str, as_json: bool) -> None:
    """Show one task, its history and its contract."""
    from handrail.policy import contract as contracts
    from handrail.policy import tasks

    t = tasks.load_task(project, slug)
    c = contracts.load(t.dir, os.path.join(tasks.TASKS_DIR, slug, contracts.CONTRACT_FILE))
    contract = None
    if c is not None:
        contract = {"path": c.path, "contract_mode": c.mode, "governor": c.governor(),
                    "allowed_files": c.data.get("allowed_files", []),
                    "forbidden_files": c.data.get("forbidden_files", []),
                    "human_gate": {k: list(v) for k, v in c.gate_paths().items()}, "warnings": c.warnings}
    if as_json:
        emit_json({**t.data, "editing": t.editing, "contract": contract, **t.summary()})
        return
    click.echo(f"task {t.slug}: {t.data.get('title', '')}")
    click.echo(f"  phase: {t.phase}{' (edits allowed)' if t.editing else ''}")
    if "recorded_phase" in t.summary():
        click.echo(f"  handrail last set it to {t.recorded}: task.json was changed other than by handrail, "
                   "so no edit phase is open; a person runs `handrail task phase` to set it")
    for h in t.data.get("history", []):
        who = f"  by {h['by']}" if h.get("by") else ""
        shown = f" ({h['evidence']})" if h.get("evidence") else ""
        click.echo(f"  {h['at']}  {h.get('from') or '-'} -> {h['to']}{who}{shown}")
    if contract is None:
        click.echo("  contract: none (any path outside the default-forbidden and protected ones)")
        return
    click.echo(f"  contract: {contract['path']} ({contract['contract_mode']})")
    for key in ("allowed_files", "forbidden_files"):
        if contract[key]:
            click.echo(f"  {key}: {', '.join(contract[key])}")
    gov = ", ".join(f"{k}={'unlimited' if v is None else v}" for k, v in contract["governor"].items())
    click.echo(f"  governor: {gov}")
    for theme, paths in contract["human_gate"].items():
        click.echo(f"  human gate: {theme} ({', '.join(paths) or 'on publish'})")
    for w in contract["warnings"]:
        click.echo(f"  warning: {w}")


def actor() -> str:
    """Who is acting, for histories: the agent where the environment names one."""
    return os.environ.get("HANDRAIL_AGENT") or os.environ.get("USER") or "unknown"


def who_acts(project: str) -> tuple[str, str | None]:
    """Who changes a task's phase, for its history: (agent name, the marker that shows it),
    from this process's environment or an ancestor's; else the git user (`name <email>`)."""
    from handrail import procs
    from handrail.policy import agents, gates

    agent = agents.detect(os.environ)
    if agent is not None:
        return agent.name, agent.evidence()
    found = gates.behind(procs.ancestors())
    if found is not None:
        pid, program, agent = found
        return agent.name, f"{agent.evidence()} in the environment of {program} (pid {pid})"
    return git_user(project), None


def git_user(project: str) -> str:
    """`user.name <user.email>` as git would sign a commit here; the login name without them."""
    name = email = None
    try:
        from handrail import repo as git

        r = git.open_path(project)
        name, email = git.config_value(r, "user.name"), git.config_value(r, "user.email")
    except HandrailError:
        pass  # not a git repository: the login name says who
    if name:
        return f"{name} <{email}>" if email else name
    return os.environ.get("USER") or os.environ.get("LOGNAME") or "unknown"


def no_human() -> str | None:
    """Why no person can be deciding at this terminal, or None: `gates.human_absent`,
    asked of this process, its terminal and the processes it runs under."""
    from handrail import procs
    from handrail.policy import gates

    return gates.human_absent(os.environ, sys.stdin.isatty(), sys.stdout.isatty(), procs.ancestors())


def require_human(verb: str, args: str, who: str) -> None:
    """Exit 1 with one line unless a person can be deciding here: every human-only
    command calls this first. A second line behind the hook's tier 3, not a boundary."""
    absent = no_human()
    if absent is not None:
        line = f"handrail {verb} {args}".rstrip()
        click.echo(f"handrail {verb}: refused: {who}, and {absent}; a person runs `{line}` in their own terminal",
                   err=True)
        raise SystemExit(1)


def _record_phase(project: str, slug: str, old: str | None, new: str, by: str) -> None:
    from handrail.records.events import record

    what = f"created in phase {new}" if old is None else f"{old} -> {new}"
    record(project, "task_phase_changed", task=slug, topic="task", message=f"task '{slug}' {what}",
           payload={"from": old, "to": new, "by": by})


# ----------------------------------------------------------------------------- policy


@cli.group()
def policy() -> None:
    """Validate the protocol and contracts, and show what each tool may run."""


@policy.command("check")
@project_option
@protocol_option
@json_option
def policy_check(project: str, protocol: str | None, as_json: bool) -> None:
    """Validate the protocol, every task and every contract. Exit 0 valid, 1 invalid."""
    from handrail.policy.checkall import check_all

    result = check_all(project, protocol)
    if as_json:
        emit_json(result)
    else:
        for line in result["notes"]:
            click.echo(line)
        for line in result["errors"]:
            click.echo(f"error: {line}")
        for line in result["warnings"]:
            click.echo(f"warning: {line}")
        n = len(result["files"])
        click.echo(f"{'valid' if result['valid'] else 'invalid'}: {n} file{'s' if n != 1 else ''} checked, "
                   f"{len(result['errors'])} error(s), {len(result['warnings'])} warning(s)")
    raise SystemExit(0 if result["valid"] else 1)


@policy.command("show")
@click.argument("tool", required=False)
@project_option
@protocol_option
@json_option
def policy_show(tool: str | None, project: str, protocol: str | None, as_json: bool) -> None:
    """Each tool's resolved allow, notify and ask/deny sets."""
    from handrail.policy import protocol as protocols

    proto = protocols.load(project, protocol)
    names = protocols.tool_names(proto)
    if tool is not None and tool not in names:
        import difflib

        near = difflib.get_close_matches(tool, names, n=1)
        hint = f" (did you mean '{near[0]}'?)" if near else f" (tools: {', '.join(names) or 'none'})"
        raise HandrailError(f"{proto.source}: tools.{tool}: no such tool{hint}", reason="bad_arguments")
    resolved = [protocols.resolve_tool(proto, n) for n in ([tool] if tool else names)]
    if as_json:
        emit_json({"protocol": proto.source, "version": ".".join(map(str, proto.version)),
                   "global_mode": proto.global_mode, "warnings": proto.warnings,
                   "tools": {r.tool: r.as_dict() for r in resolved}})
        return
    click.echo(f"protocol: {proto.source}")
    for w in proto.warnings:
        click.echo(f"warning: {w}")
    for r in resolved:
        click.echo(f"\n{r.tool} (mode {r.mode})")
        for label, items in (("allow", r.allow), ("notify", r.notify), ("ask", r.ask), ("deny", r.deny),
                             ("removed from allow (tier 3)", r.dropped)):
            if items:
                click.echo(f"  {label}:")
                for p in items:
                    click.echo(f"    {p.text}")


# ----------------------------------------------------------------------------- records


class UsageOneCommand(click.Command):
    """Usage errors exit 1 here, as these commands document: click's own 2 means
    "blocked" or "invalid state" for them."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as e:
            e.exit_code = 1  # type: ignore[misc]  # click declares a ClassVar; this error exits 1
            raise


class UsageOneGroup(click.Group):
    command_class = UsageOneCommand

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as e:
            e.exit_code = 1  # type: ignore[misc]  # click declares a ClassVar; this error exits 1
            raise

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as e:
            e.exit_code = 1  # type: ignore[misc]  # click declares a ClassVar; this error exits 1
            raise


def _since(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from handrail.records.events import parse_since

    if value is None:
        return None
    try:
        return parse_since(value)
    except ValueError:
        raise click.BadParameter(f"'{value}': use 30m, 2h, 1d, 1w or an ISO 8601 time") from None


@cli.command("events")
@click.option("--since", callback=_since,
              help="Only this recent: 30m, 2h, 1d, 1w, or an ISO 8601 time (UTC unless an offset is written).")
@click.option("--type", "types", multiple=True, help="Only this event type; repeatable; `notify_*` matches a pattern.")
@click.option("--agent", help="Only this agent's events.")
@click.option("--task", help="Only this task's events.")
@click.option("--limit", type=click.IntRange(min=1), help="Only the newest N (printed newest last).")
@click.option("--follow", "-f", is_flag=True, help="Then print new events as they arrive, until Ctrl-C.")
@project_option
@click.option("--json", "as_json", is_flag=True, help="JSON Lines: one event object per line.")
def events_command(since: str | None, types: tuple[str, ...], agent: str | None, task: str | None,
                   limit: int | None, follow: bool, project: str, as_json: bool) -> None:
    """What handrail decided, was told and refused: the event log, newest last."""
    from handrail.records import events, view

    filters = events.Filters(since=since, types=types, agent=agent, task=task)
    width = view.terminal_width()
    if not follow:
        found = events.query(project, filters, limit=limit)
        if as_json:
            for e in found:
                emit_json(e)
        elif not found:
            click.echo(f"no events{' match' if since or types or agent or task else ' recorded yet'} "
                       f"in {events.db_path(project)}", err=True)
        else:
            col = view.event_widths(found, width)
            for row in [view.EVENT_HEADER] + [view.event_row(e) for e in found]:
                click.echo(view.line(row, col, width))
        return
    col = view.event_widths([], width, follow=True)
    if not as_json:
        click.echo(view.line(view.EVENT_HEADER, col, width))
    try:
        for e in events.follow(project, filters, backlog=limit or 10):
            click.echo(json.dumps(e, ensure_ascii=False) if as_json else view.line(view.event_row(e), col, width))
    except KeyboardInterrupt:
        raise SystemExit(0) from None  # Ctrl-C is how following ends: not an error


@cli.command("notify", cls=UsageOneCommand)
@click.option("--level", required=True, help="info (exit 0), warn (exit 0) or block (exit 2); any case.")
@click.option("--topic", required=True, help="What it is about, shown in brackets.")
@click.option("--message", required=True, help="The text for the person.")
@click.option("--agent", help="The agent giving it (default: $HANDRAIL_AGENT).")
@click.option("--task", help="The task it concerns (default: $HANDRAIL_TASK).")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the recorded event as one JSON object.")
def notify_command(level: str, topic: str, message: str, agent: str | None, task: str | None, project: str,
                   as_json: bool) -> None:
    """Tell a person something, and record it: `ℹ`/`⚠`/`⛔ [topic] message`. Exit 1 on a usage error."""
    from handrail.records.notify import notify

    text, event, code = notify(project, level, topic, message, agent=agent,
                               task=task or os.environ.get("HANDRAIL_TASK") or None)
    if as_json:
        emit_json(event)
    else:
        click.echo(text)
    raise SystemExit(code)


def root_option(f: F) -> F:
    return click.option("--root", type=click.Path(file_okay=False), callback=_pinned,
                        help="The folder holding agents/<agent>/autonomy-envelope.md (default: the project).")(f)


@cli.group(cls=UsageOneGroup)
def autonomy() -> None:
    """What the operator approved each agent to do without asking, per task type.

    Exit 0 ok, 1 usage error, 2 invalid state, unknown agent or unknown task type,
    3 an envelope that cannot be read, parsed or validated (never overwritten).
    """


@autonomy.command("init")
@click.argument("agent")
@click.option("--owner", help="The operator answerable for it (default: $USER).")
@root_option
@project_option
@json_option
def autonomy_init(agent: str, owner: str | None, root: str | None, project: str, as_json: bool) -> None:
    """Create AGENT's envelope, with no task types yet. An existing one is left untouched."""
    from handrail.records import autonomy as ops

    env = ops.init(root or project, agent, owner=owner or os.environ.get("USER") or "unknown", project=project)
    if as_json:
        emit_json(env)
    else:
        click.echo(f"created {env['envelope']} (owner {env['owner']}); add task types with "
                   f"`handrail autonomy set {agent} code-inline needsFullSupervision`")


@autonomy.command("get")
@click.argument("agent")
@click.argument("task_type", required=False)
@click.option("--format", "fmt", type=click.Choice(["table", "json"], case_sensitive=False), default="table",
              show_default=True, help="json is stable, for injecting into an agent's context.")
@root_option
@project_option
def autonomy_get(agent: str, task_type: str | None, fmt: str, root: str | None, project: str) -> None:
    """Show AGENT's envelope, or one TASK_TYPE of it."""
    from handrail.records import autonomy as ops
    from handrail.records import view

    got = ops.get(root or project, agent, task_type)
    if fmt.lower() == "json":
        emit_json(got)
        return
    items = [got["taskType"]] if task_type else got["taskTypes"]
    if task_type is None:
        click.echo(f"{got['envelope']}: owner {got['owner'] or '-'}, updated {got['updated']}")
    rows = [[t["id"], t["state"], view.cell(t["stateSince"]), view.cell(t["operatorNote"])] for t in items]
    if rows:
        for text in view.table(("TASK TYPE", "STATE", "SINCE", "NOTE"), rows, (28, 21, 20), view.terminal_width()):
            click.echo(text)
    else:
        click.echo(f"no task types yet; add one with `handrail autonomy set {agent} code-inline needsFullSupervision`")
    if task_type:
        t = got["taskType"]
        click.echo(f"{t['state']}: {t['meaning']}" + ("" if t["enforced"] else " (for the agent's own judgement)"))
    if got["stale"]:
        click.echo(_stale_warning(got, agent))


def _age(env: dict[str, Any]) -> str:
    days = "?" if env.get("daysSinceUpdate") is None else f"{env['daysSinceUpdate']}d"
    return f"{days} STALE" if env["stale"] else days


def _stale_warning(env: dict[str, Any], agent: str) -> str:
    days = "an unknown number of" if env.get("daysSinceUpdate") is None else env["daysSinceUpdate"]
    return (f"warning: {env['envelope']}: untouched for {days} days (updated {env.get('updated')}): "
            f"review it with `handrail autonomy get {agent}` and confirm or change each task type")


@autonomy.command("set")
@click.argument("agent")
@click.argument("task_type")
@click.argument("state")
@click.option("--note", help="The operator's note: why this state.")
@click.option("--label", help="A human label for the task type.")
@root_option
@project_option
@json_option
def autonomy_set(agent: str, task_type: str, state: str, note: str | None, label: str | None, root: str | None,
                 project: str, as_json: bool) -> None:
    """Set TASK_TYPE of AGENT to STATE (needsFullSupervision, checkBeforeCommitting, fullyApproved).

    Raising a state asks a person to confirm at a terminal, and is refused without
    one or in an agent's environment; lowering one never asks.
    """
    from handrail.records import autonomy as ops

    result = ops.set_state(root or project, agent, task_type, state, note=note, label=label, by=actor(),
                           project=project, no_human=no_human(),
                           confirm=lambda question: click.confirm(question, default=False))
    if as_json:
        emit_json(result)
    else:
        was = result["old_state"] or "unset"
        click.echo(f"{result['envelope']}: {task_type} {result['change']} to {result['new_state']} (was {was})")


@autonomy.command("list")
@click.argument("agent", required=False)
@root_option
@project_option
@json_option
def autonomy_list(agent: str | None, root: str | None, project: str, as_json: bool) -> None:
    """Every envelope (or AGENT's), with a warning for those untouched over 30 days."""
    from handrail.records import autonomy as ops
    from handrail.records import view

    found, errors = ops.list_all(root or project, agent)
    if as_json:
        emit_json({"envelopes": found, "errors": errors})
    elif not found and not errors:
        click.echo(f"no autonomy envelopes under {os.path.join(root or project, 'agents')}; "
                   f"create one with `handrail autonomy init AGENT`")
    else:
        rows = [[e["agent"], view.cell(e["owner"]), e["updated"], _age(e),
                 ", ".join(f"{k}={v}" for k, v in e["states"].items()) or "-"] for e in found]
        if rows:
            for text in view.table(("AGENT", "OWNER", "UPDATED", "AGE", "TASK TYPES"), rows, (24, 16, 20, 12),
                                   view.terminal_width()):
                click.echo(text)
        for e in found:
            if e["stale"]:
                click.echo(_stale_warning(e, e["agent"]))
        for line in errors:
            click.echo(f"error: {line}", err=True)
    raise SystemExit(3 if errors else 0)


# ----------------------------------------------------------------------------- git: hooks, gates, guard


@cli.group()
def hook() -> None:
    """Entry points that git and the harnesses call: one event in, one answer out."""


_passthrough("pre-commit", "handrail.hooks.pre_commit", "git pre-commit: refuse a commit that breaks the policy.", hook)
_passthrough("pre-push", "handrail.hooks.pre_push", "git pre-push: refuse a push that breaks the policy.", hook)
_passthrough("prepare-commit-msg", "handrail.hooks.prepare_commit_msg",
             "git prepare-commit-msg: an agent's commit gets the Handrail-Agent trailer.", hook)
for _name, _harness in (("claude", "Claude Code"), ("codex", "Codex CLI"), ("gemini", "Gemini CLI"),
                        ("cursor", "Cursor"), ("copilot", "GitHub Copilot"), ("cline", "Cline"),
                        ("opencode", "OpenCode (its plugin)"), ("qwen", "Qwen Code")):
    _passthrough(_name, f"handrail.harnesses.{_name}", f"{_harness} pre-tool hook: allow, ask or deny a tool call.",
                 hook)


@cli.group()
def gate() -> None:
    """Human gates: list them; a person at a terminal approves or rejects."""


@gate.command("list")
@click.option("--task", "slug", help="Only this task's gates.")
@project_option
@json_option
def gate_list(slug: str | None, project: str, as_json: bool) -> None:
    """Every task's gates with their state (pending, approved, rejected)."""
    from handrail.policy import gates

    found, errors = gates.scan_gates(project, slug)
    for line in errors:
        click.echo(f"handrail: error: {line}", err=True)
    if as_json:
        emit_json({"gates": found, "errors": errors})
    elif not found and not errors:
        click.echo("no tasks, so no gates; create one with `handrail task new SLUG`")
    else:
        for g in found:
            who = f"  by {g['by']} at {g['at']}" if g["by"] else ""
            words = g.get("note") or g.get("reason")
            click.echo(f"{g['task']:<20} {g['theme']:<28} {g['status']:<9}{who}"
                       f"{'  (' + words + ')' if words else ''}")
    if errors:
        raise SystemExit(EXIT_ERROR)


def _decide(decision: str, slug: str, theme: str, words: str | None, project: str, as_json: bool) -> None:
    import getpass

    from handrail.policy import gates
    from handrail.records.events import record

    verb = "approve" if decision == gates.APPROVED else "reject"
    gates.check_theme(theme)
    gates.check_gate(project, slug, theme)
    require_human(f"gate {verb}", f"{slug} {theme}", "a human decides gates")
    try:
        by = getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name is not a reason to refuse a human
        by = os.environ.get("USER") or "unknown"
    data, changed = gates.decide(project, slug, theme, decision, by=by, note=words)
    if changed:
        record(project, f"gate_{decision}", agent=None, task=slug, topic=theme,
               message=f"{by} {decision} gate {theme} of task {slug}", payload=data)
    if as_json:
        emit_json({**data, "changed": changed})
    elif changed:
        click.echo(f"gate {theme} of task '{slug}': {decision} by {by}")
    else:
        click.echo(f"gate {theme} of task '{slug}' is already {decision} "
                   f"(by {data.get('by')} at {data.get('at')}); nothing changed")


@gate.command("approve")
@click.argument("slug", metavar="TASK")
@click.argument("theme")
@click.option("--note", help="Why, for the record.")
@project_option
@json_option
def gate_approve(slug: str, theme: str, note: str | None, project: str, as_json: bool) -> None:
    """Approve TASK's gate THEME (humans only, at an interactive terminal)."""
    from handrail.policy.gates import APPROVED

    _decide(APPROVED, slug, theme, note, project, as_json)


@gate.command("reject")
@click.argument("slug", metavar="TASK")
@click.argument("theme")
@click.option("--reason", required=True, help="Why not: the agent reads it.")
@project_option
@json_option
def gate_reject(slug: str, theme: str, reason: str, project: str, as_json: bool) -> None:
    """Reject TASK's gate THEME (humans only, at an interactive terminal)."""
    from handrail.policy.gates import REJECTED

    _decide(REJECTED, slug, theme, reason, project, as_json)


def _hooks_folder(project: str) -> tuple[str, str]:
    from handrail import repo as git

    r = git.open_path(project)
    if r.is_bare:
        raise HandrailError(f"{project}: a bare repository has no commits to guard", reason="bad_arguments")
    return git.hooks_dir(r), git.workdir(r)


@cli.command("install-hooks")
@click.option("--symlink", is_flag=True, help="Link every hook to one handrail script in the hooks folder.")
@click.option("--force", is_flag=True,
              help="Also when an earlier saved hook is in the way (it goes to .handrail/backups).")
@project_option
def install_hooks_cmd(symlink: bool, force: bool, project: str) -> None:
    """Write git hooks that run handrail (pre-commit, prepare-commit-msg, pre-push, git am's; no framework needed)."""
    from handrail import install_hooks

    folder, root = _hooks_folder(project)
    for a in install_hooks.install(folder, root, symlink=symlink, force=force):
        click.echo(f"{a.hook}: {a.did}")
    click.echo(f"hooks folder: {folder}")


@cli.command("uninstall-hooks")
@project_option
def uninstall_hooks_cmd(project: str) -> None:
    """Remove handrail's git hooks and put back the hooks they replaced."""
    from handrail import install_hooks

    folder, _root = _hooks_folder(project)
    require_human("uninstall-hooks", "", "a human removes handrail's git hooks")
    actions = install_hooks.uninstall(folder)
    for a in actions:
        click.echo(f"{a.hook}: {a.did}")
    if not actions:
        click.echo(f"no handrail hooks in {folder}")


@cli.command()
@project_option
@json_option
def guard(project: str, as_json: bool) -> None:
    """The rules in force here: each path rule, whom it binds, where it comes from."""
    from handrail.policy.guard import rules_in_force

    found = rules_in_force(project)
    if as_json:
        emit_json(found)
        return
    click.echo(f"protocol: {found['protocol']}")
    editing = [t["task"] for t in found["tasks"] if t["editing"]]
    click.echo(f"tasks in an edit phase: {', '.join(editing) or 'none'}")
    click.echo("\npath rules (first match refuses):")
    width = max(len(r["pattern"]) for r in found["path_rules"])
    for r in found["path_rules"]:
        click.echo(f"  {r['kind']:<18} {r['pattern']:<{width}}  binds {r['binds']:<8}  {r['source']}  ({r['why']})")
    for g in found["human_gates"]:
        paths = ", ".join(g["paths"]) or "force push, ref deletion, protected branch (agents)"
        click.echo(f"  human gate         {g['theme']} of task {g['task']}: {g['status']}  ({paths})")
    for b in found["budgets"]:
        lim = ", ".join(f"{k}={'unlimited' if b[k] is None else b[k]}" for k in ("max_changed_files", "max_diff_lines"))
        click.echo(f"  budget             task {b['task']}: {lim}  binds everyone  {b['source']}")
    s = found["secrets"]
    click.echo(f"  secrets            {', '.join(s['patterns'])}  binds everyone  {s['source']}")
    g = found["git"]
    click.echo("\ngit hooks:")
    for r in g["rules"]:
        click.echo(f"  {r['rule']:<11} binds {r['binds']:<11} {r['what']}")
    click.echo(f"  (edit_task: {g['edit_task_source']}; protected branches: {', '.join(g['protected_branches'])})")


# ----------------------------------------------------------------------------- living memory


_passthrough("post-commit", "handrail.hooks.post_commit",
             "git post-commit: note when the project's description went stale (never fails).", hook)
_passthrough("session-start", "handrail.hooks.session_start",
             "Agent session start: one line of context while a reflection is pending.", hook)


@cli.group()
def memory() -> None:
    """Keep the project's own description current: prepare a reflection, commit it safely."""


@memory.command("init")
@project_option
@json_option
def memory_init(project: str, as_json: bool) -> None:
    """Lay the four bootstrap files (empty, with front matter) where they are missing."""
    from handrail.memory import bootstrap
    from handrail.records import clock

    folder, created, kept = bootstrap.init(project, clock.now_iso())
    if as_json:
        emit_json({"bootstrap_dir": folder, "created": created, "kept": kept})
        return
    for path in created:
        click.echo(f"created {path}")
    for path in kept:
        click.echo(f"kept {path} (already there)")


@memory.command("prepare")
@click.option("--range", "git_range", metavar="A..B",
              help="The commits to look at (default: since the last reflection, or HEAD~3..HEAD).")
@click.option("--agent", help="The agent whose change this is (default: the one the environment names).")
@click.option("--force", is_flag=True, help="Write the manifest even when nothing relevant changed.")
@project_option
@json_option
def memory_prepare(git_range: str | None, agent: str | None, force: bool, project: str, as_json: bool) -> None:
    """Did the change make the description stale? If so, write the reflection manifest."""
    from handrail.memory.prepare import prepare

    result = prepare(project, git_range=git_range, agent=agent, force=force)
    if as_json:
        emit_json(result)
        return
    if result["recovered"]:
        click.echo(f"handrail memory: {result['recovered']}", err=True)
    click.echo(f"{result['verdict']}: {'; '.join(result['reasons'])}")
    if result["git_range"]:
        click.echo(f"  range: {result['git_range']} ({result['diff_summary']})")
    if result["written"]:
        click.echo(f"  targets: {', '.join(result['targets'])}")
        click.echo(f"  manifest: {result['manifest']}: an agent reads it, edits the targets, then runs "
                   "`handrail memory commit --output FILE`")
    if result["missing_bootstrap"]:
        click.echo(f"warning: missing {', '.join(result['missing_bootstrap'])}: "
                   f"create them with `{result['init_command']}`", err=True)


@memory.command("commit")
@click.argument("stdin", required=False, metavar="[-]")
@click.option("--output", "output", metavar="FILE", help='The agent\'s update, {"files": {PATH: CONTENT}}; - is stdin.')
@click.option("--agent", help="The agent making the update (default: the one the environment names).")
@click.option("--dry-run", is_flag=True, help="Check every rule, write nothing.")
@project_option
@json_option
def memory_commit(stdin: str | None, output: str | None, agent: str | None, dry_run: bool, project: str,
                  as_json: bool) -> None:
    """Accept the update only if well-formed, confined to the targets and unraced. Exit 0 written, 1 refused."""
    from handrail.memory.commit import commit, read_output

    if (stdin is None) == (output is None) or (stdin is not None and stdin != "-"):
        raise click.UsageError("give the update as --output FILE, or as - to read it from stdin")
    source = output if output is not None and output != "-" else "-"
    text, problem = read_output(source, sys.stdin)
    result = commit(project, text, "stdin" if source == "-" else source, agent=agent, dry_run=dry_run,
                    read_error=problem)
    if as_json:
        emit_json(result)
        raise SystemExit(0 if result["ok"] else 1)
    if result["recovered"]:
        click.echo(f"handrail memory: {result['recovered']}", err=True)
    if result["already_written"]:
        click.echo(f"already written: {', '.join(result['files'])} (this update was committed before)")
    elif result["ok"]:
        verb = "would write" if dry_run else "wrote"
        click.echo(f"{verb} {', '.join(result['files'])}")
        for path, n in result["stripped"].items():
            click.echo(f"  removed {n} invisible character{'s' if n != 1 else ''} from {path}")
    else:
        click.echo(f"handrail memory commit: refused{' (dry run)' if dry_run else ''}; nothing was written", err=True)
        for f in result["failures"]:
            click.echo(f"  {f['rule']}: {f['path'] + ': ' if f['path'] else ''}{f['detail']}", err=True)
    raise SystemExit(0 if result["ok"] else 1)


@memory.command("status")
@project_option
@json_option
def memory_status(project: str, as_json: bool) -> None:
    """Is a reflection pending, for whom, and what to run."""
    from handrail.memory.status import status

    s = status(project, settle=True)
    if as_json:
        emit_json(s)
        return
    if s["recovered"]:
        click.echo(f"handrail memory: {s['recovered']}", err=True)
    if s["pending"]:
        who = s["trigger_agent"] or "no agent named"
        click.echo(f"pending: a reflection on {s['git_range']} ({s['diff_summary']}), triggered by {who}, "
                   f"{s['age_days']} days old{' (STALE)' if s['stale'] else ''}")
        click.echo(f"  targets: {', '.join(s['targets'])}")
    elif s["problem"]:
        click.echo(f"broken: {s['problem']}")
    else:
        click.echo("no reflection pending")
    if s["missing_bootstrap"]:
        click.echo(f"  missing: {', '.join(s['missing_bootstrap'])}")
    if s["next"]:
        click.echo(f"  next: {s['next']}")


# ----------------------------------------------------------------------------- loop


@cli.group()
def loop() -> None:
    """Let an agent iterate on a task alone, inside its scope, budget, human gates and criteria."""


@loop.command("run")
@click.argument("slug", metavar="TASK")
@click.argument("agent", nargs=-1, required=True, type=click.UNPROCESSED, metavar="-- AGENT [ARGS]...")
@click.option("--max-steps", type=click.IntRange(min=1),
              help="At most N attempts in this run (never more than the contract's governor.max_steps).")
@project_option
def loop_run(slug: str, agent: tuple[str, ...], max_steps: int | None, project: str) -> None:
    """Run AGENT on TASK, attempt after attempt, until every criterion passes or a guard stops it.

    Exit 0 done, 1 stopped by a guard, 2 contract or usage error, 3 paused for a human.
    """
    from handrail.loop.runner import run as run_loop

    raise SystemExit(run_loop(project, slug, list(agent), max_steps=max_steps))


@loop.command("status")
@click.argument("slug", metavar="TASK")
@project_option
@json_option
def loop_status(slug: str, project: str, as_json: bool) -> None:
    """Circuit, attempts, tokens and time against their ceilings, pending gates, the next action."""
    from handrail.loop import companions, report

    found = companions.status(project, slug)
    if as_json:
        emit_json(found)
        return
    for text in report.status_text(found):
        click.echo(text)
    if found.get("contract_error"):
        click.echo(f"warning: {found['contract_error']}")


@loop.command("check")
@click.argument("slug", metavar="TASK")
@click.option("--criteria", "only", help="Only these criteria, comma-separated (C1,C3).")
@click.option("--timeout", "timeout_ms", type=click.IntRange(min=1),
              help="Each criterion's timeout in milliseconds (default: its timeout_ms, else 300000).")
@project_option
@json_option
def loop_check(slug: str, only: str | None, timeout_ms: int | None, project: str, as_json: bool) -> None:
    """Run TASK's criteria now, in the loop's sandbox; never touches the circuit or progress. Exit 0 all pass."""
    from handrail.loop import companions

    names = [c.strip() for c in only.split(",") if c.strip()] if only else None
    results, code = companions.check(project, slug, only=names, timeout_ms=timeout_ms)
    if as_json:
        emit_json({"task": slug, "passed": code == 0, "criteria": results})
    else:
        width = max(len(r["id"]) for r in results)
        for r in results:
            mark = "✓" if r["status"] == "passed" else "✗"
            detail = f" (exit {r['exit_code']})" if r["status"] == "failed" else ""
            click.echo(f"{mark} {r['id']:<{width}}  {r['status']}{detail}  log: {r['log']}")
    raise SystemExit(code)


@loop.command("reset")
@click.argument("slug", metavar="TASK")
@project_option
@json_option
def loop_reset(slug: str, project: str, as_json: bool) -> None:
    """Close TASK's open circuit into half-open, or end a run paused on its budget (humans only, at a terminal)."""
    import getpass

    from handrail.loop import companions
    from handrail.policy import tasks

    tasks.load_task(project, slug)
    require_human("loop reset", slug, "a human resets a loop")
    try:
        by = getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name is not a reason to refuse a human
        by = os.environ.get("USER") or "unknown"
    result, code = companions.reset(project, slug, by=by)
    if as_json:
        emit_json(result)
    else:
        click.echo(result["message"])
    raise SystemExit(code)


@loop.command("retro")
@click.argument("slug", metavar="TASK")
@project_option
@json_option
def loop_retro(slug: str, project: str, as_json: bool) -> None:
    """What TASK's loop history says: failure signatures, violated paths, criteria never passed, tokens."""
    from handrail.loop import companions, report

    found = companions.retro(project, slug)
    if as_json:
        emit_json(found)
        return
    for text in report.retro_text(found):
        click.echo(text)


# ----------------------------------------------------------------------------- setup: init, permissions, doctor


def _tool_list(values: tuple[str, ...]) -> list[str] | None:
    """`--tool a --tool b` and `--tools a,b` alike; None when none was given."""
    names = [n.strip() for v in values for n in v.split(",") if n.strip()]
    return names or None


@cli.command()
@click.option("--tools", "tools", multiple=True, metavar="T[,T…]",
              help="Only these harnesses (default: every one the protocol lists); repeatable or comma-separated.")
@click.option("--pre-commit", "hook_kind", flag_value="pre-commit",
              help="Add handrail's hooks to .pre-commit-config.yaml and run `pre-commit install`.")
@click.option("--git-hooks", "hook_kind", flag_value="git", default=True,
              help="Plain git hooks, no framework needed (the default).")
@click.option("--force", is_flag=True,
              help="Replace an invalid protocol with the default, and install the git hooks over an earlier saved one.")
@project_option
@json_option
def init(tools: tuple[str, ...], hook_kind: str, force: bool, project: str, as_json: bool) -> None:
    """Guard this git repository: protocol, git hooks and every harness's permission files."""
    from handrail.init import init as run_init
    from handrail.init import text_report

    if force:
        require_human("init", "--force", "a human replaces the protocol and the saved git hooks")
    result = run_init(project, tools=_tool_list(tools), pre_commit=hook_kind == "pre-commit", force=force)
    if as_json:
        emit_json(result)
        return
    for text in text_report(result):
        click.echo(text)


@cli.command()
@click.option("--tool", "tools", multiple=True, metavar="T",
              help="Only this harness (default: every one the protocol lists); repeatable.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when a file differs from what would be generated.")
@click.option("--dry-run", is_flag=True, help="Write nothing; print the diff of each file that would change.")
@project_option
@protocol_option
@json_option
def permissions(tools: tuple[str, ...], check: bool, dry_run: bool, project: str, protocol: str | None,
                as_json: bool) -> None:
    """Write each harness's own permission and hook files from the protocol (merged, backed up)."""
    from handrail.permissions import run as run_permissions

    mode = "check" if check else "dry-run" if dry_run else "write"
    if protocol is not None and mode == "write":
        require_human("permissions", f"--protocol {protocol}",
                      "a human writes the permission files from another protocol")
    result = run_permissions(project, tools=_tool_list(tools), protocol=protocol, mode=mode)
    if as_json:
        emit_json(result)
        raise SystemExit(0 if result["ok"] else 1)
    for note in result["notes"]:
        click.echo(f"note: {note}")
    words = {"write": {"create": "created", "update": "updated", "none": "unchanged"},
             "check": {"create": "missing", "update": "differs", "none": "in sync"},
             "dry-run": {"create": "would create", "update": "would update", "none": "unchanged"}}[mode]
    width = max((len(f["path"]) for f in result["files"]), default=0)
    for f in result["files"]:
        backup = f"  (backup: {f['backup']})" if f.get("backup") else ""
        click.echo(f"{words[f['change']]:<12} {f['path']:<{width}}  {f['tool']}{backup}")
        if f.get("diff"):
            click.echo(f["diff"], nl=False)
    pending = sum(f["change"] != "none" for f in result["files"])
    if mode == "check" and pending:
        click.echo(f"{pending} file{'s' if pending != 1 else ''} differ from the protocol: run `handrail permissions`")
    elif mode != "check" and not pending:
        click.echo("every file is in sync with the protocol; nothing written")
    raise SystemExit(0 if result["ok"] else 1)


@cli.command()
@click.option("--dry-run", is_flag=True, help="Write nothing; say what would be taken out, file by file.")
@click.option("--purge", is_flag=True,
              help="Also remove .handrail/ (protocol, tasks, events), all but backups/, which keeps a copy.")
@project_option
@json_option
def deinit(dry_run: bool, purge: bool, project: str, as_json: bool) -> None:
    """Take out what init and permissions added (rules, hooks, plugin files); keep what you wrote, and
    .handrail/ unless --purge."""
    from handrail.deinit import command

    if not dry_run:
        require_human("deinit", "--purge" if purge else "", "a human takes handrail's guardrails out")
    raise SystemExit(command(project=project, dry_run=dry_run, purge=purge, as_json=as_json, echo=click.echo))


@cli.command()
@click.option("--fix", is_flag=True,
              help="Regenerate files (with backups), reinstall hooks, set a broken event log aside, then check again.")
@project_option
@json_option
def doctor(fix: bool, project: str, as_json: bool) -> None:
    """Check protocol, generated files, git and harness hooks, runtime and advice. Exit 0 ok, 1 not."""
    from handrail.doctor import run as run_doctor
    from handrail.doctor import text_report

    report = run_doctor(project, fix=fix)
    if as_json:
        emit_json(report)
    else:
        for text in text_report(report):
            click.echo(text)
    raise SystemExit(0 if report["ok"] else 1)


# ----------------------------------------------------------------------------- running


def run(args: list[str]) -> int:
    """Run the click group, turning every expected failure into one line and an exit code."""
    try:
        cli.main(args, prog_name="handrail", standalone_mode=False)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except HandrailError as e:
        click.echo(f"handrail: error: {e}", err=True)
        return e.exit_code
    except click.exceptions.Abort:
        click.echo("handrail: aborted", err=True)
        return 1
    except click.ClickException as e:
        e.show()
        return EXIT_ERROR if e.exit_code == 2 else e.exit_code
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - one line, never a traceback
        click.echo(f"handrail: internal error: {type(e).__name__}: {e}", err=True)
        return EXIT_ERROR
    return 0


def main() -> None:  # pragma: no cover - kept for `python -m handrail.cli`
    sys.exit(run(sys.argv[1:]))
