"""`handrail ci` against the ways past it an attacker who read the README found: objects a clone
lacks, secrets in other shapes, files that loosen the leash, control characters in what is shown."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cikit import KEY, TRAILER, Repo
from helpers import git


def pem_key(tmp_path: Path) -> str:
    """A real OpenSSH private key, made for the test."""
    key = tmp_path / "k"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "x", "-f", str(key)], check=True)
    return key.read_text()


def blobless(project: Repo, tmp_path: Path, branch: str = "feature") -> Path:
    project.git("push", "-q", "-f", "origin", branch)
    git(project.remote, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "partial"
    git(tmp_path, "clone", "-q", "--filter=blob:none", "--no-single-branch", f"file://{project.remote}", str(clone))
    git(clone, "switch", "-q", branch)
    return clone


# ----------------------------------------------------------------------------- objects a clone lacks


def test_a_blobless_clone_does_not_pass_a_key_added_then_overwritten(project: Repo, tmp_path: Path) -> None:
    project.commit("add", TRAILER, files={"src/k.txt": f"{KEY}\n"})
    project.commit("modify", TRAILER, files={"src/k.txt": "benign\n"})
    clone = blobless(project, tmp_path)
    r = project.ci("--base", "origin/main", "--head", "HEAD", cwd=clone)
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr, r.stderr
    assert "partial clone" in r.stderr and "filter:" in r.stderr and "src/k.txt" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    full = tmp_path / "full"
    git(tmp_path, "clone", "-q", "--branch", "feature", f"file://{project.remote}", str(full))
    assert project.ci("--base", "origin/main", cwd=full).returncode == 1


def test_a_blobless_clone_does_not_pass_a_key_added_then_removed(project: Repo, tmp_path: Path) -> None:
    project.commit("add", TRAILER, files={"src/k.txt": f"{KEY}\n", "src/a.py": "a\n"})
    project.commit("drop it, add another", TRAILER, files={"src/b.py": "b\n"}, remove=("src/k.txt",))
    clone = blobless(project, tmp_path)
    r = project.ci("--base", "origin/main", cwd=clone)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "partial clone" in r.stderr, r.stderr


def test_a_partial_clone_that_holds_every_object_the_range_needs_is_judged(project: Repo, tmp_path: Path) -> None:
    project.commit("one file", TRAILER, files={"src/a.py": "a\n"})
    clone = blobless(project, tmp_path)
    data = json.loads(project.ci("--base", "origin/main", "--format", "json", cwd=clone).stdout)
    assert data["result"] == "clean" and data["counts"]["commits"] == 1


def test_a_tree_entry_naming_an_object_nobody_wrote_is_an_error(project: Repo) -> None:
    tree = project.git("write-tree")
    listing = project.git("ls-tree", tree) + f"\n100644 blob {'1' * 40}\tmissing.py\n"
    new_tree = subprocess.run(["git", "mktree", "--missing"], cwd=project.path, input=listing, text=True,
                              capture_output=True, check=True).stdout.strip()
    commit = project.git("commit-tree", new_tree, "-p", "HEAD", "-m", "a missing blob")
    r = project.ci("--base", "main", "--head", commit)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert f"commit {commit[:7]}" in r.stderr and "missing.py" in r.stderr
