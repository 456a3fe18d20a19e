"""Helpers the tests import: git and handrail run as real processes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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


def in_terminal(cwd: Path | str, *args: str, env: dict[str, str] | None = None,
                answer: str = "") -> tuple[int, str]:
    """Run handrail with stdin, stdout and stderr on a real pseudo-terminal, as a person
    at a terminal would, typing `answer`; the exit code and everything it printed."""
    assert HANDRAIL, "the handrail console script is not installed in this environment"
    master, slave = os.openpty()
    try:
        proc = subprocess.Popen([HANDRAIL, *args], cwd=cwd, stdin=slave, stdout=slave, stderr=slave,
                                env={**os.environ, **(env or {})}, start_new_session=True)
    finally:
        os.close(slave)
    if answer:
        os.write(master, answer.encode())
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed its side
            break
        if not chunk:
            break
        out += chunk
    code = proc.wait(timeout=30)
    os.close(master)
    return code, out.decode("utf-8", "replace")
