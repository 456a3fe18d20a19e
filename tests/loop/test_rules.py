"""handrail.policy.loop: the pure decisions (signatures, circuit, budget, redaction, env)."""

from __future__ import annotations

import json

import pytest

from handrail.policy import loop as rules


@pytest.mark.parametrize(("a", "b"), [
    ("FAILED /home/ann/repo/tests/test_x.py::test_login - assert 200 == 500",
     "FAILED /tmp/ci-4411/tests/test_x.py::test_login - assert 201 == 503"),
    ("Timeout after 12.5s waiting for port 8080", "timeout   after 3 s waiting for PORT 9090"),
    ("error at 0x7ffee3b0 in worker 3 (took 120ms)", "Error at 0x1234 in worker 12 (took 4 ms)"),
])
def test_signature_masks_what_differs_between_runs_of_one_failure(a: str, b: str) -> None:
    assert rules.signature("tests", 1, False, a) == rules.signature("tests", 1, False, b)


def test_signature_tells_criteria_exit_codes_timeouts_and_messages_apart() -> None:
    base = rules.signature("tests", 1, False, "assert x")
    assert rules.signature("lint", 1, False, "assert x") != base
    assert rules.signature("tests", 2, False, "assert x") != base
    assert rules.signature("tests", None, True, "assert x") != base
    assert rules.signature("tests", 1, False, "assert y") != base


def test_the_first_meaningful_line_skips_banners_headers_and_progress() -> None:
    output = ("\n============================= test session starts ==============================\n"
              "platform linux -- Python 3.11.7, pytest-8.3.0\nrootdir: /repo\ncollected 3 items\n\n"
              "tests/test_a.py .F.                                                      [100%]\n"
              "..F                                                                     [100%]\n"
              "=================================== FAILURES ===================================\n"
              "______________________________ test_login ______________________________\n")
    assert rules.first_meaningful_line(output).startswith("tests/test_a.py .F. ")
    assert rules.first_meaningful_line("\n\n====\n") == "===="
    assert rules.first_meaningful_line("") == ""


def test_circuit_limits_and_half_open() -> None:
    assert rules.trip(rules.CLOSED, signature_counts=[1, 1], violations=1, error_streak=2) is None
    assert rules.trip(rules.CLOSED, signature_counts=[2], violations=0, error_streak=0) == rules.REPEATED_FAILURE
    assert rules.trip(rules.CLOSED, signature_counts=[], violations=2, error_streak=0) == rules.SCOPE_VIOLATION_REPEAT
    assert rules.trip(rules.CLOSED, signature_counts=[], violations=0, error_streak=3) == rules.ERROR_STREAK_LIMIT
    # The strongest reason wins.
    assert rules.trip(rules.CLOSED, signature_counts=[2], violations=2, error_streak=3) == rules.SCOPE_VIOLATION_REPEAT
    # Half-open: every limit is one.
    assert rules.trip(rules.HALF_OPEN, signature_counts=[1], violations=0, error_streak=0) == rules.REPEATED_FAILURE
    assert rules.trip(rules.HALF_OPEN, signature_counts=[], violations=0, error_streak=1) == rules.ERROR_STREAK_LIMIT
    assert rules.trip(rules.HALF_OPEN, signature_counts=[], violations=0, error_streak=0) is None


def test_max_steps_from_the_command_line_only_lowers_the_contract() -> None:
    assert rules.effective_max_steps(10, 50) == 10
    assert rules.effective_max_steps(10, 3) == 3
    assert rules.effective_max_steps(None, 3) == 3
    assert rules.effective_max_steps(10, None) == 10


def test_budget_levels_and_the_estimate() -> None:
    assert rules.estimate_tokens(400) == 100 and rules.estimate_tokens(401) == 101 and rules.estimate_tokens(0) == 0
    assert rules.budget_level(79, 100) == rules.OK
    assert rules.budget_level(80, 100) == rules.WARNING
    assert rules.budget_level(100, 100) == rules.EXCEEDED
    assert rules.budget_level(10**9, None) == rules.OK


def feed(*objects: object) -> int | None:
    reader = rules.UsageReader()
    for o in objects:
        reader.feed(o if isinstance(o, str) else json.dumps(o))
    return reader.total()


def test_usage_figures_from_claude_and_codex() -> None:
    claude = {"type": "result", "usage": {"input_tokens": 10, "cache_creation_input_tokens": 5,
                                           "cache_read_input_tokens": 1000, "output_tokens": 20}}
    assert feed({"type": "assistant", "message": {"usage": {"input_tokens": 99}}}, claude) == 35
    turn = {"type": "turn.completed", "usage": {"input_tokens": 26549, "cached_input_tokens": 22272,
                                                 "output_tokens": 1590}}
    assert feed(turn, turn) == 2 * (26549 - 22272 + 1590)
    legacy = {"type": "event_msg", "payload": {"type": "token_count", "info": {"total_token_usage": {
        "input_tokens": 300, "cached_input_tokens": 100, "output_tokens": 50, "total_tokens": 350}}}}
    assert feed(legacy) == 250
    assert feed("plain text", "{not json", {"usage": "nope"}, '["usage"]') is None


def test_redaction() -> None:
    key = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq7BFUfOVxyz1234567890abcd\nmore\n"
           "-----END RSA PRIVATE KEY-----")
    text = rules.redact(f"a {key} b")
    assert "MIIE" not in text and text == "a [REDACTED private key] b"
    gh = "ghp_" + "a" * 36
    assert rules.redact(f"token {gh} x") == "token [REDACTED GitHub token] x"
    assert rules.redact("export DB_PASSWORD='hunter2 2'") == "export DB_PASSWORD=[REDACTED]"
    assert rules.redact('{"api_key": "abc123"}') == '{"api_key": [REDACTED]}'
    assert rules.redact("Authorization: Bearer abcdefghijklmnop1234") == "Authorization: Bearer [REDACTED bearer token]"
    assert rules.redact("tokens: 1234, max_tokens 20") == "tokens: 1234, max_tokens 20"


@pytest.mark.parametrize(("name", "credential"), [
    ("GITHUB_TOKEN", True), ("PGPASSWORD", True), ("AWS_SECRET_ACCESS_KEY", True), ("AWS_ACCESS_KEY_ID", True),
    ("ANTHROPIC_API_KEY", True), ("SSH_AUTH_SOCK", True), ("NPM_KEY", True), ("my_api_token", True),
    ("PATH", False), ("HOME", False), ("PWD", False), ("KEYBOARD_LAYOUT", False), ("GIT_AUTHOR_NAME", False),
    ("LANG", False),
])
def test_credential_names(name: str, credential: bool) -> None:
    assert rules.credential_name(name) is credential


def test_stripped_env_keeps_what_the_contract_lists() -> None:
    env, removed = rules.stripped_env({"PATH": "/bin", "GH_TOKEN": "x", "DEPLOY_KEY": "y"}, ["DEPLOY_KEY"])
    assert env == {"PATH": "/bin", "DEPLOY_KEY": "y"} and removed == ["GH_TOKEN"]


def test_todo_and_timeouts() -> None:
    assert rules.todo("TODO: write it") and rules.todo("  todo") and rules.todo(None) and rules.todo("")
    assert not rules.todo("pytest -q")
    assert rules.timeout_ms({"command": "x"}) == 300_000
    assert rules.timeout_ms({"command": "x", "timeout_ms": 5}) == 5
    assert rules.timeout_ms({"command": "x", "timeout_ms": 5}, 9) == 9
