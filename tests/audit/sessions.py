"""Sessions made by the real clients, offline: the scripted model server plays the agent's
tool calls in a scratch project and a scratch home, and the client writes its transcript
where it always does. Used to make the fixtures under tests/data/audit/ and to check, where
a client is installed, that the readers still read what the client writes today."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from drivers import codex as codex_driver
from helpers import HANDRAIL, git, run_handrail
from hookkit import client, make_project
from modelserver import Call, ModelServer

from handrail.policy import agents

SECRET = "DATABASE_PASSWORD=hunter2\n"


def project(path: Path, *, guarded: bool) -> Path:
    """hookkit's project (task 'login' in implement, scoped to src/** and tests/**), with a bare
    remote as origin; guarded: `handrail init` has written every harness's hooks."""
    make_project(path)
    remote = path.parent / "origin.git"
    git(path.parent, "init", "-q", "--bare", str(remote))
    git(path, "remote", "add", "origin", str(remote))
    if guarded:
        r = run_handrail("init", cwd=path)
        assert r.returncode == 0, r.stderr
    return path


def _env(home: Path) -> dict[str, str]:
    assert HANDRAIL
    markers = set(agents.VARIABLES)
    env = {k: v for k, v in os.environ.items() if k not in markers and not k.startswith("CODEX_")}
    env.update(HOME=str(home), PATH=os.path.dirname(HANDRAIL) + os.pathsep + env.get("PATH", ""),
               HANDRAIL_HOOK_DEADLINE_MS="20000")
    return env


def claude_script(root: Path) -> list[Call]:
    def bash(command: str) -> Call:
        return Call("Bash", {"command": command, "description": "x"})

    return [
        bash("git status --short"),
        bash("git push --force origin main"),
        Call("Read", {"file_path": str(root / ".env")}),
        Call("Write", {"file_path": str(root / "docs" / "notes.md"), "content": "notes\n"}),
        Call("Read", {"file_path": str(root / "src" / "app.py")}),
        Call("Edit", {"file_path": str(root / "src" / "app.py"), "old_string": "print('old')",
                      "new_string": "print('new')"}),
        Call("Grep", {"pattern": "print", "path": str(root / "src")}),
        bash("ls /nonexistent-folder"),
    ]


def harmless_claude_script(root: Path) -> list[Call]:
    return [Call("Bash", {"command": "git status --short", "description": "x"}),
            Call("Read", {"file_path": str(root / "src" / "app.py")})]


def run_claude(root: Path, home: Path, calls: list[Call]) -> list[Path]:
    """`claude -p` in `root` with `home` as HOME; the transcripts it wrote."""
    exe = client("claude")
    assert exe is not None
    home.mkdir(parents=True, exist_ok=True)
    with ModelServer(calls) as srv:
        env = _env(home)
        env.update(ANTHROPIC_BASE_URL=srv.url, ANTHROPIC_API_KEY="sk-test-offline", DISABLE_AUTOUPDATER="1",
                   DISABLE_TELEMETRY="1", DISABLE_ERROR_REPORTING="1",
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", IS_SANDBOX="1")
        r = subprocess.run([exe, "-p", "do the task", "--output-format", "json", "--dangerously-skip-permissions"],
                           cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return sorted((home / ".claude" / "projects").glob("*/*.jsonl"))


def codex_script(root: Path) -> list[Call]:
    def shell(command: str) -> Call:
        return Call("exec_command", {"cmd": command, "workdir": str(root), "tty": False})

    def patch(body: str) -> Call:
        return Call("apply_patch", {"input": f"*** Begin Patch\n{body}*** End Patch\n"}, custom=True)

    return [
        shell("git status --short"),
        shell("git push --force origin main"),
        shell("cat .env"),
        patch("*** Add File: docs/notes.md\n+notes\n"),
        patch("*** Update File: src/app.py\n@@\n-print('old')\n+print('new')\n"),
    ]


def run_codex(root: Path, home: Path, calls: list[Call]) -> list[Path]:
    """`codex exec` in `root` with `home` as HOME; the rollout files it wrote."""
    home.mkdir(parents=True, exist_ok=True)
    with ModelServer(calls) as srv:
        r = codex_driver.run(root, home, srv.url, _env(home))
    assert r.returncode == 0, r.stderr[-2000:]
    return sorted((home / ".codex" / "sessions").glob("**/rollout-*.jsonl"))


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


# --------------------------------------------------------------------------- fixtures

ROOT = "/PROJECT"  # the project's folder in a committed fixture; a test puts its own in its place
HOME = "/HOME"
BASE = "/BASE"  # the scratch folder around them (the bare remote's)
_CLAUDE_KEEP = frozenset({"user", "assistant", "queue-operation", "last-prompt"})
_CODEX_DROP = frozenset({"token_usage_record", "world_state"})


def trimmed(harness: str, text: str, root: Path, home: Path) -> str:
    """A transcript cut down to what the readers read, with the scratch folders renamed
    (ROOT, HOME): small enough to commit, and still the client's own lines."""
    out = []
    for raw in text.splitlines():
        rec = json.loads(raw)
        rec = _trim_claude(rec) if harness == "claude" else _trim_codex(rec)
        if rec is not None:
            line = json.dumps(rec, ensure_ascii=False)
            out.append(line.replace(str(home), HOME).replace(str(root), ROOT).replace(str(root.parent), BASE))
    return "\n".join(out) + "\n"


def _trim_claude(rec: dict[str, Any]) -> dict[str, Any] | None:
    kind = rec.get("type")
    if kind == "attachment":
        att = rec.get("attachment") or {}
        return rec if att.get("type") in ("hook_success", "hook_blocking_error") else None
    if kind not in _CLAUDE_KEEP:
        return None
    message = rec.get("message")
    if isinstance(message, dict):
        message.pop("usage", None)
    if isinstance(rec.get("toolUseResult"), dict):
        rec["toolUseResult"] = {k: v for k, v in rec["toolUseResult"].items() if k in ("type", "filePath", "stdout")}
    return rec


def _trim_codex(rec: dict[str, Any]) -> dict[str, Any] | None:
    kind, payload = rec.get("type"), rec.get("payload")
    counted = kind == "event_msg" and isinstance(payload, dict) and payload.get("type") == "token_count"
    if kind in _CODEX_DROP or counted:
        return None
    if kind == "session_meta" and isinstance(payload, dict):
        rec["payload"] = {k: payload[k] for k in ("id", "timestamp", "cwd", "originator", "cli_version", "source")
                          if k in payload}
    elif kind == "turn_context" and isinstance(payload, dict):
        rec["payload"] = {k: payload[k] for k in ("turn_id", "cwd", "approval_policy", "model") if k in payload}
    elif kind == "response_item" and isinstance(payload, dict) and payload.get("type") == "message":
        if payload.get("role") in ("developer", "user") and len(json.dumps(payload)) > 400:
            payload["content"] = [{"type": "input_text", "text": "(trimmed)"}]
    elif kind == "event_msg" and isinstance(payload, dict):
        return {**rec, "payload": {k: payload[k] for k in ("type", "turn_id") if k in payload}}
    return rec


SCENARIOS = ("unguarded", "guarded", "harmless")


def make(harness: str, scenario: str, base: Path) -> tuple[Path, Path, list[Path]]:
    """Run the real client for one scenario under `base`: (project, home, session files)."""
    root = project(base / "project", guarded=scenario == "guarded")
    home = base / "home"
    if harness == "claude":
        calls = harmless_claude_script(root) if scenario == "harmless" else claude_script(root)
        return root, home, run_claude(root, home, calls)
    calls = harmless_codex_script(root) if scenario == "harmless" else codex_script(root)
    return root, home, run_codex(root, home, calls)


def harmless_codex_script(root: Path) -> list[Call]:
    return [Call("exec_command", {"cmd": "git status --short", "workdir": str(root), "tty": False}),
            Call("apply_patch", {"input": "*** Begin Patch\n*** Update File: src/app.py\n@@\n-print('old')\n"
                                          "+print('new')\n*** End Patch\n"}, custom=True)]


def fixture(harness: str, scenario: str) -> Path:
    return Path(__file__).parent.parent / "data" / "audit" / f"{harness}-{scenario}.jsonl"


if __name__ == "__main__":  # regenerate the committed fixtures: python tests/audit/sessions.py
    import sys
    import tempfile

    for name in ("claude", "codex"):
        for scenario in SCENARIOS:
            with tempfile.TemporaryDirectory() as tmp:
                root, home, files = make(name, scenario, Path(tmp))
                assert len(files) == 1, files
                fixture(name, scenario).parent.mkdir(parents=True, exist_ok=True)
                fixture(name, scenario).write_text(trimmed(name, files[0].read_text(), root, home))
                print(fixture(name, scenario), file=sys.stderr)
