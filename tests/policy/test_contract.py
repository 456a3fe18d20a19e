"""Task contracts: presets, schema errors a person can act on, gates and criteria."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from handrail.errors import PolicyError
from handrail.policy import contract as contracts
from handrail.policy.contract import Contract

ISSUE_PRESETS = {
    "safe": {"max_steps": 10, "cost_ceiling_tokens": 200_000, "max_runtime_minutes": 30, "max_changed_files": 20},
    "builder": {"max_steps": 30, "cost_ceiling_tokens": 1_000_000, "max_runtime_minutes": 120, "max_changed_files": 60},
    "autopilot": {"max_steps": 50, "cost_ceiling_tokens": 3_000_000, "max_runtime_minutes": 360,
                  "max_changed_files": None},
}


def write_contract(task_dir: Path, data: object) -> Path:
    task_dir.mkdir(parents=True, exist_ok=True)
    path = task_dir / contracts.CONTRACT_FILE
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2), encoding="utf-8")
    return path


def check(data: object) -> tuple[list[str], list[str]]:
    return contracts.check(data, "C.json")


# ----------------------------------------------------------------------------- presets


@pytest.mark.parametrize("mode", sorted(ISSUE_PRESETS))
def test_presets_fill_an_empty_governor(mode: str) -> None:
    gov = Contract({"contract_mode": mode}, "C.json").governor()
    assert {k: gov[k] for k in ISSUE_PRESETS[mode]} == ISSUE_PRESETS[mode]
    assert gov["max_diff_lines"] is None


def test_autopilot_changed_files_is_unlimited() -> None:
    assert Contract({"contract_mode": "autopilot"}, "C.json").governor()["max_changed_files"] is None


@pytest.mark.parametrize("mode", ["safe", "balanced", "builder", "autopilot"])
def test_presets_fill_only_unset_fields(mode: str) -> None:
    written = {"max_steps": 3, "max_changed_files": None, "max_diff_lines": 400}
    gov = Contract({"contract_mode": mode, "governor": written}, "C.json").governor()
    assert gov["max_steps"] == 3
    assert gov["max_changed_files"] is None  # written as unlimited: the preset does not override it
    assert gov["max_diff_lines"] == 400
    preset = Contract({"contract_mode": mode}, "C.json").governor()
    assert gov["cost_ceiling_tokens"] == preset["cost_ceiling_tokens"]
    assert gov["max_runtime_minutes"] == preset["max_runtime_minutes"]


def test_balanced_is_the_default_and_lies_between_safe_and_builder() -> None:
    c = Contract({}, "C.json")
    assert c.mode == "balanced"
    gov = c.governor()
    assert gov == Contract({"contract_mode": "balanced"}, "C.json").governor()
    for key in ("max_steps", "cost_ceiling_tokens", "max_runtime_minutes", "max_changed_files"):
        assert ISSUE_PRESETS["safe"][key] <= gov[key] <= ISSUE_PRESETS["builder"][key]


def test_presets_show_in_task_show(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    assert handrail("task", "new", "t", "--project", str(repo)).returncode == 0
    write_contract(repo / ".handrail/tasks/t", {"contract_mode": "autopilot", "governor": {"max_steps": 7}})
    r = handrail("task", "show", "t", "--json", "--project", str(repo))
    assert r.returncode == 0, r.stderr
    c = json.loads(r.stdout.splitlines()[-1])["contract"]
    assert c["contract_mode"] == "autopilot"
    assert c["governor"] == {"max_steps": 7, "cost_ceiling_tokens": 3_000_000, "max_runtime_minutes": 360,
                             "max_changed_files": None, "max_diff_lines": None}
    human = handrail("task", "show", "t", "--project", str(repo)).stdout
    assert "max_changed_files=unlimited" in human and "max_steps=7" in human


# ----------------------------------------------------------------------------- criteria


def test_verification_as_string_or_object() -> None:
    data = {"criteria": [
        {"id": "tests", "binary": True, "verification": "pytest -q"},
        {"id": "lint", "binary": True, "verification": {"command": "ruff check .", "timeout_ms": 60000}},
        {"id": "ux", "description": "reads well"},
    ]}
    assert check(data) == ([], [])
    crit = Contract(data, "C.json").criteria()
    assert crit[0]["verification"] == {"command": "pytest -q"}
    assert crit[1]["verification"] == {"command": "ruff check .", "timeout_ms": 60000}
    assert crit[2]["verification"] is None


def test_binary_criterion_without_verification_is_a_warning() -> None:
    errors, warnings = check({"criteria": [{"id": "works", "binary": True}, {"id": "nice", "binary": False}]})
    assert errors == []
    assert len(warnings) == 1
    assert warnings[0].startswith("C.json: criteria[0]:") and "'works'" in warnings[0]


def test_duplicate_criterion_ids_are_an_error() -> None:
    errors, _ = check({"criteria": [{"id": "a", "verification": "x"}, {"id": "a", "verification": "y"}]})
    assert errors == ["C.json: criteria[1].id: 'a' is already used by criteria[0]"]


@pytest.mark.parametrize(
    ("verification", "message"),
    [
        ({"command": "pytest", "timeout": 5},
         "criteria[0].verification.timeout: unknown key (did you mean 'timeout_ms'?)"),
        ({"timeout_ms": 5}, "criteria[0].verification: 'command' is a required property"),
        ("", "criteria[0].verification:"),
        ({"command": "pytest", "timeout_ms": 0}, "criteria[0].verification.timeout_ms:"),
    ],
)
def test_bad_verification_names_the_path(verification: object, message: str) -> None:
    errors, _ = check({"criteria": [{"id": "a", "verification": verification}]})
    assert len(errors) == 1 and errors[0].startswith(f"C.json: {message}"), errors


# ----------------------------------------------------------------------------- unknown keys and bad values


@pytest.mark.parametrize(
    ("data", "where", "hint"),
    [
        ({"feature": "x", "alowed_files": ["src/**"]}, "alowed_files", "allowed_files"),
        ({"governor": {"max_step": 3}}, "governor.max_step", "max_steps"),
        ({"human_gate": {"require_for": ["publish"]}}, "human_gate.require_for", "required_for"),
        ({"criteria": [{"id": "a", "verifcation": "x"}]}, "criteria[0].verifcation", "verification"),
        ({"contract": {}}, "contract", None),
    ],
)
def test_unknown_keys_are_errors_with_the_json_path(data: dict, where: str, hint: str | None) -> None:
    errors, _ = check(data)
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"C.json: {where}: unknown key")
    if hint:
        assert f"did you mean '{hint}'" in errors[0]


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ({"contract_mode": "safer"}, "contract_mode"),
        ({"governor": {"max_steps": -1}}, "governor.max_steps"),
        ({"governor": {"max_steps": "ten"}}, "governor.max_steps"),
        ({"allowed_files": "src/**"}, "allowed_files"),
        ({"forbidden_files": [""]}, "forbidden_files[0]"),
        ({"human_gate": {"required_for": ["payments"]}}, "human_gate.required_for[0]"),
        ({"criteria": [{"description": "no id"}]}, "criteria[0]"),
    ],
)
def test_bad_values_name_the_json_path(data: dict, where: str) -> None:
    errors, _ = check(data)
    assert errors and errors[0].startswith(f"C.json: {where}:"), errors


def test_contract_mode_typo_suggests_the_preset() -> None:
    errors, _ = check({"contract_mode": "safer"})
    assert "did you mean 'safe'" in errors[0]


def test_load_raises_with_file_and_key(tmp_path: Path) -> None:
    write_contract(tmp_path / "t", {"allowed_files": ["src/**"], "governer": {}})
    with pytest.raises(PolicyError) as e:
        contracts.load(str(tmp_path / "t"), ".handrail/tasks/t/harness-contract.json")
    assert str(e.value).startswith(".handrail/tasks/t/harness-contract.json: governer: unknown key")
    assert e.value.reason == "invalid_policy"


def test_load_reports_broken_json_with_line_and_column(tmp_path: Path) -> None:
    write_contract(tmp_path / "t", '{\n  "allowed_files": ["src/**",]\n}')
    with pytest.raises(PolicyError, match=r"invalid JSON at line 2 column"):
        contracts.load(str(tmp_path / "t"))


def test_load_without_a_contract_is_none(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    assert contracts.load(str(tmp_path / "t")) is None


def test_load_keeps_warnings(tmp_path: Path) -> None:
    write_contract(tmp_path / "t", {"criteria": [{"id": "a", "binary": True}]})
    for _ in range(2):  # the second read comes from the validation cache
        c = contracts.load(str(tmp_path / "t"), "C.json")
        assert c is not None and len(c.warnings) == 1


def test_policy_check_reports_contract_errors_and_warnings(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    handrail("task", "new", "a", "--project", str(repo))
    handrail("task", "new", "b", "--project", str(repo))
    write_contract(repo / ".handrail/tasks/a", {"governor": {"max_stesp": 1}})
    write_contract(repo / ".handrail/tasks/b", {"criteria": [{"id": "c", "binary": True}]})
    r = handrail("policy", "check", "--json", "--project", str(repo))
    assert r.returncode == 1
    result = json.loads(r.stdout.splitlines()[-1])
    assert result["errors"] == [".handrail/tasks/a/harness-contract.json: governor.max_stesp: unknown key "
                                "(did you mean 'max_steps'?)"]
    assert len(result["warnings"]) == 1 and result["warnings"][0].startswith(".handrail/tasks/b/harness-contract.json")


# ----------------------------------------------------------------------------- gates and scope


def test_gate_themes_default_paths() -> None:
    c = Contract({"human_gate": {"required_for": ["payment_logic_change", "auth_permission_change",
                                                  "database_destructive_change", "publish"]}}, "C.json")
    assert c.gate_paths() == {
        "payment_logic_change": ("**/billing/**", "**/payment/**"),
        "auth_permission_change": ("**/auth/**",),
        "database_destructive_change": ("**/migrations/**",),
        "publish": (),
    }


def test_gate_paths_are_overridable_per_theme() -> None:
    data = {"human_gate": {"required_for": ["payment_logic_change", "auth_permission_change"],
                           "paths": {"payment_logic_change": ["src/stripe/**"]}}}
    assert check(data) == ([], [])
    gates = Contract(data, "C.json").gate_paths()
    assert gates["payment_logic_change"] == ("src/stripe/**",)
    assert gates["auth_permission_change"] == ("**/auth/**",)


def test_only_required_themes_are_gates() -> None:
    assert Contract({"human_gate": {"paths": {"publish": ["x"]}}}, "C.json").gate_paths() == {}
    assert Contract({}, "C.json").gate_paths() == {}


def test_gate_path_override_for_unknown_theme_is_an_error() -> None:
    errors, _ = check({"human_gate": {"paths": {"payments": ["x"]}}})
    assert errors and errors[0].startswith("C.json: human_gate.paths") and "payments" in errors[0]


def test_scope_comes_from_allowed_and_forbidden_files() -> None:
    s = Contract({"allowed_files": ["src/**"], "forbidden_files": ["src/vendor/**"]}, "C.json").scope()
    assert s.source == "C.json"
    assert s.allowed.match("src/a.py") == "src/**"
    assert s.forbidden.match("src/vendor/x") == "src/vendor/**"
