"""Benchmark the dashboard's JSON answers on a large event log.

    python bench/bench_dashboard.py [--events N] [--runs N]

Fills a throwaway project's log with N events (default 100,000: 20 tasks, 6 agents,
12 types), serves its dashboard on loopback, and times each kind of request the page
makes (the first page, a page deep in the log, each filter, the poll for new events)
against a baseline measured in the same run: the page's own stylesheet, the same
server and token check with no log read. Aim: every request at most 200 ms (median
and 95th percentile both).
"""

from __future__ import annotations

import http.client
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import verdict

from handrail.dashboard import server
from handrail.records import events

TASKS = [f"task-{i:02d}" for i in range(20)]
AGENTS = ["claude", "codex", "gemini", "opencode", "cursor", "copilot"]
TYPES = ["edit_allowed", "edit_refused", "shell_notified", "shell_asked", "notify_info", "notify_warn",
         "notify_block", "loop_attempt_started", "loop_attempt_finished", "gate_approved", "task_phase_changed",
         "commit_refused"]


def fill(project: str, n: int) -> None:
    """N events written in one transaction, through the log's own schema."""
    conn = events.connect(project)
    try:
        rows = ((f"2026-11-{1 + i * 29 // n:02d}T{i % 24:02d}:{i % 60:02d}:00Z", TYPES[i % len(TYPES)],
                 AGENTS[i % len(AGENTS)], TASKS[(i * 7) % len(TASKS)] if i % 1000 else "rare-task", "bench",
                 f"event {i}: what the agent did and why it was allowed", f'{{"i": {i}}}') for i in range(n))
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO agent_events (created_at, event_type, agent, task, topic, message, payload_json)"
                         " VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        conn.execute("COMMIT")
    finally:
        conn.close()


def timed(port: int, token: str, path: str, runs: int) -> list[float]:
    out = []
    sep = "&" if "?" in path else "?"
    for _ in range(runs):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        start = time.perf_counter()
        conn.request("GET", f"{path}{sep}token={token}")
        r = conn.getresponse()
        body = r.read()
        out.append(time.perf_counter() - start)
        conn.close()
        assert r.status == 200, (path, r.status, body[:200])
    return out


def main() -> int:
    n = int(sys.argv[sys.argv.index("--events") + 1]) if "--events" in sys.argv else 100_000
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 30
    project = tempfile.mkdtemp(prefix="handrail-bench-dashboard-")
    os.makedirs(os.path.join(project, ".handrail"))  # a project keeps records; a plain folder does not
    served = None
    try:
        start = time.perf_counter()
        fill(project, n)
        print(f"{n:,} events written in {time.perf_counter() - start:.1f} s")
        served = server.make(project, "127.0.0.1", 0)
        threading.Thread(target=served.serve_forever, daemon=True).start()
        port, token = served.server_address[1], served.site.token
        deep = n // 100  # an id near the start of the log: the last pages
        cases = [
            ("baseline: /app.css", "/app.css"),
            ("first page", "/api/events"),
            ("a page near the start (before=)", f"/api/events?before={deep}"),
            ("a task's page", "/api/events?task=task-03"),
            ("a rare task (1 in 1,000 events)", "/api/events?task=rare-task"),
            ("an agent's page", "/api/events?agent=gemini"),
            ("a type's page", "/api/events?type=notify_block"),
            ("a pattern of types", "/api/events?type=notify_*"),
            ("since a date, one agent", "/api/events?since=2026-11-20&agent=codex"),
            ("the poll for new events (after=)", f"/api/events?after={n}"),
            ("facets (tasks, agents, types)", "/api/facets"),
        ]
        timed(port, token, "/api/events", 5)  # warm the page cache and the interpreter
        ok = True
        base = None
        for label, path in cases:
            times = timed(port, token, path, runs)
            median, p95 = statistics.median(times) * 1000, sorted(times)[int(len(times) * 0.95) - 1] * 1000
            base = base or median
            print(f"{label}: median {median:.1f} ms, p95 {p95:.1f} ms ({median / base:.1f}x the baseline)")
            if path != "/app.css":
                ok &= verdict(f"{label}, p95", p95, 200.0, " ms")
    finally:
        if served is not None:
            served.shutdown()
            served.server_close()
        shutil.rmtree(project, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
