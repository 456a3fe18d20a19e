"""`handrail loop run`: scope, size, budget and the circuit, with scripted agents."""

from __future__ import annotations

import json

from loopkit import Loop

DONE_WHEN_OK = [{"id": "ok", "verification": "test -f src/ok.txt"}]
SCOPED = {"allowed_files": ["src/**"], "criteria": DONE_WHEN_OK}


def test_writing_secrets_twice_opens_the_circuit_after_exactly_two_calls(loop: Loop) -> None:
    loop.task(SCOPED)
    agent = loop.agent("write('secrets/leak.txt', 'api key\\n')\n")
    r = loop.run(agent)
    assert r.returncode == 1, r.stderr
    assert loop.call_count() == 2
    progress = loop.progress()
    assert progress["circuit"]["state"] == "open"
    assert progress["circuit"]["reason"] == "scope_violation_repeat"
    assert "scope_violation_repeat" in r.stderr and "handrail loop reset t" in r.stderr
    for n in (1, 2):
        folder = loop.attempt_dir(n)
        changed = json.loads((folder / "changed-files.json").read_text())
        assert changed["added"] == ["secrets/leak.txt"]
        assert "+api key" in (folder / "diff.patch").read_text()
        assert (folder / "agent.log").exists()
    assert [v["path"] for v in progress["attempts"][0]["violations"]] == ["secrets/leak.txt"]
    # The first violation went back to the agent as feedback.
    assert "revert: secrets/leak.txt" in (loop.attempt_dir(2) / "feedback.md").read_text()
    assert "loop_circuit_open" in loop.event_types()
    # An open circuit refuses the next run without calling the agent.
    again = loop.run(agent)
    assert again.returncode == 1 and "circuit is open" in again.stderr
    assert loop.call_count() == 2


def test_a_misspelt_contract_key_means_zero_agent_calls(loop: Loop) -> None:
    loop.task({"alowed_files": ["src/**"], "criteria": DONE_WHEN_OK})
    r = loop.run(loop.agent("write('src/ok.txt')\n"))
    assert r.returncode == 2
    assert "alowed_files: unknown key (did you mean 'allowed_files'?)" in r.stderr
    assert "contract_schema_invalid" in r.stderr
    assert loop.call_count() == 0
    assert not loop.progress_file().exists()
    assert ("loop_stopped", "contract_schema_invalid") in [(k, t) for k, t, _p in loop.events()]


def test_a_token_ceiling_of_10_pauses_after_one_call_of_400_characters(loop: Loop) -> None:
    loop.task({"governor": {"cost_ceiling_tokens": 10}, "criteria": DONE_WHEN_OK})
    agent = loop.agent("print('x' * 399)\n")  # 399 characters and a newline
    r = loop.run(agent)
    assert r.returncode == 3, r.stderr
    assert loop.call_count() == 1
    progress = loop.progress()
    assert (progress["state"], progress["reason"]) == ("paused", "budget_exceeded")
    assert progress["run"]["tokens"] == 100
    assert progress["attempts"][0]["tokens_source"] == "estimated"
    kinds = [(k, t) for k, t, _p in loop.events()]
    assert ("loop_budget_warning", "loop") in kinds and ("loop_paused", "budget_exceeded") in kinds
    # Still over the ceiling: the next run stays paused and calls no one.
    assert loop.run(agent).returncode == 3
    assert loop.call_count() == 1


def test_the_agents_own_usage_figures_replace_the_estimate(loop: Loop) -> None:
    loop.task({"criteria": DONE_WHEN_OK})
    usage = {"type": "result", "subtype": "success", "result": "done",
             "usage": {"input_tokens": 1200, "cache_creation_input_tokens": 300, "cache_read_input_tokens": 90000,
                       "output_tokens": 500}}
    r = loop.run(loop.agent(f"write('src/ok.txt')\nprint({json.dumps(json.dumps(usage))})\n"))
    assert r.returncode == 0, r.stderr
    first = loop.progress()["attempts"][0]
    assert (first["tokens"], first["tokens_source"]) == (2000, "reported")


def test_dot_env_is_refused_under_a_minimal_contract(loop: Loop) -> None:
    loop.task({"criteria": DONE_WHEN_OK})
    agent = loop.agent("""
        if attempt == 1:
            write('.env', 'DATABASE_PASSWORD=hunter2\\n')
        else:
            remove('.env')
        write('src/ok.txt')
    """)
    r = loop.run(agent)
    assert r.returncode == 0, r.stderr
    first, second = loop.progress()["attempts"]
    assert [(v["path"], v["reason"], v["rule"]) for v in first["violations"]] == [(".env", "forbidden_file", ".env*")]
    assert second["violations"] == [] and second["outcome"] == "done"
    assert "revert: .env" in (loop.attempt_dir(2) / "feedback.md").read_text()


def test_an_ignored_dot_env_is_still_seen(loop: Loop) -> None:
    loop.write(".gitignore", ".env\n")
    loop.commit(".gitignore")
    loop.task({"criteria": DONE_WHEN_OK})
    r = loop.run(loop.agent("write('.env', 'TOKEN=1\\n')\nwrite('src/ok.txt')\n"), "--max-steps", "1")
    assert r.returncode == 1
    assert [v["path"] for v in loop.progress()["attempts"][0]["violations"]] == [".env"]


def test_a_file_dirty_before_the_run_is_judged_only_when_the_agent_changes_it(loop: Loop) -> None:
    loop.write("docs/notes.md", "one\n")
    loop.commit("docs/notes.md")
    loop.write("docs/notes.md", "one\ntwo (a human's edit, before the run)\n")
    loop.write("docs/draft.md", "untracked, before the run\n")
    loop.task(SCOPED)
    agent = loop.agent("""
        if attempt == 1:
            pathlib.Path('docs/notes.md').write_text('one\\ntwo\\nthree (the agent)\\n')
        else:
            pathlib.Path('docs/notes.md').write_text('one\\ntwo (a human\\'s edit, before the run)\\n')
        write('src/ok.txt')
    """)
    r = loop.run(agent)
    assert r.returncode == 0, r.stderr
    first, second = loop.progress()["attempts"]
    assert [v["path"] for v in first["violations"]] == ["docs/notes.md"]
    patch = (loop.attempt_dir(1) / "diff.patch").read_text()
    # Diffed against the file as the run found it, not against the commit.
    assert "+three (the agent)" in patch and "-two (a human's edit, before the run)" in patch
    assert "+two (a human" not in patch and "draft.md" not in patch
    assert second["violations"] == []


def test_what_a_criterion_writes_is_not_the_agents_change(loop: Loop) -> None:
    loop.task({"allowed_files": ["src/**"],
               "criteria": [{"id": "ok", "verification": "echo built > build.log; test -f src/ok.txt"}]})
    r = loop.run(loop.agent("if attempt == 2:\n    write('src/ok.txt')\n"))
    assert r.returncode == 0, r.stderr
    second = loop.progress()["attempts"][1]
    assert second["violations"] == []
    assert "build.log" in json.loads((loop.attempt_dir(2) / "changed-files.json").read_text())["not_by_agent"]


def test_an_agent_that_edits_its_own_contract_is_a_violation(loop: Loop) -> None:
    loop.task({"allowed_files": ["src/**"], "governor": {"max_steps": 3}, "criteria": DONE_WHEN_OK})
    agent = loop.agent("""
        import json
        p = pathlib.Path('.handrail/tasks/t/harness-contract.json')
        c = json.loads(p.read_text()); c['governor']['max_steps'] = 1000; p.write_text(json.dumps(c))
        write('src/ok.txt')
    """)
    r = loop.run(agent)
    assert r.returncode == 3, r.stderr
    progress = loop.progress()
    violations = progress["attempts"][0]["violations"]
    assert [(v["path"], v["reason"]) for v in violations] == [
        (".handrail/tasks/t/harness-contract.json", "protected_path")]
    assert (progress["state"], progress["reason"]) == ("paused", "policy_changed")
    gate = json.loads((loop.task_dir() / "gates" / "policy_change.json").read_text())
    assert gate["decision"] == "pending" and gate["paths"] == [".handrail/tasks/t/harness-contract.json"]
    kinds = loop.event_types()
    assert "loop_scope_violation" in kinds and "loop_policy_changed" in kinds and "loop_gate_opened" in kinds
    # Nobody approved: the next run calls no one.
    assert loop.run(agent).returncode == 3
    assert loop.call_count() == 1


def test_diff_limits_count_untracked_lines_and_lines_that_start_with_plus_plus(loop: Loop) -> None:
    loop.task({"governor": {"max_diff_lines": 3}, "criteria": DONE_WHEN_OK})
    agent = loop.agent("""
        remove('src/big.txt')
        if attempt == 1:
            write('src/big.txt', '++a\\n--b\\n++c\\n--d\\n')
        write('src/ok.txt')
    """)
    r = loop.run(agent)
    assert r.returncode == 0, r.stderr
    first, second = loop.progress()["attempts"]
    assert first["lines"] == {"added": 5, "removed": 0}
    assert first["limits"] == ["attempt #1 changes 5 lines (+5 -0), more than task 't' allows (3) "
                               "(governor.max_diff_lines from .handrail/tasks/t/harness-contract.json)"]
    assert second["limits"] == [] and second["outcome"] == "done"


def test_the_same_failing_test_twice_opens_the_circuit(loop: Loop) -> None:
    # The failure's numbers, paths and durations differ on every run; its signature does not.
    check = 'echo "FAILED test_login: expected 200, got $$ at /tmp/run$$/t.py after 0.$$s"; exit 1'
    loop.task({"allowed_files": ["src/**"], "criteria": [{"id": "tests", "verification": check}]})
    r = loop.run(loop.agent("write('src/app.py', f'attempt {attempt}\\n')\n"))
    assert r.returncode == 1, r.stderr
    assert loop.call_count() == 2
    progress = loop.progress()
    assert (progress["circuit"]["state"], progress["circuit"]["reason"]) == ("open", "repeated_failure")
    first, second = (a["criteria"][0]["signature"] for a in progress["attempts"])
    assert first == second


def test_agent_failures_in_a_row_open_the_circuit(loop: Loop) -> None:
    # Each attempt fails differently (no repeated signature); the agent exits 1 each time.
    loop.task({"criteria": [{"id": "word", "verification": "cat src/word.txt; exit 1"}]})
    agent = loop.agent("write('src/word.txt', ['alpha', 'beta', 'gamma', 'delta'][attempt - 1] + '\\n')\nsys.exit(1)\n")
    r = loop.run(agent)
    assert r.returncode == 1, r.stderr
    assert loop.call_count() == 3
    assert loop.progress()["circuit"]["reason"] == "error_streak_limit"


def test_max_steps_stops_the_loop_and_may_only_lower_the_contract(loop: Loop) -> None:
    loop.task({"governor": {"max_steps": 2}, "criteria": [{"id": "word", "verification": "cat src/word.txt; exit 1"}]})
    r = loop.run(loop.agent("write('src/word.txt', ['alpha', 'beta', 'gamma'][attempt - 1] + '\\n')\n"),
                 "--max-steps", "50")
    assert r.returncode == 1, r.stderr
    assert loop.call_count() == 2
    progress = loop.progress()
    assert (progress["state"], progress["reason"]) == ("stopped", "max_steps_reached")
    assert progress["circuit"]["state"] == "open"


def test_a_todo_criterion_is_not_run_and_the_loop_cannot_end_done(loop: Loop) -> None:
    loop.task({"criteria": [*DONE_WHEN_OK, {"id": "perf", "verification": "TODO: measure p95"}]})
    r = loop.run(loop.agent("write('src/ok.txt')\n"))
    assert r.returncode == 1, r.stderr
    assert "criterion 'perf' has no command" in r.stderr
    progress = loop.progress()
    assert progress["reason"] == "criteria_unverified"
    assert [c["status"] for c in progress["attempts"][0]["criteria"]] == ["passed", "not_verified"]


def test_usage_errors_exit_2_without_calling_anyone(loop: Loop) -> None:
    loop.task(SCOPED)
    assert loop.run("no-such-agent-program").returncode == 2
    assert loop.handrail("loop", "run", "t").returncode == 2
    loop.task({"criteria": [{"id": "x", "verification": "TODO"}]}, slug="todo")
    r = loop.run(loop.agent("pass\n"), slug="todo")
    assert r.returncode == 2 and "no criterion has a verification command" in r.stderr
    loop.task(SCOPED, slug="planned", phase="plan")
    r = loop.run(loop.agent("pass\n"), slug="planned")
    assert r.returncode == 2 and "handrail task phase planned implement" in r.stderr
    assert loop.call_count() == 0


def test_a_corrupt_progress_file_stops_the_loop_and_is_never_rewritten(loop: Loop) -> None:
    loop.task(SCOPED)
    agent = loop.agent("write('secrets/x')\n")
    assert loop.run(agent).returncode == 1  # the circuit is open now
    path = loop.progress_file()
    broken = path.read_text().replace('"state": "open"', '"state": "open",,', 1)
    path.write_text(broken)
    r = loop.run(agent)
    assert r.returncode == 2
    assert "progress.json: invalid JSON" in r.stderr and "never rewrites" in r.stderr
    assert path.read_text() == broken
    assert loop.call_count() == 2


def test_state_files_are_git_ignored(loop: Loop) -> None:
    from helpers import git

    loop.task({"criteria": DONE_WHEN_OK})
    assert loop.run(loop.agent("write('src/ok.txt')\n")).returncode == 0
    for rel in ("progress.json", "attempts/1/agent.log", "attempts/1/diff.patch", ".gitignore", ".loop.lock"):
        path = loop.task_dir() / rel
        assert path.exists(), rel
        assert git(loop.path, "check-ignore", "-q", str(path), check=False).returncode == 0, rel
    assert git(loop.path, "check-ignore", "-q", str(loop.task_dir() / "task.json"), check=False).returncode == 1


def test_renames_list_both_sides_and_both_are_judged(loop: Loop) -> None:
    loop.write("lib/util.py", "def helper():\n    return 1\n" * 20)
    loop.commit("lib/util.py")
    loop.task(SCOPED)
    agent = loop.agent("""
        if attempt == 1:
            os.makedirs('src')
            os.rename('lib/util.py', 'src/util.py')
        else:
            os.rename('src/util.py', 'lib/util.py')
        write('src/ok.txt')
    """)
    r = loop.run(agent)
    assert r.returncode == 0, r.stderr
    changed = json.loads((loop.attempt_dir(1) / "changed-files.json").read_text())
    assert changed["renamed"] == [{"from": "lib/util.py", "to": "src/util.py"}]
    first = loop.progress()["attempts"][0]
    assert [v["path"] for v in first["violations"]] == ["lib/util.py"]  # the side outside allowed_files


def test_a_second_loop_on_the_same_task_is_refused_while_one_runs(loop: Loop) -> None:
    import subprocess
    import time

    from helpers import HANDRAIL

    go = loop.outside / "go"
    loop.task({"criteria": DONE_WHEN_OK})
    agent = loop.agent(f"""
        import time
        for _ in range(300):
            if pathlib.Path({str(go)!r}).exists():
                break
            time.sleep(0.02)
        write('src/ok.txt')
    """)
    first = subprocess.Popen([HANDRAIL, "loop", "run", "t", "--", agent], cwd=loop.path, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for _ in range(500):
        if loop.call_count():
            break
        time.sleep(0.02)
    second = loop.run(agent)
    go.write_text("go")
    _, err = first.communicate(timeout=60)
    assert second.returncode == 2 and "another loop command is running on task 't'" in second.stderr
    assert first.returncode == 0, err
    assert loop.call_count() == 1
