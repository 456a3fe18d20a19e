"""One reading of an error, whoever meets it: the CLI, the hot-path commands and the
git hooks say the same words for the same broken policy or crash, and exit as their
caller's protocol says (2 for a command's error, 1 for git, never 0); and a scan that
fails when a second way of naming a crash creeps back."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from helpers import git, prepared, run_handrail

import handrail

PACKAGE = Path(handrail.__file__).parent
PROTOCOL = Path(".handrail") / "autonomy-protocol.json"


def _broken(repo: Path) -> str:
    prepared(repo, ("init",))
    (repo / PROTOCOL).write_text('{"tiers": ', encoding="utf-8")
    (repo / "a.txt").write_text("a\n", encoding="utf-8")
    git(repo, "add", "a.txt")
    return str(PROTOCOL)


def _said(stderr: str, prefix: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith(prefix)]
    assert len(lines) == 1, stderr
    return lines[0][len(prefix):]


def test_a_broken_protocol_reads_the_same_to_every_entry_point(repo: Path) -> None:
    name = _broken(repo)
    classify = run_handrail("classify", "git status", cwd=repo)
    edit = run_handrail("can-edit", "--file", "a.txt", cwd=repo)
    commit = subprocess.run(["git", "commit", "-qm", "a"], cwd=repo, capture_output=True, text=True)
    assert (classify.returncode, edit.returncode) == (2, 2), (classify.stderr, edit.stderr)
    assert commit.returncode != 0, commit.stderr
    words = {_said(classify.stderr, "handrail classify: error: "),
             _said(edit.stderr, "handrail can-edit: error: "),
             _said(commit.stderr, "handrail: commit refused: ")}
    assert len(words) == 1, words
    assert name in words.pop()
    answer = json.loads(run_handrail("can-edit", "--file", "a.txt", "--json", cwd=repo).stdout)
    assert answer["allowed"] is False and answer["reason"] == "invalid_policy"


CRASH = """
import sys
import handrail.policy.protocol as protocol
def boom(*a, **k):
    raise RuntimeError("boom")
protocol.load = boom
from handrail.main import main
sys.exit(main(sys.argv[1:]))
"""


def _crashed(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CRASH, *args], cwd=repo, capture_output=True, text=True)


def test_a_crash_is_named_as_one_and_never_allows(repo: Path) -> None:
    prepared(repo, ("init",))
    classify = _crashed(repo, "classify", "--json", "git status")
    edit = _crashed(repo, "can-edit", "--json", "--file", "a.txt")
    assert (classify.returncode, edit.returncode) == (2, 2), (classify.stderr, edit.stderr)
    assert _said(classify.stderr, "handrail classify: ") == "internal error: RuntimeError: boom"
    assert _said(edit.stderr, "handrail can-edit: ") == "internal error: RuntimeError: boom"
    assert json.loads(classify.stdout)["reason"] == "internal_error"
    assert json.loads(edit.stdout)["allowed"] is False


def _formatted(tree: ast.AST) -> list[str]:
    """The literal parts of every f-string: where a message is put together (help texts
    and docstrings may speak of internal errors; only errors.py words one)."""
    return [part.value for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
            for part in node.values if isinstance(part, ast.Constant) and isinstance(part.value, str)]


def test_only_errors_names_a_crash() -> None:
    """A crash is told from a refusal in one place (errors.describe); a module that
    words its own "internal error" is a second answer to the same question."""
    found = [str(p.relative_to(PACKAGE)) for p in sorted(PACKAGE.rglob("*.py"))
             if p.name != "errors.py" and any("internal error" in s for s in _formatted(ast.parse(p.read_text())))]
    assert found == []


def test_no_task_is_opened_under_a_broken_protocol(repo: Path) -> None:
    name = _broken(repo)
    r = run_handrail("task", "new", "t", cwd=repo)
    assert r.returncode == 2 and name in r.stderr, r.stderr
    assert not (repo / ".handrail" / "tasks" / "t").exists()


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_a_plain_folder_answers_and_keeps_nothing(tmp_path: Path) -> None:
    """No git, no .handrail/, no harness folder: the default policy answers, and nothing
    is written there; a folder that holds .handrail/ keeps its log as before."""
    plain = tmp_path / "plain"
    plain.mkdir()
    env = {name: "" for name in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "QWEN_PROJECT_DIR", "CURSOR_PROJECT_DIR")}
    edit = run_handrail("can-edit", "--file", "a.txt", cwd=plain, env=env)
    classify = run_handrail("classify", "--project", ".", "rm -rf /", cwd=plain, env=env)
    told = run_handrail("notify", "--level", "warn", "--topic", "t", "--message", "m", cwd=plain, env=env)
    assert (edit.returncode, classify.returncode, told.returncode) == (1, 1, 0), told.stderr
    assert "m" in told.stdout
    for r in (edit, classify, told):
        assert "not recorded" in r.stderr and "is no project" in r.stderr and "Traceback" not in r.stderr
    assert _files(plain) == []
    (plain / ".handrail").mkdir()
    told = run_handrail("notify", "--level", "warn", "--topic", "t", "--message", "m", cwd=plain, env=env)
    assert "not recorded" not in told.stderr
    assert (plain / ".handrail" / "runtime" / "events.sqlite").is_file()
