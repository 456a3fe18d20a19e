"""Atomic writes killed before their rename leave nothing git sees, and the next write
in that folder removes what they left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import git, prepared, run_handrail

from handrail import fsio
from handrail.records import task_states

# `handrail task phase` run in-process, killed between writing its temporary file and
# renaming it over task.json: `os.replace` is where an atomic write is only half done.
KILLED_MID_WRITE = """
import os, sys, time
ready = sys.argv[1]
def stop_before_rename(src, dst):
    open(ready, "w").close()
    time.sleep(600)
os.replace = stop_before_rename
from handrail.cli import run
run(["task", "phase", "t1", "review"])
"""


def dead_pid() -> int:
    """The PID of a process that has exited."""
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


@pytest.fixture
def committed(repo: Path) -> Path:
    """A guarded repository with task t1, everything committed: `git status` is clean."""
    prepared(repo, ("init",), ("task", "new", "t1"))
    task_states.set_phase(str(repo), "t1", "implement")  # a person's step (`task phase` needs a terminal)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "guarded")
    assert git(repo, "status", "--porcelain").stdout == ""
    return repo


def test_a_write_killed_before_its_rename_leaves_nothing_git_sees(committed: Path, tmp_path: Path) -> None:
    task_dir = committed / ".handrail" / "tasks" / "t1"
    before = (task_dir / "task.json").read_text()
    ready = tmp_path / "ready"
    proc = subprocess.Popen([sys.executable, "-c", KILLED_MID_WRITE, str(ready)], cwd=committed,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while not ready.exists():
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    (holder,) = [p for p in task_dir.iterdir() if p.name.startswith(fsio.TEMP_PREFIX)]
    assert (holder / "task.json").read_text() != before  # the new content, never renamed
    assert (task_dir / "task.json").read_text() == before  # the target untouched
    assert git(committed, "status", "--porcelain").stdout == ""
    # What an earlier handrail left when killed, `.NAME.PID.tmp` beside NAME, git shows.
    legacy = task_dir / f".task.json.{dead_pid()}.tmp"
    legacy.write_text("{}")
    assert git(committed, "status", "--porcelain").stdout.strip() == f"?? {legacy.relative_to(committed)}"

    r = run_handrail("task", "phase", "t1", "review", cwd=committed)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in task_dir.iterdir() if p.name.startswith(".")) == []
    assert git(committed, "status", "--porcelain").stdout == " M .handrail/tasks/t1/task.json\n"


def test_the_next_write_keeps_live_writers_temporary_files_and_the_users_own(tmp_path: Path) -> None:
    dead, live = dead_pid(), os.getppid()
    for pid in (dead, live):
        holder = tmp_path / f"{fsio.TEMP_PREFIX}{pid}.0a1b2c3d"
        holder.mkdir()
        (holder / ".gitignore").write_text(fsio.TEMP_IGNORE)
        (holder / "notes.txt").write_text("half written")
    (tmp_path / "notes.txt").write_text("old\n")
    (tmp_path / f".notes.txt.{dead}.tmp").write_text("left by an earlier handrail")
    (tmp_path / f".todo.txt.{dead}.tmp").write_text("a file of the user's: no todo.txt beside it")

    fsio.atomic_write(str(tmp_path / "notes.txt"), "new\n")

    assert (tmp_path / "notes.txt").read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([
        f".todo.txt.{dead}.tmp", f"{fsio.TEMP_PREFIX}{live}.0a1b2c3d", "notes.txt"])
