"""A locked or broken event log: decisions keep their answers and say so at once, and
`handrail doctor` names what is wrong with the log, proves a good one, and sets a
broken one aside with `--fix`."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import HANDRAIL, prepared, run_handrail

from handrail.records import task_states

LOG = Path(".handrail") / "runtime" / "events.sqlite"
# The harness hooks run `handrail hook …` from PATH: the doctor looks for this handrail.
ON_PATH = {"PATH": f"{Path(HANDRAIL or 'handrail').parent}{os.pathsep}{os.environ.get('PATH', '')}"}


@pytest.fixture
def guarded(repo: Path) -> Path:
    """An initialised repository with one task to edit under, and an event log in use."""
    prepared(repo, ("init",), ("task", "new", "t1"))
    task_states.set_phase(str(repo), "t1", "implement")  # a person's step (`task phase` needs a terminal)
    assert (repo / LOG).is_file()
    return repo


def doctor(project: Path, *args: str) -> tuple[int, dict]:
    r = run_handrail("doctor", "--json", *args, cwd=project, env=ON_PATH)
    assert "Traceback" not in r.stderr, r.stderr
    return r.returncode, json.loads(r.stdout.splitlines()[-1])


def runtime_findings(report: dict) -> list[dict]:
    return [f for f in report["findings"] if f["check"] == "runtime"]


def events(project: Path, *args: str) -> list[dict]:
    r = run_handrail("events", "--json", *args, cwd=project)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in r.stdout.splitlines()]


@pytest.fixture
def locked(guarded: Path) -> Iterator[sqlite3.Connection]:
    """Another connection holds the log's write lock until the test ends."""
    conn = sqlite3.connect(guarded / LOG, isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    yield conn
    conn.execute("ROLLBACK")
    conn.close()


# ----------------------------------------------------------------------------- a locked log


def test_a_locked_log_costs_a_decision_one_warning_not_its_answer(guarded: Path,
                                                                   locked: sqlite3.Connection) -> None:
    r = run_handrail("can-edit", "--file", ".env", "--json", cwd=guarded)
    assert r.returncode == 1
    assert json.loads(r.stdout)["reason"] == "forbidden_file"
    (line,) = r.stderr.splitlines()
    assert line.startswith("handrail: warning: could not record edit_refused in ")
    assert "another process holds it locked (gave up after 100 ms); the answer stands" in line
    allowed = run_handrail("can-edit", "--file", "src/app.py", cwd=guarded)
    assert allowed.returncode == 0 and allowed.stderr == ""

    locked.execute("ROLLBACK")
    locked.execute("BEGIN")  # the fixture's ROLLBACK ends this one
    r = run_handrail("can-edit", "--file", ".env", cwd=guarded)
    assert r.returncode == 1 and r.stderr == ""
    assert [e["payload"]["file"] for e in events(guarded, "--type", "edit_refused")] == [".env"]


def test_doctor_names_a_locked_log(guarded: Path, locked: sqlite3.Connection) -> None:
    code, report = doctor(guarded)
    assert code == 1 and report["checks"]["runtime"] == "error"
    (f,) = runtime_findings(report)
    assert f["finding"] == ("event log: .handrail/runtime/events.sqlite is locked: another process holds it locked "
                            "(gave up after 100 ms), so every decision goes unrecorded")
    assert "fuser .handrail/runtime/events.sqlite" in f["hint"] and f["fixable"] is False


# ----------------------------------------------------------------------------- broken logs


def _remove(db: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)


def dangling(db: Path) -> None:
    _remove(db)
    db.symlink_to(db.parent / "gone" / "events.sqlite")


def folder(db: Path) -> None:
    _remove(db)
    db.mkdir()


def garbage(db: Path) -> None:
    _remove(db)
    db.write_bytes(b"this is not a database, it is text " * 100)


def wrong_schema(db: Path) -> None:
    _remove(db)
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE agent_events (id INTEGER PRIMARY KEY, created_at TEXT, event_type TEXT)")
    conn.commit()
    conn.close()


def runtime_is_a_file(db: Path) -> None:
    import shutil

    # the folder holds more than the log (the setup lock of `handrail init`): all of it goes
    shutil.rmtree(db.parent)
    db.parent.write_text("not a folder\n")


BROKEN: dict[str, tuple[Callable[[Path], None], str, str, bool]] = {
    # shape: (how to break it, what the finding says, what the hint says, can --fix repair it)
    "dangling link": (dangling, (".handrail/runtime/events.sqlite is a symbolic link to {runtime}/gone/"
                                 "events.sqlite, which does not exist"), "rm .handrail/runtime/events.sqlite", True),
    "folder": (folder, ".handrail/runtime/events.sqlite is a folder, not a file",
               "mv .handrail/runtime/events.sqlite .handrail/runtime/events.sqlite.broken", True),
    "not a database": (garbage, ".handrail/runtime/events.sqlite is not an SQLite database",
                       "mv .handrail/runtime/events.sqlite", True),
    "wrong schema": (wrong_schema, (".handrail/runtime/events.sqlite has the wrong schema: table agent_events has "
                                    "no column agent, task, topic, message, payload_json"),
                     "mv .handrail/runtime/events.sqlite", True),
    "runtime is a file": (runtime_is_a_file, ".handrail/runtime is a file, not a folder",
                          "mv .handrail/runtime .handrail/runtime.old", False),
}


@pytest.mark.parametrize("shape", BROKEN)
def test_doctor_names_each_broken_log_and_its_fix(guarded: Path, shape: str) -> None:
    assert doctor(guarded)[0] == 0
    breaks, what, hint, fixable = BROKEN[shape]
    breaks(guarded / LOG)
    code, report = doctor(guarded)
    assert code == 1 and report["ok"] is False and report["checks"]["runtime"] == "error"
    (f,) = runtime_findings(report)
    runtime = str((guarded / LOG).parent)
    assert f["finding"] == f"event log: {what.format(runtime=runtime)}, so every decision goes unrecorded"
    assert hint in f["hint"] and f["fixable"] is fixable
    r = run_handrail("doctor", cwd=guarded, env=ON_PATH)
    assert r.returncode == 1
    assert f"      error: event log: {what.format(runtime=runtime)}, so every decision goes unrecorded" \
        in r.stdout.splitlines()
    # What the doctor reports is what loses the events: a decision says the same in its warning.
    refused = run_handrail("can-edit", "--file", ".env", cwd=guarded)
    assert refused.returncode == 1 and "could not record edit_refused" in refused.stderr


@pytest.mark.parametrize("shape", [s for s, (*_, fixable) in BROKEN.items() if fixable])
def test_doctor_fix_sets_a_broken_log_aside_and_recording_resumes(guarded: Path, shape: str) -> None:
    BROKEN[shape][0](guarded / LOG)
    code, report = doctor(guarded, "--fix")
    assert code == 0 and report["ok"] is True, report
    assert report["could_not_fix"] == [] and len(report["fixed"]) == 1
    assert runtime_findings(report) == []
    if shape != "dangling link":
        assert list((guarded / ".handrail" / "backups").glob("*/runtime/events.sqlite"))
    r = run_handrail("can-edit", "--file", ".env", cwd=guarded)
    assert r.returncode == 1 and r.stderr == ""
    assert len(events(guarded, "--type", "edit_refused")) == 1


@pytest.fixture
def read_only_log(guarded: Path) -> Iterator[Path]:
    """The log made read-only in the way that holds for the user running the tests
    (root ignores file modes, but not the immutable flag)."""
    db = guarded / LOG
    if os.geteuid() == 0:
        if subprocess.run(["chattr", "+i", str(db)], check=False, capture_output=True).returncode != 0:
            pytest.skip("running as root where the immutable flag cannot be set")
        yield db
        subprocess.run(["chattr", "-i", str(db)], check=True)
    else:
        db.chmod(0o444)
        yield db
        db.chmod(0o644)


def test_doctor_names_a_read_only_log_and_fix_says_it_cannot_repair_it(read_only_log: Path) -> None:
    project = read_only_log.parents[2]
    code, report = doctor(project)
    assert code == 1
    (f,) = runtime_findings(report)
    if os.geteuid() == 0:
        assert f["finding"].startswith("event log: .handrail/runtime/events.sqlite cannot be opened for writing "
                                       "(Operation not permitted: an immutable or append-only flag)")
        assert "chattr -i -a .handrail/runtime/events.sqlite" in f["hint"]
    else:
        assert f["finding"].startswith("event log: .handrail/runtime/events.sqlite is read-only (mode 0444")
        assert "chmod u+w .handrail/runtime/events.sqlite" in f["hint"]
    assert f["fixable"] is False
    code, report = doctor(project, "--fix")
    assert code == 1 and report["fixed"] == []


# ----------------------------------------------------------------------------- the probe


def test_doctor_proves_a_good_log_and_leaves_no_trace_in_it(guarded: Path) -> None:
    before = events(guarded)
    assert before
    code, report = doctor(guarded)
    assert code == 0 and report["checks"]["runtime"] == "ok"
    assert events(guarded) == before
    conn = sqlite3.connect(guarded / LOG)
    assert conn.execute("SELECT COUNT(*) FROM agent_events WHERE event_type = 'doctor_probe'").fetchone() == (0,)
    conn.close()
    r = run_handrail("can-edit", "--file", ".env", cwd=guarded)
    assert r.returncode == 1
    assert events(guarded)[:-1] == before and events(guarded)[-1]["event_type"] == "edit_refused"


# ----------------------------------------------------------------------------- fixes that fail


def test_doctor_fix_says_what_it_could_not_fix_and_exits_1(guarded: Path) -> None:
    (guarded / ".gemini" / "settings.json").write_text("{not json")
    folder(guarded / LOG)
    backups = guarded / ".handrail" / "backups"
    backups.mkdir(exist_ok=True)
    for child in backups.iterdir():
        subprocess.run(["rm", "-rf", str(child)], check=True)
    backups.rmdir()
    backups.write_text("a file where the backups folder goes\n")
    code, report = doctor(guarded, "--fix")
    assert code == 1 and report["ok"] is False and report["fixed"] == []
    failed = report["could_not_fix"]
    assert any(line.startswith("regenerating the files failed: ") and ".gemini/settings.json: invalid JSON" in line
               for line in failed), failed
    assert any(line.startswith("setting the event log .handrail/runtime/events.sqlite aside failed: ")
               for line in failed), failed
    r = run_handrail("doctor", "--fix", cwd=guarded, env=ON_PATH)
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert not any(line.startswith("  fixed:") for line in lines)
    assert any(line.startswith("  could not fix: setting the event log") for line in lines)
    assert lines[-1].startswith("not ok: ") and "could not be fixed" in lines[-1]
