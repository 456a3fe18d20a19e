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


def project_option(f: F) -> F:
    return click.option(
        "--project", "-p", default=".", show_default=True, type=click.Path(file_okay=False),
        help="The repository handrail guards.",
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


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "--version", prog_name="handrail")
def cli() -> None:
    """Keep AI coding agents inside the autonomy their operator granted."""


def _passthrough(name: str, module: str, summary: str) -> None:
    @cli.command(name, help=summary, context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                                                      "help_option_names": []})
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def command(args: tuple[str, ...]) -> None:
        import importlib

        if any(a in ("-h", "--help") for a in args):
            click.echo(importlib.import_module(module).__doc__)
            raise SystemExit(0)
        raise SystemExit(importlib.import_module(module).main(list(args)))


_passthrough("can-edit", "handrail.hooks.can_edit", "May an agent edit now (and this file)? Exit 0 yes, 1 no, 2 error.")
_passthrough("classify", "handrail.hooks.classify", "Which tier is a shell command in? Exit 0 runs, 1 needs a human, 2 error.")


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

    t = tasks.new_task(project, slug, phase=phase, title=title, by=actor())
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

    t, old = tasks.set_phase(project, slug, phase, by=actor())
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
        emit_json({"tasks": [{"task": t.slug, "phase": t.phase, "title": t.data.get("title", t.slug),
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
        emit_json({**t.data, "editing": t.editing, "contract": contract})
        return
    click.echo(f"task {t.slug}: {t.data.get('title', '')}")
    click.echo(f"  phase: {t.phase}{' (edits allowed)' if t.editing else ''}")
    for h in t.data.get("history", []):
        click.echo(f"  {h['at']}  {h.get('from') or '-'} -> {h['to']}{'  by ' + h['by'] if h.get('by') else ''}")
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
