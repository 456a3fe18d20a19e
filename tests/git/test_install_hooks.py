"""`handrail install-hooks` / `uninstall-hooks`: where hooks go, what they keep, how they start."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from gitkit import Project, refused
from helpers import as_person

from handrail.install_hooks import MARKER, SAVED, SHARED

IDE_PATH = "/usr/bin:/bin"  # git is there; handrail is not


def plain(repo: Path) -> Project:
    p = Project(repo)
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text(".handrail/\n")
    return p


def foreign_hook(path: Path, log: Path, refuse_when: Path) -> str:
    text = (f"#!/bin/sh\necho \"$(basename \"$0\") $*\" >> '{log}'\ncat >> '{log}'\n"
            f"[ -e '{refuse_when}' ] && {{ echo 'foreign hook says no' >&2; exit 3; }}\nexit 0\n")
    path.write_text(text)
    path.chmod(0o755)
    return text


def test_install_writes_both_hooks_into_the_common_dir(repo: Path, handrail, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    p = plain(repo)
    p.write("a.txt")
    p.git("add", "a.txt")
    p.git("commit", "-q", "-m", "first")
    tree = tmp_path / "wt"
    p.git("worktree", "add", "-q", "-b", "wt", str(tree))
    r = handrail("install-hooks", cwd=tree)
    assert r.returncode == 0, r.stderr
    for name in ("pre-commit", "prepare-commit-msg", "pre-push", "pre-applypatch", "applypatch-msg"):
        hook = repo / ".git" / "hooks" / name
        assert MARKER in hook.read_text()
        assert hook.stat().st_mode & stat.S_IXUSR
    assert f"hooks folder: {repo / '.git' / 'hooks'}" in r.stdout
    again = handrail("install-hooks", cwd=repo)
    assert "pre-commit: unchanged" in again.stdout
    other = Project(tree)
    other.write(".env")
    refused(other.commit(".env", force_add=True), "no task exists", ".env is forbidden")


def test_core_hooks_path_is_respected(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    p = plain(repo)
    p.git("config", "core.hooksPath", ".githooks")
    assert handrail("install-hooks", cwd=repo).returncode == 0
    assert MARKER in (repo / ".githooks" / "pre-commit").read_text()
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    p.write("a.txt")
    refused(p.commit("a.txt"), "no task exists")


def test_a_foreign_hook_is_saved_run_first_and_restored(repo: Path, handrail, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    p = plain(repo)
    hooks = repo / ".git" / "hooks"
    log, block = tmp_path / "foreign.log", tmp_path / "block"
    original = foreign_hook(hooks / "pre-commit", log, block)
    foreign_hook(hooks / "pre-push", log, block)
    r = handrail("install-hooks", cwd=repo)
    assert "pre-commit: installed (the hook that was there runs first)" in r.stdout
    assert (hooks / f"pre-commit{SAVED}").read_text() == original
    p.task("t")
    p.write("a.txt")
    assert p.commit("a.txt").returncode == 0
    assert "pre-commit" in log.read_text()
    block.touch()
    r = p.commit(message="blocked", args=("--allow-empty",))
    assert r.returncode != 0 and "foreign hook says no" in r.stderr and "handrail" not in r.stderr
    block.unlink()
    # pre-push: both the saved hook and handrail read git's ref lines.
    bare = tmp_path / "remote.git"
    p.git("init", "-q", "--bare", str(bare))
    p.write(".env")
    assert p.commit(".env", force_add=True, args=("--no-verify",)).returncode == 0
    r = p.git("push", "-q", str(bare), "main", check=False)
    refused(r, ".env is forbidden", action="push")
    assert re.search(r"refs/heads/main [0-9a-f]{40} refs/heads/main 0{40}", log.read_text())
    u = as_person("uninstall-hooks", cwd=repo)
    assert "pre-commit: restored" in u.stdout
    assert (hooks / "pre-commit").read_text() == original
    assert not (hooks / f"pre-commit{SAVED}").exists()


def test_force_when_a_saved_hook_is_already_in_the_way(repo: Path, handrail, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    plain(repo)
    hooks = repo / ".git" / "hooks"
    foreign_hook(hooks / "pre-commit", tmp_path / "log", tmp_path / "never")
    assert handrail("install-hooks", cwd=repo).returncode == 0
    newer = foreign_hook(hooks / "pre-commit", tmp_path / "log2", tmp_path / "never")  # someone replaced ours
    r = handrail("install-hooks", cwd=repo)
    assert r.returncode == 2 and "--force" in r.stderr
    assert (hooks / "pre-commit").read_text() == newer  # nothing changed
    r = handrail("install-hooks", "--force", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert (hooks / f"pre-commit{SAVED}").read_text() == newer
    kept = list((repo / ".handrail" / "backups").rglob(f"pre-commit{SAVED}"))
    assert len(kept) == 1 and "log'" in kept[0].read_text()


def test_symlinked_hooks_share_one_script(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    p = plain(repo)
    assert handrail("install-hooks", "--symlink", cwd=repo).returncode == 0
    hooks = repo / ".git" / "hooks"
    assert os.readlink(hooks / "pre-commit") == SHARED and os.readlink(hooks / "pre-push") == SHARED
    p.task("t")
    p.write("key.pem")
    refused(p.commit("key.pem"), "key.pem is forbidden")
    assert "pre-commit: removed" in as_person("uninstall-hooks", cwd=repo).stdout
    assert not os.path.lexists(hooks / "pre-commit") and not os.path.lexists(hooks / SHARED)


def test_a_commit_from_an_ide_without_handrail_on_path(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    p = plain(repo)
    assert handrail("install-hooks", cwd=repo).returncode == 0
    p.task("t")
    p.write(".env")
    p.write("ok.txt")
    p.git("add", "-f", ".env")
    refused(p.commit(env={"PATH": IDE_PATH}), ".env is forbidden")
    p.git("rm", "-q", "--cached", ".env")
    assert p.commit("ok.txt", env={"PATH": IDE_PATH}).returncode == 0


def test_when_handrail_cannot_start_the_commit_is_refused(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    p = plain(repo)
    assert handrail("install-hooks", cwd=repo).returncode == 0
    hook = repo / ".git" / "hooks" / "pre-commit"
    text = re.sub(r"^HANDRAIL_(BIN|PYTHON)=.*$", r"HANDRAIL_\1=/nowhere/handrail", hook.read_text(), flags=re.M)
    hook.write_text(text)
    p.write("a.txt")
    r = p.commit("a.txt", env={"PATH": IDE_PATH})
    refused(r, "handrail cannot start", "handrail install-hooks")
    assert p.git("rev-parse", "-q", "--verify", "HEAD", check=False).returncode != 0


def test_a_foreign_prepare_commit_msg_hook_runs_first_and_the_trailer_follows(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    p = plain(repo)
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    (hooks / "prepare-commit-msg").write_text('#!/bin/sh\nprintf "\\nTicket: APP-1\\n" >> "$1"\n')
    (hooks / "prepare-commit-msg").chmod(0o755)
    assert "prepare-commit-msg: installed (the hook that was there runs first)" in handrail(
        "install-hooks", cwd=repo).stdout
    p.task("t")
    p.write("a.txt")
    assert p.commit("a.txt", message="agent", env={"CLAUDECODE": "1"}).returncode == 0
    body = p.git("log", "-1", "--format=%B").stdout
    assert "Ticket: APP-1" in body and body.rstrip().endswith("Handrail-Agent: claude (CLAUDECODE=1)")
    p.write("b.txt")
    assert p.commit("b.txt", message="human").returncode == 0
    body = p.git("log", "-1", "--format=%B").stdout
    assert "Ticket: APP-1" in body and "Handrail-Agent" not in body
