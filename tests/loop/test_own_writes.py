"""What the loop does not count against the agent: the protocol's write_paths (the
living memory) and the copies handrail keeps in `.handrail/backups/`."""

from __future__ import annotations

from loopkit import Loop

DONE_WHEN_OK = [{"id": "ok", "verification": "test -f src/ok.txt"}]
BOOT = ".handrail/context/bootstrap/how-it-works.md"


def test_memory_and_backups_written_during_an_attempt_are_no_violation(loop: Loop) -> None:
    loop.task({"allowed_files": ["src/**"], "human_gate": {"required_for": ["policy_change"]},
               "criteria": DONE_WHEN_OK})
    agent = loop.agent(f"""
        write({BOOT!r}, '---\\ngenerated_at: 2026-02-01T00:00:00Z\\n---\\nhow\\n')
        write('.handrail/backups/20260201T000000Z/bootstrap/how-it-works.md', 'old\\n')
        write('src/ok.txt')
    """)
    r = loop.run(agent)
    assert r.returncode == 0, r.stdout + r.stderr
    [attempt] = loop.progress()["attempts"]
    assert attempt["violations"] == [] and attempt["gates"] == []
    assert attempt["outcome"] == "done"
    kinds = loop.event_types()
    assert "loop_write_path" in kinds and "loop_scope_violation" not in kinds


def test_the_rest_of_handrails_folder_is_still_a_violation(loop: Loop) -> None:
    loop.task({"allowed_files": ["src/**"], "criteria": DONE_WHEN_OK})
    r = loop.run(loop.agent("write('.handrail/context/notes.md')\nwrite('src/ok.txt')\n"))
    assert r.returncode != 0
    [attempt] = loop.progress()["attempts"][:1]
    assert [(v["path"], v["reason"]) for v in attempt["violations"]] == [(".handrail/context/notes.md",
                                                                          "protected_path")]
