"""`loop status`, `loop retro` and `loop reset` (humans only)."""

from __future__ import annotations

import json

from helpers import in_terminal
from loopkit import Loop

LEAK = {"allowed_files": ["src/**"], "criteria": [{"id": "ok", "verification": "test -f src/ok.txt"}]}


def last_json(text: str) -> dict:
    return json.loads(text.splitlines()[-1])


def test_status_before_any_run_and_after_an_open_circuit(loop: Loop) -> None:
    loop.task(LEAK)
    r = loop.handrail("loop", "status", "t", "--json")
    assert r.returncode == 0, r.stderr
    s = last_json(r.stdout)
    assert (s["circuit"], s["state"], s["attempt"]) == ("closed", None, 0)
    assert s["next"].startswith("start a loop: handrail loop run t")
    agent = loop.agent("write('secrets/x')\nprint('x' * 40)\n")
    assert loop.run(agent).returncode == 1
    s = last_json(loop.handrail("loop", "status", "t", "--json").stdout)
    assert (s["circuit"], s["circuit_reason"]) == ("open", "scope_violation_repeat")
    assert (s["attempt"], s["max_steps"]) == (2, 20)
    assert s["tokens"] == 22 and s["token_ceiling"] == 500_000
    assert s["last_attempt"]["violations"] == ["secrets/x"]
    assert s["last_signature"]["criterion"] == "ok"
    assert "handrail loop reset t" in s["next"]
    text = loop.handrail("loop", "status", "t").stdout
    assert "circuit:  open (scope_violation_repeat)" in text and "attempt:  2 of 20" in text


def test_retro_counts_signatures_violated_paths_and_tokens(loop: Loop) -> None:
    loop.task(LEAK)
    assert loop.run(loop.agent("write('secrets/x')\n")).returncode == 1
    r = loop.handrail("loop", "retro", "t", "--json")
    assert r.returncode == 0, r.stderr
    retro = last_json(r.stdout)
    assert retro["attempts"] == 2 and retro["runs"] == 1
    assert retro["violated_paths"][0]["path"] == "secrets/x" and retro["violated_paths"][0]["count"] == 2
    assert retro["never_passed"] == ["ok"]
    assert [t["attempt"] for t in retro["tokens"]] == [1, 2]
    assert retro["signatures"][0]["count"] == 1  # the criterion ran once: the circuit opened before the second
    assert "violated paths:" in loop.handrail("loop", "retro", "t").stdout


def test_reset_is_for_humans_and_half_open_reopens_at_the_first_failure(loop: Loop) -> None:
    loop.task(LEAK)
    agent = loop.agent("write('secrets/x')\n")
    assert loop.run(agent).returncode == 1
    r = loop.handrail("loop", "reset", "t")
    assert r.returncode == 1 and "a human resets a loop" in r.stderr and "not a terminal" in r.stderr
    code, out = in_terminal(loop.path, "loop", "reset", "t", env={"CLAUDECODE": "1"})
    assert code == 1 and "the environment shows an agent" in out
    assert loop.progress()["circuit"]["state"] == "open"
    code, out = in_terminal(loop.path, "loop", "reset", "t")
    assert code == 0 and "half-open" in out, out
    assert loop.progress()["circuit"]["state"] == "half-open"
    # Half-open: the first violation of the new run re-opens the circuit at once.
    assert loop.run(agent).returncode == 1
    assert loop.call_count() == 3
    assert loop.progress()["circuit"]["state"] == "open"
    assert "loop_reset" in loop.event_types()


def test_half_open_closes_when_the_loop_ends_done(loop: Loop) -> None:
    loop.task(LEAK)
    agent = loop.agent("if attempt <= 2:\n    write('secrets/x')\nelse:\n    write('src/ok.txt')\n")
    assert loop.run(agent).returncode == 1
    (loop.path / "secrets" / "x").unlink()  # the human cleans up what the agent left
    assert in_terminal(loop.path, "loop", "reset", "t")[0] == 0
    r = loop.run(agent)
    assert r.returncode == 0, r.stderr
    assert loop.progress()["circuit"]["state"] == "closed"


def test_reset_ends_a_run_paused_on_its_budget(loop: Loop) -> None:
    loop.task({"governor": {"cost_ceiling_tokens": 10}, "criteria": LEAK["criteria"]})
    agent = loop.agent("print('x' * 100)\nif attempt > 1:\n    write('src/ok.txt')\n")
    assert loop.run(agent).returncode == 3
    code, out = in_terminal(loop.path, "loop", "reset", "t")
    assert code == 0 and "fresh run" in out, out
    # The fresh run has a fresh budget (and its first call passes the criteria).
    assert loop.run(agent).returncode == 0
    assert loop.call_count() == 2
