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


# ----------------------------------------------------------------------------- secrets in other shapes


def key_shapes(pem: str) -> dict[str, bytes]:
    import base64
    import gzip

    lines = pem.splitlines(keepends=True)
    return {
        "src/indented.yml": ("key: |\n" + "".join("  " + line for line in lines)).encode(),
        "src/hash.py": "".join("# " + line for line in lines).encode(),
        "src/slash.js": "".join("// " + line for line in lines).encode(),
        "src/semi.ini": "".join("; " + line for line in lines).encode(),
        "src/literals.py": ("KEY = (\n" + "".join(f"    '{line.rstrip()}'\n" for line in lines) + ")\n").encode(),
        "src/spaced.txt": pem.replace("PRIVATE KEY", "PRIVATE  KEY").encode(),
        "src/body.txt": "".join(lines[1:-1]).encode(),
        "src/b64.txt": base64.b64encode(pem.encode()),
        "src/k.gz": gzip.compress(pem.encode()),
        "src/gz64.txt": base64.b64encode(gzip.compress(pem.encode())),
    }


def test_a_key_indented_commented_quoted_spaced_headless_or_encoded_is_found(project: Repo, tmp_path: Path) -> None:
    shapes = key_shapes(pem_key(tmp_path))
    for rel, data in shapes.items():
        (project.path / rel).parent.mkdir(parents=True, exist_ok=True)
        (project.path / rel).write_bytes(data)
    project.git("add", "--", *shapes)
    project.git("commit", "-q", "-m", "keys in disguise")
    data = project.report("--base", "main", code=1)
    found = {f["path"] for f in data["findings"] if f["rule"] == "secret"}
    assert found == set(shapes)


def test_ordinary_base64_and_lock_file_hashes_stay_clean(project: Repo, tmp_path: Path) -> None:
    import base64
    import hashlib
    import os
    import zlib

    raw = b"\x89PNG\r\n\x1a\n" + zlib.compress(os.urandom(4000))
    png = base64.b64encode(raw).decode()
    lock = {"packages": {f"node_modules/p{i}": {
        "integrity": "sha512-" + base64.b64encode(hashlib.sha512(str(i).encode()).digest()).decode()}
        for i in range(300)}}
    project.commit("assets", files={"src/logo.html": f'<img src="data:image/png;base64,{png}">\n',
                                    "src/wrapped.b64": base64.encodebytes(raw).decode(),
                                    "src/lock.json": json.dumps(lock, indent=2),
                                    "docs/keys.md": "A key starts with `-----BEGIN PRIVATE KEY-----`, then base64.\n"})
    assert project.report("--base", "main", code=0)["findings"] == []


def test_a_key_or_a_token_in_a_commit_message_is_a_secret(project: Repo, tmp_path: Path) -> None:
    oid = project.commit(f"deploy\n\ntoken {KEY}\n\n{pem_key(tmp_path)}", TRAILER, files={"src/a.py": "a\n"})
    data = project.report("--base", "main", code=1)
    found = [(f["rule"], f["commit"], f["path"]) for f in data["findings"]]
    assert found == [("secret", oid, None), ("secret", oid, None)]
    assert all("the message of commit" in f["message"] for f in data["findings"])
    assert KEY not in json.dumps(data)


# ----------------------------------------------------------------------------- what a person reads


def test_control_characters_in_a_path_are_shown_escaped(project: Repo, tmp_path: Path) -> None:
    name = "src/notes.txt\r\x1b[2K\x1b[1A\u200c\u202e"
    (project.path / "src").mkdir(exist_ok=True)
    (project.path / name).write_text(f"{KEY}\n")
    project.git("add", "--", name)
    project.git("commit", "-q", "-m", "notes")
    summary = tmp_path / "summary.md"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_EVENT_NAME": "workflow_dispatch"}
    for out in (project.ci("--base", "main").stdout, project.ci("--base", "main", env=env).stdout,
                summary.read_text()):
        assert "\x1b" not in out and "\r" not in out and "\u200c" not in out and "\u202e" not in out
        assert "src/notes.txt\\r\\x1b[2K\\x1b[1A\\u200c\\u202e" in out
