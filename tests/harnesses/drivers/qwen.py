"""Qwen Code for the parity suite: its model speaks OpenAI Chat Completions to the
scripted server, and `.qwen/settings.json` (written by `handrail init`) runs `handrail
hook qwen` before each tool call. `--yolo` approves every call in Qwen itself."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from hookkit import client
from modelserver import Call

NAME = "qwen"
CLIENT = "qwen"
MODEL = "m"


def calls(scenario: str, project: Path) -> list[Call] | str:
    """Qwen's tools take absolute paths; the shell runs in the project. Qwen changes an
    existing file only once it was read in the session, so an edit reads it first."""
    shell = {"force-push": "git push --force origin main", "shell-read-env": "cat .env",
             "tier-2": "mkdir -p build/out"}
    if scenario in shell:
        return [Call("run_shell_command", {"command": shell[scenario], "description": scenario})]
    if scenario == "in-scope-write":
        app = str(project / "src" / "app.py")
        return [Call("read_file", {"file_path": app}),
                Call("write_file", {"file_path": app, "content": "print('new')\n"})]
    if scenario == "out-of-scope-write":
        return [Call("write_file", {"file_path": str(project / "docs" / "notes.md"), "content": "notes\n"})]
    if scenario == "protected-write":
        policy = str(project / ".handrail" / "autonomy-protocol.json")
        return [Call("read_file", {"file_path": policy}),
                Call("edit", {"file_path": policy, "old_string": '"guarded"', "new_string": '"headless"',
                              "replace_all": True})]
    if scenario == "tool-search-secret":
        return [Call("grep_search", {"pattern": "DATABASE"})]  # no path: the project
    return f"no scenario {scenario!r} for qwen"


def run(project: Path, home: Path, url: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    exe = client(CLIENT)
    assert exe is not None
    settings = home / ".qwen" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    # The user's settings only choose the OpenAI-compatible provider and keep Qwen quiet.
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "openai"}},
                                    "general": {"enableAutoUpdate": False}}))
    run_env = {**env, "HOME": str(home), "OPENAI_BASE_URL": f"{url}/v1", "OPENAI_API_KEY": "sk-offline",
               "OPENAI_MODEL": MODEL}
    # A loaded test machine is not what is tested: the hook's own deadline is.
    run_env.setdefault("HANDRAIL_HOOK_DEADLINE_MS", "30000")
    return subprocess.run([exe, "-p", "do the task", "--output-format", "json", "--yolo"], cwd=project,
                          env=run_env, capture_output=True, text=True, timeout=300)
