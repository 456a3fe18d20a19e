"""OpenCode's database read into calls: the committed copies of real sessions, what a broken
row gives, and a database OpenCode goes on writing while it is read."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from clientruns import CASES, DATA, fixture, laid, made, shown, untokens
from hookkit import needs_client

from handrail.audit import READERS, opencode
from handrail.audit.calls import Call, Problem, Unknown


def place(tmp_path: Path, case: str) -> tuple[Path, Path]:
    root, home = tmp_path / "work" / "project", tmp_path / "home"
    root.mkdir(parents=True)
    laid("opencode", case, root, home)
    return root, home


@pytest.mark.parametrize("case", CASES)
def test_a_real_session_reads_to_the_calls_it_made(tmp_path: Path, case: str) -> None:
    root, home = place(tmp_path, case)
    find, read = READERS["opencode"]
    files = find(str(root), str(home), {})
    (session,) = json.loads((DATA / f"opencode-{case}.calls.json").read_text())[:1]
    assert files == [str(home / ".local" / "share" / "opencode" / "opencode.db") + "#" + session["session"]]
    expected = json.loads((DATA / f"opencode-{case}.calls.json").read_text())
    assert shown(list(read(files[0])), root, home, exact=True) == expected


def test_the_unguarded_session_ran_what_the_guarded_one_was_refused() -> None:
    plain = json.loads((DATA / "opencode-plain.calls.json").read_text())
    guarded = json.loads((DATA / "opencode-guarded.calls.json").read_text())
    assert [c["outcome"] for c in plain] == ["ok"] * 5
    assert [c["outcome"] for c in guarded] == ["hook_denied", "hook_denied", "hook_denied", "ok", "ok"]
    assert guarded[0]["reason"].startswith("handrail: refused, needs a human: 'git push --force origin main'")
    assert [(c["kind"], c["command"], c["paths"]) for c in plain] == [
        (c["kind"], c["command"], c["paths"]) for c in guarded]


def test_the_finder_keeps_the_sessions_that_ran_inside_the_project(tmp_path: Path) -> None:
    root, home = place(tmp_path, "plain")
    (found,) = opencode.find_opencode(str(root.parent), str(home), {})  # the session ran below it
    assert found.startswith(str(home / ".local" / "share" / "opencode" / "opencode.db") + "#ses_")
    # It ran above this one: kept, for its calls that reach into it.
    assert opencode.find_opencode(str(root / "src"), str(home), {}) == [found]
    assert opencode.find_opencode(str(tmp_path / "work" / "proj"), str(home), {}) == []  # a name's prefix is no folder
    assert opencode.find_opencode(str(root), str(tmp_path / "nobody"), {}) == []


def test_one_database_holds_two_projects_and_each_gets_its_own_session(tmp_path: Path) -> None:
    root, home = place(tmp_path, "plain")
    other = tmp_path / "work" / "other"
    db = home / ".local" / "share" / "opencode" / "opencode.db"
    rows = [x for x in fixture("opencode", "guarded").read_text().splitlines() if x.startswith("INSERT")]
    con = sqlite3.connect(db)
    con.executescript(untokens("\n".join(rows), other, home))
    con.close()
    mine, theirs = opencode.find_opencode(str(root), str(home), {}), opencode.find_opencode(str(other), str(home), {})
    assert len(mine) == len(theirs) == 1 and mine != theirs
    outcomes = [[c.outcome for c in opencode.read_opencode(f) if isinstance(c, Call)] for f in (mine[0], theirs[0])]
    assert outcomes == [["ok"] * 5, ["hook_denied"] * 3 + ["ok"] * 2]
    assert len([c for c in opencode.read_opencode(str(db)) if isinstance(c, Call)]) == 10  # the database: both


def test_a_channel_database_is_found_too(tmp_path: Path) -> None:
    root, home = place(tmp_path, "plain")
    data = home / ".local" / "share" / "opencode"
    (data / "opencode.db").rename(data / "opencode-dev.db")
    (found,) = opencode.find_opencode(str(root), str(home), {})
    assert found.startswith(str(data / "opencode-dev.db") + "#")


def add_part(db: Path, rowid: int, data: str, session: str = "ses_x", message: str = "msg_x") -> None:
    con = sqlite3.connect(db)
    with con:
        con.execute("INSERT INTO part (rowid, id, message_id, session_id, time_created, time_updated, data) "
                    "VALUES (?, ?, ?, ?, 0, 0, ?)", (rowid, f"prt_{rowid}", message, session, data))
    con.close()


def test_broken_rows_are_problems_with_their_row_and_the_rest_is_read(tmp_path: Path) -> None:
    _root, home = place(tmp_path, "plain")
    db = home / ".local" / "share" / "opencode" / "opencode.db"
    add_part(db, 1001, "{not json")
    add_part(db, 1002, json.dumps({"type": "tool", "tool": "bash"}))
    add_part(db, 1003, json.dumps({"type": "hologram"}))
    add_part(db, 1004, json.dumps({"type": "tool", "tool": "bash", "state": {"status": "running",
                                                                             "input": {"command": "rm -rf build"}}}))
    add_part(db, 1005, json.dumps({"type": "tool", "tool": "todowrite", "state": {"status": "completed",
                                                                                  "input": {"todos": []}}}))
    records = list(opencode.read_opencode(str(db)))
    calls = [r for r in records if isinstance(r, Call)]
    assert len(calls) == 6  # the five of the session, and the one still running
    assert calls[-1].command == "rm -rf build" and calls[-1].outcome == "unknown" and calls[-1].line == 1004
    problems = [r for r in records if isinstance(r, Problem)]
    assert [(p.file, p.line) for p in problems] == [(str(db), 1001), (str(db), 1002)]
    assert "not a JSON object" in problems[0].what and "without its tool, state" in problems[1].what
    assert [r for r in records if isinstance(r, Unknown)] == [Unknown("part hologram")]


def test_a_file_that_is_no_database_is_one_problem(tmp_path: Path) -> None:
    bad = tmp_path / "opencode.db"
    bad.write_text("this is not SQLite")
    (problem,) = opencode.read_opencode(str(bad))
    assert isinstance(problem, Problem) and problem.file == str(bad) and "not an OpenCode database" in problem.what


def digest(db: Path) -> list[str]:
    """The database and what its write-ahead log holds (a reader of a WAL database may open an
    empty log, and uses the -shm file, SQLite's shared lock memory)."""
    wal = db.with_name(db.name + "-wal")
    return [hashlib.sha256(p.read_bytes()).hexdigest() for p in (db, wal) if p.exists() and p.stat().st_size]


@pytest.mark.parametrize("journal", ["wal", "delete"])  # OpenCode's, and a rollback journal's locks
def test_reading_writes_nothing_and_opencode_writes_on_while_the_audit_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, journal: str) -> None:
    _root, home = place(tmp_path, "plain")
    db = home / ".local" / "share" / "opencode" / "opencode.db"
    con = sqlite3.connect(db)
    con.execute(f"PRAGMA journal_mode = {journal}")
    con.close()
    before = digest(db)
    monkeypatch.setattr(opencode, "PAGE", 2)  # several reads, with the audit paused between them
    reading = opencode.read_opencode(str(db))
    first = next(r for r in reading if isinstance(r, Call))
    writer = sqlite3.connect(db, timeout=0)  # OpenCode's write: refused at once if the audit held a lock
    with writer:
        writer.execute("UPDATE session SET title = 'renamed'")
    writer.close()
    rest = [r for r in reading if isinstance(r, Call)]
    assert first.command == "git push --force origin main" and len(rest) == 4
    check = sqlite3.connect(db)
    assert check.execute("SELECT title FROM session").fetchall() == [("renamed",)]
    check.close()
    written = digest(db)
    assert written != before  # the writer did write
    assert len([r for r in opencode.read_opencode(str(db)) if isinstance(r, Call)]) == 5  # and a second read...
    assert digest(db) == written  # ...changed nothing


def test_a_database_a_writer_holds_is_still_read(tmp_path: Path) -> None:
    _root, home = place(tmp_path, "plain")
    db = home / ".local" / "share" / "opencode" / "opencode.db"
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # OpenCode in the middle of a write
    writer.execute("UPDATE session SET title = 'busy'")
    try:
        calls = [r for r in opencode.read_opencode(str(db)) if isinstance(r, Call)]
    finally:
        writer.execute("COMMIT")
        writer.close()
    assert len(calls) == 5


@pytest.mark.slow
@needs_client("opencode")
@pytest.mark.parametrize("case", CASES)
def test_the_installed_opencode_still_writes_what_the_reader_reads(tmp_path: Path, case: str) -> None:
    root, home = made(tmp_path, "opencode", case)
    find, read = READERS["opencode"]
    records = [r for f in find(str(root), str(home), {}) for r in read(f)]
    expected = json.loads((DATA / f"opencode-{case}.calls.json").read_text())
    for item in expected:
        for key in ("session", "file", "line", "time"):
            item.pop(key)
    assert shown(records, root, home, exact=False) == expected
