"""`handrail init --pre-commit` on the `.pre-commit-config.yaml` files people really write:
every hook of the user's still runs under the real framework, handrail's are added once,
comments and line endings stay, a second run changes nothing; what cannot be merged without
losing a hook is refused in one line and left as it was."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from helpers import HANDRAIL, git, run_handrail

from handrail.init import LOCAL_HOOKS

BIN = str(Path(HANDRAIL or "handrail").parent)
ON_PATH = {"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
OURS = [h["id"] for h in LOCAL_HOOKS]


def hook(i: str, indent: str = "      ") -> str:
    return f"{indent}- id: {i}\n{indent}  name: {i} check\n{indent}  entry: 'true'\n{indent}  language: system\n"


# name -> (config text, the user's hook ids, comments that must survive)
CONFIGS = {
    "quoted key": ('"repos":\n- repo: local\n  hooks:\n' + hook("mine-a", "  "), ["mine-a"], []),
    "single-quoted key, comments": (
        "# team checks\n'repos':   # all of them\n  # the local ones\n  - repo: local  # no network\n"
        "    hooks:\n" + hook("mine-a") + hook("mine-b") + "\n# after the list\nfail_fast: false\n",
        ["mine-a", "mine-b"], ["# team checks", "# all of them", "# the local ones", "# no network",
                               "# after the list"]),
    "flow style": ("repos: [{repo: local, hooks: [{id: mine-a, name: mine-a check, entry: 'true', "
                   "language: system}]}]  # one line\n", ["mine-a"], ["# one line"]),
    "flow over lines": ("repos: [\n  {repo: local, hooks: [{id: mine-a, name: mine-a check, entry: 'true',\n"
                        "    language: system}]},  # trailing comma\n]\n", ["mine-a"], ["# trailing comma"]),
    "empty list": ("# nothing yet\nrepos: []\n", [], ["# nothing yet"]),
    "anchors and merge keys": (
        "x-system: &system\n  entry: 'true'\n  language: system\nrepos:\n- repo: local\n  hooks:\n"
        "  - {id: mine-a, name: mine-a check, <<: *system}\n  - id: mine-b\n    name: mine-b check\n"
        "    <<: *system\n", ["mine-a", "mine-b"], []),
    "two local repos and meta": (
        "repos:\n  - repo: meta\n    hooks:\n      - id: check-useless-excludes\n  - repo: local\n    hooks:\n"
        + hook("mine-a") + "  - repo: local\n    hooks:\n" + hook("mine-b"),
        ["check-useless-excludes", "mine-a", "mine-b"], []),
    "block scalar last": (
        "repos:\n- repo: local\n  hooks:\n  - id: mine-a\n    name: mine-a check\n    language: system\n"
        "    entry: >\n      true\n\n\n# kept below\ndefault_stages: [pre-commit, pre-push]\n",
        ["mine-a"], ["# kept below"]),
    "CRLF": (('repos:\n  - repo: local\n    hooks:\n' + hook("mine-a") + "# end\n").replace("\n", "\r\n"),
             ["mine-a"], ["# end"]),
    "no trailing newline": ("repos:\n- repo: local\n  hooks:\n" + hook("mine-a", "  ").rstrip("\n"), ["mine-a"], []),
    "no repos key": ("# only settings\ndefault_install_hook_types: [pre-commit]\n", [], ["# only settings"]),
}


def init(repo: Path):  # type: ignore[no-untyped-def]
    # One harness is enough here: what is under test is the framework's config.
    return run_handrail("init", "--pre-commit", "--tools", "claude", cwd=repo, env=ON_PATH)


def only_inserted(before: str, after: str) -> bool:
    """`after` is `before` with one piece of text put in somewhere (and a last line ended)."""
    if before and not before.endswith("\n"):
        before += "\r\n" if "\r\n" in before else "\n"
    p = next((i for i, (a, b) in enumerate(zip(before, after)) if a != b), min(len(before), len(after)))
    rest = before[p:]
    return len(after) > len(before) and after.endswith(rest)


def ids(text: str) -> list[str]:
    return [h["id"] for r in yaml.safe_load(text)["repos"] for h in r["hooks"]]


@pytest.fixture
def framework_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path / "pre-commit-home"))


@pytest.mark.parametrize("name", list(CONFIGS))
def test_init_merges_a_real_config_and_the_framework_runs_every_hook(name: str, repo: Path,
                                                                       framework_home: None) -> None:
    text, mine, comments = CONFIGS[name]
    config = repo / ".pre-commit-config.yaml"
    config.write_bytes(text.encode())
    r = init(repo)
    assert r.returncode == 0, r.stdout + r.stderr
    merged = config.read_bytes().decode()
    assert only_inserted(text, merged), "the user's text is kept as it was, handrail's entry put in one place"
    assert ids(merged) == mine + OURS
    for comment in comments:
        assert comment in merged
    if "\r\n" in text:
        assert merged.count("\n") == merged.count("\r\n"), "every line keeps the file's CRLF"
    assert yaml.safe_load(merged).get("default_stages") == yaml.safe_load(text).get("default_stages")

    again = init(repo)
    assert again.returncode == 0 and "nothing changed" in again.stdout
    assert config.read_bytes().decode() == merged

    # The real framework reads it: it validates, and runs every hook of the user's and handrail's.
    (repo / "app.py").write_text("print('hi')\n")
    git(repo, "add", "-A")
    pc = str(Path(BIN) / "pre-commit")
    valid = subprocess.run([pc, "validate-config", str(config)], cwd=repo, capture_output=True, text=True)
    assert valid.returncode == 0, valid.stdout + valid.stderr
    run = subprocess.run([pc, "run", "--all-files"], cwd=repo, capture_output=True, text=True,
                         env={**os.environ, **ON_PATH})
    out = run.stdout + run.stderr
    for i in mine:
        if i != "check-useless-excludes":
            assert re.search(rf"{i} check\.+Passed", out), out
    # no task yet: handrail's commit hook refuses, with handrail's own message
    assert run.returncode == 1 and re.search(r"handrail \(commit\)\.+Failed", out), out
    assert "no task exists, so nothing may be committed" in out


REFUSED = {
    "repos is an alias": ("x: &r\n- repo: local\n  hooks:\n" + hook("mine-a", "  ") + "repos: *r\n", "repos: an alias"),
    "repos twice": ("repos:\n- repo: local\n  hooks:\n" + hook("mine-a", "  ") + "repos: []\n",
                    "repos: written 2 times"),
    "repos not a list": ("repos: {repo: local}\n", "repos: expected a list"),
    "not YAML": ("repos: [\n", "invalid YAML at line"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_config_that_cannot_be_merged_without_loss_is_refused_and_left_alone(name: str, repo: Path,
                                                                               framework_home: None) -> None:
    text, said = REFUSED[name]
    config = repo / ".pre-commit-config.yaml"
    config.write_text(text)
    r = init(repo)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and ".pre-commit-config.yaml: " in lines[0] and said in lines[0], r.stderr
    assert config.read_text() == text
    assert not (repo / ".git" / "hooks" / "pre-commit").exists(), "nothing installed after a refusal"


def test_the_local_hooks_find_handrail_off_path_or_say_how_to_get_it(repo: Path, framework_home: None) -> None:
    """An IDE's PATH has no handrail: the hooks start the one init recorded; where that is
    gone too, the commit is refused with one line saying how to install it."""
    assert init(repo).returncode == 0
    (repo / "a.txt").write_text("a\n")
    git(repo, "add", "a.txt")
    bare = {"PATH": os.pathsep.join(d for d in os.environ.get("PATH", "").split(os.pathsep)
                                    if d and not os.path.exists(os.path.join(d, "handrail")))}
    r = git(repo, "commit", "-q", "-m", "a", check=False, env=bare)
    out = r.stdout + r.stderr
    assert r.returncode == 1 and "no task exists, so nothing may be committed" in out, out
    # the refusal names `handrail task new`: the shell here has none, so it says which one works
    assert f"handrail: `handrail` is not on this PATH: run the commands above as {HANDRAIL}" in out
    git(repo, "config", "handrail.bin", str(repo / "gone" / "handrail"))
    r = git(repo, "commit", "-q", "-m", "a", check=False, env=bare)
    out = r.stdout + r.stderr
    assert r.returncode == 1 and "Executable `handrail` not found" not in out, out
    assert ("handrail: commit refused: handrail cannot start (not at git config handrail.bin, not on PATH); "
            "install handrail, then run: handrail init --pre-commit") in out
