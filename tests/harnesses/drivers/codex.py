"""Codex CLI for the parity suite: `codex exec --json` against the model server's Responses
API, with a provider and a trusted project in a scratch CODEX_HOME. Writes are the
free-form `apply_patch` tool, shell calls `exec_command {cmd, workdir, tty}`. The client
approves everything itself (`--dangerously-bypass-approvals-and-sandbox`) and runs the
project's hooks without the `/hooks` trust a person gives (`--dangerously-bypass-hook-trust`),
so handrail's hook is the only guard."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from hookkit import client
from modelserver import Call

NAME = "codex"
CLIENT = "codex"
PROMPT = "Work on the login task."
# A model Codex ships metadata for: with an unknown one it offers no apply_patch tool at all.
MODEL = "gpt-5.5"


def _patch(body: str) -> Call:
    return Call("apply_patch", {"input": f"*** Begin Patch\n{body}*** End Patch\n"}, custom=True)


def _shell(project: Path, command: str) -> Call:
    return Call("exec_command", {"cmd": command, "workdir": str(project), "tty": False})


def calls(scenario: str, project: Path) -> list[Call] | str:
    if scenario == "in-scope-write":
        return [_patch("*** Update File: src/app.py\n@@\n-print('old')\n+print('new')\n")]
    if scenario == "out-of-scope-write":
        return [_patch("*** Add File: docs/notes.md\n+notes\n")]
    if scenario == "protected-write":
        return [_patch("*** Update File: .handrail/autonomy-protocol.json\n@@\n-{\n+{\"x\": 1,\n")]
    if scenario == "force-push":
        return [_shell(project, "git push --force origin main")]
    if scenario == "shell-read-env":
        return [_shell(project, "cat .env")]
    if scenario == "tool-search-secret":
        return "Codex has no search tool of its own: it searches with rg or grep through exec_command"
    if scenario == "tier-2":
        return [_shell(project, "mkdir -p build/out")]
    raise ValueError(f"unknown scenario {scenario!r}")


def config(project: Path, url: str) -> str:
    """A CODEX_HOME/config.toml: the model server as a Responses provider, the project
    trusted (so its .codex/ rules and hooks load)."""
    return "\n".join([
        f"model = {json.dumps(MODEL)}",
        'model_provider = "mock"',
        "",
        "[model_providers.mock]",
        'name = "mock"',
        f"base_url = {json.dumps(url.rstrip('/') + '/v1')}",
        'wire_api = "responses"',
        'env_key = "MOCK_API_KEY"',
        "",
        f"[projects.{json.dumps(str(project.resolve()))}]",
        'trust_level = "trusted"',
        "",
    ])


def run(project: Path, home: Path, url: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    codex = client(CLIENT)
    assert codex
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(config(project, url))
    env = {**env, "CODEX_HOME": str(codex_home), "MOCK_API_KEY": "x"}
    return subprocess.run([codex, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox",
                           "--dangerously-bypass-hook-trust", "-C", str(project), PROMPT],
                          cwd=project, env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
