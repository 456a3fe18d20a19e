"""The parity suite's driver for Cline CLI 3 (npm `cline`): its model's tool calls for each
scenario, and one offline run of the real client against the scripted model server."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from hookkit import client
from modelserver import Call

NAME = "cline"
CLIENT = "cline"
MODEL = "mock-model"


def calls(scenario: str, project: Path) -> list[Call] | str:
    """Cline's own tools: `editor` edits, `run_commands` runs shell, `search_codebase` searches."""
    shell = {"force-push": "git push --force origin main", "shell-read-env": "cat .env",
             "tier-2": "mkdir -p build/out"}
    if scenario in shell:
        return [Call("run_commands", {"commands": [shell[scenario]]})]
    if scenario == "in-scope-write":
        return [Call("editor", {"path": str(project / "src" / "app.py"), "old_text": "print('old')",
                                "new_text": "print('new')"})]
    if scenario == "out-of-scope-write":
        return [Call("editor", {"path": str(project / "docs" / "notes.md"), "new_text": "notes\n"})]
    if scenario == "protected-write":
        return [Call("editor", {"path": str(project / ".handrail" / "autonomy-protocol.json"), "old_text": "{",
                                "new_text": "{\n"})]
    if scenario == "tool-search-secret":
        return [Call("search_codebase", {"queries": ["DATABASE"]})]
    return f"no Cline call is scripted for {scenario}"


def run(project: Path, home: Path, url: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`cline auth` then `cline --json` in a scratch HOME. The CLI approves every tool itself
    (auto-approve is its default, made explicit here): handrail's hook is the only guard.
    It leaves a `--cline-hub-daemon` behind, ended here by its pid."""
    exe = client(CLIENT)
    assert exe is not None, "the real cline client is not installed"
    env = {**env, "HOME": str(home), "CLINE_TELEMETRY_DISABLED": "1"}
    try:
        auth = subprocess.run([exe, "auth", "-p", "openai-compatible", "-k", "sk-offline", "-m", MODEL,
                               "-b", f"{url}/v1"], cwd=project, env=env, capture_output=True, text=True,
                              timeout=120)
        if auth.returncode != 0:
            return auth
        return subprocess.run([exe, "--json", "--auto-approve", "true", "Do the task."], cwd=project, env=env,
                              capture_output=True, text=True, timeout=300)
    finally:
        stop_daemons(home)


def stop_daemons(home: Path) -> None:
    """End the hub daemons this HOME started: found by their command line and their HOME."""
    for pid in _daemons(str(home)):
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass


def _daemons(home: str) -> list[int]:
    out = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if b"--cline-hub-daemon" not in f.read():
                    continue
            with open(f"/proc/{entry}/environ", "rb") as f:
                if f"HOME={home}".encode() not in f.read().split(b"\0"):
                    continue
        except OSError:
            continue
        out.append(int(entry))
    return out
