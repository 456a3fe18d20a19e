"""`handrail autonomy`: every exit code with real files, staleness with a pinned clock,
corrupted files left intact, concurrent writers, promotion only by a person at a
terminal, and each state's effect on `can-edit`."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import HANDRAIL, in_terminal, run_handrail

from handrail.records import task_states

WriteEnvelope = Callable[..., Path]  # the `write_envelope` fixture of this folder's conftest
FILE = Path("agents") / "claude" / "autonomy-envelope.md"


def _ok(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    r = run_handrail(*args, cwd=cwd, env=env)
    assert r.returncode == 0, r.stderr
    return r


def _get(project: Path, agent: str = "claude") -> dict:
    return json.loads(_ok("autonomy", "get", agent, "--format", "json", cwd=project).stdout)


def _events(project: Path, event_type: str) -> list[dict]:
    r = _ok("events", "--json", "--type", event_type, cwd=project)
    return [json.loads(line) for line in r.stdout.splitlines()]


# ----------------------------------------------------------------------------- init, get, set, list


def test_init_set_get_round_trip(repo: Path) -> None:
    r = _ok("autonomy", "init", "claude", "--owner", "alice", cwd=repo)
    assert str(FILE) in r.stdout
    assert _get(repo)["taskTypes"] == []
    _ok("autonomy", "set", "claude", "code-inline", "needsfullsupervision", "--note", "new here", cwd=repo)
    _ok("autonomy", "set", "claude", "release-notes", "needsFullSupervision", "--label", "Release notes", cwd=repo)
    got = _get(repo)
    assert got["owner"] == "alice" and got["envelope"] == str(FILE)
    assert got["states"] == {"code-inline": "needsFullSupervision", "release-notes": "needsFullSupervision"}
    first = got["taskTypes"][0]
    assert (first["label"], first["operatorNote"], first["enforced"]) == ("File edits", "new here", True)
    assert got["taskTypes"][1]["enforced"] is False  # other ids: for the agent's own judgement
    one = json.loads(_ok("autonomy", "get", "claude", "code-inline", "--format", "json", cwd=repo).stdout)
    assert one["taskType"]["state"] == "needsFullSupervision"
    table = _ok("autonomy", "get", "claude", cwd=repo).stdout
    assert "code-inline" in table and "release-notes" in table and "new here" in table

    text = (repo / FILE).read_text()
    assert text.startswith("---\nagent: claude\n")
    assert "## Current state" in text and "| code-inline (File edits) | needsFullSupervision |" in text
    history = text.split("## History", 1)[1]
    # newest first, one entry per change
    assert history.index("release-notes set to needsFullSupervision") < history.index(
        "code-inline set to needsFullSupervision")
    assert "new here" in history

    (event, _) = _events(repo, "autonomy_set")
    assert event["agent"] == "claude"
    assert (event["payload"]["old_state"], event["payload"]["new_state"]) == (None, "needsFullSupervision")


def test_demotion_never_asks_and_keeps_history(repo: Path, write_envelope: WriteEnvelope) -> None:
    write_envelope(repo, "claude", {"code-inline": "fullyApproved"})
    # No terminal and an agent's environment: demotion still goes through.
    r = run_handrail("autonomy", "set", "claude", "code-inline", "checkBeforeCommitting", "--note", "one slip",
                     cwd=repo, env={"CLAUDECODE": "1"})
    assert r.returncode == 0, r.stderr
    assert "demoted to checkBeforeCommitting (was fullyApproved)" in r.stdout
    text = (repo / FILE).read_text()
    assert "code-inline demoted to checkBeforeCommitting" in text
    assert "hand-written history" in text.split("## History", 1)[1]  # kept as written
    (event,) = _events(repo, "autonomy_set")
    assert (event["payload"]["old_state"], event["payload"]["new_state"], event["payload"]["change"]) == \
        ("fullyApproved", "checkBeforeCommitting", "demoted")
    backups = list((repo / ".handrail" / "backups").rglob("autonomy-envelope.md"))
    assert len(backups) == 1 and "fullyApproved" in backups[0].read_text()


@pytest.mark.parametrize(("args", "code"), [
    (["autonomy"], 1),
    (["autonomy", "frobnicate"], 1),
    (["autonomy", "init"], 1),
    (["autonomy", "init", "../escape"], 1),
    (["autonomy", "get", "claude", "--format", "xml"], 1),
    (["autonomy", "set", "claude", "code-inline"], 1),
    (["autonomy", "set", "claude", "bad id!", "fullyApproved"], 1),
    (["autonomy", "set", "claude", "code-inline", "mostlyApproved"], 2),  # invalid state
    (["autonomy", "get", "nobody"], 2),  # unknown agent
    (["autonomy", "set", "nobody", "code-inline", "needsFullSupervision"], 2),
    (["autonomy", "list", "nobody"], 2),
    (["autonomy", "get", "claude", "deploys"], 2),  # unknown task type
    (["autonomy", "init", "claude"], 2),  # exists: left untouched
    (["autonomy", "get", "claude"], 0),
    (["autonomy", "list"], 0),
])
def test_exit_codes(repo: Path, write_envelope: WriteEnvelope, args: list[str], code: int) -> None:
    path = write_envelope(repo, "claude", {"code-inline": "checkBeforeCommitting"})
    before = path.read_bytes()
    r = run_handrail(*args, cwd=repo)
    assert r.returncode == code, (r.stdout, r.stderr)
    if code:
        assert r.stderr.strip()
        assert "Traceback" not in r.stderr
    assert path.read_bytes() == before
    assert not (repo / "agents" / "nobody").exists()


CORRUPTIONS = {
    "yaml": ("---\nagent: claude\ntaskTypes: [unclosed\n---\nbody\n", "line 3"),
    "no front matter": ("# just markdown\n", "front matter"),
    "unclosed front matter": ("---\nagent: claude\n", "not closed"),
    "bad state": ("---\nagent: claude\nupdated: 2026-01-01\ntaskTypes:\n  - id: code-inline\n"
                  "    state: fullyAproved\n---\n", "taskTypes[0].state"),
    "unknown key": ("---\nagent: claude\nupdated: 2026-01-01\ntaskTypes:\n  - id: code-inline\n"
                    "    stat: fullyApproved\n    state: fullyApproved\n---\n", "taskTypes[0].stat"),
    "wrong agent": ("---\nagent: codex\nupdated: 2026-01-01\ntaskTypes: []\n---\n", "agent"),
    "duplicate id": ("---\nagent: claude\nupdated: 2026-01-01\ntaskTypes:\n  - {id: shell, state: fullyApproved}\n"
                     "  - {id: shell, state: needsFullSupervision}\n---\n", "taskTypes[1].id"),
    "not utf-8": ("---\nagent: claude\nowner: \udcff\n---\n", "UTF-8"),
}


@pytest.mark.parametrize("kind", list(CORRUPTIONS))
def test_corrupted_envelope_is_reported_with_its_key_and_left_intact(repo: Path, kind: str) -> None:
    text, key = CORRUPTIONS[kind]
    path = repo / FILE
    path.parent.mkdir(parents=True)
    raw = text.encode("utf-8", "surrogateescape")
    path.write_bytes(raw)
    for args in (["set", "claude", "code-inline", "needsFullSupervision"], ["get", "claude"], ["list"],
                 ["init", "claude"]):
        r = run_handrail("autonomy", *args, cwd=repo)
        expected = 2 if args[0] == "init" else 3  # init refuses an existing file, whatever it holds
        assert r.returncode == expected, (args, r.stderr)
        if expected == 3:
            assert str(FILE) in r.stderr and key in r.stderr, r.stderr
            assert len(r.stderr.strip().splitlines()) == 1
    assert path.read_bytes() == raw
    assert not (repo / ".handrail" / "backups").exists()
    # can-edit for that agent fails closed rather than guess
    task_states.new_task(str(repo), "t1", phase="implement")
    r = run_handrail("can-edit", "--file", "src/a.py", "--agent", "claude", "--json", cwd=repo)
    assert r.returncode == 2 and json.loads(r.stdout.splitlines()[-1])["allowed"] is False


def test_list_reports_a_broken_envelope_and_still_lists_the_others(repo: Path, write_envelope: WriteEnvelope) -> None:
    write_envelope(repo, "codex", {"shell": "fullyApproved"})
    broken = repo / FILE
    broken.parent.mkdir(parents=True)
    broken.write_text("---\nagent: [\n---\n")
    r = run_handrail("autonomy", "list", "--json", cwd=repo)
    assert r.returncode == 3
    out = json.loads(r.stdout)
    assert [e["agent"] for e in out["envelopes"]] == ["codex"]
    assert len(out["errors"]) == 1 and str(FILE) in out["errors"][0]


# ----------------------------------------------------------------------------- staleness


def test_staleness_after_30_days_with_a_pinned_clock(repo: Path) -> None:
    _ok("autonomy", "init", "claude", cwd=repo, env={"HANDRAIL_NOW": "2026-01-01T00:00:00Z"})

    def listed(now: str) -> tuple[dict, str]:
        env = {"HANDRAIL_NOW": now}
        data = json.loads(_ok("autonomy", "list", "--json", cwd=repo, env=env).stdout)["envelopes"][0]
        return data, _ok("autonomy", "list", cwd=repo, env=env).stdout

    data, table = listed("2026-01-31T00:00:00Z")  # exactly 30 days: not yet
    assert data["stale"] is False and "warning" not in table
    data, table = listed("2026-01-31T00:00:01Z")
    assert data["stale"] is True and data["daysSinceUpdate"] == 30
    assert "warning:" in table and str(FILE) in table and "untouched for 30 days" in table
    assert _ok("autonomy", "get", "claude", cwd=repo, env={"HANDRAIL_NOW": "2026-03-01T00:00:00Z"}).stdout.count(
        "warning:") == 1
    # any set touches it
    _ok("autonomy", "set", "claude", "shell", "needsFullSupervision", cwd=repo,
        env={"HANDRAIL_NOW": "2026-03-01T00:00:00Z"})
    data, table = listed("2026-03-02T00:00:00Z")
    assert data["stale"] is False and data["updated"] == "2026-03-01T00:00:00Z"


# ----------------------------------------------------------------------------- concurrency


def test_concurrent_sets_all_land(repo: Path) -> None:
    _ok("autonomy", "init", "claude", cwd=repo)
    types = [f"type-{k}" for k in range(6)]
    procs = [subprocess.Popen([HANDRAIL, "autonomy", "set", "claude", t, "needsFullSupervision", "--note", f"n-{t}"],
                              cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              stdin=subprocess.DEVNULL)
             for t in types]
    for p in procs:
        _, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
    got = _get(repo)
    assert sorted(got["states"]) == types
    history = (repo / FILE).read_text().split("## History", 1)[1]
    assert sorted(t for t in types if f"; {t} set to needsFullSupervision" in history) == types
    assert len(_events(repo, "autonomy_set")) == 6


# ----------------------------------------------------------------------------- promotion


def test_promotion_is_refused_without_a_terminal(repo: Path, write_envelope: WriteEnvelope) -> None:
    path = write_envelope(repo, "claude", {"code-inline": "needsFullSupervision"})
    before = path.read_bytes()
    for new in ("checkBeforeCommitting", "fullyApproved"):
        r = run_handrail("autonomy", "set", "claude", "code-inline", new, cwd=repo, input="y\n")
        assert r.returncode == 2
        assert "no interactive terminal" in r.stderr and "refused to promote" in r.stderr
    # a new task type added with any autonomy is a promotion too
    r = run_handrail("autonomy", "set", "claude", "shell", "fullyApproved", cwd=repo, input="y\n")
    assert r.returncode == 2
    assert path.read_bytes() == before
    assert _events(repo, "autonomy_set") == []


def _in_pty(args: list[str], cwd: Path, answer: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    return in_terminal(cwd, *args, env=env, answer=answer)


def test_promotion_through_a_real_terminal(repo: Path, write_envelope: WriteEnvelope) -> None:
    write_envelope(repo, "claude", {"code-inline": "needsFullSupervision"})
    args = ["autonomy", "set", "claude", "code-inline", "fullyApproved", "--note", "earned it"]
    code, out = _in_pty(args, repo, "n\n")
    assert code == 1 and "declined" in out
    assert _get(repo)["states"]["code-inline"] == "needsFullSupervision"

    code, out = _in_pty(args, repo, "y\n")
    assert code == 0, out
    assert "[y/N]" in out and "promoted to fullyApproved" in out
    assert _get(repo)["states"]["code-inline"] == "fullyApproved"
    assert "code-inline promoted to fullyApproved" in (repo / FILE).read_text()
    (event,) = _events(repo, "autonomy_set")
    assert event["payload"]["change"] == "promoted"


def test_promotion_is_refused_in_an_agents_environment_even_at_a_terminal(
        repo: Path, write_envelope: WriteEnvelope) -> None:
    path = write_envelope(repo, "claude", {"code-inline": "needsFullSupervision"})
    before = path.read_bytes()
    for marker in ({"CLAUDECODE": "1"}, {"HANDRAIL_AGENT": "claude"}):
        code, out = _in_pty(["autonomy", "set", "claude", "code-inline", "fullyApproved"], repo, "y\n", env=marker)
        assert code == 2 and "the environment shows an agent" in out, out
    assert path.read_bytes() == before


# ----------------------------------------------------------------------------- effect on can-edit


@pytest.mark.parametrize(("states", "allowed"), [
    (None, True),  # no envelope
    ({}, True),  # an envelope that says nothing about code-inline
    ({"git-commit-push": "needsFullSupervision", "shell": "needsFullSupervision"}, True),
    ({"code-inline": "fullyApproved"}, True),
    ({"code-inline": "checkBeforeCommitting"}, True),  # draft freely
    ({"code-inline": "needsFullSupervision"}, False),
])
def test_each_state_on_can_edit(project: Path, write_envelope: WriteEnvelope, states: dict[str, str] | None,
                                allowed: bool) -> None:
    if states is not None:
        write_envelope(project, "claude", states)
    for how in (["--agent", "claude"], []):
        env = {} if how else {"HANDRAIL_AGENT": "claude"}
        r = run_handrail("can-edit", "--file", "src/app.py", "--json", *how, cwd=project, env=env)
        answer = json.loads(r.stdout.splitlines()[-1])
        assert (r.returncode == 0) is allowed and answer["allowed"] is allowed, r.stdout
        if not allowed:
            assert answer["reason"] == "envelope_supervision"
            assert answer["envelope"] == str(FILE) and answer["file"] == "src/app.py"
            text = run_handrail("can-edit", "--file", "src/app.py", *how, cwd=project, env=env).stdout
            assert text.startswith("denied:") and str(FILE) in text
    # another agent, or none, is not bound by claude's envelope
    assert run_handrail("can-edit", "--file", "src/app.py", "--agent", "codex", cwd=project).returncode == 0
    assert run_handrail("can-edit", "--file", "src/app.py", cwd=project).returncode == 0


def test_supervision_refusal_is_recorded(project: Path, write_envelope: WriteEnvelope) -> None:
    write_envelope(project, "claude", {"code-inline": "needsFullSupervision"})
    assert run_handrail("can-edit", "--file", "src/app.py", "--agent", "claude", cwd=project).returncode == 1
    (event,) = _events(project, "edit_refused")
    assert event["topic"] == "envelope_supervision" and event["agent"] == "claude"
    assert event["payload"]["envelope"] == str(FILE)


def test_an_envelope_never_loosens_a_refusal(project: Path, write_envelope: WriteEnvelope) -> None:
    write_envelope(project, "claude", {"code-inline": "fullyApproved"})
    r = run_handrail("can-edit", "--file", ".env", "--agent", "claude", "--json", cwd=project)
    assert r.returncode == 1 and json.loads(r.stdout)["reason"] == "forbidden_file"


def test_an_agent_cannot_edit_its_envelope(project: Path, write_envelope: WriteEnvelope) -> None:
    write_envelope(project, "claude", {"code-inline": "fullyApproved"})
    r = run_handrail("can-edit", "--file", str(FILE), "--agent", "claude", "--json", cwd=project)
    assert r.returncode == 1 and json.loads(r.stdout)["reason"] == "protected_path"


def test_can_edit_sees_a_set_at_once(project: Path) -> None:
    _ok("autonomy", "init", "claude", cwd=project)
    assert run_handrail("can-edit", "--file", "src/a.py", "--agent", "claude", cwd=project).returncode == 0
    _ok("autonomy", "set", "claude", "code-inline", "needsFullSupervision", cwd=project)
    assert run_handrail("can-edit", "--file", "src/a.py", "--agent", "claude", cwd=project).returncode == 1


def test_root_option_keeps_envelopes_elsewhere(repo: Path, tmp_path: Path) -> None:
    shared = tmp_path / "operator"
    _ok("autonomy", "init", "claude", "--root", str(shared), cwd=repo)
    _ok("autonomy", "set", "claude", "shell", "needsFullSupervision", "--root", str(shared), cwd=repo)
    assert (shared / FILE).is_file() and not (repo / "agents").exists()
    got = json.loads(_ok("autonomy", "get", "claude", "--root", str(shared), "--format", "json", cwd=repo).stdout)
    assert got["states"] == {"shell": "needsFullSupervision"}
    assert len(_events(repo, "autonomy_set")) == 1  # the project's log still records it
