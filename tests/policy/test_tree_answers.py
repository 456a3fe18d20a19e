"""Answers that depend on what the work tree holds: a file that stands in for a Python module,
a glob that names untracked or changed files, a package the project pins or does not. Each
test builds a real git repository and asks the real `handrail classify --json`."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import HANDRAIL
from threatkit import BASE, PINNED_GIT, child_env


@pytest.fixture()
def repo() -> Iterator[Path]:
    """A committed repository outside every temp folder, with a clean HOME."""
    BASE.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="tree-", dir=BASE))
    (base / "home").mkdir()
    path = base / "proj"
    (path / "src").mkdir(parents=True)
    (path / "src" / "a.py").write_text("A = 1\n")
    (path / "src" / "b.py").write_text("B = 2\n")
    (path / "build.log").write_text("ok\n")
    _git(path, "init", "-q", "-b", "main")
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "first")
    try:
        yield path
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _git(path: Path, *args: str) -> None:
    env = {**child_env(path.parent / "home"), **PINNED_GIT}
    subprocess.run(["git", *args], cwd=path, env=env, check=True, capture_output=True)


def tier(repo: Path, command: str) -> int | None:
    assert HANDRAIL
    r = subprocess.run([HANDRAIL, "classify", "--json", command], cwd=repo, env=child_env(repo.parent / "home"),
                       text=True, capture_output=True, timeout=60)
    answer = json.loads(r.stdout.strip().splitlines()[-1])
    t = answer["tier"]
    assert t is None or isinstance(t, int)
    return t


# --------------------------------------------------------------------------- Python's first folder

PURE = "python3 -c 'import json; print(json.dumps(1))'"


def test_pure_python_is_silent_in_a_tree_without_stand_ins(repo: Path) -> None:
    assert tier(repo, PURE) == 1


@pytest.mark.parametrize("stand_in", ["json.py", "json/__init__.py", "re.py", "json.cpython-312-x86_64-linux-gnu.so"])
def test_a_file_that_stands_in_for_a_module_ends_the_silence(repo: Path, stand_in: str) -> None:
    # `re` too: the real json imports re, and the working folder comes first for that import as well
    target = repo / stand_in
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("import os; os.system('rm -rf ~')\n")
    assert tier(repo, PURE) == 2
    assert tier(repo, "echo 'import json' | python3") != 1


def test_a_script_is_judged_by_its_own_folder(repo: Path) -> None:
    (repo / "tools").mkdir()
    (repo / "tools" / "show.py").write_text("import json\nprint(json.dumps([1]))\n")
    assert tier(repo, "python3 tools/show.py") == 1
    (repo / "tools" / "json.py").write_text("print('not the json you think')\n")
    assert tier(repo, "python3 tools/show.py") == 2
    assert tier(repo, PURE) == 1  # the working folder holds no stand-in: -c is still pure
    # an option's value is not the script: `-W ignore` runs tools/show.py, whose folder decides
    assert tier(repo, "python3 -W ignore tools/show.py") == 2


def test_a_plain_folder_of_the_same_name_is_no_stand_in(repo: Path) -> None:
    (repo / "json").mkdir()
    (repo / "json" / "data.txt").write_text("1\n")  # no __init__: the real json is still found first
    assert tier(repo, PURE) == 1


# --------------------------------------------------------------------------- packages a runner fetches


def test_a_package_the_project_pins_is_judged_by_the_command_alone(repo: Path) -> None:
    assert tier(repo, "npx prettier --check .") == 3  # nothing pins it: fetched from the registry
    (repo / "package.json").write_text(json.dumps({"devDependencies": {"prettier": "^3.3.0"}}))
    assert tier(repo, "npx prettier --check .") == 1
    assert tier(repo, "pnpm dlx prettier --check .") == 1
    assert tier(repo, "npx cowsay") == 3


def test_a_local_bin_pins_a_program_whatever_its_package(repo: Path) -> None:
    assert tier(repo, "npx tsc --noEmit") == 3  # `typescript` pinned is not enough: npx would fetch `tsc`
    (repo / "node_modules" / ".bin").mkdir(parents=True)
    (repo / "node_modules" / ".bin" / "tsc").write_text("#!/usr/bin/env node\n")
    assert tier(repo, "npx tsc --noEmit") != 3
    (repo / "src" / "deeper").mkdir()
    assert tier(repo, "cd src/deeper && npx tsc --noEmit") != 3  # npx looks in the folders above too


def test_a_python_package_pinned_in_pyproject_or_a_lock(repo: Path) -> None:
    assert tier(repo, "uvx ruff check .") == 3
    (repo / "pyproject.toml").write_text('[project]\nname = "p"\n[dependency-groups]\ndev = ["ruff>=0.5"]\n')
    assert tier(repo, "uvx ruff check .") == 1
    assert tier(repo, "uvx black .") == 3
    (repo / "uv.lock").write_text('[[package]]\nname = "black"\nversion = "24.1.0"\n')
    assert tier(repo, "uvx black --check .") != 3
