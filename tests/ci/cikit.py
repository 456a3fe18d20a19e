"""Helpers for the `handrail ci` tests: a repository with a pushed base branch, commits made the way
people and agents make them (an agent's carry its trailer), and the CI engines' inputs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from helpers import git, run_handrail

KEY = "sk-ant-" + "a1" * 20  # an Anthropic key's shape, made up
CLAUDE = "Co-Authored-By: Claude <noreply@anthropic.com>"
TRAILER = "Handrail-Agent: claude (CLAUDECODE=1)"
TASK = {"slug": "login", "title": "login", "phase": "implement", "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z", "history": []}
CONTRACT = {"feature": "login", "allowed_files": ["src/**", "tests/**", "docs/**"]}
# The keys of the report, as ci_shape.md fixes them.
REPORT_KEYS = {"version", "base", "head", "range_from", "rewritten", "commits", "findings", "counts", "result"}
COMMIT_KEYS = {"commit", "summary", "author", "made_by", "agent", "evidence"}
FINDING_KEYS = {"rule", "commit", "path", "line", "message", "fix", "source", "made_by"}


class Repo:
    """A repository whose `main` is on `origin`, a task in an edit phase committed there."""

    def __init__(self, path: Path, remote: Path) -> None:
        self.path = path
        self.remote = remote

    def git(self, *args: str, env: dict[str, str] | None = None) -> str:
        return git(self.path, *args, env=env).stdout.strip()

    def write(self, rel: str, content: str = "x\n") -> None:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)

    def commit(self, message: str, *trailers: str, files: dict[str, str] | None = None,
               remove: tuple[str, ...] = ()) -> str:
        for rel, content in (files or {}).items():
            self.write(rel, content)
        if files:
            self.git("add", "-f", "--", *files)
        if remove:
            self.git("rm", "-q", "--", *remove)
        body = message + ("\n\n" + "\n".join(trailers) if trailers else "")
        self.git("commit", "-q", "--allow-empty", "-m", body)
        return self.head()

    def head(self, rev: str = "HEAD") -> str:
        return self.git("rev-parse", rev)

    def ci(self, *args: str, env: dict[str, str] | None = None,
           cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return run_handrail("ci", *args, cwd=cwd or self.path, env=env)

    def report(self, *args: str, env: dict[str, str] | None = None,
               code: int | None = None) -> dict[str, Any]:
        r = self.ci("--format", "json", *args, env=env)
        assert "Traceback" not in r.stderr, r.stderr
        if code is not None:
            assert r.returncode == code, (r.stdout, r.stderr)
        data: dict[str, Any] = json.loads(r.stdout)
        assert set(data) == REPORT_KEYS
        assert all(set(c) == COMMIT_KEYS for c in data["commits"])
        assert all(set(f) == FINDING_KEYS for f in data["findings"])
        assert data["counts"]["findings"] == len(data["findings"])
        assert data["result"] == ("findings" if data["findings"] else "clean")
        assert r.returncode == (1 if data["findings"] else 0)
        return data


def github_env(tmp_path: Path, name: str, event: dict[str, Any]) -> dict[str, str]:
    """What GitHub Actions gives a job: the event's name, and its payload in a file."""
    path = tmp_path / "event.json"
    path.write_text(json.dumps(event, indent=2))
    return {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(path),
}
