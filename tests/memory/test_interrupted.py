"""A `handrail memory commit` killed at any point: the next memory command finishes or
undoes it, git never sees a file of handrail's half-done write, and the retry succeeds."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import git
from memkit import BOOT, DOES, HOW, LATER, MANIFEST, NOW, STATE, WHAT_IS, Mem, bumped

KILLPOINT = str(Path(__file__).with_name("killpoint.py"))
TXN = ".handrail/runtime/memory-txn"
KILLED = -signal.SIGKILL


def run_killed(mem: Mem, spec: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command line, SIGKILLed at the call `spec` names (see killpoint.py)."""
    env = {**os.environ, "HANDRAIL_TEST_KILL_AT": spec, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, KILLPOINT, *args], check=False, cwd=mem.path, env=env, text=True,
                          capture_output=True)


def dirty(mem: Mem) -> list[str]:
    """What `git status` shows, untracked files one by one."""
    out = git(mem.path, "status", "--porcelain", "--untracked-files=all").stdout
    return sorted(line[3:] for line in out.splitlines())


def temp_files(mem: Mem) -> list[str]:
    return sorted(str(p.relative_to(mem.path)) for p in mem.path.rglob("*")
                  if ".git" not in p.parts and (p.name.endswith(".tmp") or "memory-txn" in p.parts))


def backups(mem: Mem) -> dict[str, dict[str, str]]:
    base = mem.path / ".handrail" / "backups"
    if not base.is_dir():
        return {}
    return {d.name: {f.name: f.read_text() for f in (d / "bootstrap").iterdir()} for d in base.iterdir() if d.is_dir()}


@pytest.fixture
def staged(pending: Mem) -> tuple[Mem, dict[str, str], dict[str, str], Path]:
    """A pending reflection, the bootstrap files as they are, and an update of two of them."""
    old = {p: pending.read(p) for p in (HOW, STATE, WHAT_IS, DOES)}
    new = {HOW: bumped(old[HOW]), STATE: bumped(old[STATE], add="Users can be listed.\n")}
    update = pending.path.parent / "update.json"
    update.write_text(json.dumps({"files": new}), encoding="utf-8")
    return pending, old, new, update


def copy_of(mem: Mem, where: Path) -> Mem:
    shutil.copytree(mem.path, where, symlinks=True)
    return Mem(where)


@pytest.mark.parametrize("call", ["replace", "replace:after", "fsync", "unlink", "rmdir"])
def test_a_commit_killed_at_any_call_is_finished_or_undone_and_the_retry_succeeds(
        staged: tuple[Mem, dict[str, str], dict[str, str], Path], tmp_path: Path, call: str) -> None:
    template, old, new, update = staged
    name, _, when = call.partition(":")
    kills = 0
    for n in range(1, 60):
        mem = copy_of(template, tmp_path / f"{name}-{when}-{n}")
        r = run_killed(mem, f"{name}:{n}{':' + when if when else ''}", "memory", "commit", "--output", str(update))
        if r.returncode == 0:
            break  # the command ran to its end before the Nth call
        assert r.returncode == KILLED, r.stderr
        kills += 1
        # Right after the kill git sees the bootstrap files at most, never a file of handrail's.
        assert set(dirty(mem)) <= set(new), (n, dirty(mem))

        # Any memory command first finishes or undoes the interrupted write.
        s = mem.hr("memory", "status", "--json")
        assert s.returncode == 0, s.stderr
        assert json.loads(s.stdout)["interrupted"] is False
        now = {p: mem.read(p) for p in old}
        assert now in ({**old}, {**old, **new}), (n, now)
        assert temp_files(mem) == [] and set(dirty(mem)) <= set(new)

        # The retry succeeds, and leaves the update written once.
        r = mem.update(new)
        assert r.returncode == 0, (n, r.stdout + r.stderr)
        assert {p: mem.read(p) for p in old} == {**old, **new}
        assert mem.manifest() is None and temp_files(mem) == [] and dirty(mem) == sorted(new)
        [event] = mem.events("memory_reflect_committed")
        assert event["payload"]["files"] == list(new)
        [backup] = backups(mem).values()
        assert backup == {os.path.basename(p): old[p] for p in new}
    else:
        pytest.fail(f"the commit never ran to its end with {call}")
    assert kills >= {"replace": 4, "fsync": 5, "unlink": 2, "rmdir": 2}[name]


def test_init_killed_at_any_rename_lays_all_four_files_or_none(bare: Mem, tmp_path: Path) -> None:
    four = sorted(["what-is.md", "how-it-works.md", "what-it-does.md", "current-state.md"])
    for n in range(1, 20):
        mem = copy_of(bare, tmp_path / f"init-{n}")
        r = run_killed(mem, f"replace:{n}", "memory", "init")
        if r.returncode == 0:
            break
        assert r.returncode == KILLED, r.stderr
        assert set(dirty(mem)) <= {f"{BOOT}/{name}" for name in four}
        assert mem.hr("memory", "status").returncode == 0
        laid = sorted(p.name for p in (mem.path / BOOT).glob("*")) if (mem.path / BOOT).is_dir() else []
        assert laid in ([], four) and temp_files(mem) == []
        r = mem.hr("memory", "init", "--json")
        assert r.returncode == 0, r.stderr
        assert sorted(p.name for p in (mem.path / BOOT).glob("*")) == four and temp_files(mem) == []
    else:
        pytest.fail("init never ran to its end")


def test_an_edit_made_while_a_commit_lay_interrupted_is_kept_and_the_rest_undone(
        staged: tuple[Mem, dict[str, str], dict[str, str], Path]) -> None:
    mem, old, new, update = staged
    # Renames: the journal, then HOW, then STATE: killed with HOW new and STATE old.
    assert run_killed(mem, "replace:3", "memory", "commit", "--output", str(update)).returncode == KILLED
    assert mem.read(HOW) == new[HOW] and mem.read(STATE) == old[STATE]
    theirs = old[STATE] + "Edited by a person meanwhile.\n"
    mem.write(STATE, theirs)
    s = mem.hr("memory", "status")
    assert s.returncode == 0 and f"undid an interrupted memory write: {STATE} changed" in s.stderr
    assert mem.read(HOW) == old[HOW] and mem.read(STATE) == theirs
    assert temp_files(mem) == []
    # Now a person's edit is what stands between the update and the description.
    r = mem.update(new)
    assert r.returncode == 1 and "snapshot_hash" in r.stderr and STATE in r.stderr
    assert mem.events("memory_reflect_committed") == []


def test_a_rename_refused_half_way_puts_back_the_files_already_renamed(
        staged: tuple[Mem, dict[str, str], dict[str, str], Path]) -> None:
    mem, old, new, update = staged
    # Renames: the journal, then HOW, then STATE: STATE's is refused.
    r = run_killed(mem, "replace:3:fail", "memory", "commit", "--output", str(update))
    assert r.returncode == 1 and "write_failed" in r.stderr and "nothing was written" in r.stderr
    assert {p: mem.read(p) for p in old} == old and mem.manifest() is not None
    assert temp_files(mem) == [] and dirty(mem) == []
    assert mem.update(new).returncode == 0 and {p: mem.read(p) for p in old} == {**old, **new}


def test_the_retry_of_a_commit_already_written_succeeds_without_writing(
        staged: tuple[Mem, dict[str, str], dict[str, str], Path]) -> None:
    mem, _old, new, _update = staged
    assert mem.update(new).returncode == 0
    r = mem.update(new, "--json")
    out = json.loads(r.stdout.splitlines()[-1])
    assert r.returncode == 0 and out["already_written"] is True and out["files"] == list(new)
    assert len(mem.events("memory_reflect_committed")) == 1 and len(backups(mem)) == 1
    # Anything but the very same update finds no reflection pending.
    r = mem.update({HOW: new[HOW]}, "--json")
    assert r.returncode == 1 and json.loads(r.stdout.splitlines()[-1])["reason"] == "missing_manifest"


def test_a_second_commit_in_the_same_second_keeps_the_first_backup(
        staged: tuple[Mem, dict[str, str], dict[str, str], Path]) -> None:
    mem, old, new, _update = staged
    assert mem.update(new).returncode == 0
    mem.commit({"app/routes.py": "GET /users\nGET /teams\n"}, "more routes")
    assert mem.prepare()["written"]
    newer = {HOW: new[HOW].replace(LATER, "2026-02-01T07:00:00Z") + "Teams too.\n"}
    r = mem.update(newer, "--json")
    assert r.returncode == 0, r.stderr
    stamp = NOW.replace("-", "").replace(":", "")
    assert json.loads(r.stdout.splitlines()[-1])["backup"] == f".handrail/backups/{stamp}-2/bootstrap"
    found = backups(mem)
    assert found[stamp]["how-it-works.md"] == old[HOW] and found[f"{stamp}-2"]["how-it-works.md"] == new[HOW]
    assert dirty(mem) == sorted(new)


def test_temporary_files_an_older_write_left_are_removed(mem: Mem) -> None:
    stray = mem.path / BOOT / ".how-it-works.md.4242.tmp"
    stray.write_text("half")
    assert mem.hr("memory", "status").returncode == 0
    assert not stray.exists() and dirty(mem) == []


def test_a_damaged_journal_stops_every_memory_command_with_what_to_do(pending: Mem) -> None:
    (pending.path / TXN).mkdir()
    (pending.path / TXN / "journal.json").write_text('{"version": 1, "id": "x", "targets": [{"path": "../x"}]}')
    for args in (("memory", "status"), ("memory", "prepare"), ("memory", "commit", "-")):
        r = pending.hr(*args, input="{}")
        assert r.returncode == 2, r.stdout + r.stderr
        assert "memory-txn/journal.json" in r.stderr and "Traceback" not in r.stderr
    assert not (pending.path / "x").exists() and (pending.path / MANIFEST).exists()


def test_a_write_still_under_way_is_never_taken_for_an_interrupted_one(
        staged: tuple[Mem, dict[str, str], dict[str, str], Path]) -> None:
    fcntl = pytest.importorskip("fcntl")
    mem, old, _new, _update = staged
    (mem.path / TXN).mkdir()
    (mem.path / TXN / "journal.json").write_text("{}")  # what a live writer's half-written state may look like
    fd = os.open(mem.path / ".handrail/runtime/memory.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        r = mem.hr("memory", "status")
        assert r.returncode == 2 and "another memory command is writing" in r.stderr
        assert (mem.path / TXN / "journal.json").read_text() == "{}" and mem.read(HOW) == old[HOW]
    finally:
        os.close(fd)
