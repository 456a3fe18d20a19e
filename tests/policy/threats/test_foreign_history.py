"""History made where no hook ran, brought in: commits made in a clone on the same machine (which
has none of the project's git hooks) and brought into the project by a pull, a fetch, a remote
whose URL is a path, what such a fetch left (FETCH_HEAD, its remote-tracking branches), or a
push run in the clone whose target is the project, need a human; so does a source only known at
run time. Fetching and pulling a network remote, merging the project's own branches, and
fetching from the project itself (`.`, a linked worktree) stay as they were.

The project here has, beside it on the disk, a clone (`../clone`, whose origin is the project)
and a linked worktree (`../wt`); its remotes are `origin` (a network URL) and `mirror` (the
clone), and its FETCH_HEAD holds what was last fetched from the clone."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from threatkit import BASE, Project, Row, category_tests, claude_hook, make_project

CATEGORY = "foreign history"
ROWS: list[Row] = [
    # a path to a clone, in every form git takes
    ("git pull ../clone", "ask"),
    ("git pull ../clone main", "ask"),
    ("git pull --rebase ../clone main", "ask"),
    ("git pull --depth 1 ../clone", "ask"),
    ("git fetch ../clone main:main", "ask"),
    ("git fetch ../clone", "ask"),
    ("git fetch --multiple origin ../clone", "ask"),
    ("git fetch ../clone/.git refs/heads/*:refs/heads/*", "ask"),
    ("git pull localhost:/srv/git/shop.git", "ask"),
    ("git fetch ssh://127.0.0.1/srv/git/shop.git main", "ask"),
    ("git fetch /tmp/shop.bundle main:main", "ask"),
    ("git bundle unbundle /tmp/shop.bundle", "ask"),
    # a remote whose URL is such a path, on disk or given to this run
    ("git pull mirror", "ask"),
    ("git fetch mirror main", "ask"),
    ("git fetch --all", "ask"),
    ("git remote update", "ask"),
    ("git remote add -f other ../clone", "ask"),
    ("git remote add backup ../clone", "ask"),
    ("git remote add other ../clone && git pull other main", "ask"),
    ("git -c remote.origin.url=../clone pull origin main", "ask"),
    ("git -c url.../clone.insteadOf=https://example.com/shop.git fetch origin", "ask"),
    # what a fetch from the clone left behind
    ("git merge FETCH_HEAD", "ask"),
    ("git rebase FETCH_HEAD", "ask"),
    ("git cherry-pick FETCH_HEAD", "ask"),
    ("git merge --ff-only mirror/main", "ask"),
    ("git rebase refs/remotes/mirror/main", "ask"),
    ("git cherry-pick mirror/main~1", "ask"),
    ("git reset --soft remotes/mirror/main", "ask"),
    # a source only known at run time
    ('git pull "$SRC" main', "ask"),
    ("git fetch $(cat .remote) main:main", "ask"),
    # a push run in the clone whose target is the project (or its linked worktree)
    ("git -C ../clone push ../shop HEAD:incoming", "ask"),
    ("git -C ../clone push origin HEAD:incoming", "ask"),
    ("git -C ../clone push", "ask"),
    ("cd ../clone && git push origin main:main", "ask"),
    ("git --git-dir=../clone/.git push ../shop HEAD:incoming", "ask"),
    ("git -C ../clone push ../wt HEAD:incoming", "ask"),
    ('git -C "$DIR" push ../shop HEAD:incoming', "ask"),
    # the ordinary ways work arrives
    ("git pull", "notice"),
    ("git pull origin main", "notice"),
    ("git fetch origin", "notice"),
    ("git fetch --depth 1 origin main", "notice"),
    ("git fetch --prune origin", "notice"),
    ("git pull --rebase origin main", "notice"),
    ("git pull git@github.com:example/shop.git main", "notice"),
    ("git merge feature", "notice"),
    ("git merge origin/main", "notice"),
    ("git rebase origin/main", "notice"),
    ("git cherry-pick HEAD~1", "notice"),
    ("git fetch . main:backup", "notice"),
    ("git fetch ../wt main", "notice"),
    ("git remote add backup https://example.com/shop-backup.git", "notice"),
    ("git clone . ../copy", "notice"),
    # in the clone, changing only the clone
    ("git -C ../clone pull", "notice"),
    ("git -C ../clone fetch ../shop", "notice"),
    ("git -C ../clone commit -am wip", "notice"),
]


def _git(cwd: Path, env: dict[str, str], *args: str) -> None:
    r = subprocess.run(["git", *args], check=False, cwd=cwd, env=env, text=True, capture_output=True, timeout=60)
    assert r.returncode == 0, f"git {' '.join(args)}: {r.stdout}{r.stderr}"


@pytest.fixture(scope="module")
def project() -> Iterator[Project]:
    """The threat project, with a clone and a linked worktree beside it and a fetch from the clone done."""
    BASE.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="threats-", dir=BASE))
    try:
        made = make_project(base)
        env = made.env
        _git(base, env, "clone", "-q", str(made.path), "clone")
        _git(base / "clone", env, "commit", "-q", "--allow-empty", "-m", "made where no hook runs")
        _git(made.path, env, "worktree", "add", "-q", "-b", "side", str(base / "wt"))
        _git(made.path, env, "remote", "add", "origin", "https://example.com/shop.git")
        _git(made.path, env, "remote", "add", "mirror", str(base / "clone"))
        _git(made.path, env, "config", "branch.main.remote", "origin")
        _git(made.path, env, "fetch", "-q", "mirror")
        _git(made.path, env, "fetch", "-q", "../clone")  # FETCH_HEAD: from the clone
        yield made
    finally:
        shutil.rmtree(base, ignore_errors=True)


test_row, test_claude_hook_asks, test_no_claude_allow_rule_admits_a_destructive_row = category_tests(CATEGORY, ROWS)


@pytest.mark.parametrize(("command", "expect"), ROWS, ids=[c for c, _ in ROWS])
def test_claude_hook_answers_every_row(project: Project, command: str, expect: str) -> None:
    """Claude Code's own PreToolUse call: every import asks; every ordinary fetch, pull or merge runs."""
    reply = claude_hook(project, command)
    decision = (reply or {}).get("hookSpecificOutput", {}).get("permissionDecision")
    if expect == "ask":
        assert decision in ("ask", "deny"), f"{command!r}: {reply}"
    else:
        assert decision not in ("ask", "deny"), f"{command!r}: {reply}"
