"""Where living memory meets the rest: the post-commit hook, the session-start
context, `memory status`, and what doctor will be told."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from helpers import as_person, git, run_handrail
from memkit import HOW, MANIFEST, Mem, bumped

from handrail import install_hooks
from handrail.install_hooks import MARKER, SAVED
from handrail.memory.status import doctor_warnings
from handrail.records import task_states


def hooked(mem: Mem) -> Mem:
    """Hooks installed, a task to commit under, and handrail's own files out of the way."""
    install_hooks.install(str(mem.path / ".git" / "hooks"), str(mem.path))
    (mem.path / ".git" / "info").mkdir(exist_ok=True)
    (mem.path / ".git" / "info" / "exclude").write_text(".handrail/runtime/\n.handrail/tasks/\n")
    assert mem.hr("task", "new", "t").returncode == 0
    task_states.set_phase(str(mem.path), "t", "implement")  # a person's step (`task phase` needs a terminal)
    return mem


def commits(mem: Mem) -> int:
    return int(git(mem.path, "rev-list", "--count", "HEAD").stdout)


def test_install_and_uninstall_cover_post_commit(mem: Mem, tmp_path: Path) -> None:
    hooks = mem.path / ".git" / "hooks"
    log = tmp_path / "foreign.log"
    foreign = f"#!/bin/sh\necho ran >> '{log}'\n"
    (hooks / "post-commit").write_text(foreign)
    (hooks / "post-commit").chmod(0o755)
    r = mem.hr("install-hooks")
    assert "post-commit: installed (the hook that was there runs first)" in r.stdout
    assert MARKER in (hooks / "post-commit").read_text()
    hooked(mem)
    mem.commit({"src/a.py": "x\n"})
    assert log.read_text() == "ran\n"
    r = as_person("uninstall-hooks", cwd=mem.path)
    assert "post-commit: restored" in r.stdout and (hooks / "post-commit").read_text() == foreign
    assert not (hooks / f"post-commit{SAVED}").exists()


def test_the_post_commit_hook_prepares_in_the_background(mem: Mem) -> None:
    hooked(mem)
    mem.commit({"app/routes.py": "GET /users\n"}, "routes")
    deadline = time.monotonic() + 30
    while mem.manifest() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    m = mem.manifest()
    assert m is not None and m["targets"][0] == HOW
    assert m["git_range"].endswith(mem.head())


def test_a_failing_post_commit_never_fails_the_commit(mem: Mem) -> None:
    hooked(mem)
    runtime = mem.path / ".handrail" / "runtime"
    for p in runtime.iterdir():
        p.unlink()
    runtime.rmdir()
    runtime.write_text("not a folder: nothing can be written under it\n")  # unwritable even for root
    before = commits(mem)
    r = git(mem.path, "commit", "--allow-empty", "-q", "-m", "after", check=False)
    assert r.returncode == 0 and commits(mem) == before + 1
    mem.commit({"app/routes.py": "GET /\n"})
    assert commits(mem) == before + 2
    direct = mem.hr("hook", "post-commit")
    assert direct.returncode == 0 and "Traceback" not in direct.stderr
    assert "living memory not checked" in direct.stderr


def test_the_post_commit_hook_is_silent_where_there_is_no_description(bare: Mem) -> None:
    r = bare.hr("hook", "post-commit")
    assert r.returncode == 0 and r.stdout == r.stderr == ""
    assert not (bare.path / ".handrail").exists()


def test_session_start_context_only_while_a_reflection_is_pending(mem: Mem) -> None:
    r = mem.hr("hook", "session-start")
    assert r.returncode == 0 and r.stdout == ""
    mem.commit({"app/routes.py": "GET /\n"})
    assert mem.prepare()["written"]
    r = mem.hr("hook", "session-start", input='{"hook_event_name": "SessionStart", "source": "startup"}')
    assert r.returncode == 0
    out = json.loads(r.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    assert MANIFEST in out["additionalContext"] and "handrail memory commit" in out["additionalContext"]
    assert "\n" not in out["additionalContext"]
    text = mem.hr("hook", "session-start", "--harness", "text").stdout
    assert text.strip() == out["additionalContext"]
    cursor = json.loads(mem.hr("hook", "session-start", "--harness", "cursor").stdout)
    assert cursor == {"additional_context": out["additionalContext"]}
    assert mem.update({HOW: bumped(mem.read(HOW))}).returncode == 0
    r = mem.hr("hook", "session-start")
    assert r.returncode == 0 and r.stdout == ""


def test_session_start_finds_the_project_and_never_fails(pending: Mem, tmp_path: Path) -> None:
    sub = pending.path / "src" / "deep"
    sub.mkdir(parents=True)
    assert "additionalContext" in pending.hr("hook", "session-start").stdout
    r = run_handrail("hook", "session-start", "--project", str(pending.path), cwd=tmp_path)
    assert "additionalContext" in r.stdout
    r = run_handrail("hook", "session-start", cwd=tmp_path, env={"CLAUDE_PROJECT_DIR": str(pending.path)})
    assert "additionalContext" in r.stdout
    r = run_handrail("hook", "session-start", cwd=sub)
    assert "additionalContext" in r.stdout
    (pending.path / MANIFEST).write_text("{broken")
    for args in ((), ("--bogus",)):
        r = pending.hr("hook", "session-start", *args)
        assert r.returncode == 0 and r.stdout == "" and r.stderr == ""


def test_status_says_who_and_what_to_run_and_doctor_warns_when_old(pending: Mem,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    pending.prepare("--force", "--agent", "claude")
    s = json.loads(pending.hr("memory", "status", "--json").stdout)
    assert s["pending"] and s["trigger_agent"] == "claude" and s["targets"]
    assert "handrail memory commit" in s["next"] and not s["stale"]
    text = pending.hr("memory", "status").stdout
    assert "pending" in text and "claude" in text
    assert doctor_warnings(str(pending.path)) == []
    monkeypatch.setenv("HANDRAIL_NOW", "2026-02-09T00:00:00Z")  # eight days on
    s = json.loads(pending.hr("memory", "status", "--json").stdout)
    assert s["stale"] and s["age_days"] == 8.0
    [warning] = doctor_warnings(str(pending.path))
    assert "pending for 8 days" in warning


def test_status_and_doctor_name_missing_bootstrap_files(bare: Mem) -> None:
    s = json.loads(bare.hr("memory", "status", "--json").stdout)
    assert not s["pending"] and s["next"] == "handrail memory init" and len(s["missing_bootstrap"]) == 4
    [warning] = doctor_warnings(str(bare.path))
    assert "handrail memory init" in warning and "what-is.md" in warning


def test_init_never_overwrites(mem: Mem) -> None:
    mem.write(HOW, "mine\n")
    r = mem.hr("memory", "init", "--json")
    out = json.loads(r.stdout)
    assert out["created"] == [] and HOW in out["kept"]
    assert mem.read(HOW) == "mine\n"


@pytest.mark.parametrize("harness", ["codex", "gemini"])
def test_claude_shaped_harnesses(pending: Mem, harness: str) -> None:
    out = json.loads(pending.hr("hook", "session-start", "--harness", harness).stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
