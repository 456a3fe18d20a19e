"""Benchmark `handrail can-edit`, which runs before every agent edit.

    python bench/bench_can_edit.py [--runs N]

Prints the median process wall time as a ratio to `python3 -c pass` measured in the
same run (aim: at most 3x) and the peak memory (aim: at most 40 MiB).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import compare, handrail_command, verdict


def make_project(root: str, tasks: int = 20) -> str:
    """A project with many tasks (one editing, with a contract) as real ones grow."""
    for i in range(tasks):
        slug = f"task-{i:02d}"
        d = os.path.join(root, ".handrail", "tasks", slug)
        os.makedirs(d)
        phase = "implement" if i == tasks - 1 else "done"
        with open(os.path.join(d, "task.json"), "w") as f:
            json.dump({"slug": slug, "phase": phase, "updated_at": f"2026-01-01T00:00:{i:02d}Z"}, f)
        if phase == "implement":
            with open(os.path.join(d, "harness-contract.json"), "w") as f:
                json.dump({"feature": "bench", "contract_mode": "safe", "allowed_files": ["src/**", "tests/**"],
                           "forbidden_files": ["src/vendor/**"]}, f)
    return root


def main() -> int:
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 40
    root = tempfile.mkdtemp(prefix="handrail-bench-")
    try:
        project = make_project(root)
        cmd = handrail_command() + ["can-edit", "--project", project, "--file", "src/app/models.py", "--json"]
        r = compare("can-edit --file --json", cmd, runs=runs)
        ok = verdict("ratio to python3 -c pass", r["ratio"], 3.0, "x")
        ok &= verdict("peak memory", r["peak_mib"], 40.0, " MiB")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
