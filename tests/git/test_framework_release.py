"""The framework-only flow, as the README gives it: a repository whose `.pre-commit-config.yaml`
is the README's snippet, pointing at a release of handrail (this checkout, tagged as its
version), installed with the README's `pre-commit install` line and no handrail on PATH.

The framework pip-installs the release once for the module (PRE_COMMIT_HOME is shared)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from gitkit import ROOT, checkout_snapshot
from helpers import HANDRAIL, git, run_handrail

import handrail
from handrail.records import task_states

README = (ROOT / "README.md").read_text(encoding="utf-8")
PRE_COMMIT = str(Path(HANDRAIL or "handrail").parent / "pre-commit")
MANIFEST = ".handrail/runtime/reflect-prompt.json"


class Flow:
    def __init__(self, repo: Path, env: dict[str, str]) -> None:
        self.repo, self.env = repo, env

    def git(self, *args: str) -> subprocess.CompletedProcess[str]:
        return git(self.repo, *args, check=False, env=self.env)

    def commit(self, files: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
        for rel, text in files.items():
            (self.repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.repo / rel).write_text(text)
        assert self.git("add", "--", *files).returncode == 0
        return self.git("commit", "-q", "-m", message)


@pytest.fixture(scope="module")
def flow(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flow]:
    base = tmp_path_factory.mktemp("framework")
    rev = f"v{handrail.__version__}"
    release = checkout_snapshot(base, tag=rev)
    repo = base / "repo"
    repo.mkdir()
    # A shell without handrail: only what git, sh and the framework's hook script need.
    path = os.pathsep.join(d for d in os.environ.get("PATH", "").split(os.pathsep)
                           if d and not os.path.exists(os.path.join(d, "handrail")))
    env = {"PATH": path, "PRE_COMMIT_HOME": str(base / "pre-commit-home")}
    git(repo, "init", "-q", "-b", "main")
    (repo / ".git" / "info" / "exclude").write_text(".handrail/runtime/\n.handrail/tasks/\n")
    f = Flow(repo, env)
    assert f.commit({"README.md": "# shop\n"}, "first").returncode == 0

    snippet = next(b for b in re.findall(r"```yaml\n(.*?)```", README, re.S) if "handrail-pre-commit" in b)
    config = yaml.safe_load(snippet)
    assert config["repos"][0]["rev"] == rev
    config["repos"][0]["repo"] = str(release)
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    install = re.search(r"`(pre-commit install(?: -t [\w-]+)+)`", README)
    assert install, "README.md says which `pre-commit install -t …` line the snippet needs"
    r = subprocess.run([PRE_COMMIT, *install.group(1).split()[1:]], cwd=repo, capture_output=True, text=True,
                       env={**os.environ, **env})
    assert r.returncode == 0, r.stdout + r.stderr
    assert f.commit({".pre-commit-config.yaml": (repo / ".pre-commit-config.yaml").read_text()},
                    "hooks").returncode == 0  # handrail's own setup, a person's: no task needed
    yield f
    shutil.rmtree(base, ignore_errors=True)


def test_the_release_refuses_without_a_task_and_names_a_handrail_that_works(flow: Flow) -> None:
    r = flow.commit({"app/routes.py": "GET /users\n"}, "routes")
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert re.search(r"handrail \(commit\)\.+Failed", out) and "no task exists, so nothing may be committed" in out
    assert "Executable `handrail` not found" not in out and "Traceback" not in out
    said = re.search(r"run the commands above as (\S+) \(the pre-commit framework's own copy\)", out)
    assert said, out
    # that command is a handrail, and it does what the refusal asks for
    copy = said.group(1)
    assert str(flow.env["PRE_COMMIT_HOME"]) in copy
    made = subprocess.run([copy, "task", "new", "routes"], cwd=flow.repo, capture_output=True, text=True,
                          env={**os.environ, **flow.env})
    assert made.returncode == 0, made.stdout + made.stderr
    assert (flow.repo / ".handrail" / "tasks" / "routes" / "task.json").is_file()
    memory = subprocess.run([copy, "memory", "init"], cwd=flow.repo, capture_output=True, text=True,
                            env={**os.environ, **flow.env})
    assert memory.returncode == 0, memory.stdout + memory.stderr


def test_with_a_task_the_commit_goes_through_and_living_memory_runs_after_it(flow: Flow) -> None:
    for args in (("task", "new", "routes"), ("memory", "init")):  # where the test above has not made them
        if not (flow.repo / (".handrail/tasks/routes" if args[0] == "task" else ".handrail/context")).is_dir():
            assert run_handrail(*args, cwd=flow.repo).returncode == 0
    task_states.set_phase(str(flow.repo), "routes", "implement")  # a person's step (`task phase` needs a terminal)
    assert flow.git("add", "-f", ".handrail/context/bootstrap").returncode == 0
    r = flow.git("commit", "-q", "-m", "describe the project")  # with the refused routes, staged since
    assert r.returncode == 0, r.stdout + r.stderr
    (flow.repo / MANIFEST).unlink(missing_ok=True)  # whatever that commit prepared: only the next one counts
    r = flow.commit({"app/routes.py": "GET /users\nPOST /users\n"}, "routes")
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert re.search(r"handrail \(living memory\)\.+Passed", out), out
    head = flow.git("rev-parse", "HEAD").stdout.strip()
    assert flow.git("log", "-1", "--format=%s").stdout.strip() == "routes"
    # post-commit ran handrail's living-memory check, which prepared a reflection for this commit
    manifest = yaml.safe_load((flow.repo / MANIFEST).read_text())
    assert manifest["git_range"].endswith(head)
