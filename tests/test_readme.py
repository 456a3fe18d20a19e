"""The README keeps its promises: two commands up front, every hook id documented."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_first_code_block_has_exactly_the_two_fresh_machine_commands() -> None:
    block = re.search(r"```sh\n(.*?)```", README, re.S)
    assert block is not None
    assert README.index(block.group(0)) < 1500, "the commands must come first"
    lines = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(lines) == 2
    assert lines[0].endswith("handrail demo")
    assert "'.[test]'" in lines[1] and lines[1].endswith("pytest")


def test_ci_runs_the_readmes_test_command() -> None:
    test_command = re.search(r"```sh\n.*?\n(.*?)\n```", README, re.S).group(1)  # type: ignore[union-attr]
    assert test_command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_every_pre_commit_hook_id_is_documented() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hooks
    for hook in hooks:
        assert hook["id"] in README, f"{hook['id']} is not documented in README.md"
