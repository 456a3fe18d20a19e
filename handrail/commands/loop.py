"""`handrail loop ...`: an agent iterating on a task alone, inside its guards."""

from __future__ import annotations

from handrail.commands import render
from handrail.commands.human import login, require_human
from handrail.commands.render import echo, emit_json, paint
from handrail.commands.where import require_repository
from handrail.errors import EXIT_OK


def run(*, slug: str, agent: list[str], max_steps: int | None, project: str) -> int:
    require_repository("loop run", project)
    from handrail.loop.runner import run as run_loop

    return run_loop(project, slug, agent, max_steps=max_steps)


def status(*, slug: str, project: str, as_json: bool) -> int:
    from handrail.loop import companions, report

    found = companions.status(project, slug)
    if as_json:
        emit_json(found)
        return EXIT_OK
    for text in report.status_text(found):
        echo(text)
    if found.get("contract_error"):
        echo(f"warning: {found['contract_error']}")
    return EXIT_OK


def check(*, slug: str, only: list[str] | None, timeout_ms: int | None, project: str, as_json: bool) -> int:
    from handrail.loop import companions

    results, code = companions.check(project, slug, only=only, timeout_ms=timeout_ms)
    if as_json:
        emit_json({"task": slug, "passed": code == 0, "criteria": results})
    else:
        width = max(len(r["id"]) for r in results)
        for r in results:
            mark = paint("✓", "ok") if r["status"] == "passed" else paint("✗", "error")
            detail = f" (exit {r['exit_code']})" if r["status"] == "failed" else ""
            echo(f"{mark} {r['id']:<{width}}  {r['status']}{detail}  log: {r['log']}")
    return code


def reset(*, slug: str, project: str, as_json: bool) -> int:
    require_repository("loop reset", project)
    from handrail.loop import companions
    from handrail.policy import tasks

    tasks.load_task(project, slug)
    require_human("loop reset", slug, "a human resets a loop")
    result, code = companions.reset(project, slug, by=login())
    if as_json:
        emit_json(result)
    else:
        echo(result["message"])
    return code


def retro(*, slug: str, project: str, as_json: bool) -> int:
    from handrail.loop import companions, report

    render.report(companions.retro(project, slug), as_json, report.retro_text)
    return EXIT_OK
