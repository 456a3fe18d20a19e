"""The generated files, read by the real clients: Codex's rule engine, OpenCode's
resolved permissions, and Claude Code driven offline by a scripted model server.
Each test skips with the reason where its client is not installed."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from fnmatch import fnmatchcase
from pathlib import Path

from helpers import HANDRAIL
from permkit import client, read_json

from handrail import prefixes
from handrail.policy import protocol as protocols

sys.path.insert(0, str(Path(__file__).parent.parent / "harnesses"))
from modelserver import Call, ModelServer


def default_project(repo: Path) -> Path:
    path = repo / ".handrail" / "autonomy-protocol.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(Path(protocols.DEFAULT_PROTOCOL).read_text(encoding="utf-8"), encoding="utf-8")
    return repo


def sample(pattern: str) -> list[str]:
    """A command the pattern matches: each `*` one word, each glob with its wildcards filled."""
    return [w.replace("*", "x").replace("?", "x") for w in pattern.split()]


def codex_engine() -> str:
    """The Codex binary. An npm install wraps it in a Node script that costs 0.1 s a
    call; the native binary next to it answers the same in a tenth of that."""
    wrapper = client("codex")
    real = os.path.realpath(wrapper)
    if real.endswith(os.path.join("bin", "codex.js")):
        scope = os.path.dirname(os.path.dirname(os.path.dirname(real)))
        for found in sorted(glob.glob(os.path.join(scope, "codex-*", "vendor", "*", "bin", "codex"))):
            if os.access(found, os.X_OK):
                return found
    return wrapper


def starts_like(head: list[str], pattern: str) -> bool:
    """Could a command of `pattern` begin with the words `head`: each `*` one word, a
    final `*` any words."""
    ws = pattern.split()
    for i, word in enumerate(head):
        if i >= len(ws):
            return False
        if ws[i] == "*" and i == len(ws) - 1:
            return True
        if not fnmatchcase(word, ws[i]):
            return False
    return True


def test_codex_prompts_for_every_tier_3_pattern_and_never_for_a_tier_1_command(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    codex = codex_engine()
    project = default_project(repo)
    assert handrail("permissions", "--tool", "codex", cwd=project).returncode == 0
    rules = project / ".codex" / "rules" / "handrail.rules"
    text = rules.read_text()
    proto = protocols.load(str(project))
    every = protocols.patterns(proto)
    tier3 = [p.text for p in every if p.tier == protocols.TIER3]
    tier1 = [p.text for p in every if p.tier == protocols.TIER1]

    def decision(argv: list[str]) -> str | None:
        r = subprocess.run([codex, "execpolicy", "check", "--rules", str(rules), "--", *argv],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout).get("decision")

    with ThreadPoolExecutor(max_workers=4) as pool:
        asked = dict(zip(tier3, pool.map(decision, map(sample, tier3))))
        silent = dict(zip(tier1, pool.map(decision, map(sample, tier1))))
    left_to_hook = [p for p in tier3 if f"#   {p}\n" in text]
    for pattern, got in asked.items():
        if pattern not in left_to_hook:
            assert got in ("prompt", "forbidden"), f"{pattern}: {' '.join(sample(pattern))} -> {got}"
    stricter = {p: d for p, d in silent.items() if d in ("prompt", "forbidden")}
    assert stricter == {}, stricter
    # A pattern is left to the hook only where a prefix rule on its words before the first
    # wildcard would also catch a tier-1 command (`aws * delete-* *` as `aws` would ask for
    # `aws s3 ls`); every other tier-3 pattern is a prefix rule that Codex itself enforces.
    for pattern in left_to_hook:
        head = prefixes.literal_prefix(pattern)
        assert not head or any(starts_like(head, t) for t in tier1), pattern
    assert len(left_to_hook) <= len(tier3) // 5, left_to_hook  # most are rules of Codex's own
    assert "decision = \"allow\"" not in text  # codex is guarded in the default policy

    # What no prefix rule can hold, handrail's Codex hook refuses.
    for pattern in left_to_hook:
        payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(project),
                   "tool_input": {"command": " ".join(sample(pattern))}}
        r = handrail("hook", "codex", cwd=project, input=json.dumps(payload))
        answer = json.loads(r.stdout)["hookSpecificOutput"]
        assert answer["permissionDecision"] == "deny", (pattern, r.stdout, r.stderr)


def test_codex_forbids_when_the_protocol_denies_tier_3(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    codex = codex_engine()
    project = default_project(repo)
    data = read_json(project / ".handrail" / "autonomy-protocol.json")
    data["tiers"]["tier3_blocking"]["decision"] = "deny"
    (project / ".handrail" / "autonomy-protocol.json").write_text(json.dumps(data))
    assert handrail("permissions", "--tool", "codex", cwd=project).returncode == 0
    r = subprocess.run([codex, "execpolicy", "check", "--rules", str(project / ".codex/rules/handrail.rules"), "--",
                        "git", "push", "--force", "origin", "main"], capture_output=True, text=True)
    assert json.loads(r.stdout)["decision"] == "forbidden"


def opencode_says(opencode: str, args: list[str], project: Path, env: dict[str, str], tmp_path: Path) -> str:
    """OpenCode's output, through a file: into a pipe it stops after the first 64 KiB."""
    out = tmp_path / "opencode.out"
    with open(out, "w") as f:
        r = subprocess.run([opencode, *args], cwd=project, env=env, stdout=f, stderr=subprocess.PIPE, text=True,
                           timeout=120)
    assert r.returncode == 0, r.stderr
    return out.read_text()


def test_opencode_resolves_the_rules_in_the_intended_order(repo: Path, handrail, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    opencode = client("opencode")
    project = default_project(repo)
    (project / "opencode.json").write_text(json.dumps({"permission": {"bash": {"./deploy.sh *": "ask"}}}))
    assert handrail("permissions", "--tool", "opencode", cwd=project).returncode == 0
    home = tmp_path / "opencode-home"
    home.mkdir()
    # OPENCODE_PURE: no plugin dependencies installed from the network; the config is read all the same.
    env = {**os.environ, "HOME": str(home), "OPENCODE_PURE": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
           "OPENCODE_DISABLE_MODELS_FETCH": "1"}
    rules = json.loads(opencode_says(opencode, ["debug", "agent", "build"], project, env, tmp_path))["permission"]
    bash = [(x["pattern"], x["action"]) for x in rules if x["permission"] == "bash"]
    proto = protocols.load(str(project))
    policy = protocols.resolve_tool(proto, "opencode")
    from handrail.harnesses.opencode import exact

    expected = [("*", "ask")] + [(p.text, "allow") for p in policy.allow if p.tier == protocols.TIER1 and exact(p.text)]
    expected += [("./deploy.sh *", "ask")]
    expected += [(p.text, "ask") for p in policy.ask]
    assert bash == expected
    edit = [(x["pattern"], x["action"]) for x in rules if x["permission"] == "edit"]
    assert (".env*", "deny") in edit and (".handrail/*", "deny") in edit and ("*/secrets/*", "deny") in edit

    config = json.loads(opencode_says(opencode, ["debug", "config"], project, env, tmp_path))
    assert f"file://{project}/.opencode/plugin/handrail.js" in config["plugin"]


def run_claude(project: Path, script: list[Call], home: Path) -> tuple[dict, list[str]]:
    claude = client("claude")
    home.mkdir(exist_ok=True)
    with ModelServer(script) as stub:
        env = {**os.environ, "HOME": str(home), "ANTHROPIC_BASE_URL": stub.url, "ANTHROPIC_API_KEY": "test",
               "DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
               "PATH": f"{Path(HANDRAIL or sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        r = subprocess.run([claude, "-p", "go", "--output-format", "json"], cwd=project, env=env,
                           capture_output=True, text=True, timeout=180)
        assert r.returncode == 0, r.stderr[-2000:]
        return json.loads(r.stdout), list(stub.results)


def test_claude_code_refuses_a_tier_3_command_through_the_generated_settings(  # type: ignore[no-untyped-def]
        repo: Path, handrail, tmp_path: Path) -> None:
    project = default_project(repo)
    assert handrail("permissions", "--tool", "claude", cwd=project).returncode == 0
    settings = project / ".claude" / "settings.json"
    push = Call("Bash", {"command": "git push --force origin main"})
    secret = Call("Write", {"file_path": str(project / ".env"), "content": "X=1\n"})

    # The settings alone, without handrail's hook: the ask rule, and Claude's own prompt for an
    # edit (no one to answer either under -p).
    data = read_json(settings)
    del data["hooks"]
    settings.write_text(json.dumps(data))
    out, results = run_claude(project, [push, secret], tmp_path / "home1")
    assert [d["tool_input"] for d in out["permission_denials"]] == [push.args, secret.args]
    assert not (project / ".env").exists()

    # As generated: handrail's PreToolUse hook refuses both, and the agent is told why.
    assert handrail("permissions", "--tool", "claude", cwd=project).returncode == 0
    out, results = run_claude(project, [push, secret], tmp_path / "home2")
    assert [d["tool_input"] for d in out["permission_denials"]] == [push.args, secret.args]
    assert "handrail:" in results[0] and "tier 3" in results[0]
    assert "handrail: denied" in results[1]
    assert not (project / ".env").exists()
