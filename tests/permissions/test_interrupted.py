"""A `handrail permissions` or `handrail init` killed between two writes, and runs
started at once: the files are the old set or the new set, never a mix, once the next
run has recovered; that run removes every rule of handrail's that the protocol no
longer has, the user's rules stay, and `--check` and `doctor` call an unfinished run
out of sync until a run repairs it.

The kill is real: the `handrail` console script runs with tests/permissions/killkit
on PYTHONPATH, whose sitecustomize sends the process SIGKILL just before its Nth
rename. N counts up from 1 until a run gets past its last rename, so every point
between two writes is tried."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import HANDRAIL, git
from permkit import read_json, small, tier

KILLKIT = Path(__file__).parent / "killkit"
PROTOCOL = Path(".handrail") / "autonomy-protocol.json"
LOCAL = {(".handrail", "backups"), (".handrail", "runtime")}
ADDED = "frobnicate *"        # tier 1 in the run that is killed, gone from the protocol after it
DROPPED = "ls *"              # tier 1 before, dropped together with ADDED
# Claude's settings hold no Bash allow rules (the hook allows tier 1 and 2), so its file
# changes through `permissions.ask`: a tier-3 pattern added and dropped the same way.
ADDED_ASK = "frobnicate-all *"  # another word: Gemini's prefix rule for ADDED cannot admit it
DROPPED_ASK = "rm -rf /"
USER_CLAUDE = {"model": "opus", "permissions": {"allow": ["Bash(make docs *)"], "defaultMode": "acceptEdits"}}
USER_OPENCODE = {"model": "x/y", "permission": {"bash": {"terraform plan *": "allow"}}}
USER_GEMINI = {"theme": "dark", "tools": {"allowed": ["run_shell_command(cargo check)"]}}

Run = Callable[..., subprocess.CompletedProcess[str]]


def put_protocol(project: Path, data: dict[str, Any]) -> None:
    """Replace the protocol at once, as an editor's save would: a run reading it
    concurrently sees the old one or the new one, never half of either."""
    path = project / PROTOCOL
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(".protocol.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def with_added() -> dict[str, Any]:
    data = small()
    tier(data, "tier1_silent").append(ADDED)
    tier(data, "tier3_blocking").append(ADDED_ASK)
    return data


def without_both() -> dict[str, Any]:
    data = small()
    tier(data, "tier1_silent").remove(DROPPED)
    tier(data, "tier3_blocking").remove(DROPPED_ASK)
    return data


def user_project(root: Path) -> Path:
    """A repository where the user wrote settings of their own for three harnesses."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for rel, data in ((".claude/settings.json", USER_CLAUDE), ("opencode.json", USER_OPENCODE),
                      (".gemini/settings.json", USER_GEMINI)):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(json.dumps(data, indent=2) + "\n")
    return root


def killed_at(n: int, handrail: Run, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return handrail(*args, cwd=project, env={"PYTHONPATH": str(KILLKIT), "HANDRAIL_TEST_KILL_AT": str(n)})


def live_files(project: Path) -> dict[str, str]:
    """Every file a harness could read: not git's, not backups or runtime state, not the
    protocol, and not the temporary file a killed write leaves beside its target (a
    `.NAME.*.tmp` no harness reads)."""
    out = {}
    for p in sorted(project.rglob("*")):
        rel = p.relative_to(project)
        temporary = p.name.startswith(".") and p.name.endswith(".tmp")
        if (p.is_file() and ".git" not in rel.parts and rel.parts[:2] not in LOCAL and rel != PROTOCOL
                and not temporary):
            out[str(rel)] = p.read_text(encoding="utf-8", errors="replace")
    return out


def assert_no_rule_survives(project: Path) -> None:
    files = live_files(project)
    for path, text in files.items():
        assert "frobnicate" not in text, f"{path} still names {ADDED!r}"
    claude = read_json(project / ".claude" / "settings.json")
    opencode = read_json(project / "opencode.json")
    gemini = read_json(project / ".gemini" / "settings.json")
    assert f"Bash({DROPPED_ASK})" not in claude["permissions"]["ask"]
    assert "ls *" not in opencode["permission"]["bash"]
    assert "ls" not in gemini_prefixes(project)
    # the user's own keys and rules are all there, and no allow rule of handrail's
    assert claude["model"] == "opus" and claude["permissions"]["defaultMode"] == "acceptEdits"
    assert claude["permissions"]["allow"] == ["Bash(make docs *)"]
    assert opencode["model"] == "x/y" and opencode["permission"]["bash"]["terraform plan *"] == "allow"
    assert gemini["theme"] == "dark" and gemini["tools"]["allowed"] == ["run_shell_command(cargo check)"]
    # and handrail's current rules too
    assert "Bash(git push --force *)" in claude["permissions"]["ask"]
    assert opencode["permission"]["bash"]["git push --force *"] == "ask"


def gemini_prefixes(project: Path) -> list[str]:
    """The command prefixes handrail's Gemini policy file allows."""
    rules = tomllib.loads((project / ".gemini" / "policies" / "handrail.toml").read_text())
    return [p for r in rules.get("rule", []) if r["decision"] == "allow" for p in r["commandPrefix"]]


def check(handrail: Run, project: Path) -> tuple[int, dict[str, Any]]:
    r = handrail("permissions", "--check", "--json", cwd=project)
    assert "Traceback" not in r.stderr, r.stderr
    return r.returncode, json.loads(r.stdout.splitlines()[-1])


def files_check(handrail: Run, project: Path) -> tuple[str, list[str]]:
    """The state of doctor's `files` check, and its findings."""
    r = handrail("doctor", "--json", cwd=project)
    assert "Traceback" not in r.stderr, r.stderr
    report = json.loads(r.stdout.splitlines()[-1])
    return report["checks"]["files"], [f["finding"] for f in report["findings"] if f["check"] == "files"]


JOURNAL = Path(".handrail") / "runtime" / "permissions-txn" / "journal.json"


def unfinished(project: Path) -> bool:
    """Whether a run's write was decided (its journal written) and not finished."""
    return (project / JOURNAL).exists()


def kill_points(tmp_path: Path, handrail: Run, command: tuple[str, ...], prepare: Callable[[Path], None],
                repair: tuple[str, ...]) -> int:
    """Kill `command` before each of its renames in turn, in a project `prepare` set up
    with ADDED in the protocol; after each, drop ADDED and DROPPED and check the repair."""
    n = 0
    while True:
        n += 1
        project = user_project(tmp_path / f"kill-{n}")
        prepare(project)
        r = killed_at(n, handrail, project, *command)
        if r.returncode == 0:
            return n - 1  # a run that got past every rename: each point before one was tried
        assert r.returncode == -signal.SIGKILL, (n, r.returncode, r.stderr)

        code, out = check(handrail, project)
        assert code == 1, f"killed before rename {n}: --check says in sync"
        if unfinished(project):
            assert out.get("interrupted"), n
            state, found = files_check(handrail, project)
            assert state == "error" and any("did not finish" in f for f in found), (n, found)

        put_protocol(project, without_both())
        assert check(handrail, project)[0] == 1, f"killed before rename {n}: --check says in sync"
        r = handrail(*repair, cwd=project)
        assert r.returncode == 0, r.stderr
        assert_no_rule_survives(project)
        code, out = check(handrail, project)
        assert code == 0 and out.get("interrupted") is None, (n, out)
        assert files_check(handrail, project) == ("ok", []), n
        assert not unfinished(project)


def test_permissions_killed_at_any_write_is_repaired_by_the_next_run(tmp_path: Path, handrail: Run) -> None:
    def prepare(project: Path) -> None:
        put_protocol(project, small())
        r = handrail("permissions", cwd=project)  # handrail's rules from the protocol before
        assert r.returncode == 0, r.stderr
        put_protocol(project, with_added())

    tried = kill_points(tmp_path, handrail, ("permissions",), prepare, ("permissions",))
    # at least the journal, the three files whose rules change, and the record
    assert tried >= 5


def test_init_killed_at_any_write_is_repaired_by_the_next_run(tmp_path: Path, handrail: Run) -> None:
    tried = kill_points(tmp_path, handrail, ("init",), lambda project: put_protocol(project, with_added()),
                        ("init",))
    assert tried >= 8


def test_an_intent_an_older_version_left_in_the_record_is_still_repaired(tmp_path: Path, handrail: Run) -> None:
    """Older versions wrote the record as an intent (`writing`) before their files: a
    project killed that way still has every rule of that run counted as handrail's."""
    project = user_project(tmp_path / "repo")
    put_protocol(project, with_added())
    assert handrail("permissions", cwd=project).returncode == 0
    record = project / ".handrail" / "generated.json"
    data = read_json(record)
    data["writing"] = {"since": "2026-01-01T00:00:00Z", "pid": 1, "files": data["files"]}
    data["files"] = {}
    record.write_text(json.dumps(data, indent=2) + "\n")
    code, out = check(handrail, project)
    assert code == 1 and out["interrupted"] == "2026-01-01T00:00:00Z"
    state, found = files_check(handrail, project)
    assert state == "error" and any(f.startswith(".handrail/generated.json: ") and "did not finish" in f
                                    for f in found), found
    put_protocol(project, without_both())
    r = handrail("permissions", cwd=project)
    assert r.returncode == 0 and "this run removed every rule it may have left" in r.stdout
    assert_no_rule_survives(project)
    assert check(handrail, project)[0] == 0 and "writing" not in read_json(record)


def test_a_write_left_unfinished_is_named_in_the_text_answer(tmp_path: Path, handrail: Run) -> None:
    project = user_project(tmp_path / "repo")
    put_protocol(project, small())
    assert handrail("permissions", cwd=project).returncode == 0
    put_protocol(project, with_added())
    assert killed_at(3, handrail, project, "permissions").returncode == -signal.SIGKILL
    assert unfinished(project)
    with open(project / ".handrail" / "runtime" / "permissions.lock") as held:
        fcntl.flock(held, fcntl.LOCK_EX)   # as if that run were still going
        r = handrail("permissions", "--check", cwd=project)
        assert r.returncode == 1 and "is writing the files now" in r.stdout
    r = handrail("permissions", "--check", cwd=project)
    assert r.returncode == 1
    assert "did not finish" in r.stdout and "run `handrail permissions` to repair them" in r.stdout
    assert "differs      .handrail/generated.json" in r.stdout
    r = handrail("permissions", cwd=project)
    assert r.returncode == 0 and "completed an interrupted `handrail permissions` write" in r.stdout
    assert not unfinished(project)
    r = handrail("permissions", "--check", cwd=project)
    assert r.returncode == 0 and "did not finish" not in r.stdout


# ----------------------------------------------------------------------------- runs at once


def generations(project: Path) -> dict[str, set[str]]:
    """Which `gen-K *` patterns each shared file holds: tier 1 where Gemini allows it, tier 3
    (`gen-K-deploy *`) where Claude and OpenCode ask (neither allows a pattern with a wildcard)."""
    claude = read_json(project / ".claude" / "settings.json")["permissions"]
    assert claude["allow"] == ["Bash(make docs *)"], claude["allow"]
    opencode = read_json(project / "opencode.json")["permission"]["bash"]
    gemini = gemini_prefixes(project)
    record = json.dumps(read_json(project / ".handrail" / "generated.json"))
    return {
        "claude": {r[5:-1].replace("-deploy", "") for r in claude["ask"] if r.startswith("Bash(gen-")},
        "opencode": {k.replace("-deploy", "") for k, v in opencode.items() if k.startswith("gen-") and v == "ask"},
        "gemini": {p + " *" for p in gemini if p.startswith("gen-")},
        "record": {f"gen-{k} *" for k in range(100) if f"gen-{k} *" in record or f"gen-{k}-deploy *" in record},
    }


def test_runs_started_at_once_end_in_one_generation_that_check_agrees_with(tmp_path: Path) -> None:
    assert HANDRAIL
    project = user_project(tmp_path / "repo")
    runs = 10
    procs = []
    for k in range(runs):
        data = small()
        tier(data, "tier1_silent").append(f"gen-{k} *")
        tier(data, "tier3_blocking").append(f"gen-{k}-deploy *")
        put_protocol(project, data)
        procs.append(subprocess.Popen([HANDRAIL, "permissions"], cwd=project, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    for p in procs:
        _out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    seen = generations(project)
    assert seen["claude"] == seen["opencode"] == seen["gemini"] == seen["record"] == {f"gen-{runs - 1} *"}, seen
    r = subprocess.run([HANDRAIL, "permissions", "--check"], cwd=project, text=True, capture_output=True, check=False)
    assert r.returncode == 0, r.stdout
    assert_users_rules_survive(project)
    # and the record names what the files hold: once the protocol drops the pattern, it goes
    put_protocol(project, small())
    r = subprocess.run([HANDRAIL, "permissions"], cwd=project, text=True, capture_output=True, check=False)
    assert r.returncode == 0, r.stderr
    assert all(not found for found in generations(project).values()), generations(project)
    assert_users_rules_survive(project)


def assert_users_rules_survive(project: Path) -> None:
    claude = read_json(project / ".claude" / "settings.json")
    assert claude["model"] == "opus" and claude["permissions"]["allow"] == ["Bash(make docs *)"]
    assert read_json(project / "opencode.json")["permission"]["bash"]["terraform plan *"] == "allow"
    assert "run_shell_command(cargo check)" in read_json(project / ".gemini" / "settings.json")["tools"]["allowed"]


@pytest.mark.parametrize("command", [("permissions",), ("init",)])
def test_a_run_that_cannot_get_the_lock_says_so_in_one_line_and_writes_nothing(
        tmp_path: Path, handrail: Run, command: tuple[str, ...]) -> None:
    project = user_project(tmp_path / "repo")
    put_protocol(project, small())
    lock = project / ".handrail" / "runtime" / "permissions.lock"
    lock.parent.mkdir(parents=True)
    before = live_files(project)
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        held.write(f"{os.getpid()}\n")
        held.flush()
        r = handrail(*command, cwd=project, env={"HANDRAIL_LOCK_WAIT": "0.2"})
        assert r.returncode == 2
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in r.stderr
        assert ".handrail/runtime/permissions.lock" in lines[0] and f"pid {os.getpid()}" in lines[0]
        assert f"`handrail {command[0]}` wrote nothing" in lines[0]
        assert live_files(project) == before
    r = handrail(*command, cwd=project)  # released: the same run goes through
    assert r.returncode == 0, r.stderr
    assert handrail("permissions", "--check", cwd=project).returncode == 0


def test_a_bad_lock_wait_is_named(tmp_path: Path, handrail: Run) -> None:
    project = user_project(tmp_path / "repo")
    put_protocol(project, small())
    r = handrail("permissions", cwd=project, env={"HANDRAIL_LOCK_WAIT": "soon"})
    assert r.returncode == 2 and "HANDRAIL_LOCK_WAIT=soon: expected a number of seconds" in r.stderr


def test_doctor_fix_repairs_what_an_unfinished_run_left(tmp_path: Path, handrail: Run) -> None:
    project = user_project(tmp_path / "repo")
    put_protocol(project, small())
    assert handrail("permissions", cwd=project).returncode == 0
    put_protocol(project, with_added())
    assert killed_at(3, handrail, project, "permissions").returncode == -signal.SIGKILL
    put_protocol(project, without_both())
    r = handrail("doctor", "--fix", "--json", cwd=project)
    report = json.loads(r.stdout.splitlines()[-1])
    assert any(line.startswith("regenerated") for line in report["fixed"]), report["fixed"]
    assert report["checks"]["files"] == "ok"
    assert_no_rule_survives(project)


def test_a_first_run_killed_at_any_rename_is_all_old_or_all_new_and_the_rerun_keeps_a_backup(
        tmp_path: Path, handrail: Run) -> None:
    """Into the user's own settings, no earlier run: after each kill, recovery leaves the
    user's files as they were or the whole new set in sync; the rerun ends in sync, and
    the backup holds each file of the user's byte for byte."""
    from handrail import permissions

    n = 0
    while True:
        n += 1
        project = user_project(tmp_path / f"first-{n}")
        put_protocol(project, small())
        theirs = {rel: (project / rel).read_bytes() for rel in USERS}
        before = live_files(project)
        r = killed_at(n, handrail, project, "permissions")
        if r.returncode == 0:
            break
        assert r.returncode == -signal.SIGKILL, (n, r.stderr)
        permissions.recover(str(project))  # what the next writing run does first
        if live_files(project) != before:
            assert check(handrail, project)[0] == 0, f"killed before rename {n}: neither all old nor all new"
        r = handrail("permissions", cwd=project)
        assert r.returncode == 0, r.stderr
        assert check(handrail, project)[0] == 0
        [folder] = [d for d in (project / ".handrail" / "backups").iterdir() if d.is_dir()]
        assert {rel: (folder / "permissions" / rel).read_bytes() for rel in USERS} == theirs, n
    assert n > 4


USERS = (".claude/settings.json", "opencode.json", ".gemini/settings.json")
