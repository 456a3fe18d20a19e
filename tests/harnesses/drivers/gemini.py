"""Gemini CLI in the parity suite: `gemini -p` against the scripted server's Gemini dialect,
in YOLO mode (every call approved by the client itself), the folder trusted through the
environment so that the project's hooks and policy load."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from hookkit import client
from modelserver import Call

NAME = "gemini"
CLIENT = "gemini"
MODEL = "gemini-2.5-pro"  # a named model: the default router spends a minute on classifier calls


def calls(scenario: str, project: Path) -> list[Call] | str:
    def write(rel: str, content: str) -> Call:
        return Call("write_file", {"file_path": str(project / rel), "content": content})

    def shell(command: str) -> Call:
        return Call("run_shell_command", {"command": command})

    return {
        "in-scope-write": [write("src/app.py", "print('new')\n")],
        "out-of-scope-write": [write("docs/notes.md", "notes\n")],
        "protected-write": [write(".handrail/autonomy-protocol.json", "{}\n")],
        "force-push": [shell("git push --force origin main")],
        "shell-read-env": [shell("cat .env")],
        "tool-search-secret": [Call("grep_search", {"pattern": "DATABASE"})],
        "tier-2": [shell("mkdir -p build/out")],
    }[scenario]


def settings(home: Path) -> None:
    """The user's settings: an API key login, so that the run needs no Google account."""
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(
        {"security": {"auth": {"selectedType": "gemini-api-key"}}}))


def run(project: Path, home: Path, url: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    binary = client(CLIENT)
    assert binary is not None
    settings(home)
    env = {**env, "GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": "x", "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    return subprocess.run([binary, "-p", "Do the task.", "--output-format", "json", "-m", MODEL,
                           "--approval-mode", "yolo"], cwd=project, env=env, text=True, capture_output=True,
                          stdin=subprocess.DEVNULL, timeout=300, check=False)
