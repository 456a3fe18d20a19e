"""The command line: click parses it and fills in the functions of `handrail/commands/`,
whose exit code ends the process. No decisions and no printing here.

The hot-path commands (`can-edit`, `classify`, `hook NAME`) are routed by
`handrail.main` before click is imported; they are declared here too so that `--help`
lists them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click

from handrail import __version__
from handrail.commands import audit as audit_cmd
from handrail.commands import autonomy as autonomy_cmd
from handrail.commands import ci as ci_cmd
from handrail.commands import dashboard as dashboard_cmd
from handrail.commands import events as events_cmd
from handrail.commands import gate as gate_cmd
from handrail.commands import githooks, setup
from handrail.commands import guard as guard_cmd
from handrail.commands import loop as loop_cmd
from handrail.commands import memory as memory_cmd
from handrail.commands import policy as policy_cmd
from handrail.commands import task as task_cmd
from handrail.commands.render import echo, install_console
from handrail.errors import EXIT_DENIED, EXIT_OK, Said, outcome

F = Callable[..., Any]


def done(code: int) -> NoReturn:
    """A command's exit code, handed back to `run` through click."""
    raise SystemExit(code)


def _pinned(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """The project root around the folder given (handrail/projectroot.py): a subfolder,
    a nested `.handrail` or a linked worktree never chooses another policy. A folder
    named on the command line is where the search starts; by default, the harness's
    project folder or the current one."""
    if value is None:
        return None
    from click.core import ParameterSource

    from handrail.projectroot import for_command

    typed = ctx.get_parameter_source(param.name or "") != ParameterSource.DEFAULT
    return for_command(value if typed else None, os.environ, cwd=None if typed else value).path


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
    done(setup.demo())


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
def task_new(**kw: Any) -> None:
    """Create a task in .handrail/tasks/SLUG/."""
    done(task_cmd.new(**kw))


@task.command("phase")
@click.argument("slug")
@click.argument("phase")
@project_option
@json_option
def task_phase(**kw: Any) -> None:
    """Move task SLUG to PHASE."""
    done(task_cmd.phase(**kw))


@task.command("list")
@project_option
@json_option
def task_list(**kw: Any) -> None:
    """List tasks with their phases."""
    done(task_cmd.list_(**kw))


@task.command("show")
@click.argument("slug")
@project_option
@json_option
def task_show(**kw: Any) -> None:
    """Show one task, its history and its contract."""
    done(task_cmd.show(**kw))



# ----------------------------------------------------------------------------- policy


@cli.group()
def policy() -> None:
    """Validate the protocol and contracts, and show what each tool may run."""


@policy.command("check")
@project_option
@protocol_option
@json_option
def policy_check(**kw: Any) -> None:
    """Validate the protocol, every task and every contract. Exit 0 valid, 1 invalid."""
    done(policy_cmd.check(**kw))


@policy.command("show")
@click.argument("tool", required=False)
@click.option("--all", "everything", is_flag=True, help="Every pattern of every set (allow, notify, ask, deny).")
@click.option("--tier", type=click.IntRange(1, 3), help="Every pattern of this tier only.")
@project_option
@protocol_option
@json_option
def policy_show(everything: bool, tier: int | None, **kw: Any) -> None:
    """What each tool may run, per tier: counts and the first patterns (--all, --tier N or --json for more)."""
    if everything and tier is not None:
        raise click.UsageError("give --all or --tier N, not both")
    done(policy_cmd.show(everything=everything, tier=tier, **kw))


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


def _audit_readers() -> list[str]:
    from handrail.audit import READERS

    return list(READERS)


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
def events_command(**kw: Any) -> None:
    """What handrail decided, was told and refused: the event log, newest last."""
    done(events_cmd.events(**kw))


@cli.command("dashboard")
@click.option("--port", type=click.IntRange(0, 65535), default=0,
              help="The port to listen on (default 0: a free one).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on; anything but loopback is warned about.")
@click.option("--no-open", is_flag=True, help="Print the address only; open no browser.")
@project_option
def dashboard_command(**kw: Any) -> None:
    """A read-only page of events, gates, loops, envelopes and the last audit, on loopback, until Ctrl-C."""
    done(dashboard_cmd.dashboard(**kw))


@cli.command("audit")
@click.argument("paths", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--harness", type=click.Choice(["auto", *sorted(_audit_readers())]), default="auto", show_default=True,
              help="Whose sessions: with no PATH, where that harness keeps them; with PATHs, how to read them.")
@click.option("--since", callback=_since,
              help="Only calls this recent: 30m, 2h, 7d, 1w, or an ISO 8601 time (UTC unless an offset is written).")
@project_option
@click.option("--json", "as_json", is_flag=True, help="The report as one JSON object.")
def audit_command(**kw: Any) -> None:
    """Replay past agent sessions through the current policy: what ran that it would refuse or ask a
    human for, and what a hook refused at the time. Exit 0 nothing found, 1 findings, 2 error."""
    done(audit_cmd.audit(**kw))


@cli.command("notify", cls=UsageOneCommand)
@click.option("--level", required=True, help="info (exit 0), warn (exit 0) or block (exit 2); any case.")
@click.option("--topic", required=True, help="What it is about, shown in brackets.")
@click.option("--message", required=True, help="The text for the person.")
@click.option("--agent", help="The agent giving it (default: $HANDRAIL_AGENT).")
@click.option("--task", help="The task it concerns (default: $HANDRAIL_TASK).")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the recorded event as one JSON object.")
def notify_command(**kw: Any) -> None:
    """Tell a person something, and record it: `ℹ`/`⚠`/`⛔ [topic] message`. Exit 1 on a usage error."""
    done(events_cmd.notify(**kw))


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
def autonomy_init(**kw: Any) -> None:
    """Create AGENT's envelope, with no task types yet. An existing one is left untouched."""
    done(autonomy_cmd.init(**kw))


@autonomy.command("get")
@click.argument("agent")
@click.argument("task_type", required=False)
@click.option("--format", "fmt", type=click.Choice(["table", "json"], case_sensitive=False), default="table",
              show_default=True, help="json is stable, for injecting into an agent's context.")
@root_option
@project_option
def autonomy_get(**kw: Any) -> None:
    """Show AGENT's envelope, or one TASK_TYPE of it."""
    done(autonomy_cmd.get(**kw))



@autonomy.command("set")
@click.argument("agent")
@click.argument("task_type")
@click.argument("state")
@click.option("--note", help="The operator's note: why this state.")
@click.option("--label", help="A human label for the task type.")
@root_option
@project_option
@json_option
def autonomy_set(**kw: Any) -> None:
    """Set TASK_TYPE of AGENT to STATE (needsFullSupervision, checkBeforeCommitting, fullyApproved).

    Raising a state asks a person to confirm at a terminal, and is refused without
    one or in an agent's environment; lowering one never asks.
    """
    done(autonomy_cmd.set_(**kw, confirm=lambda question: click.confirm(question, default=False)))


@autonomy.command("list")
@click.argument("agent", required=False)
@root_option
@project_option
@json_option
def autonomy_list(**kw: Any) -> None:
    """Every envelope (or AGENT's), with a warning for those untouched over 30 days."""
    done(autonomy_cmd.list_(**kw))


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
def gate_list(**kw: Any) -> None:
    """Every task's gates with their state (pending, approved, rejected)."""
    done(gate_cmd.list_(**kw))



@gate.command("approve")
@click.argument("slug", metavar="TASK")
@click.argument("theme")
@click.option("--note", help="Why, for the record.")
@project_option
@json_option
def gate_approve(**kw: Any) -> None:
    """Approve TASK's gate THEME (humans only, at an interactive terminal)."""
    done(gate_cmd.approve(**kw))


@gate.command("reject")
@click.argument("slug", metavar="TASK")
@click.argument("theme")
@click.option("--reason", required=True, help="Why not: the agent reads it.")
@project_option
@json_option
def gate_reject(**kw: Any) -> None:
    """Reject TASK's gate THEME (humans only, at an interactive terminal)."""
    done(gate_cmd.reject(**kw))



@cli.command("install-hooks")
@click.option("--symlink", is_flag=True, help="Link every hook to one handrail script in the hooks folder.")
@click.option("--force", is_flag=True,
              help="Also when an earlier saved hook is in the way (it goes to .handrail/backups).")
@project_option
def install_hooks_cmd(**kw: Any) -> None:
    """Write git hooks that run handrail (pre-commit, prepare-commit-msg, pre-push, git am's; no framework needed)."""
    done(githooks.install(**kw))


@cli.command("uninstall-hooks")
@project_option
def uninstall_hooks_cmd(**kw: Any) -> None:
    """Remove handrail's git hooks and put back the hooks they replaced."""
    done(githooks.uninstall(**kw))


@cli.command()
@project_option
@json_option
def guard(**kw: Any) -> None:
    """The rules in force here: each path rule, whom it binds, where it comes from."""
    done(guard_cmd.guard(**kw))


@cli.command("ci")
@click.option("--base", help="Judge the commits after this one (default: the CI engine's event, else origin/main).")
@click.option("--head", help="... up to this one (default: the engine's, else HEAD).")
@click.option("--format", "output_format", type=click.Choice(ci_cmd.FORMATS), default="text", show_default=True,
              help="The report: for a person, one JSON object, SARIF 2.1.0 for code scanning, or "
                   "GitLab's Code Quality report.")
@click.option("--output", type=click.Path(dir_okay=False),
              help="Write the report there, atomically (the text report still goes to stdout).")
@click.option("--require-attribution", is_flag=True, help="A commit that carries no mark of who made it is a finding.")
@project_option
def ci_command(**kw: Any) -> None:
    """The git rules over a pull request's commits: exit 0 clean, 1 findings, 2 error."""
    done(ci_cmd.ci(**kw))


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
def memory_init(**kw: Any) -> None:
    """Lay the four bootstrap files (empty, with front matter) where they are missing."""
    done(memory_cmd.init(**kw))


@memory.command("prepare")
@click.option("--range", "git_range", metavar="A..B",
              help="The commits to look at (default: since the last reflection, or HEAD~3..HEAD).")
@click.option("--agent", help="The agent whose change this is (default: the one the environment names).")
@click.option("--force", is_flag=True, help="Write the manifest even when nothing relevant changed.")
@project_option
@json_option
def memory_prepare(**kw: Any) -> None:
    """Did the change make the description stale? If so, write the reflection manifest."""
    done(memory_cmd.prepare(**kw))


@memory.command("commit")
@click.argument("stdin", required=False, metavar="[-]")
@click.option("--output", "output", metavar="FILE", help='The agent\'s update, {"files": {PATH: CONTENT}}; - is stdin.')
@click.option("--agent", help="The agent making the update (default: the one the environment names).")
@click.option("--dry-run", is_flag=True, help="Check every rule, write nothing.")
@project_option
@json_option
def memory_commit(stdin: str | None, output: str | None, **kw: Any) -> None:
    """Accept the update only if well-formed, confined to the targets and unraced. Exit 0 written, 1 refused."""
    if (stdin is None) == (output is None) or (stdin is not None and stdin != "-"):
        raise click.UsageError("give the update as --output FILE, or as - to read it from stdin")
    done(memory_cmd.commit(source=output if output is not None and output != "-" else "-", **kw))


@memory.command("status")
@project_option
@json_option
def memory_status(**kw: Any) -> None:
    """Is a reflection pending, for whom, and what to run."""
    done(memory_cmd.status(**kw))


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
def loop_run(agent: tuple[str, ...], **kw: Any) -> None:
    """Run AGENT on TASK, attempt after attempt, until every criterion passes or a guard stops it.

    Exit 0 done, 1 stopped by a guard, 2 contract or usage error, 3 paused for a human.
    """
    done(loop_cmd.run(agent=list(agent), **kw))


@loop.command("status")
@click.argument("slug", metavar="TASK")
@project_option
@json_option
def loop_status(**kw: Any) -> None:
    """Circuit, attempts, tokens and time against their ceilings, pending gates, the next action."""
    done(loop_cmd.status(**kw))


@loop.command("check")
@click.argument("slug", metavar="TASK")
@click.option("--criteria", "only", help="Only these criteria, comma-separated (C1,C3).")
@click.option("--timeout", "timeout_ms", type=click.IntRange(min=1),
              help="Each criterion's timeout in milliseconds (default: its timeout_ms, else 300000).")
@project_option
@json_option
def loop_check(only: str | None, **kw: Any) -> None:
    """Run TASK's criteria now, in the loop's sandbox; never touches the circuit or progress. Exit 0 all pass."""
    names = [c.strip() for c in only.split(",") if c.strip()] if only else None
    done(loop_cmd.check(only=names, **kw))


@loop.command("reset")
@click.argument("slug", metavar="TASK")
@project_option
@json_option
def loop_reset(**kw: Any) -> None:
    """Close TASK's open circuit into half-open, or end a run paused on its budget (humans only, at a terminal)."""
    done(loop_cmd.reset(**kw))


@loop.command("retro")
@click.argument("slug", metavar="TASK")
@project_option
@json_option
def loop_retro(**kw: Any) -> None:
    """What TASK's loop history says: failure signatures, violated paths, criteria never passed, tokens."""
    done(loop_cmd.retro(**kw))


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
def init(tools: tuple[str, ...], **kw: Any) -> None:
    """Guard this git repository: protocol, git hooks and every harness's permission files."""
    done(setup.init(tools=_tool_list(tools), **kw))


@cli.command()
@click.option("--tool", "tools", multiple=True, metavar="T",
              help="Only this harness (default: every one the protocol lists); repeatable.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when a file differs from what would be generated.")
@click.option("--dry-run", is_flag=True, help="Write nothing; print the diff of each file that would change.")
@project_option
@protocol_option
@json_option
def permissions(tools: tuple[str, ...], **kw: Any) -> None:
    """Write each harness's own permission and hook files from the protocol (merged, backed up)."""
    done(setup.permissions(tools=_tool_list(tools), **kw))


@cli.command()
@click.option("--dry-run", is_flag=True, help="Write nothing; say what would be taken out, file by file.")
@click.option("--purge", is_flag=True,
              help="Also remove .handrail/ (protocol, tasks, events), all but backups/, which keeps a copy.")
@project_option
@json_option
def deinit(**kw: Any) -> None:
    """Take out what init and permissions added (rules, hooks, plugin files); keep what you wrote, and
    .handrail/ unless --purge."""
    done(setup.deinit(**kw))


@cli.command()
@click.option("--fix", is_flag=True,
              help="Regenerate files (with backups), reinstall hooks, set a broken event log aside, then check again.")
@project_option
@json_option
def doctor(**kw: Any) -> None:
    """Check protocol, generated files, git and harness hooks, runtime and advice. Exit 0 ok, 1 not."""
    done(setup.doctor(**kw))


# ----------------------------------------------------------------------------- running


# ----------------------------------------------------------------------------- running


def run(args: list[str]) -> int:
    """Run the click group; every way a command ends becomes one exit code (and at most
    one line on stderr) through `errors.outcome`."""
    failure: BaseException
    install_console()
    try:
        cli.main(args, prog_name="handrail", standalone_mode=False)
    except click.ClickException as e:
        e.show()  # click prints its own usage message
        return outcome(e)[0]
    except click.exceptions.Abort:
        failure = Said("handrail: aborted", reason="aborted", exit_code=EXIT_DENIED)
    except BaseException as e:  # noqa: BLE001 - one line, never a traceback
        failure = e
    else:
        return EXIT_OK
    code, line = outcome(failure)
    if line is not None:
        echo(line, err=True)
    return code


def main() -> None:  # pragma: no cover - kept for `python -m handrail.cli`
    sys.exit(run(sys.argv[1:]))
