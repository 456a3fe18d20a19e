"""Task contracts: scope, governor (budget), human gates and verification criteria."""

from __future__ import annotations

import os

from handrail.errors import PolicyError
from handrail.fsio import parse_json, read_text
from handrail.policy.scope import PROTECTED, ContractScope

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CONTRACT_FILE = "harness-contract.json"

UNLIMITED = None
GOVERNOR_KEYS = ("max_steps", "cost_ceiling_tokens", "max_runtime_minutes", "max_changed_files", "max_diff_lines")
# Presets fill only the governor fields a contract leaves unset; None means unlimited.
PRESETS: dict[str, dict[str, int | None]] = {
    "safe": {"max_steps": 10, "cost_ceiling_tokens": 200_000, "max_runtime_minutes": 30, "max_changed_files": 20},
    "balanced": {"max_steps": 20, "cost_ceiling_tokens": 500_000, "max_runtime_minutes": 60, "max_changed_files": 40},
    "builder": {"max_steps": 30, "cost_ceiling_tokens": 1_000_000, "max_runtime_minutes": 120, "max_changed_files": 60},
    "autopilot": {"max_steps": 50, "cost_ceiling_tokens": 3_000_000, "max_runtime_minutes": 360,
                  "max_changed_files": UNLIMITED},
}
DEFAULT_MODE = "balanced"

# Human-gate themes and the paths that trigger them (a contract may override the paths).
GATE_THEMES: dict[str, tuple[str, ...]] = {
    "payment_logic_change": ("**/billing/**", "**/payment/**"),
    "auth_permission_change": ("**/auth/**",),
    "database_destructive_change": ("**/migrations/**",),
    "publish": (),
    "policy_change": tuple(p for p, _who, _why in PROTECTED),
}


class Contract:
    __slots__ = ("data", "path", "warnings")

    def __init__(self, data: dict[str, Any], path: str, warnings: list[str] | None = None) -> None:
        self.data = data
        self.path = path
        self.warnings = warnings or []

    @property
    def mode(self) -> str:
        mode: str = self.data.get("contract_mode", DEFAULT_MODE)
        return mode

    def scope(self, source: str | None = None) -> ContractScope:
        return ContractScope(
            list(self.data.get("allowed_files", [])),
            list(self.data.get("forbidden_files", [])),
            source or self.path,
        )

    def governor(self) -> dict[str, int | None]:
        """The governor as written, with the preset filling only what is unset."""
        written = self.data.get("governor", {})
        preset = PRESETS[self.mode]
        return {k: written[k] if k in written else preset.get(k) for k in GOVERNOR_KEYS}

    def gate_paths(self) -> dict[str, tuple[str, ...]]:
        """The required gate themes with the paths that trigger each."""
        gate = self.data.get("human_gate", {})
        overrides = gate.get("paths", {})
        return {t: tuple(overrides.get(t, GATE_THEMES[t])) for t in gate.get("required_for", [])}

    def criteria(self) -> list[dict[str, Any]]:
        out = []
        for c in self.data.get("criteria", []):
            v = c.get("verification")
            if isinstance(v, str):
                v = {"command": v}
            out.append({**c, "verification": v})
        return out


def contract_path(task_dir: str) -> str:
    return os.path.join(task_dir, CONTRACT_FILE)


def load(task_dir: str, display: str | None = None) -> Contract | None:
    """The task's contract, or None where the task has none. Invalid: PolicyError."""
    path = contract_path(task_dir)
    if not os.path.exists(path):
        return None
    shown = display or path
    text = read_text(path)
    data = parse_json(text, shown)
    from handrail.policy import validate

    if isinstance(data, dict) and validate.known_valid("contract", text):
        return Contract(data, shown, warnings_of(data, shown))
    errors, warnings = check(data, shown)
    if errors:
        more = f" (and {len(errors) - 1} more: run `handrail policy check`)" if len(errors) > 1 else ""
        raise PolicyError(errors[0] + more)
    validate.passed("contract", text)
    assert isinstance(data, dict)
    return Contract(data, shown, warnings)


def check(data: object, path: str) -> tuple[list[str], list[str]]:
    from handrail.policy.validate import schema_errors

    if not isinstance(data, dict):
        return [f"{path}: expected a JSON object at the top level"], []
    errors = schema_errors(data, "harness-contract", path)
    if errors:
        return errors, []
    ids: dict[str, int] = {}
    for i, c in enumerate(data.get("criteria", [])):
        if c["id"] in ids:
            errors.append(f"{path}: criteria[{i}].id: '{c['id']}' is already used by criteria[{ids[c['id']]}]")
        ids.setdefault(c["id"], i)
    return errors, warnings_of(data, path)


def warnings_of(data: dict[str, Any], path: str) -> list[str]:
    return [
        f"{path}: criteria[{i}]: binary criterion '{c.get('id')}' has no verification, so nothing can check it"
        for i, c in enumerate(data.get("criteria", []))
        if c.get("binary") and not c.get("verification")
    ]
