"""A task's verification criteria, run in the sandbox: each in its own process group,
in the repository, with its timeout, with credentials stripped from the environment
(save those the contract lists in `criteria_env`), logged head and tail, redacted.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from handrail.errors import HandrailError
from handrail.fsio import atomic_write
from handrail.loop import sandbox
from handrail.policy import loop as rules
from handrail.policy.contract import Contract

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PASSED, FAILED, TIMEOUT, NOT_VERIFIED = "passed", "failed", "timeout", "not_verified"
SHELL = "/bin/sh"


def select(contract: Contract, only: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The contract's criteria (all, or those named); an unknown name is a usage error."""
    found = contract.criteria()
    if not only:
        return found
    ids = [c["id"] for c in found]
    unknown = [c for c in only if c not in ids]
    if unknown:
        raise HandrailError(f"{contract.path}: criteria: no criterion '{unknown[0]}' "
                            f"(criteria: {', '.join(ids) or 'none'})", reason="bad_arguments")
    return [c for c in found if c["id"] in only]


def runnable(criteria: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for c in criteria if not rules.todo((c.get("verification") or {}).get("command"))]


def environment(contract: Contract, slug: str,
                base: Mapping[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    env, removed = rules.stripped_env(os.environ if base is None else base, contract.data.get("criteria_env", []))
    env["HANDRAIL_TASK"] = slug
    return env, removed


def run_all(project: str, contract: Contract, slug: str, criteria: Sequence[dict[str, Any]], log_dir: str, *,
            timeout_override_ms: int | None = None) -> list[dict[str, Any]]:
    env, removed = environment(contract, slug)
    os.makedirs(log_dir, exist_ok=True)
    return [run_one(project, c, env, removed, log_dir, timeout_override_ms) for c in criteria]


def run_one(project: str, criterion: dict[str, Any], env: Mapping[str, str], removed: list[str], log_dir: str,
            timeout_override_ms: int | None) -> dict[str, Any]:
    cid = criterion["id"]
    verification = criterion.get("verification") or {}
    command = verification.get("command")
    log = os.path.join(log_dir, f"{cid}.log")
    result: dict[str, Any] = {"id": cid, "status": NOT_VERIFIED, "exit_code": None, "timed_out": False, "seconds": 0.0,
                    "signature": None, "first_line": None, "log": log}
    if rules.todo(command):
        why = "no verification command" if not command else "its command starts with TODO"
        atomic_write(log, f"criterion: {cid}\nresult: not verified: {why}, so it was not run\n")
        result["first_line"] = why
        return result
    assert isinstance(command, str)
    limit_ms = rules.timeout_ms(verification, timeout_override_ms)
    ran = sandbox.run([SHELL, "-c", command], cwd=project, env=env, timeout=limit_ms / 1000)
    output = rules.redact(ran.output)
    if ran.timed_out:
        status, said = TIMEOUT, f"timeout after {limit_ms / 1000:g} s: the whole process group was killed"
    elif ran.exit_code == 0:
        status, said = PASSED, "passed (exit 0)"
    else:
        status, said = FAILED, f"failed (exit {ran.exit_code})"
    result.update(status=status, exit_code=ran.exit_code, timed_out=ran.timed_out, seconds=round(ran.seconds, 3))
    if status != PASSED:
        result["signature"] = rules.signature(cid, ran.exit_code, ran.timed_out, output)
        result["first_line"] = rules.first_meaningful_line(output)[:300]
    stripped = (f"removed {len(removed)} credential-like variable(s): {', '.join(removed)}" if removed
                else "nothing removed")
    header = (f"$ {rules.redact(command)}\ncriterion: {cid}\nresult: {said} in {ran.seconds:.2f} s\n"
              f"environment: {stripped}\n--- output (head and tail kept, credentials redacted) ---\n")
    atomic_write(log, header + output + ("" if output.endswith("\n") or not output else "\n"))
    return result


def tally(results: Sequence[dict[str, Any]]) -> tuple[int, int]:
    """(passed, total)."""
    return sum(r["status"] == PASSED for r in results), len(results)
