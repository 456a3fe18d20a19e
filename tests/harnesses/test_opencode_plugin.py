"""handrail's OpenCode plugin: its behaviour under Node (with a stand-in for Bun's `$`),
and the real `opencode` discovering it in `.opencode/plugin/`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import HANDRAIL
from hookkit import client, hook, needs_client

import handrail

PLUGIN = Path(handrail.__file__).parent / "template" / "opencode" / "handrail.js"
DRIVER = Path(__file__).parent / "opencode_driver.mjs"
NODE = shutil.which("node")


def drive(tmp_path: Path, project: Path, calls: list[dict], *, bin: str | None = HANDRAIL) -> dict:
    """Run the plugin under Node on `calls`; what it let through and what it threw."""
    assert NODE
    folder = tmp_path / "plugin"
    folder.mkdir(exist_ok=True)
    shutil.copy(PLUGIN, folder / "handrail.js")
    (folder / "package.json").write_text('{"type": "module"}')  # Node reads the .js as the module Bun sees
    env = {**os.environ, "HANDRAIL_BIN": bin or ""}
    r = subprocess.run([NODE, str(DRIVER), str(folder / "handrail.js")], input=json.dumps(
        {"directory": str(project), "calls": calls}), text=True, capture_output=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed: the OpenCode plugin cannot be run")


@needs_node
def test_the_plugin_blocks_what_handrail_refuses_and_lets_the_rest_through(tmp_path: Path, project: Path) -> None:
    out = drive(tmp_path, project, [
        {"tool": "bash", "args": {"command": "git status", "description": "s"}},
        {"tool": "bash", "args": {"command": "git push --force origin main", "description": "p"}},
        {"tool": "edit", "args": {"filePath": str(project / ".env"), "oldString": "a", "newString": "b"}},
        {"tool": "write", "args": {"filePath": str(project / "src" / "new.py"), "content": ""}},
        {"tool": "bash", "args": {"command": "npm install", "description": "i"}},
        {"tool": "webfetch", "args": {"url": "https://example.com"}},
        {"tool": "apply_patch", "args": {"patchText": "*** Begin Patch\n*** Add File: src/vendor/x.js\n+x\n"
                                                      "*** End Patch"}},
    ])
    assert out["plugins"] == 1
    results = out["results"]
    assert results[0] == {"ran": True}
    assert "git push --force" in results[1]["error"] and "a human runs it" in results[1]["error"]
    assert ".env*" in results[2]["error"]
    assert results[3] == {"ran": True}
    assert results[4] == {"ran": True} and any("npm install" in m for m in out["logs"])
    assert results[5] == {"ran": True}
    assert "src/vendor/**" in results[6]["error"]


@needs_node
def test_the_plugin_blocks_everything_when_handrail_is_missing(tmp_path: Path, project: Path) -> None:
    out = drive(tmp_path, project, [{"tool": "bash", "args": {"command": "git status"}}],
                bin=str(tmp_path / "no-such-handrail"))
    assert "cannot run" in out["results"][0]["error"]


@needs_node
def test_the_plugin_blocks_everything_when_handrail_answers_garbage(tmp_path: Path, project: Path) -> None:
    fake = tmp_path / "fake-handrail"
    fake.write_text("#!/bin/sh\necho 'I am not JSON'\necho 'something broke' >&2\nexit 0\n")
    fake.chmod(0o755)
    out = drive(tmp_path, project, [{"tool": "bash", "args": {"command": "git status"}}], bin=str(fake))
    error = out["results"][0]["error"]
    assert "no readable answer" in error and "something broke" in error


@needs_node
def test_the_plugin_blocks_an_answer_it_does_not_know(tmp_path: Path, project: Path) -> None:
    fake = tmp_path / "fake-handrail"
    fake.write_text("#!/bin/sh\necho '{\"decision\": \"maybe\"}'\n")
    fake.chmod(0o755)
    out = drive(tmp_path, project, [{"tool": "bash", "args": {"command": "git status"}}], bin=str(fake))
    assert "error" in out["results"][0]


@pytest.mark.slow
@needs_client("opencode")
def test_the_real_opencode_lists_the_plugin(tmp_path: Path, project: Path) -> None:
    folder = project / ".opencode" / "plugin"
    folder.mkdir(parents=True)
    shutil.copy(PLUGIN, folder / "handrail.js")
    home = tmp_path / "opencode-home"
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_DATA_HOME": str(home / ".local" / "share"), "XDG_CACHE_HOME": str(home / ".cache"),
           "XDG_STATE_HOME": str(home / ".local" / "state"), "OPENCODE_DISABLE_AUTOUPDATE": "1"}
    exe = client("opencode")
    assert exe is not None
    r = subprocess.run([exe, "debug", "config"], cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    config = json.loads(r.stdout[r.stdout.index("{"):])
    assert (folder / "handrail.js").as_uri() in config["plugin"]


@needs_node
def test_a_grep_over_a_secret_is_narrowed_to_leave_it_out_and_one_with_its_own_glob_is_refused(
        tmp_path: Path, project: Path) -> None:
    (project / "src" / "settings.py").write_text("DATABASE_URL = 'x'\n")
    out = drive(tmp_path, project, [
        {"tool": "grep", "args": {"pattern": "DATABASE"}},
        {"tool": "grep", "args": {"pattern": "DATABASE", "include": "*.py"}},
        {"tool": "grep", "args": {"pattern": "DATABASE", "include": ".env*"}},
        {"tool": "grep", "args": {"pattern": "DATABASE", "path": str(project / "src")}},
    ])
    narrowed, own_glob, aimed, elsewhere = out["results"]
    assert narrowed == {"ran": True, "args": {"pattern": "DATABASE", "include": "!**/.env"}}
    assert any("narrowed grep" in m for m in out["logs"])
    assert own_glob == {"ran": True}
    assert "handrail: denied: grep would search" in aimed["error"] and ".env" in aimed["error"]
    assert elsewhere == {"ran": True}


def test_grep_naming_a_file_is_judged_by_the_folder_it_really_searches(project: Path) -> None:
    # OpenCode's grep runs ripgrep in the folder of a file it is pointed at: all of src/ here.
    (project / "src" / "settings.py").write_text("DATABASE_URL = 'x'\n")
    (project / "src" / ".env.local").write_text("DATABASE_PASSWORD=hunter2\n")
    r = hook("opencode", {"tool": "grep", "args": {"pattern": "DATABASE", "path": str(project / "src" / "settings.py")},
                          "directory": str(project), "worktree": str(project)}, cwd=project)
    assert r.code == 0 and r.json is not None
    assert r.json["decision"] == "deny" and "src/.env.local" in r.json["message"]
    assert r.json["narrow"] == {"include": "!**/.env.local"}
    r = hook("opencode", {"tool": "glob", "args": {"pattern": "**/*"}, "directory": str(project)}, cwd=project)
    assert r.json == {"decision": "none", "message": ""}  # names only: no file's text is printed


def opencode_env(home: Path) -> dict[str, str]:
    from test_parity import base_env

    return base_env(home)


@pytest.mark.slow
@needs_client("opencode")
def test_a_real_run_leaves_the_generated_opencode_json_unchanged(tmp_path: Path, project: Path) -> None:
    from drivers import opencode as driver
    from modelserver import ModelServer

    r = subprocess.run([HANDRAIL, "init"], cwd=project, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads((project / "opencode.json").read_text())["$schema"] == "https://opencode.ai/config.json"
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "handrail init"], cwd=project, check=True)
    home = tmp_path / "home"
    home.mkdir()
    with ModelServer([]) as srv:
        run = driver.run(project, home, srv.url, opencode_env(home))
    assert run.returncode == 0, run.stderr[-2000:]
    assert srv.requests  # it did start a session, reading its config
    status = subprocess.run(["git", "status", "--porcelain"], cwd=project, capture_output=True, text=True)
    assert status.stdout == "", status.stdout


@pytest.mark.slow
@needs_client("opencode")
def test_the_commands_opencode_runs_are_known_as_opencodes(tmp_path: Path) -> None:
    # handrail refuses `env` (it prints every token), so this runs in a folder it does not guard.
    from drivers import opencode as driver
    from modelserver import Call, ModelServer

    from handrail.policy.agents import detect

    folder = tmp_path / "plain"
    folder.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    home = tmp_path / "home"
    home.mkdir()
    with ModelServer([Call("bash", {"command": "env", "description": "environment"})]) as srv:
        run = driver.run(folder, home, srv.url, opencode_env(home))
    assert run.returncode == 0, run.stderr[-2000:]
    assert srv.results, run.stdout[-2000:]
    seen = dict(line.split("=", 1) for line in srv.results[0].splitlines() if "=" in line)
    agent = detect(seen)
    assert agent is not None and agent.harness == "opencode", (agent, sorted(seen))
