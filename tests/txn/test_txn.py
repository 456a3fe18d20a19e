"""handrail/txn.py: several files written all or none, whatever call the process is
killed at; what someone edits between the kill and the recovery is kept; a journal on
disk that names a path outside what its writer allows steers nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import as_person, run_handrail
from txnkit import NEW, OLD, area, lay_old, state

from handrail import txn
from handrail.errors import HandrailError

KIT = str(Path(__file__).with_name("txnkit.py"))
STAGING = Path(".handrail") / "runtime" / "test-txn"


def killed(project: Path, spec: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HANDRAIL_TEST_KILL_AT": spec, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, KIT, str(project)], check=False, env=env, text=True,
                          capture_output=True)


def backups(project: Path) -> list[dict[str, tuple[str, bool]]]:
    base = project / ".handrail" / "backups"
    if not base.is_dir():
        return []
    return [{str(f.relative_to(d / "test")): (f.read_text(), os.access(f, os.X_OK))
             for f in (d / "test").rglob("*") if f.is_file()}
            for d in sorted(base.iterdir()) if d.is_dir() and (d / "test").is_dir()]


@pytest.mark.parametrize("call", ["replace", "replace:after", "fsync", "unlink", "rmdir", "chmod"])
def test_a_write_killed_at_any_call_recovers_to_all_old_or_all_new(tmp_path: Path, call: str) -> None:
    name, _, when = call.partition(":")
    kills = 0
    for n in range(1, 80):
        project = tmp_path / f"{name}-{when}-{n}"
        lay_old(project)
        r = killed(project, f"{name}:{n}{':' + when if when else ''}")
        if r.returncode == 0:
            break  # the write ran to its end before the Nth call
        assert r.returncode == -signal.SIGKILL, r.stderr
        kills += 1
        recovered = txn.recover(str(project), area())
        assert state(project) in (OLD, NEW), (n, state(project))
        assert not (project / STAGING).exists()
        if state(project) == NEW:
            # Finished (or only its staging left to tidy): every content it replaced is in
            # its one backup folder, mode kept.
            assert recovered is None or recovered.action in ("finished", "cleaned"), n
            assert backups(project) == [{rel: s for rel, s in OLD.items() if s is not None}], n
        else:
            assert recovered is None or recovered.action in ("cleaned", "undone"), n
            assert backups(project) in ([], [{}]), n
        assert txn.recover(str(project), area()) is None  # a second recovery has nothing left to do
    else:
        pytest.fail(f"the write never ran to its end with {call}")
    assert kills >= {"replace": 3, "fsync": 6, "unlink": 1, "rmdir": 1, "chmod": 2}[name]


@pytest.mark.parametrize("undo", [True, False])
def test_an_edit_made_between_the_kill_and_the_recovery_is_kept(tmp_path: Path, undo: bool) -> None:
    project = tmp_path / "p"
    lay_old(project)
    # Renames: the journal, a.txt, sub/b.txt, run.sh: killed with a.txt new and the rest old.
    assert killed(project, "replace:3").returncode == -signal.SIGKILL
    assert state(project)["a.txt"] == NEW["a.txt"] and state(project)["run.sh"] == OLD["run.sh"]
    (project / "run.sh").write_text("theirs\n")
    recovered = txn.recover(str(project), area(undo_foreign=undo))
    assert recovered is not None and recovered.kept == ["run.sh"]
    assert (project / "run.sh").read_text() == "theirs\n"
    if undo:  # the rest put back
        assert recovered.action == "undone" and "run.sh changed since it began" in recovered.line()
        assert state(project) == {**OLD, "run.sh": ("theirs\n", False)}
    else:     # the rest completed
        assert recovered.action == "finished" and "run.sh" in recovered.line()
        assert state(project) == {**NEW, "run.sh": ("theirs\n", False)}
    assert not (project / STAGING).exists()


def journal_naming(project: Path, path: str) -> Path:
    staging = project / STAGING
    staging.mkdir(parents=True)
    (staging / "new").mkdir()
    (staging / "new" / "0").write_text("planted\n")
    journal = {"version": txn.VERSION, "id": "x", "since": "?", "backup": None, "extra": {},
               "targets": [{"path": "a.txt", "old": None, "new": txn.digest(b"planted\n"), "mode": None},
                           {"path": path, "old": None, "new": txn.digest(b"planted\n"), "mode": None}]}
    (staging / "journal.json").write_text(json.dumps(journal))
    return staging / "journal.json"


@pytest.mark.parametrize("path", ["../outside.txt", "/tmp/outside.txt", ".git/hooks/pre-commit", "sub/../a.txt",
                                  "sub/b.txt"])
def test_a_journal_naming_a_path_it_may_not_change_is_refused_with_the_file_and_key(
        tmp_path: Path, path: str) -> None:
    project = tmp_path / "p"
    lay_old(project)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    if path == "sub/b.txt":  # allowed by name, but its folder leads out of the project
        (project / "sub").symlink_to(outside)
    journal_naming(project, path)
    with pytest.raises(HandrailError) as e:
        txn.recover(str(project), area())
    said = str(e.value)
    assert len(said.splitlines()) == 1 and e.value.reason == "invalid_journal"
    assert said.startswith(f"{STAGING}/journal.json: targets[1].path: {path!r}")
    assert (project / "a.txt").read_text() == "old a\n"  # nothing renamed, not even the allowed target
    assert list(outside.iterdir()) == [] and not (tmp_path / "outside.txt").exists()


def test_a_planted_permissions_journal_stops_the_run_with_one_line(repo: Path) -> None:
    hook = repo / ".git" / "hooks" / "pre-commit"
    staging = repo / ".handrail" / "runtime" / "permissions-txn"
    staging.mkdir(parents=True)
    (staging / "new").mkdir()
    (staging / "new" / "0").write_text("#!/bin/sh\nexit 0\n")
    (staging / "journal.json").write_text(json.dumps(
        {"version": txn.VERSION, "id": "x", "since": "?", "backup": None, "extra": {},
         "targets": [{"path": ".git/hooks/pre-commit", "old": None, "new": txn.digest(b"#!/bin/sh\nexit 0\n"),
                      "mode": 0o755}]}))
    for args in (("permissions",), ("init",), ("deinit",)):
        # deinit is a person's to run, at a terminal
        r = as_person(*args, cwd=repo) if args == ("deinit",) else run_handrail(*args, cwd=repo)
        assert r.returncode == 2, (args, r.stdout + r.stderr)
        [line] = [said for said in r.stderr.strip().splitlines() if said.strip()]
        assert ".handrail/runtime/permissions-txn/journal.json: targets[0].path: '.git/hooks/pre-commit'" in line
        assert "Traceback" not in r.stderr
        assert not hook.exists()
