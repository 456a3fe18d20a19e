"""A script handrail reads to judge must be the text the command will run.

handrail's own standard input is not the command's: in a hook it is the payload, already read.
A FIFO yields what its writer sends later; a link into /proc names handrail's own descriptors.
Each of these is code handrail cannot read, so the command needs a human, through the real hook.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import git, run_handrail

EVIL = "import os; os.system('touch pwned')"


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "ok.py").write_text("print(6 * 7)\n")
    (repo / "evil.py").write_text(EVIL + "\n")
    return repo


def _hook(repo: Path, command: str) -> str:
    payload = {"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": command}, "cwd": str(repo)}
    r = run_handrail("hook", "claude", cwd=repo, input=json.dumps(payload), env={"CLAUDECODE": "1"})
    assert r.returncode == 0, r.stderr
    return str(json.loads(r.stdout)["hookSpecificOutput"]["permissionDecision"])


def _tier(repo: Path, command: str) -> object:
    r = run_handrail("classify", "--json", command, cwd=repo, input="")
    return json.loads(r.stdout.splitlines()[-1])["tier"]


@pytest.mark.parametrize("command", [
    f'python3 /dev/stdin <<< "{EVIL}"',
    f'python3 /proc/self/fd/0 <<< "{EVIL}"',
    f'python3 /dev/fd/0 <<< "{EVIL}"',
    "node /dev/stdin <<< 'require(\"child_process\").execSync(\"id\")'",
    "perl /dev/stdin <<< 'system(\"id\")'",
    "python3 /dev/stdin < evil.py",
    "python3 < evil.py",
    "python3 - < evil.py",
])
def test_code_on_standard_input_is_the_command_lines_and_judged(tmp_path: Path, command: str) -> None:
    repo = _repo(tmp_path)
    assert _hook(repo, command) == "ask"


@pytest.mark.parametrize("command", ["python3 /dev/stdin <<< 'print(6 * 7)'", "python3 < ok.py",
                                     "python3 ok.py"])
def test_printing_code_fed_on_standard_input_still_runs_silently(tmp_path: Path, command: str) -> None:
    repo = _repo(tmp_path)
    assert _hook(repo, command) == "allow"


@pytest.mark.parametrize("command", ["python3 pipe.py", "bash pipe.py", "node pipe.py", "source pipe.py",
                                     "python3 link.py", "sh link.py", "python3 /dev/fd/3 3< evil.py",
                                     "bash /dev/fd/3 3< evil.py", "sqlite3 :memory: < pipe.py",
                                     "python3 < pipe.py"])
def test_a_fifo_or_a_link_into_proc_is_code_handrail_cannot_read(tmp_path: Path, command: str) -> None:
    repo = _repo(tmp_path)
    os.mkfifo(repo / "pipe.py")
    (repo / "link.py").symlink_to("/proc/self/fd/0")
    # no writer ever opens the FIFO: a classifier that opened it for reading would never answer
    assert _tier(repo, command) == 3
    assert _hook(repo, command) == "ask"


@pytest.mark.parametrize("command", ["python3 -W ignore evil.py", "python3 -X importtime evil.py",
                                     "python3 -Wonce evil.py", "ruby -r json evil.py", "php -d x=1 evil.py"])
def test_an_option_value_is_not_taken_for_the_script(tmp_path: Path, command: str) -> None:
    repo = _repo(tmp_path)
    (repo / "evil.py").write_text(EVIL + "\nsystem('id')\n")
    assert _tier(repo, command) == 3


def test_an_unknown_option_before_a_missing_file_leaves_the_script_unknown(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    assert _tier(repo, "python3 -Q new evil.py") == 3
    assert _tier(repo, "python3 -W ignore ok.py") == 1
