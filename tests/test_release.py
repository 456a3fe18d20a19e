"""The README's pre-commit snippet names a release that exists: its `rev:` is a tag of this
repository, on a commit whose `.pre-commit-hooks.yaml` defines every hook the snippet lists,
and it is the version handrail says it is."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

import handrail

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def snippet() -> dict:
    """The README's `.pre-commit-config.yaml` snippet: the yaml block with handrail's repo."""
    for block in re.findall(r"```yaml\n(.*?)```", README, re.S):
        data = yaml.safe_load(block)
        if isinstance(data, dict) and "repos" in data:
            return data["repos"][0]
    raise AssertionError("README.md has no pre-commit snippet (a ```yaml block with repos:)")


def git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def test_the_snippet_names_this_version() -> None:
    assert snippet()["rev"] == f"v{handrail.__version__}"


def test_the_snippets_rev_is_a_tagged_release_with_every_hook_it_lists() -> None:
    entry = snippet()
    rev = entry["rev"]
    found = git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    assert found.returncode == 0, (
        f"README.md's pre-commit snippet says rev: {rev}, which this repository does not have: tag the "
        f"release commit (git tag -a {rev} -m 'handrail {rev}'), or the framework cannot install it")
    manifest = git("show", f"{found.stdout.strip()}:.pre-commit-hooks.yaml")
    assert manifest.returncode == 0, f"{rev} has no .pre-commit-hooks.yaml: {manifest.stderr.strip()}"
    defined = {h["id"] for h in yaml.safe_load(manifest.stdout)}
    listed = [h["id"] for h in entry["hooks"]]
    assert listed and set(listed) <= defined, f"{rev} does not define {sorted(set(listed) - defined)}"
