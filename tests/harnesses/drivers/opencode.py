"""The parity driver for OpenCode: `opencode run` offline against the scripted model
server, spoken to as OpenAI Chat through `@ai-sdk/openai-compatible` (a model id that
does not start with `gpt-5`, so OpenCode offers `edit` and `write`, not `apply_patch`).

`--auto` approves every permission OpenCode would ask for that no rule denies, so the
only guard left is handrail's plugin, which runs before OpenCode's own rules. grep runs
ripgrep: OpenCode looks for `rg` on PATH, then downloads one; the driver puts a local
copy on PATH so that nothing is fetched. `opencode run` works in $PWD, whatever its
process's cwd: the driver sets both."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from hookkit import CLIENTS_BIN, client
from modelserver import Call

NAME = "opencode"
CLIENT = "opencode"
MODEL = "m"


def ripgrep() -> str | None:
    """An `rg` binary: on PATH, or one of those the other clients bundle."""
    found = shutil.which("rg")
    if found:
        return found
    base = Path(CLIENTS_BIN).parent
    for rel in ("@qwen-code/qwen-code/vendor/ripgrep/x64-linux/rg",
                "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/codex-path/rg"):
        if os.access(base / rel, os.X_OK):
            return str(base / rel)
    return None


def calls(scenario: str, project: Path) -> list[Call] | str:
    app = str(project / "src" / "app.py")
    table: dict[str, list[Call]] = {
        # OpenCode refuses to overwrite a file the session has not read: read it first.
        "in-scope-write": [Call("read", {"filePath": app}),
                           Call("write", {"filePath": app, "content": "print('new')\n"})],
        "out-of-scope-write": [Call("write", {"filePath": str(project / "docs" / "notes.md"), "content": "notes\n"})],
        "protected-write": [Call("write", {"filePath": str(project / ".handrail" / "autonomy-protocol.json"),
                                           "content": "{}\n"})],
        "force-push": [Call("bash", {"command": "git push --force origin main", "description": "push"})],
        "shell-read-env": [Call("bash", {"command": "cat .env", "description": "read"})],
        "tool-search-secret": [Call("grep", {"pattern": "DATABASE"})],
        "tier-2": [Call("bash", {"command": "mkdir -p build/out", "description": "mkdir"})],
    }
    if scenario == "tool-search-secret" and ripgrep() is None:
        return "OpenCode's grep needs ripgrep, and no rg is installed here (OpenCode would download one)"
    return table.get(scenario, f"no OpenCode call for scenario {scenario!r}")


def run(project: Path, home: Path, url: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    exe = client(CLIENT)
    assert exe is not None
    tools = home / "bin"
    tools.mkdir(parents=True, exist_ok=True)
    rg = ripgrep()
    if rg is not None and not (tools / "rg").exists():
        (tools / "rg").symlink_to(rg)
    config = {"provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "mock",
                                    "options": {"baseURL": f"{url}/v1", "apiKey": "x"},
                                    "models": {MODEL: {"name": MODEL, "tool_call": True}}}}}
    # `opencode run` takes its folder from $PWD before the process's own: a PWD inherited from
    # the test runner would run every tool there. `--dir` and PWD both name the project.
    run_env = {**env, "PWD": str(project), "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
               "XDG_DATA_HOME": str(home / ".local" / "share"), "XDG_CACHE_HOME": str(home / ".cache"),
               "XDG_STATE_HOME": str(home / ".local" / "state"), "PATH": f"{tools}{os.pathsep}{env.get('PATH', '')}",
               "OPENCODE_CONFIG_CONTENT": json.dumps(config), "OPENCODE_DISABLE_AUTOUPDATE": "1",
               "OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1"}
    return subprocess.run([exe, "run", "--format", "json", "--auto", "--dir", str(project), "-m", f"mock/{MODEL}",
                           "do the task"],
                          cwd=project, env=run_env, capture_output=True, text=True, timeout=300)
