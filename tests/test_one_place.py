"""Backups, atomic writes and locks are each decided in one module: what a user sees
(two runs in one second keep two backups; a held lock refuses the second run), and
a scan of the package that fails when a second copy of the decision creeps back."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from helpers import git, run_handrail

import handrail
from handrail import backups, filelock

PACKAGE = Path(handrail.__file__).parent
NOW = "2026-03-01T12:00:00Z"
STAMP = "20260301T120000Z"
ENVELOPE = Path("agents") / "claude" / "autonomy-envelope.md"


def modules() -> list[tuple[str, ast.Module]]:
    return [(str(p.relative_to(PACKAGE)), ast.parse(p.read_text(encoding="utf-8")))
            for p in sorted(PACKAGE.rglob("*.py"))]


def calls(tree: ast.Module) -> list[str]:
    """Every call in `tree` as a dotted name (`os.replace`, `fcntl.flock`)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            parts = []
            f = node.func
            while isinstance(f, ast.Attribute):
                parts.append(f.attr)
                f = f.value
            if isinstance(f, ast.Name):
                parts.append(f.id)
            out.append(".".join(reversed(parts)))
    return out


def strings(tree: ast.Module) -> list[str]:
    """The string constants of `tree`, docstrings left out."""
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


# --------------------------------------------------------------------------- backups


def test_two_envelope_changes_in_one_second_keep_both_backups(repo: Path) -> None:
    env = {"HANDRAIL_NOW": NOW}
    assert run_handrail("autonomy", "init", "claude", cwd=repo, env=env).returncode == 0
    for task_type in ("code-inline", "release-notes", "docs"):
        r = run_handrail("autonomy", "set", "claude", task_type, "needsFullSupervision", cwd=repo, env=env)
        assert r.returncode == 0, r.stderr
    base = repo / ".handrail" / "backups"
    folders = sorted(p.name for p in base.iterdir() if p.is_dir())
    assert folders == [STAMP, f"{STAMP}-2", f"{STAMP}-3"]
    kept = [(base / f / ENVELOPE).read_text() for f in folders]
    # Each folder holds the envelope as the change before it left it: none was overwritten.
    assert "| code-inline" not in kept[0]
    assert "| code-inline" in kept[1] and "| release-notes" not in kept[1]
    assert "| release-notes" in kept[2] and "| docs" not in kept[2]
    assert (base / ".gitignore").read_text().splitlines()[-1] == "*"
    assert "backups" not in git(repo, "status", "--porcelain", "--untracked-files=all").stdout


def test_a_claimed_folder_is_never_handed_out_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HANDRAIL_NOW", NOW)
    (tmp_path / ".handrail" / "backups").mkdir(parents=True)
    (tmp_path / ".handrail" / "backups" / ".gitignore").write_text("")  # left empty by a kill
    got = [backups.claim_backup_dir(str(tmp_path)) for _ in range(3)]
    assert [os.path.basename(g) for g in got] == [STAMP, f"{STAMP}-2", f"{STAMP}-3"]
    assert all(backups.is_name(os.path.basename(g)) for g in got)
    assert (tmp_path / ".handrail" / "backups" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_run_that_replaces_nothing_claims_no_folder(tmp_path: Path) -> None:
    from handrail.fsio import atomic_write

    run = backups.Backup(str(tmp_path))
    target = tmp_path / "settings.json"
    atomic_write(str(target), "{}\n", backup_dir=run.under("init"))  # created: nothing to keep
    atomic_write(str(target), "{}\n", backup_dir=run.under("init"))  # unchanged
    assert run.shown() is None and not (tmp_path / ".handrail").exists()
    atomic_write(str(target), "{\"a\": 1}\n", backup_dir=run.under("init"))
    atomic_write(str(tmp_path / "other.json"), "1\n", backup_dir=run.under("init"))
    (tmp_path / "other.json").write_text("0\n")
    atomic_write(str(tmp_path / "other.json"), "2\n", backup_dir=run.under("init"))
    folder = tmp_path / str(run.shown())
    assert sorted(p.name for p in (folder / "init").iterdir()) == ["other.json", "settings.json"]
    assert len([p for p in (tmp_path / ".handrail" / "backups").iterdir() if p.is_dir()]) == 1


def test_only_backups_names_the_backup_folder() -> None:
    """Every writer asks handrail/backups.py for its folder; none builds one itself."""
    def builds_one(name: str, s: str) -> bool:
        if s == "backups" or s.strip("/") == ".handrail/backups":  # a path, not a message naming it
            return True
        return "%Y%m%dT%H%M%S" in s and name != "loop/state.py"  # a stamp (the loop's run ids are no backups)

    found = [(name, s) for name, tree in modules() if name != "backups.py" for s in strings(tree)
             if builds_one(name, s)]
    assert found == []


# --------------------------------------------------------------------------- atomic writes and moves


def test_only_fsio_renames_files() -> None:
    """An atomic write, a multi-file write's rename and a move all go through fsio."""
    renames = {"os.replace", "os.rename", "shutil.move", "os.renames"}
    found = [(name, c) for name, tree in modules() if name != "fsio.py" for c in calls(tree) if c in renames]
    assert found == []


def test_a_move_never_replaces_a_file(tmp_path: Path) -> None:
    from handrail.fsio import move

    (tmp_path / "a").write_text("a")
    (tmp_path / "b").write_text("b")
    with pytest.raises(FileExistsError):
        move(str(tmp_path / "a"), str(tmp_path / "b"))
    assert (tmp_path / "b").read_text() == "b" and (tmp_path / "a").read_text() == "a"
    move(str(tmp_path / "a"), str(tmp_path / "c"))
    assert (tmp_path / "c").read_text() == "a" and not (tmp_path / "a").exists()


# --------------------------------------------------------------------------- multi-file writes


def test_only_txn_writes_several_files_all_or_nothing() -> None:
    """One multi-file journal: only handrail/txn.py renames a staged file onto its target
    (`fsio.replace_with`) or makes renames durable (`fsio.sync_dir`), and only it names a
    journal file or a staging folder; each writer (memory, permissions, deinit) is an area of it."""
    durable = {"replace_with", "sync_dir"}
    found = [(name, c) for name, tree in modules() if name not in ("txn.py", "fsio.py") for c in calls(tree)
             if c.split(".")[-1] in durable]
    named = [(name, s) for name, tree in modules() if name != "txn.py" for s in strings(tree)
             if ("journal" in s.lower() and s.endswith(".json")) or s.endswith("-txn") or s.endswith("-txn/")]
    assert found == [] and named == []


# --------------------------------------------------------------------------- locks


def test_only_filelock_calls_flock() -> None:
    found = [(name, c) for name, tree in modules() if name != "filelock.py" for c in calls(tree)
             if c.endswith("flock") and c.startswith("fcntl")]
    imports = [name for name, tree in modules() if name != "filelock.py" for n in ast.walk(tree)
               if isinstance(n, ast.Import) and any(a.name == "fcntl" for a in n.names)]
    assert found == [] and imports == []


def test_a_held_lock_refuses_a_second_holder_and_names_the_first(tmp_path: Path) -> None:
    path = str(tmp_path / "x.lock")
    with filelock.held(path) as first:
        assert first.had and filelock.busy(path)
        with filelock.held(path, wait=0.05) as second:
            assert not second.had and second.holder == str(os.getpid())
    assert not filelock.busy(path)
    with filelock.held(path) as again:
        assert again.had


def test_permissions_is_refused_while_another_run_holds_the_setup_lock(repo: Path) -> None:
    from handrail import setuplock

    assert run_handrail("init", "--tools", "claude", cwd=repo).returncode == 0
    with setuplock.held(str(repo), "test"):
        assert setuplock.busy(str(repo))
        r = run_handrail("permissions", cwd=repo, env={"HANDRAIL_LOCK_WAIT": "0"})
        assert r.returncode != 0 and f"(pid {os.getpid()})" in r.stderr + r.stdout
    assert not setuplock.busy(str(repo))
