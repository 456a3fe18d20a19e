"""Codex's prefix rules hold a tier-3 pattern's flags however the command writes them
(`git clean -fd`, `-d -f`, `--force`; `git commit -n`, `-nm`), and the rules file names
what only the hook catches. Read by the real rule engine: `codex execpolicy check`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from permkit import client
from test_real_clients import codex_engine, default_project

pytestmark = pytest.mark.skipif(client("codex") is None, reason=(
    "the real `codex` client is not installed: run scripts/install-clients"))

GROUPED = ["git clean -fd", "git clean -df", "git clean -fdx", "git clean -xdf", "git clean -ffdx", "git clean -d -f",
           "git clean -x -d -f", "git clean --force", "git clean -q --force .", "git commit -n -m wip",
           "git commit -nm wip", "git commit -anm wip", "git commit -a -n", "git commit --amend --no-verify",
           "git branch -rD origin/old", "git branch -d -f old", "git branch --delete --force old",
           "rm -fr /", "rm -r -f /", "rm -Rf ~", "rm -rfv /", "git reset -q --hard", "git tag -fd v1", "crontab -ri"]
# Tier 1 and 2 commands that begin like them: no rule may ask for these.
LOOKALIKES = ["git clean -n", "git clean -nd", "git clean -n -d", "git commit -m wip", "git commit -am wip",
              "git branch -d old", "git tag -l", "git reset -q"]
# Tier 3 to handrail, but no argv prefix can say so: the rules file says the hook catches them.
HOOK_ONLY = ["git commit -m wip -n", "git clean . -f", "git -C src clean -f", "env git clean -f", "git clean -fdxq"]


def check(engine: str, rules: Path, command: str) -> str | None:
    r = subprocess.run([engine, "execpolicy", "check", "--rules", str(rules), "--", *command.split()],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout).get("decision")


def test_grouped_and_long_flags_of_tier_3_commands_prompt_in_codex(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    engine = codex_engine()
    project = default_project(repo)
    assert handrail("permissions", "--tool", "codex", cwd=project).returncode == 0
    rules = project / ".codex" / "rules" / "handrail.rules"
    # handrail itself reads each of them as its tier-3 pattern
    batch = "".join(json.dumps({"command": c}) + "\n" for c in GROUPED)
    r = handrail("classify", "--batch", "-", "--tool", "codex", cwd=project, input=batch)
    answers = [json.loads(line) for line in r.stdout.splitlines()]
    by_pattern = {a["command"]: [x.get("pattern") for x in a["reasons"] if x["reason"] == "pattern"] for a in answers}
    assert [c for c in GROUPED if not by_pattern[c]] == []
    for command in GROUPED:
        assert check(engine, rules, command) == "prompt", command
    for command in LOOKALIKES:
        assert check(engine, rules, command) is None, command


def test_what_only_the_hook_catches_is_named_in_the_rules_file_and_refused_by_it(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    engine = codex_engine()
    project = default_project(repo)
    assert handrail("permissions", "--tool", "codex", cwd=project).returncode == 0
    rules = project / ".codex" / "rules" / "handrail.rules"
    text = rules.read_text()
    for phrase in ("`git commit -m msg -n`", "`git clean . -f`", "`git -C src clean -f`", "`env git clean -f`",
                   "more than 3 letters", "#       python -m twine upload *"):
        assert phrase in text, phrase
    for command in HOOK_ONLY:
        assert check(engine, rules, command) is None, command
        payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(project),
                   "tool_input": {"command": command}}
        r = handrail("hook", "codex", cwd=project, input=json.dumps(payload))
        answer = json.loads(r.stdout)["hookSpecificOutput"]
        assert answer["permissionDecision"] == "deny" and "handrail" in answer["permissionDecisionReason"], command


def test_a_protocol_that_denies_tier_3_forbids_every_spelling(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    engine = codex_engine()
    project = default_project(repo)
    path = project / ".handrail" / "autonomy-protocol.json"
    data = json.loads(path.read_text())
    data["tiers"]["tier3_blocking"]["decision"] = "deny"
    path.write_text(json.dumps(data))
    assert handrail("permissions", "--tool", "codex", cwd=project).returncode == 0
    rules = project / ".codex" / "rules" / "handrail.rules"
    assert {check(engine, rules, c) for c in ("git clean -fd", "git commit -nm wip", "rm -r -f /")} == {"forbidden"}
