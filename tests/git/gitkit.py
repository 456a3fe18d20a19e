"""Helpers for the git-layer tests: a repository driven the way a person or an agent drives git."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from helpers import git, run_handrail

from handrail.policy import gates as gatemod
from handrail.records import gate_states, task_states

AGENT = {"CLAUDECODE": "1"}
ROOT = Path(__file__).resolve().parents[2]


def checkout_snapshot(parent: Path, tag: str | None = None) -> Path:
    """This working tree, committed into a throwaway repository under `parent` (the
    framework installs hooks from a repository's commits), tagged `tag` when given."""
    import shutil

    src = parent / "handrail-src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(ROOT / "handrail", src / "handrail", ignore=ignore)
    for name in ("pyproject.toml", ".pre-commit-hooks.yaml", "README.md", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy(ROOT / name, src / name)
    git(parent, "init", "-q", "-b", "main", str(src))
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", "snapshot")
    if tag:
        git(src, "tag", "-a", tag, "-m", tag)
    return src


class Project:
    """A repository under test, driven the way a person or an agent drives git."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, rel: str | bytes, content: str | bytes = "x\n") -> Path:
        target = Path(os.fsdecode(os.path.join(os.fsencode(self.path), os.fsencode(rel))))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)
        return target

    def git(self, *args: str, check: bool = True, env: dict[str, str] | None = None,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
        return git(self.path, *args, check=check, env=env, input=input)

    def commit(self, *paths: str, message: str = "change", args: tuple[str, ...] = (),
               env: dict[str, str] | None = None, force_add: bool = False) -> subprocess.CompletedProcess[str]:
        """`git add PATHS` (when given), then `git commit`: the hook's answer is the exit code."""
        if paths:
            self.git("add", *(["-f"] if force_add else []), "--", *paths)
        return self.git("commit", "-q", "-m", message, *args, check=False, env=env)

    def task(self, slug: str, phase: str = "implement", contract: dict | None = None) -> None:
        task_states.new_task(str(self.path), slug, phase=phase)
        if contract is not None:
            self.contract(slug, contract)

    def contract(self, slug: str, contract: dict) -> None:
        (self.path / ".handrail" / "tasks" / slug / "harness-contract.json").write_text(json.dumps(contract))

    def phase(self, slug: str, phase: str) -> None:
        task_states.set_phase(str(self.path), slug, phase)

    def approve(self, slug: str, theme: str) -> None:
        gate_states.decide(str(self.path), slug, theme, gatemod.APPROVED, by="tester")

    def protocol(self, **extra: object) -> None:
        from handrail.policy import protocol as protocols

        data = json.loads(Path(protocols.DEFAULT_PROTOCOL).read_text())
        data.update(extra)
        self.write(".handrail/autonomy-protocol.json", json.dumps(data))

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").stdout.strip()

    def hook(self, name: str, *args: str, env: dict[str, str] | None = None,
             input: str | None = None) -> subprocess.CompletedProcess[str]:
        return run_handrail("hook", name, *args, cwd=self.path, env=env, input=input)


def commits(project: Project) -> int:
    r = project.git("rev-list", "--count", "HEAD", check=False)
    return int(r.stdout) if r.returncode == 0 else 0


def refused(r: subprocess.CompletedProcess[str], *words: str, action: str = "commit") -> None:
    """The hook said no, in words a person can act on, and without a traceback."""
    assert r.returncode != 0, r.stderr
    assert f"handrail: {action} refused" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    for w in words:
        assert w in r.stderr, r.stderr
