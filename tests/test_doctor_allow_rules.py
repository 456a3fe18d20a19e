"""`handrail doctor` flags the allow rules a person wrote into a harness's own files that admit a
tier-3 command, one warning per rule, and never takes a rule it cannot read for safe."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import HANDRAIL

ON_PATH = {"PATH": f"{Path(HANDRAIL or 'handrail').parent}{os.pathsep}{os.environ.get('PATH', '')}"}
TOOLS = "claude,codex,gemini,opencode,cursor,copilot,qwen"


@pytest.fixture
def guarded(repo: Path, handrail) -> Path:  # type: ignore[no-untyped-def]
    r = handrail("init", "--tools", TOOLS, cwd=repo, env=ON_PATH)
    assert r.returncode == 0, r.stderr
    return repo


def allow_findings(handrail, repo: Path) -> list[dict[str, str]]:  # type: ignore[no-untyped-def]
    r = handrail("doctor", "--json", cwd=repo, env=ON_PATH)
    assert "Traceback" not in r.stderr
    report = json.loads(r.stdout.splitlines()[-1])
    return [f for f in report["findings"] if f["check"] == "allow-rules"]


def edit_json(path: Path, change) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


def test_right_after_init_no_allow_rule_is_flagged(guarded: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    assert allow_findings(handrail, guarded) == []


def test_a_claude_prefix_rule_that_admits_a_force_push_is_one_warning_with_example_and_fix(
        guarded: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    edit_json(guarded / ".claude/settings.json", lambda d: d["permissions"]["allow"].extend(
        ["Bash(git push:*)", "Bash(rm *)", "Bash(npm test)", "Bash(git status:*)", "Read(src/**)"]))
    found = allow_findings(handrail, guarded)
    by_rule = {f["finding"].split(" admits")[0]: f for f in found}
    assert set(by_rule) == {".claude/settings.json: Bash(git push:*)", ".claude/settings.json: Bash(rm *)"}
    push = by_rule[".claude/settings.json: Bash(git push:*)"]
    assert push["severity"] == "warning" and "e.g. `git push" in push["finding"]
    assert "permissions.allow in .claude/settings.json" in push["hint"]
    assert "`rm -rf" in by_rule[".claude/settings.json: Bash(rm *)"]["finding"]
    r = handrail("doctor", cwd=guarded, env=ON_PATH)
    assert "Bash(git push:*) admits a tier-3 command" in r.stdout


def test_a_wrapper_or_a_global_option_rule_admits_what_it_runs(guarded: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    """`xargs`, `env` or `git -c` run whatever follows them: a rule for their words alone
    admits the tier-3 command put after them."""
    edit_json(guarded / ".claude/settings.json", lambda d: d["permissions"]["allow"].extend(
        ["Bash(xargs:*)", "Bash(git -c:*)", "Bash(timeout:*)", "Bash(git log:*)"]))
    found = {f["finding"].split(" admits")[0]: f["finding"] for f in allow_findings(handrail, guarded)}
    assert set(found) == {f".claude/settings.json: Bash({r}:*)" for r in ("xargs", "git -c", "timeout")}
    assert "e.g. `xargs " in found[".claude/settings.json: Bash(xargs:*)"]
    assert "e.g. `git -c " in found[".claude/settings.json: Bash(git -c:*)"]


def test_a_rule_of_a_shape_handrail_cannot_read_is_unverifiable_not_fine(guarded: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    edit_json(guarded / ".claude/settings.json", lambda d: d["permissions"]["allow"].append("Bash(make:*deploy)"))
    (guarded / ".codex/rules/team.rules").write_text('prefix_rule(pattern = [TOOL], decision = "allow")\n')
    found = [f["finding"] for f in allow_findings(handrail, guarded)]
    assert any(f.startswith(".claude/settings.json: Bash(make:*deploy): handrail cannot tell") for f in found)
    assert any(f.startswith(".codex/rules/team.rules: prefix_rule(") and "cannot tell" in f for f in found)


def test_codex_opencode_and_gemini_rules_written_by_hand_are_judged(guarded: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    (guarded / ".codex/rules/team.rules").write_text(
        'prefix_rule(pattern = ["git", ["push", "status"]], decision = "allow")\n'
        'prefix_rule(pattern = ["ls"], decision = "allow")\n'
        'prefix_rule(pattern = ["rm"], decision = "prompt")\n')

    def opencode(d: dict) -> None:  # type: ignore[type-arg]
        rules = d["permission"]["bash"]
        d["permission"]["bash"] = {"*": rules.pop("*"), "git *": "allow", "pwd": "allow", **rules}

    edit_json(guarded / "opencode.json", opencode)
    edit_json(guarded / ".gemini/settings.json", lambda d: d.setdefault("tools", {}).update(
        allowed=["run_shell_command(git)", "run_shell_command(ls)"]))
    (guarded / ".gemini/policies/team.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = ["cat", "echo"]\ndecision = "allow"\n'
        '[[rule]]\ntoolName = "run_shell_command"\ncommandRegex = "^terraform .*"\ndecision = "allow"\n')
    found = [f["finding"] for f in allow_findings(handrail, guarded)]
    codex = [f for f in found if f.startswith(".codex/rules/team.rules")]
    assert len(codex) == 1 and '["git", ["push", "status"]]' in codex[0] and "`git push" in codex[0]
    assert any(f.startswith('opencode.json: permission.bash: "git *": "allow" admits') for f in found)
    assert not any('"pwd"' in f for f in found)
    assert any(f.startswith(".gemini/settings.json: run_shell_command(git) admits") for f in found)
    assert not any("run_shell_command(ls)" in f for f in found)
    assert any("team.toml" in f and "commandPrefix 'cat'" in f and "`cat .env`" in f for f in found)
    assert any("team.toml: rule 2" in f and "`terraform destroy" in f for f in found)
    assert not any("commandPrefix 'echo'" in f for f in found)


def test_cursor_qwen_and_vscode_rules_are_judged(guarded: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    (guarded / ".cursor/cli.json").write_text(json.dumps({"permissions": {"allow": ["Shell(ls)", "Shell(sudo)"]}}))
    edit_json(guarded / ".qwen/settings.json", lambda d: d.update(permissions={"allow": ["Bash(cat)", "Bash(pwd)"]}))
    (guarded / ".vscode").mkdir()
    (guarded / ".vscode/settings.json").write_text(
        '{\n  // the team\'s\n  "chat.tools.terminal.autoApprove": '
        '{"git status": true, "/^kubectl/": true, "rm": false}\n}\n')
    found = [f["finding"] for f in allow_findings(handrail, guarded)]
    assert any(f.startswith(".cursor/cli.json: Shell(sudo) admits") for f in found)
    assert not any("Shell(ls)" in f for f in found)
    assert any(f.startswith(".qwen/settings.json: Bash(cat) admits") and "`cat .env`" in f for f in found)
    assert any("'/^kubectl/' admits" in f and "`kubectl delete" in f for f in found)
    assert not any("'git status'" in f or "'rm'" in f for f in found)


def test_a_rule_handrail_recorded_as_its_own_is_not_flagged(guarded: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    edit_json(guarded / ".claude/settings.json", lambda d: d["permissions"]["allow"].append("Bash(git push:*)"))
    edit_json(guarded / ".handrail/generated.json",
              lambda d: d["files"][".claude/settings.json"].update({"permissions.allow": ["Bash(git push:*)"]}))
    assert allow_findings(handrail, guarded) == []


def test_a_settings_file_that_is_not_json_is_said_once(guarded: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    (guarded / ".cursor/cli.json").write_text("{ not json")
    found = allow_findings(handrail, guarded)
    assert [f["finding"] for f in found if ".cursor/cli.json" in f["finding"]] == [
        next(f["finding"] for f in found if f["finding"].startswith("cursor: its allow rules cannot be read"))]
