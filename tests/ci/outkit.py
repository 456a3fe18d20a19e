"""Kit for the tests of handrail ci's outputs: reports shaped as `handrail ci --format json` prints them,
the SARIF schema check, and repositories and engine Pythons to run the integrations on."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any, NamedTuple

import jsonschema
from helpers import git, prepared

from handrail.ci import rules
from handrail.records import task_states

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))

# jsonschema checks neither `uri` nor `uri-reference` without an optional package: RFC 3986's
# characters (unreserved, reserved, a valid %XX) are checked here, and `uri` needs a scheme.
_URI_CHARS = re.compile(r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*")
FORMATS = jsonschema.FormatChecker()


@FORMATS.checks("uri-reference")
def _uri_reference(value: object) -> bool:
    return not isinstance(value, str) or bool(_URI_CHARS.fullmatch(value))


@FORMATS.checks("uri")
def _uri(value: object) -> bool:
    return not isinstance(value, str) or bool(_URI_CHARS.fullmatch(value) and re.match(r"[A-Za-z][\w+.-]*:", value))


def valid(log: dict[str, Any]) -> dict[str, Any]:
    """`log`, once the official SARIF 2.1.0 schema finds nothing wrong with it."""
    errors = sorted(jsonschema.Draft4Validator(SCHEMA, format_checker=FORMATS).iter_errors(log), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)
    return log


def snapshot(parent: Path) -> Path:
    """What an engine checks out of handrail: the package, its build files and its
    integrations (action.yml, ci/), copied without build leftovers."""
    import shutil

    src = parent / "handrail-src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(ROOT / "handrail", src / "handrail", ignore=ignore)
    shutil.copytree(ROOT / "ci", src / "ci", ignore=ignore)
    for name in ("pyproject.toml", "README.md", "action.yml", ".pre-commit-hooks.yaml"):
        shutil.copy(ROOT / name, src / name)
    return src


def fresh_python(parent: Path) -> Path:
    """A new virtual environment without handrail, as a CI image has: its `bin/`. The
    dependencies this test run has are lent to it (a `.pth` of links to them, handrail's
    own left out), so installing handrail there builds the checkout without downloading them."""
    venv = parent / "engine-python"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    lent = parent / "lent-packages"
    lent.mkdir()
    ours = sysconfig.get_paths()["purelib"]
    for entry in os.listdir(ours):
        if not entry.lower().startswith(("handrail", "__editable__")) and not entry.endswith(".pth"):
            os.symlink(os.path.join(ours, entry), lent / entry)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "lent-packages.pth").write_text(f"{lent}\n", encoding="utf-8")
    return venv / "bin"

BASE, HEAD = "1" * 40, "2" * 40
AGENT_COMMIT, HUMAN_COMMIT, UNKNOWN_COMMIT = "a" * 40, "b" * 40, "c" * 40

COMMITS = [
    {"commit": AGENT_COMMIT, "summary": "Add login", "author": "Claude <noreply@anthropic.com>",
     "made_by": "agent", "agent": "claude", "evidence": "Co-Authored-By: Claude"},
    {"commit": HUMAN_COMMIT, "summary": "Fix typo", "author": "Ann <ann@example.com>",
     "made_by": "human", "agent": None, "evidence": "Handrail-Human trailer"},
    {"commit": UNKNOWN_COMMIT, "summary": "WIP", "author": "Bob <bob@example.com>",
     "made_by": "unknown", "agent": None, "evidence": None},
]


def finding(rule: str, *, commit: str | None = AGENT_COMMIT, path: str | None = "src/a.py",
            line: int | None = None, message: str | None = None, made_by: str = "agent") -> dict[str, Any]:
    return {"rule": rule, "commit": commit, "path": path, "line": line,
            "message": message or f"{rule} broken in {path}", "fix": f"fix {rule}",
            "source": f"{rule} from .handrail/autonomy-protocol.json", "made_by": made_by}


def report(findings: list[dict[str, Any]], *, rewritten: bool = False) -> dict[str, Any]:
    return {"version": 1, "base": BASE, "head": HEAD, "range_from": "github:pull_request",
            "rewritten": rewritten, "commits": COMMITS, "findings": findings,
            "counts": {"commits": len(COMMITS), "agent_commits": 1, "unknown_commits": 1,
                       "findings": len(findings)},
            "result": "findings" if findings else "clean"}


def every_rule() -> dict[str, Any]:
    """One finding per rule id a report can carry, each as its rule places it."""
    found = []
    for rule in rules.RULES:
        if rule.id == rules.REWRITE:
            found.append(finding(rule.id, commit=None, path=None, made_by="unknown",
                                 message="the branch was force-pushed"))
        elif rule.id == rules.UNATTRIBUTED:
            found.append(finding(rule.id, commit=UNKNOWN_COMMIT, path=None, made_by="unknown",
                                 message="nothing says who made this commit"))
        elif rule.id == "secret":
            found.append(finding(rule.id, path="config/settings.py", line=7, message="an AWS access key"))
        elif rule.id == rules.POLICY_CHANGE:
            found.append(finding(rule.id, path=".handrail/autonomy-protocol.json",
                                 message="the policy was loosened"))
        elif rule.id == "edit_task":
            found.append(finding(rule.id, path=None, message="no task was in an edit phase"))
        else:
            found.append(finding(rule.id))
    return report(found)


CLAUDE = "\n\nCo-Authored-By: Claude <noreply@anthropic.com>"
# A file name with a line break, as git allows: in the log, the text after it starts a line.
INJECTED = "notes\n::warning title=x::injected by a commit"


class Branches(NamedTuple):
    repo: Path
    base: str
    agent: str      # an agent's commits: a secret, a loosened policy, a file named to inject commands
    human: str      # a clean commit


def make_branches(repo: Path) -> Branches:
    prepared(repo, ("init",))
    task_states.new_task(str(repo), "login", phase="implement")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "guarded")
    base = git(repo, "rev-parse", "HEAD").stdout.strip()
    git(repo, "checkout", "-q", "-b", "agent")
    (repo / "src").mkdir()
    (repo / "src" / "config.py").write_text('TOKEN = "ghp_' + "a" * 36 + '"\n', encoding="utf-8")
    (repo / INJECTED).write_text('KEY = "AKIA' + "B" * 16 + '"\n', encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "Add the config" + CLAUDE)
    protocol = repo / ".handrail" / "autonomy-protocol.json"
    loosened = protocol.read_text(encoding="utf-8").replace('"git status *",', '"git status *", "deploy-prod *",')
    protocol.write_text(loosened, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "Let deploy-prod run" + CLAUDE)
    agent = git(repo, "rev-parse", "HEAD").stdout.strip()
    git(repo, "checkout", "-q", "-b", "human", base)
    (repo / "src").mkdir(exist_ok=True)
    (repo / "src" / "app.py").write_text("print('hello')\n", encoding="utf-8")
    git(repo, "add", "src/app.py")
    git(repo, "commit", "-q", "--no-verify", "-m", "Say hello")
    human = git(repo, "rev-parse", "HEAD").stdout.strip()
    return Branches(repo, base, agent, human)
