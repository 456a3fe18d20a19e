"""The git files the classifier reads (HEAD, FETCH_HEAD, commondir, config, .gitignore, info/exclude)
are read only as regular files: a FIFO the agent put in one's place would make a plain open wait
for a writer, and the hook with it. The answer comes back, and a FIFO FETCH_HEAD is judged as
what it is: commits only known at run time."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import HANDRAIL, git

# (the file replaced by a FIFO, relative to the repository, the command whose judgement reads it)
CASES = [
    (".git/HEAD", "git pull"),
    (".git/config", "git pull"),
    (".git/FETCH_HEAD", "git merge FETCH_HEAD"),
    (".gitignore", "git stash -u"),
    (".git/info/exclude", "git stash -u"),
]


def classify(cwd: Path, command: str) -> dict:
    # The hook's own deadline is lifted, so a read that blocks shows as the timeout, not a refusal.
    env = {**os.environ, "HANDRAIL_HOOK_DEADLINE_MS": "120000"}
    r = subprocess.run([str(HANDRAIL), "classify", "--json", command], cwd=cwd, env=env, text=True,
                       capture_output=True, timeout=30)
    return json.loads(r.stdout)


def fifo(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    os.mkfifo(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize(("name", "command"), CASES)
def test_a_fifo_in_place_of_a_git_file_does_not_hang_the_classifier(repo: Path, name: str, command: str) -> None:
    git(repo, "remote", "add", "origin", "https://example.com/shop.git")
    (repo / "notes.txt").write_text("untracked\n")  # what `git stash -u` would store, judged against the ignores
    fifo(repo / name)
    answer = classify(repo, command)
    assert answer["decision"] != "error", answer


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_fetch_head_is_commits_only_known_at_run_time(repo: Path) -> None:
    fifo(repo / ".git" / "FETCH_HEAD")
    answer = classify(repo, "git merge FETCH_HEAD")
    assert answer["decision"] == "ask" and "not a regular file" in answer["reasons"][0]["why"], answer


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_commondir_in_a_linked_worktree(repo: Path, tmp_path: Path) -> None:
    git(repo, "commit", "-q", "--allow-empty", "-m", "first")
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked))
    gitdir = Path((linked / ".git").read_text().split(":", 1)[1].strip())
    fifo(gitdir / "commondir")
    answer = classify(linked, "git pull ../repo")
    assert answer["decision"] == "ask", answer
