"""`handrail audit` over OpenCode and Gemini CLI sessions the real clients wrote: what it names
in an unguarded project, what a guarded one's hooks refused at the time, and nothing for a
harmless session."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from clientruns import fixture, gemini_home, laid
from helpers import run_handrail
from kit import scene

HARNESSES = ("opencode", "gemini")


def audit(root: Path, home: Path, *args: str) -> tuple[int, dict[str, Any]]:
    r = run_handrail("audit", "--json", *args, cwd=root, env={"HOME": str(home)})
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout.strip().splitlines()[-1])


def named(finding: dict[str, Any], root: Path) -> str:
    return finding["command"] or ", ".join(p.replace(str(root) + "/", "") for p in finding["paths"]) or "(the project)"


@pytest.mark.parametrize("harness", HARNESSES)
def test_an_unguarded_session_names_the_push_the_secret_and_the_write_outside_scope(
        tmp_path: Path, harness: str) -> None:
    root, home = scene(tmp_path)
    laid(harness, "plain", root, home)
    code, report = audit(root, home)
    assert code == 1 and report["result"] == "findings"
    (session,) = report["sessions"]
    assert session["harness"] == harness and session["hook_denials"] == 0
    found = {named(f, root): f["verdict"] for f in session["findings"]}
    assert found["git push --force origin main"] == "ask"
    assert found[".env"] == "refuse"
    assert found["docs/notes.md"] == "refuse"
    assert "src/app.py" not in found  # the harmless read of the session is no finding
    assert json.loads((root / ".handrail" / "runtime" / "audit.json").read_text()) == report


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_guarded_session_shows_what_the_hooks_refused_at_the_time(tmp_path: Path, harness: str) -> None:
    root, home = scene(tmp_path)
    laid(harness, "guarded", root, home)
    _code, report = audit(root, home, "--harness", harness)
    (session,) = report["sessions"]
    denied = {named(d, root): d["reason"] for d in session["denied"] if d["outcome"] == "hook_denied"}
    assert session["hook_denials"] == len(denied) >= 3
    assert denied["git push --force origin main"].startswith("handrail: refused, needs a human")
    assert "not in allowed_files" in denied["docs/notes.md"]
    assert "git push --force origin main" not in {named(f, root) for f in session["findings"]}
    assert "refused by a hook at the time" in session["summary"]


def harmless(harness: str, root: Path, home: Path) -> None:
    """The unguarded session with every call but the read of src/app.py taken out."""
    if harness == "opencode":
        db = home / ".local" / "share" / "opencode" / "opencode.db"
        laid(harness, "plain", root, home)
        con = sqlite3.connect(db)
        with con:
            con.execute("""DELETE FROM part WHERE data LIKE '%"type": "tool"%' AND data NOT LIKE '%src/app.py%'""")
        con.close()
        return
    records = [json.loads(x) for x in fixture(harness, "plain").read_text().splitlines()]
    for r in records:
        if "toolCalls" in r:
            r["toolCalls"] = [c for c in r["toolCalls"] if str(c["args"].get("file_path", "")).endswith("src/app.py")]
    gemini_home("\n".join(json.dumps(r) for r in records) + "\n", root, home)


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_harmless_session_is_clean(tmp_path: Path, harness: str) -> None:
    root, home = scene(tmp_path)
    harmless(harness, root, home)
    code, report = audit(root, home)
    assert code == 0 and report["result"] == "clean"
    (session,) = report["sessions"]
    assert session["calls"] == 1 and session["findings"] == [] and session["malformed"] == 0


def test_a_session_of_another_project_in_the_same_home_is_left_out(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    laid("opencode", "plain", other, home)
    laid("gemini", "plain", other, home)
    code, report = audit(root, home)
    assert code == 0 and report["sessions"] == []


def test_a_copy_named_on_the_command_line_is_read_as_its_harnesss(tmp_path: Path) -> None:
    root, home = scene(tmp_path)
    laid("opencode", "plain", root, home)
    laid("gemini", "plain", root, home)
    copies = {"opencode": tmp_path / "kept.db", "gemini": tmp_path / "kept.jsonl"}
    copies["opencode"].write_bytes((home / ".local" / "share" / "opencode" / "opencode.db").read_bytes())
    copies["gemini"].write_bytes(next((home / ".gemini" / "tmp" / "project" / "chats").glob("*")).read_bytes())
    for harness, copy in copies.items():
        code, report = audit(root, tmp_path / "nobody", str(copy))
        (session,) = report["sessions"]
        assert code == 1 and session["harness"] == harness and session["file"] == str(copy)
