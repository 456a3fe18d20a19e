"""Sessions made by the real clients, offline: the scripted model server plays the agent's
tool calls in a scratch project and a scratch home, and the client writes its transcript
where it always does. Used to make the fixtures under tests/data/audit/ and to check, where
a client is installed, that the readers still read what the client writes today."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from drivers import codex as codex_driver
from helpers import HANDRAIL, git, run_handrail
from hookkit import client, make_project
from modelserver import Call, ModelServer

from handrail.policy import agents

SECRET = "DATABASE_PASSWORD=hunter2\n"


def project(path: Path, *, guarded: bool) -> Path:
    """hookkit's project (task 'login' in implement, scoped to src/** and tests/**), with a bare
    remote as origin; guarded: `handrail init` has written every harness's hooks."""
    make_project(path)
    remote = path.parent / "origin.git"
    git(path.parent, "init", "-q", "--bare", str(remote))
    git(path, "remote", "add", "origin", str(remote))
    if guarded:
        r = run_handrail("init", cwd=path)
        assert r.returncode == 0, r.stderr
    return path


def _env(home: Path) -> dict[str, str]:
    assert HANDRAIL
    markers = set(agents.VARIABLES)
    env = {k: v for k, v in os.environ.items() if k not in markers and not k.startswith("CODEX_")}
    env.update(HOME=str(home), PATH=os.path.dirname(HANDRAIL) + os.pathsep + env.get("PATH", ""),
               HANDRAIL_HOOK_DEADLINE_MS="20000")
    return env


def claude_script(root: Path) -> list[Call]:
    def bash(command: str) -> Call:
        return Call("Bash", {"command": command, "description": "x"})

    return [
        bash("git status --short"),
        bash("git push --force origin main"),
        Call("Read", {"file_path": str(root / ".env")}),
        Call("Write", {"file_path": str(root / "docs" / "notes.md"), "content": "notes\n"}),
        Call("Read", {"file_path": str(root / "src" / "app.py")}),
        Call("Edit", {"file_path": str(root / "src" / "app.py"), "old_string": "print('old')",
                      "new_string": "print('new')"}),
        Call("Grep", {"pattern": "print", "path": str(root / "src")}),
        bash("ls /nonexistent-folder"),
    ]


def harmless_claude_script(root: Path) -> list[Call]:
    return [Call("Bash", {"command": "git status --short", "description": "x"}),
            Call("Read", {"file_path": str(root / "src" / "app.py")})]


def run_claude(root: Path, home: Path, calls: list[Call]) -> list[Path]:
    """`claude -p` in `root` with `home` as HOME; the transcripts it wrote."""
    exe = client("claude")
    assert exe is not None
    home.mkdir(parents=True, exist_ok=True)
    with ModelServer(calls) as srv:
        env = _env(home)
        env.update(ANTHROPIC_BASE_URL=srv.url, ANTHROPIC_API_KEY="sk-test-offline", DISABLE_AUTOUPDATER="1",
                   DISABLE_TELEMETRY="1", DISABLE_ERROR_REPORTING="1",
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", IS_SANDBOX="1")
        r = subprocess.run([exe, "-p", "do the task", "--output-format", "json", "--dangerously-skip-permissions"],
                           cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return sorted((home / ".claude" / "projects").glob("*/*.jsonl"))


def codex_script(root: Path) -> list[Call]:
    def shell(command: str) -> Call:
        return Call("exec_command", {"cmd": command, "workdir": str(root), "tty": False})

    def patch(body: str) -> Call:
        return Call("apply_patch", {"input": f"*** Begin Patch\n{body}*** End Patch\n"}, custom=True)

    return [
        shell("git status --short"),
        shell("git push --force origin main"),
        shell("cat .env"),
        patch("*** Add File: docs/notes.md\n+notes\n"),
        patch("*** Update File: src/app.py\n@@\n-print('old')\n+print('new')\n"),
    ]


def run_codex(root: Path, home: Path, calls: list[Call]) -> list[Path]:
    """`codex exec` in `root` with `home` as HOME; the rollout files it wrote."""
    home.mkdir(parents=True, exist_ok=True)
    with ModelServer(calls) as srv:
        r = codex_driver.run(root, home, srv.url, _env(home))
    assert r.returncode == 0, r.stderr[-2000:]
    return sorted((home / ".codex" / "sessions").glob("**/rollout-*.jsonl"))


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
