"""`--help` of every hot-path command: what it reads, answers and exits with, true to the code,
served without click."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_handrail

from handrail.hooks import usage
from handrail.main import FAST, FAST_HOOKS

COMMANDS = [(name,) for name in FAST] + [("hook", name) for name in FAST_HOOKS]
MODULES = {**FAST, **FAST_HOOKS}
HEAVY = ("click", "pygit2", "jsonschema", "yaml", "sqlite3")


def module_of(command: tuple[str, ...]) -> object:
    return importlib.import_module(MODULES[command[-1]])


def exit_codes(text: str) -> set[int]:
    """The exit codes a help names: its `Exit codes:` rows, or `exit N` in a harness's answers."""
    section = text.partition("Exit codes:")[2]
    rows = {int(n) for n in re.findall(r"^  (\d)  ", section, flags=re.M)}
    return rows | {int(n) for n in re.findall(r"\bexit (\d)\b", text)}


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_each_help_exits_0_with_its_usage_exit_codes_and_every_option(command: tuple[str, ...], flag: str) -> None:
    r = run_handrail(*command, flag)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"usage: handrail {' '.join(command)}")
    assert exit_codes(r.stdout), "the help names no exit code"
    options = usage.options_of(module_of(command))  # type: ignore[arg-type]
    for option in options:
        assert re.search(rf"(^|\s|\[){re.escape(option)}\b", r.stdout), f"{option} is parsed but not in the help"
    if options:
        assert "-h, --help" in r.stdout


# The commands that read options: git's own hooks read none (pre-push is below).
ARGUED = [c for c in COMMANDS if usage.options_of(module_of(c))]  # type: ignore[arg-type]


@pytest.mark.parametrize("command", ARGUED, ids=" ".join)
def test_help_beside_other_arguments_answers_nothing_and_fails_closed(command: tuple[str, ...], repo: Path) -> None:
    """Help is given only when asked for alone. Beside other arguments a help flag must not
    turn a question into an exit 0 (`can-edit --file .env --help`): the command's parser
    reads it, as an unknown option, and refuses (in the harness's own reply). session-start only adds context, so it has
    nothing to refuse."""
    option, takes_value = next(iter(usage.options_of(module_of(command)).items()))  # type: ignore[arg-type]
    r = run_handrail(*command, option, *(["x"] if takes_value else []), "--help", cwd=repo, input="{}")
    assert not r.stdout.startswith("usage:")
    refused = r.returncode != 0 or "handrail: denied" in r.stdout  # some harnesses read a denial from JSON
    assert refused or command == ("hook", "session-start"), r.stdout
    if takes_value:  # `--agent -h` is a missing value, as the parser says, not a request for help
        r = run_handrail(*command, option, "-h", cwd=repo, input="{}")
        assert not r.stdout.startswith("usage:")


def test_a_pre_push_to_a_remote_named_help_is_judged(repo: Path) -> None:
    """git runs `pre-push REMOTE URL`: a remote an agent renamed `--help` still meets the rules."""
    sha = "1" * 40
    r = run_handrail("hook", "pre-push", "--help", "file:///x", cwd=repo,
                     input=f"refs/heads/main {sha} refs/heads/main {'0' * 40}\n")
    assert not r.stdout.startswith("usage:")
    assert r.returncode != 0


def test_classify_after_the_double_dash_classifies_a_command_that_has_h(repo: Path) -> None:
    r = run_handrail("classify", "--json", "--", "grep", "-h", "x", cwd=repo)
    assert json.loads(r.stdout.splitlines()[-1])["command"] == "grep -h x"


def test_hook_help_lists_every_hook_with_what_it_is_for() -> None:
    for flag in ("--help", "-h"):
        r = run_handrail("hook", flag)
        assert r.returncode == 0
        for name, module in FAST_HOOKS.items():
            line = next(x for x in r.stdout.splitlines() if x.startswith(f"  {name} "))
            assert usage.summary(importlib.import_module(module)) in line  # type: ignore[arg-type]


@pytest.mark.parametrize("command", [*COMMANDS, ("hook",)], ids=" ".join)
def test_help_loads_neither_click_nor_the_heavy_libraries(command: tuple[str, ...]) -> None:
    code = (f"import sys, json; from handrail.main import main; rc = main({[*command, '--help']!r});"
            f"print(json.dumps([rc, sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})]), "
            "file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert json.loads(r.stderr.strip().splitlines()[-1]) == [0, []]
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True)
    imported = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines() if "|" in line}
    assert not {m for m in imported if m.split(".")[0] in HEAVY}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_option_parser_on_the_hot_path_reads_its_modules_options(name: str) -> None:
    """A parser given an inline dict would hide its options from the help test above."""
    modules = {importlib.import_module(MODULES[name])}
    if usage.is_adapter(next(iter(modules))):  # type: ignore[arg-type]
        modules.add(importlib.import_module("handrail.hooks.pretool"))
    for module in modules:
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "parse" and len(node.args) > 1:
                assert isinstance(node.args[1], ast.Name) and node.args[1].id == "OPTIONS", \
                    f"{module.__name__}: parse() given {ast.unparse(node.args[1])}, not OPTIONS"


# What each command really returns, called as git or a harness calls it; its help must name that code.
CALLS = [
    (("can-edit", "--bogus"), None, 2),
    (("can-edit",), None, 1),  # no task in an edit phase
    (("classify", "git status"), None, 0),
    (("classify", "git push --force origin main"), None, 1),
    (("classify", "--bogus"), None, 2),
    (("hook", "pre-commit", "extra"), None, 1),
    (("hook", "pre-push", "a", "b", "c"), "", 1),
    (("hook", "post-commit"), None, 0),
    (("hook", "session-start", "--bogus"), None, 0),
    (("hook", "prepare-commit-msg"), None, 0),  # a human's commit
]


@pytest.mark.parametrize(("argv", "stdin", "expected"), CALLS,
                         ids=lambda v: " ".join(v) if isinstance(v, tuple) else "")
def test_the_exit_code_a_command_returns_is_named_in_its_help(repo: Path, argv: tuple[str, ...], stdin: str | None,
                                                             expected: int) -> None:
    r = run_handrail(*argv, cwd=repo, input=stdin)
    assert r.returncode == expected, r.stderr
    command = argv[:2] if argv[0] == "hook" else argv[:1]
    assert expected in exit_codes(run_handrail(*command, "--help").stdout)


def test_an_agents_prepare_commit_msg_without_a_file_exits_as_its_help_says(repo: Path) -> None:
    r = run_handrail("hook", "prepare-commit-msg", cwd=repo, env={"HANDRAIL_AGENT": "claude"})
    assert r.returncode == 1 and "usage" in r.stderr
    assert 1 in exit_codes(run_handrail("hook", "prepare-commit-msg", "--help").stdout)


@pytest.mark.parametrize("name", [n for n in FAST_HOOKS if usage.is_adapter(importlib.import_module(FAST_HOOKS[n]))])
def test_a_harness_hooks_help_shows_the_answer_it_gives_an_unreadable_payload(repo: Path, name: str) -> None:
    r = run_handrail("hook", name, cwd=repo, input="{ not json")
    text = run_handrail("hook", name, "--help").stdout
    broken = next(line for line in text.splitlines() if line.startswith("  broken "))
    assert broken.endswith(f"exit {r.returncode}")
    shown = broken.removeprefix("  broken").rsplit("  exit ", 1)[0].strip()
    if r.stdout.strip():  # the same reply, the reason aside
        assert json.loads(shown.replace(usage.REASON, "R")).keys() == json.loads(r.stdout).keys()
    else:
        assert shown == "(nothing)"


def test_options_after_the_double_dash_belong_to_the_classified_command(repo: Path) -> None:
    # Neither JSON, nor a batch, nor help: `--` ends handrail's options, as the parser reads them.
    r = run_handrail("classify", "--", "grep", "--json", "--batch", "-h", "x", cwd=repo)
    assert r.returncode == 0 and r.stdout.startswith("tier "), r.stdout + r.stderr
    # No option is a value: `--agent --json` lacks its value, and the answer is the JSON asked for.
    r = run_handrail("can-edit", "--agent", "--json", cwd=repo)
    assert r.returncode == 2 and "needs a value" in r.stderr, r.stdout + r.stderr
    assert json.loads(r.stdout.splitlines()[-1])["reason"] == "bad_arguments"
