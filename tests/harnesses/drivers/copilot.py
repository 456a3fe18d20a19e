"""The parity driver for GitHub Copilot CLI: `copilot -p` offline against the scripted model
server, spoken to as OpenAI Chat Completions (a BYOK provider given in COPILOT_PROVIDER_*,
with COPILOT_OFFLINE so that it calls nothing else). Model `gpt-4.1`: Copilot offers it
`create`/`edit` and `grep` (a gpt-5-codex id gets the free-form `apply_patch` and `rg`).

`--allow-all-tools` approves every call itself, so handrail's hooks are the only guard;
`--trust-folder` trusts the project for this one run: without trust Copilot loads no project
hook at all. In a `handrail init` repository it runs two of handrail's hooks on each call:
.github/hooks/handrail.json (`handrail hook copilot`) and the Claude-format one in
.claude/settings.json (`handrail hook claude`), in that order.

Copilot unpacks its own code into its cache folder on first start (seconds): the unpacked
copy is shared between runs in the clients' cache folder (COPILOT_CACHE_HOME), so each
scratch HOME starts at once."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from hookkit import CLIENTS_BIN, client
from modelserver import Call

NAME = "copilot"
CLIENT = "copilot"
MODEL = "gpt-4.1"
PROMPT = "do the task"


def cache_home(home: Path) -> str:
    """Where Copilot unpacks itself: beside the installed clients when that folder is writable."""
    shared = Path(CLIENTS_BIN).parent.parent / "copilot-cache"
    try:
        shared.mkdir(parents=True, exist_ok=True)
    except OSError:
        return str(home / ".cache" / "copilot")
    return str(shared) if os.access(shared, os.W_OK) else str(home / ".cache" / "copilot")


def calls(scenario: str, project: Path) -> list[Call] | str:
    app = str(project / "src" / "app.py")
    table: dict[str, list[Call]] = {
        "in-scope-write": [Call("edit", {"path": app, "old_str": "print('old')", "new_str": "print('new')"})],
        "out-of-scope-write": [Call("create", {"path": str(project / "docs" / "notes.md"), "file_text": "notes\n"})],
        "protected-write": [Call("edit", {"path": str(project / ".handrail" / "autonomy-protocol.json"),
                                          "old_str": "{", "new_str": "{\n"})],
        "force-push": [Call("bash", {"command": "git push --force origin main", "description": "push"})],
        "shell-read-env": [Call("bash", {"command": "cat .env", "description": "read"})],
        "tool-search-secret": [Call("grep", {"pattern": "DATABASE", "output_mode": "content"})],
        "tier-2": [Call("bash", {"command": "mkdir -p build/out", "description": "mkdir"})],
    }
    return table.get(scenario, f"no Copilot call for scenario {scenario!r}")


def environment(home: Path, url: str, env: dict[str, str], model: str = MODEL) -> dict[str, str]:
    return {**env, "HOME": str(home), "COPILOT_CACHE_HOME": cache_home(home), "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": f"{url}/v1", "COPILOT_PROVIDER_TYPE": "openai",
            "COPILOT_PROVIDER_WIRE_API": "completions", "COPILOT_PROVIDER_API_KEY": "x", "COPILOT_MODEL": model}


def run(project: Path, home: Path, url: str, env: dict[str, str], *, trust: bool = True,
        model: str = MODEL) -> subprocess.CompletedProcess[str]:
    exe = client(CLIENT)
    assert exe is not None
    flags = ["--trust-folder"] if trust else []
    return subprocess.run([exe, "-p", PROMPT, "--output-format", "json", "--allow-all-tools", *flags],
                          cwd=project, env=environment(home, url, env, model), capture_output=True, text=True,
                          timeout=300)
