"""The JSON endpoints scripts read: the same records `handrail events`, `gate list`,
`autonomy list` print, paged by id, and a broken record as one line, never a dead page."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from dashkit import Site
from helpers import git, run_handrail

from handrail.records import events, task_states

# A Claude Code session that force-pushed and read .env, as tests/audit keeps it.
SESSION = Path(__file__).parent.parent / "data" / "audit" / "claude-unguarded.jsonl"


def _record(site: Site, n: int, **kw: str) -> None:
    for i in range(n):
        events.record(str(site.project), "notify_info", topic="t", message=f"m{i}", **kw)


def test_pages_newest_first_by_id_without_gaps_or_repeats(site: Site) -> None:
    _record(site, 70, task="t1", agent="claude")
    _record(site, 30, task="other", agent="codex")
    seen: list[int] = []
    answer = site.api("events", "limit=25")
    while True:
        seen += [e["id"] for e in answer["events"]]
        if answer["next_before"] is None:
            break
        answer = site.api("events", f"limit=25&before={answer['next_before']}")
    cli = [json.loads(line)["id"] for line in run_handrail("events", "--json", cwd=site.project).stdout.splitlines()]
    assert seen == sorted(cli, reverse=True)


def test_filters_narrow_the_page_as_handrail_events_does(site: Site) -> None:
    _record(site, 5, task="t1", agent="claude")
    _record(site, 3, task="other", agent="codex")
    for query, args in (("task=other", ["--task", "other"]), ("agent=claude", ["--agent", "claude"]),
                        ("type=notify_*", ["--type", "notify_*"]), ("type=task_phase_changed",
                                                                     ["--type", "task_phase_changed"]),
                        ("since=1h&agent=codex", ["--since", "1h", "--agent", "codex"])):
        page = [e["id"] for e in site.api("events", query)["events"]]
        r = run_handrail("events", "--json", *args, cwd=site.project)
        assert page == [json.loads(line)["id"] for line in reversed(r.stdout.splitlines())], query
        assert page


def test_after_gives_only_what_is_newer(site: Site) -> None:
    newest = site.api("events")["events"][0]["id"]
    assert site.api("events", f"after={newest}")["events"] == []
    _record(site, 2, task="t1")
    fresh = site.api("events", f"after={newest}")
    assert [e["message"] for e in fresh["events"]] == ["m1", "m0"] and not fresh["more"]


def test_a_query_that_makes_no_sense_is_a_400_naming_the_parameter(site: Site) -> None:
    for query, word in (("limit=0", b"limit:"), ("limit=abc", b"limit:"), ("limit=100000", b"limit:"),
                        ("before=-1", b"before:"), ("since=yesterday", b"since:"),
                        ("before=3&after=1", b"before, after")):
        r = site.request(f"/api/events?{query}")
        assert r.status == 400 and word in r.body, query


def test_an_empty_project_answers_empty_lists(site: Site) -> None:
    (site.project / ".handrail" / "runtime" / "events.sqlite").unlink()
    assert site.api("events") == {"events": [], "next_before": None, "more": False, "errors": []}
    assert site.api("loops") == {"loops": [], "errors": []}
    assert site.api("envelopes") == {"envelopes": [], "errors": []}
    assert not (site.project / ".handrail" / "runtime" / "events.sqlite").exists(), "reading created the log"


def test_pending_gates_carry_the_commands_a_human_runs(site: Site) -> None:
    (gate,) = site.api("gates")["gates"]
    assert (gate["task"], gate["theme"], gate["status"]) == ("t1", "publish", "pending")
    assert gate["approve"] == "handrail gate approve t1 publish"
    assert gate["reject"].startswith("handrail gate reject t1 publish --reason")


def test_a_broken_gate_file_is_one_line_and_hides_no_other_panel(site: Site) -> None:
    gates = site.project / ".handrail" / "tasks" / "t1" / "gates"
    gates.mkdir()
    (gates / "publish.json").write_text('{"decision": "maybe"}')
    answer = site.api("gates")
    assert answer["gates"] == [] and len(answer["errors"]) == 1
    assert "publish.json: decision" in answer["errors"][0]
    assert site.api("events")["events"]


def test_envelopes_show_their_staleness(site: Site) -> None:
    r = run_handrail("autonomy", "init", "claude", "--owner", "op", cwd=site.project,
                     env={"HANDRAIL_NOW": "2025-01-01T00:00:00Z"})
    assert r.returncode == 0, r.stderr
    (env,) = site.api("envelopes")["envelopes"]
    assert env["agent"] == "claude" and env["stale"] is True and env["daysSinceUpdate"] > 90


def test_the_audit_report_is_shown_when_present_and_one_line_when_broken(site: Site) -> None:
    assert site.api("audit") == {"present": False, "report": None, "errors": []}
    r = run_handrail("audit", str(SESSION), "--json", cwd=site.project)
    assert r.returncode == 1, r.stderr  # findings
    path = site.project / ".handrail" / "runtime" / "audit.json"
    shown = site.api("audit")
    assert shown == {"present": True, "report": json.loads(path.read_text()), "errors": []}
    assert shown["report"] == json.loads(r.stdout.splitlines()[-1]) and shown["report"]["sessions"][0]["findings"]
    for text, word in (("{not json", "audit.json"), ('{"version": 1, "sessions": {}}', "audit.json: sessions"),
                       ('{"version": 2}', "audit.json: version"), ("[]", "audit.json")):
        path.write_text(text)
        answer = site.api("audit")
        assert answer["present"] and answer["report"] is None
        (line,) = answer["errors"]
        assert word in line and "\n" not in line, text


def test_the_audit_report_says_who_ran_it_and_an_older_report_without_it_is_still_shown(site: Site) -> None:
    r = run_handrail("audit", str(SESSION), cwd=site.project, env={"CLAUDECODE": "1"})
    assert r.returncode == 1, r.stderr
    path = site.project / ".handrail" / "runtime" / "audit.json"
    assert site.api("audit")["report"]["ran_by"] == "claude"
    older = json.loads(path.read_text())
    del older["ran_by"]  # as handrail 0.3.0 wrote it
    path.write_text(json.dumps(older))
    assert site.api("audit") == {"present": True, "report": older, "errors": []}
    path.write_text(json.dumps({**older, "ran_by": ["claude"]}))
    assert site.api("audit")["errors"] == [".handrail/runtime/audit.json: ran_by: expected text"]


def test_a_loop_paused_at_a_gate_shows_its_status_and_the_gates_commands(site: Site, tmp_path) -> None:  # type: ignore[no-untyped-def]
    project = site.project
    (project / "README.md").write_text("x\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "init")
    task_states.new_task(str(project), "bill", phase="implement")
    (project / ".handrail" / "tasks" / "bill" / "harness-contract.json").write_text(json.dumps({
        "allowed_files": ["src/**"], "human_gate": {"required_for": ["payment_logic_change"]},
        "criteria": [{"id": "charge", "verification": "test -f src/billing/charge.py"}]}))
    agent = tmp_path / "agent.py"
    agent.write_text(f"#!{sys.executable}\nimport pathlib\np = pathlib.Path('src/billing/charge.py')\n"
                     "p.parent.mkdir(parents=True, exist_ok=True)\np.write_text('def charge(): ...\\n')\n")
    agent.chmod(0o755)
    r = run_handrail("loop", "run", "bill", "--", str(agent), cwd=project)
    assert r.returncode == 3, r.stderr
    (loop,) = site.api("loops")["loops"]
    cli = json.loads(run_handrail("loop", "status", "bill", "--json", cwd=project).stdout)
    assert loop == cli
    assert (loop["state"], loop["reason"]) == ("paused", "human_gate")
    assert [g["theme"] for g in loop["pending_gates"]] == ["payment_logic_change"]
    gate = next(g for g in site.api("gates")["gates"] if g["task"] == "bill" and g["theme"] == "payment_logic_change")
    assert gate["approve"] == "handrail gate approve bill payment_logic_change" and gate["approve"] in loop["next"]
