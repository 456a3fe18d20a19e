"""`handrail init`, `permissions`, `deinit`, `doctor`, `demo`: setting a repository up, taking it out, checking it."""

from __future__ import annotations

from handrail.commands.human import require_human
from handrail.commands.render import echo, emit_json, paint, report
from handrail.commands.where import require_repository
from handrail.errors import EXIT_DENIED, EXIT_OK


def init(*, tools: list[str] | None, hook_kind: str, force: bool, project: str, as_json: bool) -> int:
    require_repository("init", project)
    from handrail.init import init as run_init
    from handrail.init import text_report

    if force:
        require_human("init", "--force", "a human replaces the protocol and the saved git hooks")
    report(run_init(project, tools=tools, pre_commit=hook_kind == "pre-commit", force=force), as_json, text_report)
    return EXIT_OK


def permissions(*, tools: list[str] | None, check: bool, dry_run: bool, project: str, protocol: str | None,
                as_json: bool) -> int:
    require_repository("permissions", project)
    from handrail.permissions import run as run_permissions

    mode = "check" if check else "dry-run" if dry_run else "write"
    if protocol is not None and mode == "write":
        require_human("permissions", f"--protocol {protocol}",
                      "a human writes the permission files from another protocol")
    result = run_permissions(project, tools=tools, protocol=protocol, mode=mode)
    code = EXIT_OK if result["ok"] else EXIT_DENIED
    if as_json:
        emit_json(result)
        return code
    for note in result["notes"]:
        echo(f"note: {note}")
    words = {"write": {"create": "created", "update": "updated", "none": "unchanged"},
             "check": {"create": "missing", "update": "differs", "none": "in sync"},
             "dry-run": {"create": "would create", "update": "would update", "none": "unchanged"}}[mode]
    width = max((len(f["path"]) for f in result["files"]), default=len("FILE"))
    if result["files"]:
        echo(f"{'STATE':<12} {'FILE':<{width}}  TOOL")
    for f in result["files"]:
        backup = f"  (backup: {f['backup']})" if f.get("backup") else ""
        echo(f"{words[f['change']]:<12} {f['path']:<{width}}  {f['tool']}{backup}")
        if f.get("diff"):
            echo(f["diff"], nl=False)
    pending = sum(f["change"] != "none" for f in result["files"])
    if mode == "check" and pending:
        echo(f"{pending} file{'s' if pending != 1 else ''} differ from the protocol: run `handrail permissions`")
    elif mode != "check" and not pending:
        echo("every file is in sync with the protocol; nothing written")
    return code


def deinit(*, dry_run: bool, purge: bool, project: str, as_json: bool) -> int:
    from handrail.deinit import deinit as run_deinit
    from handrail.deinit import text_report

    if not dry_run:
        require_human("deinit", "--purge" if purge else "", "a human takes handrail's guardrails out")
    report(run_deinit(project, dry_run=dry_run, purge=purge), as_json, text_report)
    return EXIT_OK


def doctor(*, fix: bool, project: str, as_json: bool) -> int:
    require_repository("doctor", project)  # its checks are of a repository's hooks and files
    from handrail.doctor import run as run_doctor
    from handrail.doctor import text_report

    report = run_doctor(project, fix=fix)
    if as_json:
        emit_json(report)
    else:
        for text in text_report(report, paint):
            echo(text)
    return EXIT_OK if report["ok"] else EXIT_DENIED


def demo() -> int:
    from handrail.demo import run_demo

    return run_demo()
