"""`handrail memory ...`: keep the project's own description current."""

from __future__ import annotations

import sys

from handrail.commands.render import echo, emit_json
from handrail.commands.where import require_repository
from handrail.errors import EXIT_DENIED, EXIT_OK


def init(*, project: str, as_json: bool) -> int:
    require_repository("memory init", project)
    from handrail.memory import bootstrap
    from handrail.records import clock

    folder, created, kept = bootstrap.init(project, clock.now_iso())
    if as_json:
        emit_json({"bootstrap_dir": folder, "created": created, "kept": kept})
        return EXIT_OK
    for path in created:
        echo(f"created {path}")
    for path in kept:
        echo(f"kept {path} (already there)")
    return EXIT_OK


def prepare(*, git_range: str | None, agent: str | None, force: bool, project: str, as_json: bool) -> int:
    require_repository("memory prepare", project)
    from handrail.memory.prepare import prepare as run_prepare

    result = run_prepare(project, git_range=git_range, agent=agent, force=force)
    if as_json:
        emit_json(result)
        return EXIT_OK
    if result["recovered"]:
        echo(f"handrail memory: {result['recovered']}", err=True)
    echo(f"{result['verdict']}: {'; '.join(result['reasons'])}")
    if result["git_range"]:
        echo(f"  range: {result['git_range']} ({result['diff_summary']})")
    if result["written"]:
        echo(f"  targets: {', '.join(result['targets'])}")
        echo(f"  manifest: {result['manifest']}: an agent reads it, edits the targets, then runs "
             "`handrail memory commit --output FILE`")
    if result["missing_bootstrap"]:
        echo(f"warning: missing {', '.join(result['missing_bootstrap'])}: "
             f"create them with `{result['init_command']}`", err=True)
    return EXIT_OK


def commit(*, source: str, agent: str | None, dry_run: bool, project: str, as_json: bool) -> int:
    """`source` is a file name, or `-` for stdin."""
    require_repository("memory commit", project)
    from handrail.memory.commit import commit as run_commit
    from handrail.memory.commit import read_output

    text, problem = read_output(source, sys.stdin)
    result = run_commit(project, text, "stdin" if source == "-" else source, agent=agent, dry_run=dry_run,
                        read_error=problem)
    code = EXIT_OK if result["ok"] else EXIT_DENIED
    if as_json:
        emit_json(result)
        return code
    if result["recovered"]:
        echo(f"handrail memory: {result['recovered']}", err=True)
    if result["already_written"]:
        echo(f"already written: {', '.join(result['files'])} (this update was committed before)")
    elif result["ok"]:
        verb = "would write" if dry_run else "wrote"
        echo(f"{verb} {', '.join(result['files'])}")
        for path, n in result["stripped"].items():
            echo(f"  removed {n} invisible character{'s' if n != 1 else ''} from {path}")
    else:
        echo(f"handrail memory commit: refused{' (dry run)' if dry_run else ''}; nothing was written", err=True)
        for f in result["failures"]:
            echo(f"  {f['rule']}: {f['path'] + ': ' if f['path'] else ''}{f['detail']}", err=True)
    return code


def status(*, project: str, as_json: bool) -> int:
    require_repository("memory status", project)
    from handrail.memory.status import status as read_status

    s = read_status(project, settle=True)
    if as_json:
        emit_json(s)
        return EXIT_OK
    if s["recovered"]:
        echo(f"handrail memory: {s['recovered']}", err=True)
    if s["pending"]:
        who = s["trigger_agent"] or "no agent named"
        echo(f"pending: a reflection on {s['git_range']} ({s['diff_summary']}), triggered by {who}, "
             f"{s['age_days']} days old{' (STALE)' if s['stale'] else ''}")
        echo(f"  targets: {', '.join(s['targets'])}")
    elif s["problem"]:
        echo(f"broken: {s['problem']}")
    else:
        echo("no reflection pending")
    if s["missing_bootstrap"]:
        echo(f"  missing: {', '.join(s['missing_bootstrap'])}")
    if s["next"]:
        echo(f"  next: {s['next']}")
    return EXIT_OK
