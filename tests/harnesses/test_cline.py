"""Cline: `handrail hook cline` as Cline CLI 3 and the VS Code extension call it, and the
real Cline CLI 3 offline (a scripted model server plays its model; the project's
.clinerules/hooks/PreToolUse runs handrail before each tool call)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from drivers import cline as driver
from helpers import HANDRAIL, git
from hookkit import hook, needs_client
from modelserver import Call, ModelServer

from handrail.harnesses import cline
from handrail.policy import agents

PUSH = "git push --force origin main"


def cli(project: Path, tool: str, tool_input: object) -> dict:
    """What Cline CLI 3 sends: the input as the tool runs it, and the JSON-encoded copy."""
    params = {k: v if isinstance(v, str) else json.dumps(v) for k, v in tool_input.items()} \
        if isinstance(tool_input, dict) else {}
    r = hook("cline", {"hookName": "tool_call", "workspaceRoots": [str(project)],
                       "tool_call": {"id": "call_1", "name": tool, "input": tool_input},
                       "preToolUse": {"toolName": tool, "parameters": params}}, cwd=project)
    assert r.code == 0 and r.json is not None, r
    return r.json


def extension(project: Path, tool: str, parameters: dict) -> dict:
    r = hook("cline", {"hookName": "PreToolUse", "workspaceRoots": [str(project)],
                       "preToolUse": {"toolName": tool, "parameters": parameters}}, cwd=project)
    assert r.code == 0 and r.json is not None, r
    return r.json


def strings(value: object) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return [value] if isinstance(value, str) else []


def refused(reply: dict) -> str:
    """The reason of a Cline CLI 3 refusal: the call's input replaced by one that answers with
    the reason, and the reason as context."""
    assert reply["cancel"] is False, reply
    reason = str(reply["contextModification"])
    assert reason.startswith("handrail: "), reply
    assert any(reason in s for s in strings(reply["overrideInput"])), reply
    return reason


# --------------------------------------------------------------------------- the hook


def test_every_command_of_run_commands_is_judged_and_the_strictest_answers(project: Path) -> None:
    assert cli(project, "run_commands", {"commands": ["git status"]}) == {"cancel": False}
    assert "git push" in refused(cli(project, "run_commands", {"commands": ["git status", PUSH]}))
    notice = cli(project, "run_commands", {"commands": ["git status", "mkdir -p build/out"]})
    assert notice["cancel"] is False and "notice" in notice["contextModification"]
    assert "overrideInput" not in notice


@pytest.mark.parametrize("tool_input", [
    PUSH, [PUSH], {"commands": PUSH}, {"command": PUSH}, {"cmd": PUSH},
    {"command": "git", "args": ["push", "--force", "origin", "main"]},
    {"commands": [{"command": "git", "args": ["push", "--force", "origin", "main"]}]},
])
def test_run_commands_is_read_in_every_shape_its_schema_takes(project: Path, tool_input: object) -> None:
    assert "git push" in refused(cli(project, "run_commands", tool_input))


def test_a_here_document_given_line_by_line_is_judged_as_the_one_command_it_runs(project: Path) -> None:
    lines = ["cat > .handrail/autonomy-protocol.json <<'EOF'", "{}", "EOF"]
    assert "autonomy-protocol.json" in refused(cli(project, "run_commands", {"commands": lines}))


def test_json_encoded_parameters_are_decoded_and_bad_json_is_refused(project: Path) -> None:
    out = extension(project, "read_files", {"files": json.dumps([{"path": ".env"}])})
    assert out["cancel"] is True and ".env" in out["errorMessage"]
    out = extension(project, "run_commands", {"commands": json.dumps(["ls", PUSH])})
    assert out["cancel"] is True and "git push" in out["errorMessage"]
    bad = extension(project, "run_commands", {"commands": '["ls", '})
    assert bad["cancel"] is True and "parameters.commands: not valid JSON" in bad["errorMessage"]


def test_edits_reads_and_patches_of_cline_3(project: Path) -> None:
    app, env = str(project / "src" / "app.py"), str(project / ".env")
    assert cli(project, "editor", {"path": app, "old_text": "old", "new_text": "new"}) == {"cancel": False}
    assert "docs/notes.md" in refused(cli(project, "editor", {"path": str(project / "docs" / "notes.md"),
                                                              "new_text": "x"}))
    for shape in ({"files": [{"path": env}]}, env, [env], {"files": [env]}, {"file_paths": [env]},
                  {"paths": env}, {"file_path": env}, {"files": [{"path": app}, {"path": env}]}):
        assert ".env" in refused(cli(project, "read_files", shape)), shape
    assert cli(project, "read_files", {"files": [{"path": app}]}) == {"cancel": False}
    patch = "*** Begin Patch\n*** Add File: docs/notes.md\n+x\n*** End Patch\n"
    assert "docs/notes.md" in refused(cli(project, "apply_patch", {"input": patch}))
    assert "docs/notes.md" in refused(cli(project, "apply_patch", patch))


def test_search_codebase_over_a_secret_is_refused(project: Path) -> None:
    assert ".env" in refused(cli(project, "search_codebase", {"queries": ["DATABASE"]}))
    (project / ".env").unlink()
    assert cli(project, "search_codebase", {"queries": ["DATABASE"]}) == {"cancel": False}


def test_cline_3_payloads_it_cannot_read_are_refused(project: Path) -> None:
    assert "run_commands without commands" in refused(cli(project, "run_commands", {"script": "ls"}))
    assert "input.files[0]" in refused(cli(project, "read_files", {"files": [{"path": 3}]}))
    r = hook("cline", {"hookName": "tool_call", "tool_call": {"name": "editor", "input": {}},
                       "preToolUse": {"toolName": "run_commands", "parameters": {}}}, cwd=project)
    # Not knowing which tool runs, or whose payload it is: cancel.
    assert r.json is not None and r.json["cancel"] is True
    assert "differs from preToolUse.toolName" in r.json["errorMessage"]
    r = hook("cline", {"hookName": "tool_call", "tool_call": "x"}, cwd=project)
    assert r.json is not None and r.json["cancel"] is True


def test_the_extension_tools_still_cancel(project: Path) -> None:
    assert extension(project, "execute_command", {"command": "git status"}) == {"cancel": False}
    out = extension(project, "execute_command", {"command": PUSH})
    assert out["cancel"] is True and "git push" in out["errorMessage"]
    assert extension(project, "write_to_file", {"path": ".env", "content": "x"})["cancel"] is True
    out = extension(project, "search_files", {"path": ".", "regex": "DATABASE", "file_pattern": "*.py"})
    assert out == {"cancel": False}
    assert extension(project, "search_files", {"path": ".", "regex": "DATABASE"})["cancel"] is True


# --------------------------------------------------------------------------- the real client


def install_hook(project: Path) -> None:
    """What `handrail permissions` writes for Cline."""
    path = project / cline.HOOK_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(cline.SCRIPT)
    path.chmod(0o755)


def run_cline(project: Path, home: Path, script: list[Call]) -> tuple[subprocess.CompletedProcess[str],
                                                                       ModelServer, list[dict]]:
    assert HANDRAIL
    # A loaded machine must not turn an answer into "took too long to judge".
    env = {**os.environ, "PATH": f"{Path(HANDRAIL).parent}{os.pathsep}{os.environ['PATH']}",
           "HANDRAIL_HOOK_DEADLINE_MS": "30000"}
    for var in agents.VARIABLES:
        env.pop(var, None)
    with ModelServer(script) as srv:
        r = driver.run(project, home, srv.url, env)
    events = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    return r, srv, events


@pytest.mark.slow
@needs_client("cline")
def test_a_refusal_reaches_cline_s_model_and_the_run_goes_on(project: Path, tmp_path: Path) -> None:
    install_hook(project)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(project, "remote", "add", "origin", str(remote))
    git(project, "push", "-q", "--no-verify", "origin", "main")
    before = git(project, "rev-parse", "main").stdout.strip()
    git(project, "commit", "-q", "--no-verify", "--allow-empty", "-m", "local")
    app = project / "src" / "app.py"
    notes = project / "docs" / "notes.md"
    # Four refusals in a row: Cline ends a run after 3 turns whose every call failed, and
    # these are no failures to it.
    script = [Call("run_commands", {"commands": ["git status", PUSH]}),
              Call("read_files", {"files": [{"path": str(project / ".env")}]}),
              Call("editor", {"path": str(notes), "new_text": "notes\n"}),
              Call("search_codebase", {"queries": ["DATABASE"]}),
              Call("editor", {"path": str(app), "old_text": "print('old')", "new_text": "print('new')"})]
    r, srv, events = run_cline(project, tmp_path / "home", script)

    assert git(remote, "rev-parse", "main").stdout.strip() == before  # the force push never ran
    assert app.read_text() == "print('new')\n"  # the call after the refusals ran
    assert not notes.exists() and not list(project.glob("handrail*"))
    # Each refusal is the tool's own answer, so no call failed in Cline's eyes.
    assert "handrail: refused" in srv.results[0] and "handrail: denied: reading .env" in srv.results[1]
    assert "docs/notes.md" in srv.results[2] and ".env holds secrets" in srv.results[3]
    told = srv.told()
    assert "hunter2" not in told
    done = [e for e in events if e.get("type") == "run_result"]
    assert done and done[-1]["finishReason"] == "completed", r.stdout[-3000:]


@pytest.mark.slow
@needs_client("cline")
def test_cline_3_marks_its_shell_commands_as_an_agent_s(project: Path, tmp_path: Path) -> None:
    install_hook(project)
    out = project / "src" / "env.txt"
    # A plain `env` is tier 3 (it prints every secret): the variables that may mark Cline, one a line.
    names = [v for v in agents.VARIABLES if "CLINE" in v]
    lines = [f'printf "[%s]\\n" "${v}" >> {out}' for v in names]  # no NAME=: that reads as setting it
    _r, srv, _ = run_cline(project, tmp_path / "home", [Call("run_commands", {"commands": [" && ".join(lines)]})])
    values = [line[1:-1] for line in out.read_text().splitlines()]
    seen = {name: value for name, value in zip(names, values, strict=True) if value}
    assert "CLINE_ACTIVE" not in seen
    assert "handrail: notice" in srv.told()  # the write into src/ was a tier-2 notice
    agent = agents.detect(seen)
    assert agent is not None and agent.harness == "cline", seen
    assert agent.variable == "CLINE_CONNECTOR_CLI_LAUNCH"
