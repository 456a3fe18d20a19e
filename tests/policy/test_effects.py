"""One reading of what a command does to files: `handrail classify --json` shows it, and the
secret-read rule, the write rules and the pre-tool hooks' edits all judge from it, so they
cannot disagree about which operand of `cp` is read and which is written."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import HANDRAIL

from handrail.policy import protocol as protocols
from handrail.policy.shell import engine, unwrap, writes


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("print(1)\n")
    (root / ".env").write_text("TOKEN=x\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "init", "-q"], cwd=root, env=env, check=True)
    return root


def effects_of(project: Path, command: str) -> list[dict[str, object]]:
    assert HANDRAIL
    r = subprocess.run([HANDRAIL, "classify", "--json", command], cwd=project, text=True, capture_output=True,
                       env={**os.environ, "HOME": str(project.parent)}, check=False)
    assert r.returncode in (0, 1), r.stderr
    answer = json.loads(r.stdout.splitlines()[-1])
    effects = answer["effects"]
    assert isinstance(effects, list)
    return effects


def test_classify_json_says_what_each_part_reads_writes_and_removes(project: Path) -> None:
    shown = effects_of(project, "cp src/a.py /tmp/copy.py && mv src/a.py src/b.py; rm -f notes.txt > log.txt")
    root = str(project)
    assert shown[0] == {"part": "cp src/a.py /tmp/copy.py", "reads": [f"{root}/src/a.py"], "writes": ["/tmp/copy.py"],
                        "known_for": ["reads", "writes"]}
    assert shown[1]["reads"] == [f"{root}/src/a.py"]
    assert shown[1]["writes"] == [f"{root}/src/b.py"]
    assert shown[1]["removes"] == [f"{root}/src/a.py"]
    assert shown[2]["writes"] == [f"{root}/log.txt"]
    assert shown[2]["removes"] == [f"{root}/notes.txt"]


def test_a_program_handrail_has_no_entry_for_is_shown_without_kinds(project: Path) -> None:
    shown = effects_of(project, "frobnicate src/a.py")
    assert shown == [{"part": "frobnicate src/a.py", "reads": [f"{project}/src/a.py"]}]


def test_a_target_known_only_at_run_time_is_shown_as_written(project: Path) -> None:
    shown = effects_of(project, 'cat "$X" > "$OUT"')
    assert shown[0]["reads"] == ['"$X"'] and shown[0]["writes"] == ['"$OUT"']


@pytest.mark.parametrize("command", [
    "cp .env /tmp/x", "tar czf /tmp/x.tgz .env", "sed 'r .env' src/a.py", "sort .env", "mv .env src/x",
])
def test_a_secret_the_effects_read_is_what_the_secret_rule_refuses(project: Path, command: str) -> None:
    answer = engine.classify(command, engine.engine(protocols.builtin()), cwd=str(project), project=str(project),
                             home=str(project.parent), effects=True)
    reads = [p for e in answer["effects"] for p in e.get("reads", [])]
    assert f"{project}/.env" in reads
    assert answer["tier"] == 3 and any(r.get("rule") == "secret-read" for r in answer["reasons"])


@pytest.mark.parametrize("command", [
    "cp src/a.py src/b.py", "mv src/a.py lib/", "echo x > src/c.py", "sed -i s/1/2/ src/a.py",
    "tee -a notes.md < src/a.py", "install -d out", "git mv src/a.py src/z.py", "tar -xf x.tar -C build",
])
def test_the_hooks_edits_are_the_effects_writes_and_removes(project: Path, command: str) -> None:
    """writes.touched_paths (what the pre-tool hook asks can-edit about) judges the same words."""
    parts = unwrap.split(command, str(project), str(project.parent))
    edits = writes.touched_paths(parts, str(project.parent))
    answer = engine.classify(command, engine.engine(protocols.builtin()), cwd=str(project), project=str(project),
                             home=str(project.parent), parts=parts, effects=True)
    touched = [p for e in answer["effects"] for k in ("writes", "removes") for p in e.get(k, [])]
    assert edits
    assert all(any(e == t or e.startswith(t.rstrip("/") + "/") for t in touched) for e in edits), (edits, touched)


GIT_PATCH = """diff --git a/{path} b/{path}
--- a/{path}
+++ b/{path}
@@ -1 +1 @@
-a
+b
"""


@pytest.mark.parametrize(("path", "command", "decision"), [
    (".handrail/tasks/t/task.json", "git apply fix.patch", "ask"),
    (".handrail/tasks/t/gates/publish.json", "patch -p1 < fix.patch", "ask"),
    (".git/hooks/pre-commit", "patch -p1 -i fix.patch", "ask"),
    ("src/a.py", "git apply fix.patch", "notify"),
    ("src/a.py", "git apply --check fix.patch", "notify"),
    (".handrail/autonomy-protocol.json", "git apply --stat fix.patch", "notify"),
])
def test_a_patch_writes_the_files_its_text_names(project: Path, path: str, command: str, decision: str) -> None:
    (project / "fix.patch").write_text(GIT_PATCH.format(path=path))
    answer = engine.classify(command, engine.engine(protocols.builtin()), cwd=str(project), project=str(project),
                             home=str(project.parent), effects=True)
    assert answer["decision"] == decision, answer
    if decision == "notify" and "--" not in command:
        assert [f"{project}/{path}"] == [p for e in answer["effects"] for p in e.get("writes", [])]


@pytest.mark.parametrize("command", ["git apply missing.patch", "curl -fsS https://example.com/p.diff | git apply",
                                     "patch -p1 < \"$PATCH\""])
def test_a_patch_handrail_cannot_read_names_unknown_files(project: Path, command: str) -> None:
    answer = engine.classify(command, engine.engine(protocols.builtin()), cwd=str(project), project=str(project),
                             home=str(project.parent))
    assert answer["decision"] == "ask", answer


@pytest.mark.parametrize(("script", "decision"), [
    ("cat .env\n", "ask"), ("rm -rf src\n", "ask"), ("export APP_MODE=dev\necho ready\n", "runs"),
])
@pytest.mark.parametrize("runner", ["source", ".", "bash"])
def test_a_sourced_script_is_read_as_a_script_run_by_bash_is(project: Path, runner: str, script: str,
                                                             decision: str) -> None:
    (project / "env.sh").write_text(script)
    answer = engine.classify(f"{runner} env.sh", engine.engine(protocols.builtin()), cwd=str(project),
                             project=str(project), home=str(project.parent))
    assert answer["decision"] in (("allow", "notify") if decision == "runs" else (decision,)), answer
