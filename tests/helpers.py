"""Helpers the tests import: git and handrail run as real processes."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BIN = Path(sys.executable).parent
HANDRAIL = shutil.which("handrail", path=str(BIN)) or shutil.which("handrail")


def git(cwd: Path | str, *args: str, check: bool = True, env: dict[str, str] | None = None,
        input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, check=check, text=True, capture_output=True,
                          env={**os.environ, **(env or {})}, input=input)


def run_handrail(*args: str, cwd: Path | str | None = None, input: str | None = None,
                 env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed `handrail` console script, as a harness or a person would."""
    assert HANDRAIL, "the handrail console script is not installed in this environment"
    return subprocess.run([HANDRAIL, *args], cwd=cwd, input=input, text=True, capture_output=True,
                          env={**os.environ, **(env or {})})


# Repositories set up by `prepared`, one per list of commands and test process: handrail's own
# files name no path of the repository, so a copy is what the commands would have left there.
_PREPARED: dict[tuple[tuple[str, ...], ...], Path] = {}


def prepared(repo: Path, *commands: tuple[str, ...]) -> None:
    """The empty git repository `repo` as the handrail `commands` (e.g. `("init",)`) leave it.

    `init` writes every harness's files and is the slowest step of many tests that are about
    what comes after it: the commands run for real once per test process, in a repository of
    their own, and each test gets a copy. A test whose subject is the command runs it itself."""
    assert commands and [p.name for p in repo.iterdir()] == [".git"], f"{repo} is not an empty repository"
    template = _PREPARED.get(commands)
    if template is None:
        template = Path(tempfile.mkdtemp(prefix="handrail-prepared-"))
        atexit.register(shutil.rmtree, template, ignore_errors=True)
        git(template, "init", "-q", "-b", "main")
        for args in commands:
            r = run_handrail(*args, cwd=template)
            assert r.returncode == 0, f"handrail {' '.join(args)}: {r.stderr}"
        _PREPARED[commands] = template
    shutil.rmtree(repo / ".git")
    shutil.copytree(template, repo, symlinks=True, dirs_exist_ok=True)


def agent_above() -> str | None:
    """The agent this test run itself runs under (an ancestor started with its marker), or None.

    handrail's human-only commands refuse under such a process whatever terminal they get:
    a test that shows a person succeeding cannot run there, and says so."""
    from handrail import procs
    from handrail.policy import gates

    found = gates.behind(procs.ancestors())
    return None if found is None else f"{found[1]} (pid {found[0]}): {found[2].evidence()}"


def read_terminal(master: int) -> bytes:
    """Everything a child wrote to the pseudo-terminal whose other side is `master`, until it closes."""
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed its side
            break
        if not chunk:
            break
        out += chunk
    return out


def tracked_hooks_folder(repo: Path) -> Path:
    """A team's hooks folder in the work tree, tracked by git and named by core.hooksPath."""
    hooks = repo / ".githooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text("#!/bin/sh\necho team hook\n")
    (hooks / "pre-commit").chmod(0o755)
    git(repo, "config", "core.hooksPath", ".githooks")
    git(repo, "add", ".githooks")
    git(repo, "commit", "-qm", "team hooks", "--no-verify")
    return hooks


def in_terminal(cwd: Path | str, *args: str, env: dict[str, str] | None = None,
                answer: str = "") -> tuple[int, str]:
    """Run handrail with stdin, stdout and stderr on a real pseudo-terminal, as a person
    at a terminal would, typing `answer`; the exit code and everything it printed.
    Skips the test when the test run itself is an agent's (`agent_above`) and the call
    sets no agent marker of its own: no person can be shown at a terminal there."""
    assert HANDRAIL, "the handrail console script is not installed in this environment"
    above = agent_above()
    if above is not None and not any(k in (env or {}) for k in _markers()):
        import pytest

        pytest.skip(f"this test run is itself inside an agent's process ({above}); a person's terminal "
                    "cannot be shown here")
    master, slave = os.openpty()
    try:
        proc = subprocess.Popen([HANDRAIL, *args], cwd=cwd, stdin=slave, stdout=slave, stderr=slave,
                                env={**os.environ, **(env or {})}, start_new_session=True)
    finally:
        os.close(slave)
    if answer:
        os.write(master, answer.encode())
    out = read_terminal(master)
    code = proc.wait(timeout=30)
    os.close(master)
    return code, out.decode("utf-8", "replace")


def as_person(*args: str, cwd: Path | str | None = None,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`handrail ARGS` run by a person at a terminal (`in_terminal`): stdout and stderr
    are the one terminal's text."""
    code, out = in_terminal(cwd or os.getcwd(), *args, env=env)
    return subprocess.CompletedProcess([str(HANDRAIL), *args], code, out, out)


def _markers() -> tuple[str, ...]:
    from handrail.policy.agents import VARIABLES

    return VARIABLES
