"""The criteria sandbox, through `handrail loop check` (the same sandbox `loop run` uses)."""

from __future__ import annotations

import json
import os

from loopkit import Loop, processes_with


def check(loop: Loop, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict]:
    r = loop.handrail("loop", "check", "t", "--json", *args, env=env)
    return r.returncode, json.loads(r.stdout.splitlines()[-1])


def test_a_criterion_that_times_out_leaves_no_process_behind(loop: Loop) -> None:
    marker = f"1000.{os.getpid()}{len(str(loop.path))}"
    command = (f"sleep {marker} & sh -c 'sleep {marker} & sleep {marker}' & "
               f"echo started; sleep {marker}")
    loop.task({"criteria": [{"id": "hang", "verification": {"command": command, "timeout_ms": 700}}]})
    code, result = check(loop)
    assert code == 1
    (hang,) = result["criteria"]
    assert (hang["status"], hang["timed_out"], hang["exit_code"]) == ("timeout", True, None)
    assert processes_with(f"sleep\0{marker}") == []
    log = (loop.path / hang["log"]).read_text()
    assert "timeout after 0.7 s: the whole process group was killed" in log and "started" in log


def test_a_criterion_that_leaves_a_background_child_still_ends(loop: Loop) -> None:
    marker = f"1001.{os.getpid()}{len(str(loop.path))}"
    loop.task({"criteria": [{"id": "bg", "verification": f"sleep {marker} & echo done"}]})
    code, result = check(loop)
    assert code == 0 and result["criteria"][0]["status"] == "passed"
    assert processes_with(f"sleep\0{marker}") == []


def test_credentials_printed_by_a_criterion_are_redacted(loop: Loop) -> None:
    key = "AKIA" + "IOSFODNN7EXAMPLE"
    command = (f"echo 'aws key {key} in use'; echo 'db password=hunter2 ok'; "
               "echo 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345'; exit 1")
    loop.task({"criteria": [{"id": "leaky", "verification": command}]})
    code, result = check(loop)
    assert code == 1
    log = (loop.path / result["criteria"][0]["log"]).read_text()
    assert key not in log and "hunter2" not in log and "abcdefghijklmnopqrstuvwxyz012345" not in log
    assert "[REDACTED AWS access key id]" in log and "password=[REDACTED]" in log
    assert key not in json.dumps(result)


def test_credential_variables_are_stripped_unless_the_contract_lists_them(loop: Loop) -> None:
    command = "printf 'token[%s] home[%s]\\n' \"$DEPLOY_API_TOKEN\" \"$HOME\"; exit 1"
    env = {"DEPLOY_API_TOKEN": "s3kr1tvalue"}
    loop.task({"criteria": [{"id": "env", "verification": command}]})
    _code, result = check(loop, env=env)
    log = (loop.path / result["criteria"][0]["log"]).read_text()
    assert "token[]" in log and "home[/" in log and "DEPLOY_API_TOKEN" in log
    loop.contract({"criteria": [{"id": "env", "verification": command}], "criteria_env": ["DEPLOY_API_TOKEN"]})
    _code, result = check(loop, env=env)
    assert "token[s3kr1tvalue]" in (loop.path / result["criteria"][0]["log"]).read_text()


def test_check_selects_criteria_overrides_timeouts_and_never_touches_progress(loop: Loop) -> None:
    loop.task({"criteria": [{"id": "a", "verification": "true"},
                            {"id": "b", "verification": {"command": "sleep 30", "timeout_ms": 400}},
                            {"id": "c", "verification": "TODO"}]})
    assert loop.run(loop.agent("pass\n"), "--max-steps", "1").returncode == 1
    before = loop.progress_file().read_bytes()
    stamp = loop.progress_file().stat().st_mtime_ns
    code, result = check(loop, "--criteria", "a,b", "--timeout", "300")
    assert code == 1
    assert [(c["id"], c["status"]) for c in result["criteria"]] == [("a", "passed"), ("b", "timeout")]
    code, result = check(loop, "--criteria", "a")
    assert code == 0 and result["passed"] is True
    code, result = check(loop, "--criteria", "c")
    assert code == 1 and result["criteria"][0]["status"] == "not_verified"
    assert loop.progress_file().read_bytes() == before
    assert loop.progress_file().stat().st_mtime_ns == stamp
    r = loop.handrail("loop", "check", "t", "--criteria", "nope")
    assert r.returncode == 2 and "no criterion 'nope'" in r.stderr
    assert "loop_check" in loop.event_types()
