"""`handrail demo`: every enforcement layer that exists, firing in a throwaway repository.

Each layer runs the real `handrail` command as a harness would, in a fresh git
repository laid with the default policy, and prints what it decided and why.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable

from handrail.fsio import atomic_write, dump_json
from handrail.policy import protocol as protocols

ALLOWED, REFUSED, NOTICE = "✓ allowed", "✗ refused", "ℹ notice "


def handrail(project: str, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "handrail", *args], cwd=project, input=input, text=True,
                          capture_output=True, env={**os.environ, **(env or {})})


def show(mark: str, what: str, why: str) -> None:
    print(f"  {mark}  {what:<34} {why}")


def setup(project: str) -> None:
    subprocess.run(["git", "init", "-q", project], check=True)
    with open(protocols.DEFAULT_PROTOCOL, encoding="utf-8") as f:
        atomic_write(os.path.join(project, protocols.PROTOCOL_PATHS[0]), f.read())
    contract = {
        "feature": "login form",
        "contract_mode": "safe",
        "allowed_files": ["src/**", "tests/**"],
        "forbidden_files": ["src/vendor/**"],
    }
    handrail(project, "task", "new", "login", "--phase", "plan", "--title", "Login form")
    atomic_write(os.path.join(project, ".handrail", "tasks", "login", "harness-contract.json"), dump_json(contract))


def layer_can_edit(project: str) -> None:
    print("layer: can-edit — the pre-edit question every harness asks")
    r = handrail(project, "can-edit", "--file", "src/app.py", "--json")
    show(REFUSED if r.returncode else ALLOWED, "src/app.py (task in plan)", json.loads(r.stdout)["reason"])
    handrail(project, "task", "phase", "login", "implement")
    for file in ("src/app.py", "README.md", ".env", "src/vendor/lib.js", ".handrail/autonomy-protocol.json", "../elsewhere.txt"):
        r = handrail(project, "can-edit", "--file", file, "--json")
        answer = json.loads(r.stdout.splitlines()[-1])
        why = answer["reason"] + (f" ({answer['rule']}, {answer['source']})" if "rule" in answer else "")
        show(ALLOWED if r.returncode == 0 else REFUSED, file, why)


LAYERS: list[Callable[[str], None]] = [layer_can_edit]


def run_demo() -> int:
    folder = tempfile.mkdtemp(prefix="handrail-demo-")
    project = os.path.join(folder, "repo")
    try:
        print(f"handrail demo in a throwaway repository: {project}")
        print("policy: the built-in default; task 'login' may change src/** and tests/**, never src/vendor/**\n")
        setup(project)
        for layer in LAYERS:
            layer(project)
            print()
        print("done: the repository is removed.")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0
