"""Claude Code in the parity suite: `claude -p` against the model server's Messages API,
with `--dangerously-skip-permissions` so that the project's PreToolUse hook is the only guard.

Claude Code edits a file only after reading it (its own check, made before any hook), so an
edit of an existing file is preceded by a Read of it. Its native build (2.1.19x) offers the Grep and
Glob tools only to a session that names one in `--allowedTools` or `--tools`; otherwise the agent
searches with `grep` through Bash. The run names Grep, so that its own search tool is played."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hookkit import client
from modelserver import Call

NAME = "claude"
CLIENT = "claude"


def _bash(command: str) -> Call:
    return Call("Bash", {"command": command, "description": command})


def calls(scenario: str, project: Path) -> list[Call] | str:
    app, protocol = project / "src" / "app.py", project / ".handrail" / "autonomy-protocol.json"
    plans: dict[str, list[Call]] = {
        "in-scope-write": [Call("Read", {"file_path": str(app)}),
                           Call("Write", {"file_path": str(app), "content": "print('new')\n"})],
        "out-of-scope-write": [Call("Write", {"file_path": str(project / "docs" / "notes.md"),
                                              "content": "# notes\n"})],
        "protected-write": [Call("Read", {"file_path": str(protocol)}),
                            Call("Write", {"file_path": str(protocol), "content": "{}\n"})],
        "force-push": [_bash("git push --force origin main")],
        "shell-read-env": [_bash("cat .env")],
        # No path: Grep searches the cwd, hidden files included; `content` would print the line.
        "tool-search-secret": [Call("Grep", {"pattern": "DATABASE", "output_mode": "content"})],
        "tier-2": [_bash("mkdir -p build/out")],
    }
    return plans[scenario]


def run(project: Path, home: Path, url: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    exe = client(CLIENT)
    assert exe is not None
    env = {**env, "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-test-offline",
           "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
           # --dangerously-skip-permissions is refused as root unless the run says it is sandboxed
           "IS_SANDBOX": "1"}
    return subprocess.run([exe, "-p", "do the task", "--output-format", "json", "--dangerously-skip-permissions",
                           "--allowedTools", "Grep"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=300)
