"""Human gates in the loop: a change under a gated theme pauses until a human decides."""

from __future__ import annotations

import json

from helpers import in_terminal
from loopkit import Loop

BILLING = {
    "allowed_files": ["src/**"],
    "human_gate": {"required_for": ["payment_logic_change"]},
    "criteria": [{"id": "charge", "verification": "test -f src/billing/charge.py"}],
}
WRITE_CHARGE = "write('src/billing/charge.py', 'def charge(): ...\\n')\n"


def test_a_billing_change_pauses_a_human_approves_and_the_loop_resumes_to_done(loop: Loop) -> None:
    loop.task(BILLING)
    agent = loop.agent(WRITE_CHARGE)
    r = loop.run(agent)
    assert r.returncode == 3, r.stderr
    assert loop.call_count() == 1
    assert "handrail gate approve t payment_logic_change" in r.stderr
    progress = loop.progress()
    assert (progress["state"], progress["reason"]) == ("paused", "human_gate")
    (gate,) = progress["run"]["gates"]
    assert (gate["theme"], gate["status"], gate["paths"]) == ("payment_logic_change", "pending",
                                                              ["src/billing/charge.py"])
    # Not approved yet: running again waits and calls no one.
    assert loop.run(agent).returncode == 3
    assert loop.call_count() == 1
    # An agent's environment cannot approve, even at a terminal.
    code, out = in_terminal(loop.path, "gate", "approve", "t", "payment_logic_change", env={"HANDRAIL_AGENT": "bot"})
    assert code == 1, out
    status = json.loads(loop.handrail("loop", "status", "t", "--json").stdout)
    assert [(g["theme"], g["decision"]) for g in status["pending_gates"]] == [("payment_logic_change", "pending")]
    assert "handrail gate approve t payment_logic_change" in status["next"]
    code, out = in_terminal(loop.path, "gate", "approve", "t", "payment_logic_change", "--note", "reviewed")
    assert code == 0, out
    status = json.loads(loop.handrail("loop", "status", "t", "--json").stdout)
    assert status["pending_gates"][0]["decision"] == "approved" and "acts on it" in status["next"]
    r = loop.run(agent)
    assert r.returncode == 0, r.stderr
    assert loop.call_count() == 2
    progress = loop.progress()
    assert progress["state"] == "done"
    assert progress["run"]["gates"][0]["status"] == "approved"
    kinds = loop.event_types()
    assert kinds.index("loop_gate_opened") < kinds.index("gate_approved") < kinds.index("loop_resumed")


def test_an_approval_from_before_the_run_does_not_count(loop: Loop) -> None:
    loop.task(BILLING)
    assert in_terminal(loop.path, "gate", "approve", "t", "payment_logic_change")[0] == 0
    r = loop.run(loop.agent(WRITE_CHARGE))
    assert r.returncode == 3, r.stderr
    gate = json.loads((loop.task_dir() / "gates" / "payment_logic_change.json").read_text())
    assert gate["decision"] == "pending"
    assert [h["decision"] for h in gate["history"]] == ["approved", "pending"]


def test_a_rejection_stops_the_loop(loop: Loop) -> None:
    loop.task(BILLING)
    agent = loop.agent(WRITE_CHARGE)
    assert loop.run(agent).returncode == 3
    code, out = in_terminal(loop.path, "gate", "reject", "t", "payment_logic_change", "--reason", "not this sprint")
    assert code == 0, out
    r = loop.run(agent)
    assert r.returncode == 1, r.stderr
    assert loop.progress()["reason"] == "gate_rejected"
    assert loop.call_count() == 1


def test_a_policy_change_is_approved_by_a_human_then_pinned(loop: Loop) -> None:
    loop.task({"criteria": [{"id": "ok", "verification": "test -f src/ok.txt"}]})
    agent = loop.agent("if attempt >= 2:\n    write('src/ok.txt')\n")
    assert loop.run(agent, "--max-steps", "1").returncode == 1  # one failing attempt: circuit open
    assert in_terminal(loop.path, "loop", "reset", "t")[0] == 0
    # A human edits the contract between runs: the next run asks for the change to be approved.
    loop.contract({"criteria": [{"id": "ok", "verification": "test -f src/ok.txt"}], "governor": {"max_steps": 5}})
    r = loop.run(agent)
    assert r.returncode == 3 and "policy_changed" in r.stderr, r.stderr
    assert loop.call_count() == 1
    code, out = in_terminal(loop.path, "gate", "approve", "t", "policy_change")
    assert code == 0, out
    r = loop.run(agent)
    assert r.returncode == 0, r.stderr
    assert loop.call_count() == 2


def test_a_corrupt_gate_file_stops_the_loop_with_an_error(loop: Loop) -> None:
    loop.task(BILLING)
    agent = loop.agent(WRITE_CHARGE)
    assert loop.run(agent).returncode == 3
    before = loop.progress_file().read_bytes()
    (loop.task_dir() / "gates" / "payment_logic_change.json").write_text("{not json")
    r = loop.run(agent)
    assert r.returncode == 2
    assert "payment_logic_change.json: invalid JSON" in r.stderr
    assert loop.progress_file().read_bytes() == before
    assert loop.call_count() == 1
