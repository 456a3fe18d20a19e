"""The real Codex client: what its shell sets (the agent markers handrail reads), and where
it records hook trust (what `trust_state` reads). Each test skips where codex is absent."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from drivers import codex as driver
from helpers import HANDRAIL, run_handrail
from hookkit import client, make_project, needs_client
from modelserver import Call, ModelServer

from handrail.harnesses import codex
from handrail.policy import agents


@needs_client("codex")
def test_codex_exec_shell_sets_the_markers_handrail_names_codex(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    assert run_handrail("init", cwd=project).returncode == 0
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODEX_")}
    env["HANDRAIL_HOOK_DEADLINE_MS"] = "20000"  # judged, not timed: a loaded machine must not refuse the echo
    env["PATH"] = f"{os.path.dirname(HANDRAIL or 'handrail')}{os.pathsep}{env.get('PATH', '')}"  # the hooks run it
    shown = "; ".join(f'echo "{v}=${v}"' for v in ("CODEX_CI", "CODEX_THREAD_ID", "CODEX_SANDBOX_NETWORK_DISABLED"))
    script = [Call("exec_command", {"cmd": c, "workdir": str(project), "tty": False}) for c in ("env", shown)]
    with ModelServer(script) as srv:
        r = driver.run(project, home, srv.url, {**env, "HOME": str(home)})
    assert r.returncode == 0, r.stderr[-2000:]
    assert "handrail:" in srv.results[0] and "CODEX_THREAD_ID" not in srv.results[0]  # the whole environment: tier 3
    seen = dict(line.split("=", 1) for line in srv.results[1].splitlines() if line.startswith("CODEX_"))
    assert seen.get("CODEX_CI") == "1" and seen.get("CODEX_THREAD_ID")
    markers = {k: v for k, v in seen.items() if v}
    found = agents.detect(markers)
    assert found is not None and found.harness == "codex", (markers, found)


def hooks_seen_by_codex(project: Path, codex_home: Path) -> dict[str, dict]:
    """Codex's own view of the project's hooks (its app server's hooks/list)."""
    hello = {"clientInfo": {"name": "t", "version": "1"}}
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
             {"jsonrpc": "2.0", "method": "initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(project)]}}]
    exe = client("codex")
    assert exe
    proc = subprocess.Popen([exe, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "CODEX_HOME": str(codex_home), "HOME": str(codex_home.parent)})
    assert proc.stdin and proc.stdout
    proc.stdin.write("".join(json.dumps(x) + "\n" for x in lines))
    proc.stdin.flush()
    try:
        for line in proc.stdout:
            msg = json.loads(line)
            if msg.get("id") == 2:
                return {h["key"]: h for h in msg["result"]["data"][0]["hooks"]}
        raise AssertionError("codex app-server answered no hooks/list")
    finally:
        proc.kill()
        proc.wait()


@needs_client("codex")
def test_trust_state_reads_where_codex_records_hook_trust(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    project = make_project(tmp_path / "project").resolve()
    assert run_handrail("init", cwd=project).returncode == 0
    home = tmp_path / "home"
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    assert codex.trust_state(str(project), str(home)) is False  # no config.toml: nothing trusted
    config = f'[projects.{json.dumps(str(project))}]\ntrust_level = "trusted"\n'
    (codex_home / "config.toml").write_text(config)
    hooks = hooks_seen_by_codex(project, codex_home)
    ours = next(k for k, h in hooks.items() if codex.HOOK_MARK in h["command"] and h["eventName"] == "preToolUse")
    assert hooks[ours]["trustStatus"] == "untrusted"
    assert codex.trust_state(str(project), str(home)) is False
    # What Codex's /hooks writes when the user trusts the hook: the handler's hash under its key.
    config += f'\n[hooks.state.{json.dumps(ours)}]\ntrusted_hash = {json.dumps(hooks[ours]["currentHash"])}\n'
    (codex_home / "config.toml").write_text(config)
    assert hooks_seen_by_codex(project, codex_home)[ours]["trustStatus"] == "trusted"
    assert codex.trust_state(str(project), str(home)) is True
    assert codex.trust_state(str(project), str(tmp_path / "nobody")) is None  # no Codex home at all
