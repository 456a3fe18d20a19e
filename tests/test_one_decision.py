"""The project root, the peek at a hot-path command line, and the state policy/ decides
over are each handled in one place: a scan of the package that fails when a second copy
creeps back (what a user sees is in test_project_root.py, tests/hooks and tests/policy)."""

from __future__ import annotations

import ast

from test_one_place import calls, modules

# The pre-tool hook reads the project folder a harness names in its payload: the harness's
# word, not a command line, so it asks `locate` directly.
PAYLOAD_ROOT = {"hooks/pretool.py"}


def test_only_projectroot_decides_where_a_commands_search_starts() -> None:
    found = [(name, c) for name, tree in modules() for c in calls(tree)
             if c.split(".")[-1] in ("find_root", "locate") and name != "projectroot.py"
             and name not in PAYLOAD_ROOT]
    assert found == [], f"use projectroot.for_command: {found}"


def test_only_argv_peeks_at_a_hot_path_command_line() -> None:
    # `"--json" in argv` also finds the `--json` of a command being classified, or an option's value.
    found = []
    for name, tree in modules():
        if name == "hooks/argv.py" or not (name == "main.py" or name.startswith("hooks/")):
            continue
        for node in ast.walk(tree):
            right = node.comparators[0] if isinstance(node, ast.Compare) else None
            if isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) \
                    and str(node.left.value).startswith("-") and isinstance(right, ast.Name) \
                    and right.id in ("argv", "args"):
                found.append((name, node.lineno))
        found += [(name, c) for c in calls(tree) if c.endswith("startswith") and c.split(".")[0] in ("a", "arg")]
    assert found == [], f"use hooks/argv.peek: {found}"


WRITES = {"atomic_write", "os.makedirs", "os.mkdir", "os.replace", "os.rename", "shutil.move", "now_iso"}


def test_policy_decides_and_records_writes() -> None:
    found = []
    for name, tree in modules():
        if not name.startswith("policy/"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in ("handrail.records.clock",):
                found.append((name, node.module))
            if isinstance(node, ast.Call):
                called = calls(ast.Module(body=[ast.Expr(node)], type_ignores=[]))[0]
                mode = [a for a in node.args[1:2] if isinstance(a, ast.Constant)]
                writes_open = called == "open" and any(str(a.value)[:1] in "wax" for a in mode)
                if called in WRITES or writes_open:
                    found.append((name, called))
    assert found == [], f"write state in handrail/records/: {found}"
