"""`handrail policy check`: every policy file of a project, every problem at once."""

from __future__ import annotations

import os

from handrail.errors import HandrailError
from handrail.fsio import parse_json, read_text
from handrail.policy import contract as contracts
from handrail.policy import protocol as protocols
from handrail.policy import tasks as taskmod

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _check_file(path: str, shown: str, checker, result: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    result["files"].append(shown)
    try:
        data = parse_json(read_text(path), shown)
    except HandrailError as e:
        result["errors"].append(str(e))
        return
    errors, warnings = checker(data, shown)
    result["errors"] += errors
    result["warnings"] += warnings


def check_all(project: str, protocol: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"valid": True, "files": [], "errors": [], "warnings": [], "notes": []}
    path = protocol if protocol is not None else protocols.discover(project)
    if path is None:
        result["notes"].append(
            f"no protocol at {protocols.PROTOCOL_PATHS[0]}: the built-in default policy applies "
            "(`handrail init` writes it into the repository)"
        )
    elif not os.path.isfile(path):
        result["errors"].append(f"{path}: file not found")
    else:
        shown = os.path.relpath(path, project) if protocol is None else path
        _check_file(path, shown, protocols.check, result)
    root = taskmod.tasks_root(project)
    names = sorted(os.listdir(root)) if os.path.isdir(root) else []
    for name in names:
        directory = os.path.join(root, name)
        if not os.path.isdir(directory):
            continue
        shown = os.path.join(taskmod.TASKS_DIR, name, taskmod.TASK_FILE)
        result["files"].append(shown)
        err = taskmod.slug_error(name)
        if err:
            result["errors"].append(f"{os.path.join(taskmod.TASKS_DIR, name)}: {err}")
            continue
        try:
            t = taskmod.load_task(project, name)
        except HandrailError as e:
            result["errors"].append(str(e))
        else:
            from handrail.policy.validate import schema_errors

            result["errors"] += schema_errors(t.data, "task", shown)
        cpath = contracts.contract_path(directory)
        if os.path.exists(cpath):
            _check_file(cpath, os.path.join(taskmod.TASKS_DIR, name, contracts.CONTRACT_FILE), contracts.check, result)
    result["valid"] = not result["errors"]
    return result
