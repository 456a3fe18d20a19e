"""The README's pre-commit snippet names a release that exists: its `rev:` is a tag of this
repository, on a commit whose `.pre-commit-hooks.yaml` defines every hook the snippet lists,
and it is the version handrail says it is.

A clone can hold no tags at all (`git clone --no-tags`, a CI checkout that fetches one
branch, a mirror that carries commits only). There the tag cannot be seen, so the release is
the commit that first set `__version__` to the snippet's version, which is the commit a
release tags: it must exist and define every hook the snippet lists. A clone that holds tags
but not this one is a release someone forgot to tag, and fails."""

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


def release_commit(rev: str) -> str:
    """The commit `rev` names: its tag, or in a clone without tags the version's first commit."""
    found = git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if found.returncode == 0:
        return found.stdout.strip()
    tags = git("tag", "--list")
    assert tags.returncode == 0 and not tags.stdout.strip(), (
        f"README.md's pre-commit snippet says rev: {rev}, which this repository does not have: tag the "
        f"release commit (git tag -a {rev} -m 'handrail {rev}'), or the framework cannot install it")
    version = rev.removeprefix("v")
    bumps = git("log", "--format=%H", f"-S__version__ = \"{version}\"", "--", "handrail/__init__.py")
    commits = bumps.stdout.split()
    assert bumps.returncode == 0 and commits, (
        f"this clone has no tags, and no commit sets handrail's __version__ to {version}: "
        f"{bumps.stderr.strip() or 'git log found none'}")
    return commits[-1]


def test_the_snippets_rev_is_a_tagged_release_with_every_hook_it_lists() -> None:
    entry = snippet()
    rev = entry["rev"]
    commit = release_commit(rev)
    manifest = git("show", f"{commit}:.pre-commit-hooks.yaml")
    assert manifest.returncode == 0, f"{rev} has no .pre-commit-hooks.yaml: {manifest.stderr.strip()}"
    defined = {h["id"] for h in yaml.safe_load(manifest.stdout)}
    listed = [h["id"] for h in entry["hooks"]]
    assert listed and set(listed) <= defined, f"{rev} does not define {sorted(set(listed) - defined)}"
