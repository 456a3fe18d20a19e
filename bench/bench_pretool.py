"""Benchmark `handrail hook claude`, which Claude Code runs before every tool call.

    python bench/bench_pretool.py [--runs N]

Payloads as Claude Code sends them: an `Edit` inside the task's scope (the can-edit
path) and a tier-1 `Bash` pipeline (the classify path): for each, the median process
wall time as a ratio to `python3 -c pass` measured in the same run (aim: at most 3x)
and the peak memory (aim: at most 40 MiB). Shown beside them, not counted: a tier-2
command that writes a file, which also pays for can-edit on the written file and for
recording the notice in the event log. Never run by CI or pytest: timings depend on
the machine.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_can_edit import make_project
from common import compare, handrail_command, verdict


def payload(project: str, tool: str, tool_input: dict) -> bytes:
    return json.dumps({"session_id": "bench", "transcript_path": "/tmp/bench.jsonl", "cwd": project,
                       "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
                       "tool_input": tool_input, "tool_use_id": "toolu_bench"}).encode()


def main() -> int:
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 40
    root = tempfile.mkdtemp(prefix="handrail-bench-")
    try:
        project = make_project(root)
        subprocess.run(["git", "init", "-q", project], check=True)
        cmd = handrail_command() + ["hook", "claude"]
        cases = [
            ("hook claude, Edit src/app/models.py", True, payload(project, "Edit", {
                "file_path": os.path.join(project, "src", "app", "models.py"), "old_string": "a",
                "new_string": "b"})),
            ("hook claude, Bash `git log --oneline -5 | head -3` (tier 1)", True, payload(project, "Bash", {
                "command": "git log --oneline -5 | head -3", "description": "bench"})),
            ("hook claude, Bash `git log --oneline -5 | tee src/log.txt` (tier 2, writes, recorded)", False,
             payload(project, "Bash", {"command": "git log --oneline -5 | tee src/log.txt", "description": "bench"})),
        ]
        ok = True
        for label, counted, stdin in cases:
            r = compare(label, cmd, runs=runs, cwd=project, stdin=stdin)
            met = verdict("ratio to python3 -c pass", r["ratio"], 3.0, "x")
            met &= verdict("peak memory", r["peak_mib"], 40.0, " MiB")
            if counted:
                ok &= met
            else:
                print("  (shown, not counted)")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
