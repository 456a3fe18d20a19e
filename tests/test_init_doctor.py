"""`handrail init` from a plain repository to a guarded one, and `handrail doctor`
finding and repairing what drifted."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import yaml
from helpers import HANDRAIL, as_person, git, prepared

from handrail.init import LOCAL_HOOKS

ROOT = Path(__file__).resolve().parent.parent
# The harness hooks run `handrail hook …` from the agents' PATH: give them this handrail.
ON_PATH = {"PATH": f"{Path(HANDRAIL or 'handrail').parent}{os.pathsep}{os.environ.get('PATH', '')}"}
HARNESS_FILES = (".claude/settings.json", ".codex/rules/handrail.rules", ".codex/hooks.json", "opencode.json",
                 ".opencode/plugin/handrail.js", ".gemini/settings.json", ".gemini/policies/handrail.toml",
                 ".cursor/hooks.json",
                 ".github/hooks/handrail.json", ".clinerules/hooks/PreToolUse")


def last_json(stdout: str) -> dict:
    return json.loads(stdout.splitlines()[-1])


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file but git's objects and index and the git-ignored runtime folder (where
    each run leaves its pid in the lock)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "objects" not in p.parts and p.name not in ("index", "ORIG_HEAD")
            and p.relative_to(root).parts[:2] != (".handrail", "runtime")}


def doctor(handrail, repo: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict]:  # type: ignore[no-untyped-def]
    r = handrail("doctor", "--json", *args, cwd=repo, env={**ON_PATH, **(env or {})})
    assert "Traceback" not in r.stderr
    return r.returncode, last_json(r.stdout)


def findings(report: dict, check: str) -> list[str]:
    return [f"{f['severity']}: {f['finding']}" for f in report["findings"] if f["check"] == check]


@pytest.fixture
def guarded(repo: Path) -> Path:
    prepared(repo, ("init",))
    return repo


# ----------------------------------------------------------------------------- init


def test_init_guards_a_plain_repository_and_says_what_next(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    r = handrail("init", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert ".handrail/autonomy-protocol.json  created (the default policy)" in r.stdout
    for path in HARNESS_FILES:
        assert (repo / path).is_file(), path
        assert f"{path}" in r.stdout
    for hook in ("pre-commit", "pre-push", "post-commit"):
        assert os.access(repo / ".git" / "hooks" / hook, os.X_OK), hook
    next_lines = r.stdout.split("next:\n", 1)[1].splitlines()
    assert [line.split("#")[0].split()[:3] for line in next_lines] == [
        ["handrail", "task", "new"], ["handrail", "task", "phase"], ["handrail", "doctor"]]
    ignored = (repo / ".handrail" / ".gitignore").read_text().split()
    assert {"/runtime/", "/backups/", "/tasks/*/progress.json", "/tasks/*/attempts/"} <= set(ignored)
    assert handrail("policy", "check", cwd=repo).returncode == 0
    assert handrail("permissions", "--check", cwd=repo).returncode == 0
    # what init lays is committed; runtime state and backups are not
    (repo / ".handrail" / "runtime").mkdir(exist_ok=True)  # the lock init held is there already
    (repo / ".handrail" / "runtime" / "x").write_text("x")
    status = git(repo, "status", "--porcelain", "--untracked-files=all", ".handrail").stdout
    assert ".handrail/autonomy-protocol.json" in status and "runtime" not in status


def test_init_again_changes_nothing_and_says_so(guarded: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    before = snapshot(guarded)
    r = handrail("init", cwd=guarded)
    assert r.returncode == 0, r.stderr
    assert "nothing changed: this repository is already guarded" in r.stdout
    assert "created" not in r.stdout and "updated" not in r.stdout
    assert snapshot(guarded) == before


def test_init_outside_a_git_repository_says_what_to_do(tmp_path: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    plain = tmp_path / "plain"
    plain.mkdir()
    r = handrail("init", cwd=plain)
    assert r.returncode == 2
    assert "not inside a git repository" in r.stderr and "`git init`" in r.stderr and "Traceback" not in r.stderr
    assert list(plain.iterdir()) == []


def test_init_keeps_a_protocol_and_with_tools_generates_only_theirs(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    r = handrail("init", "--tools", "claude,codex", cwd=repo)
    assert r.returncode == 0, r.stderr
    protocol = json.loads((repo / ".handrail" / "autonomy-protocol.json").read_text())
    assert list(protocol["tools"]) == ["claude", "codex"]
    assert (repo / ".claude" / "settings.json").exists() and not (repo / "opencode.json").exists()
    protocol["tiers"]["tier3_blocking"]["shell_patterns"].append("my-deploy *")
    (repo / ".handrail" / "autonomy-protocol.json").write_text(json.dumps(protocol))
    r = handrail("init", cwd=repo)
    assert ".handrail/autonomy-protocol.json  kept (already there)" in r.stdout
    permissions = json.loads((repo / ".claude" / "settings.json").read_text())["permissions"]
    assert "Bash(my-deploy *)" in permissions["ask"] and permissions["allow"] == []


def test_init_refuses_an_invalid_protocol_unless_forced(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    path = repo / ".handrail" / "autonomy-protocol.json"
    path.parent.mkdir()
    path.write_text('{"version": "1.1", "tiers": {"tier1_silent": {"shell_patterns": "ls"}}}')
    r = handrail("init", cwd=repo)
    assert r.returncode == 2 and "--force" in r.stderr and not (repo / ".claude").exists()
    r = handrail("init", "--force", cwd=repo)
    assert r.returncode == 1 and "refused: a human replaces the protocol" in r.stderr  # no terminal: no person
    r = as_person("init", "--force", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert "replaced with the default policy (the invalid one is in .handrail/backups/" in r.stdout
    backup = next((repo / ".handrail" / "backups").glob("*/init/autonomy-protocol.json"))
    assert '"shell_patterns": "ls"' in backup.read_text()


def test_init_with_pre_commit_merges_the_config_and_installs_both_hooks(repo: Path, handrail,  # type: ignore[no-untyped-def]
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRE_COMMIT_HOME", str(repo.parent / "pre-commit-home"))
    config = repo / ".pre-commit-config.yaml"
    config.write_text("# our checks\nrepos:\n  - repo: local\n    hooks:\n      - id: no-todo\n        name: no todo\n"
                      "        entry: 'true'\n        language: system\n\n# keep this\ndefault_stages: [pre-commit]\n")
    r = handrail("init", "--pre-commit", cwd=repo, env=ON_PATH)
    assert r.returncode == 0, r.stderr
    text = config.read_text()
    assert text.startswith("# our checks\n") and "# keep this\ndefault_stages: [pre-commit]\n" in text
    data = yaml.safe_load(text)
    ids = [h["id"] for r in data["repos"] for h in r["hooks"]]
    assert ids == ["no-todo"] + [h["id"] for h in LOCAL_HOOKS]
    for hook in ("pre-commit", "prepare-commit-msg", "pre-push", "post-commit"):
        assert "File generated by pre-commit" in (repo / ".git" / "hooks" / hook).read_text()
        assert f"git hook {hook}" in r.stdout
    assert not (repo / ".git" / "hooks" / "pre-commit.handrail-saved").exists()
    assert ("note: the pre-commit framework runs handrail's hooks at pre-commit, prepare-commit-msg, pre-push, "
            "post-commit (post-commit: living memory's check)") in r.stdout
    assert git(repo, "config", "handrail.bin").stdout.strip() == HANDRAIL

    r = handrail("init", "--pre-commit", cwd=repo, env=ON_PATH)
    assert "nothing changed" in r.stdout and config.read_text() == text
    _, report = doctor(handrail, repo)
    assert findings(report, "git-hooks") == [], report
    # a framework set up without living memory's hook is told, and repaired
    (repo / ".git" / "hooks" / "post-commit").unlink()
    _, report = doctor(handrail, repo)
    assert findings(report, "git-hooks") == ["warning: git post-commit hook: the pre-commit framework does not run "
                                             "handrail-post-commit there, so living memory does not notice commits"]
    doctor(handrail, repo, "--fix")
    assert "File generated by pre-commit" in (repo / ".git" / "hooks" / "post-commit").read_text()

    # and the framework runs handrail: a secret is refused at commit time
    (repo / ".env").write_text("A=1\n")
    git(repo, "add", "-f", ".env")
    r = git(repo, "commit", "-q", "-m", "settings", check=False, env=ON_PATH)
    assert r.returncode != 0 and ".env is forbidden" in r.stdout + r.stderr
    # and so is a protocol change whose permission files were not regenerated
    git(repo, "rm", "-q", "--cached", ".env")
    protocol = repo / ".handrail" / "autonomy-protocol.json"
    protocol.write_text(protocol.read_text().replace('"git status *",', '"git status *", "my-tool *",'))
    git(repo, "add", "-f", str(protocol))
    r = git(repo, "commit", "-q", "-m", "policy", check=False, env=ON_PATH)
    out = r.stdout + r.stderr
    assert r.returncode != 0 and re.search(r"handrail permissions in sync\.+Failed", out), out
    assert ".claude/settings.json" in out and "differs" in out


def test_the_local_pre_commit_hooks_are_the_published_ones() -> None:
    published = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    local = {h["id"]: h for h in LOCAL_HOOKS}
    for hook in published:
        if hook.get("stages") == ["manual"]:
            continue  # handrail-ci: the CI check, run by hand over a range; init installs no such hook
        mine = local[hook["id"]]
        for key in ("files", "always_run", "pass_filenames"):
            assert mine.get(key) == hook.get(key), (hook["id"], key)
        # the same command, started through the handrail init recorded (or PATH's)
        assert hook["entry"].startswith("handrail ")
        assert f'exec "$h" {hook["entry"].removeprefix("handrail ")} "$@"' in mine["entry"], hook["id"]
        assert mine["stages"] == hook.get("stages", mine["stages"])


# ----------------------------------------------------------------------------- doctor


def test_doctor_is_ok_right_after_init(guarded: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    code, report = doctor(handrail, guarded)
    assert code == 0 and report["ok"] is True and report["errors"] == 0
    assert set(report["checks"]) == {"policy", "files", "allow-rules", "git-hooks", "harness-hooks", "runtime",
                                     "advice"}
    assert findings(report, "advice") == ["warning: no task is in an edit phase, so agents cannot edit anything"]
    assert report["runtime"]["python"] and report["runtime"]["pygit2"]
    r = handrail("doctor", cwd=guarded, env=ON_PATH)
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "ok: 0 errors, 1 warning"


def test_doctor_finds_a_hand_edit_but_not_a_newer_mtime(guarded: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    settings = guarded / ".claude" / "settings.json"
    later = settings.stat().st_mtime + 86400
    os.utime(settings, (later, later))
    assert doctor(handrail, guarded)[0] == 0
    data = json.loads(settings.read_text())
    data["permissions"]["ask"].remove("Bash(git push --force *)")  # a rule of handrail's, taken out
    settings.write_text(json.dumps(data))
    code, report = doctor(handrail, guarded)
    assert code == 1 and report["ok"] is False
    assert findings(report, "files") == ["error: .claude/settings.json (claude): differs from what the protocol "
                                         "generates (a hand edit, or the protocol changed)"]
    assert all(f["hint"] and f["severity"] in ("error", "warning") for f in report["findings"])


def test_doctor_finds_missing_foreign_and_unregistered_hooks(guarded: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    hooks = guarded / ".git" / "hooks"
    (hooks / "pre-push").unlink()
    (hooks / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    settings = guarded / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    del data["hooks"]["PreToolUse"]
    settings.write_text(json.dumps(data))
    code, report = doctor(handrail, guarded)
    assert code == 1
    assert findings(report, "git-hooks") == [
        "error: git pre-commit hook: .git/hooks/pre-commit is not handrail's",
        "error: git pre-push hook: not installed in .git/hooks"]
    assert findings(report, "harness-hooks") == [
        "error: claude: its hook is not registered: .claude/settings.json does not run `handrail hook claude`"]


def test_doctor_warns_when_agents_commits_would_go_unmarked(guarded: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    hooks = guarded / ".git" / "hooks"
    (hooks / "prepare-commit-msg").unlink()
    (hooks / "pre-applypatch").write_text("#!/bin/sh\nexit 0\n")
    code, report = doctor(handrail, guarded)
    assert code == 0  # advice: the commits still meet pre-commit and pre-push
    assert [f for f in findings(report, "git-hooks") if "prepare-commit-msg" in f or "pre-applypatch" in f] == [
        "warning: git prepare-commit-msg hook: not installed, so an agent's commits carry no Handrail-Agent "
        "trailer, and pre-push and CI take them for a person's",
        "warning: git pre-applypatch hook: not handrail's, so `git am` commits meet no pre-commit rule"]
    assert handrail("doctor", "--fix", cwd=guarded).returncode in (0, 1)
    assert os.access(hooks / "prepare-commit-msg", os.X_OK)


def test_doctor_fix_repairs_then_reports_again(guarded: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    (guarded / ".git" / "hooks" / "pre-push").unlink()
    (guarded / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\necho mine\n")
    (guarded / ".git" / "hooks" / "pre-commit").chmod(0o755)
    (guarded / "opencode.json").write_text('{"permission": {"bash": {"*": "allow"}}, "model": "a/b"}')
    (guarded / ".codex" / "rules" / "handrail.rules").unlink()
    code, report = doctor(handrail, guarded, "--fix")
    assert code == 0 and report["ok"] is True, report
    assert report["before_fix"]["errors"] == 4 and len(report["fixed"]) == 2
    assert json.loads((guarded / "opencode.json").read_text())["model"] == "a/b"
    assert (guarded / ".git" / "hooks" / "pre-commit.handrail-saved").read_text() == "#!/bin/sh\necho mine\n"
    assert list((guarded / ".handrail" / "backups").glob("*/permissions/opencode.json"))


def test_doctor_reports_what_it_cannot_fix(guarded: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    (guarded / ".gemini" / "settings.json").write_text("{not json")
    (guarded / ".handrail" / "tasks" / "t").mkdir(parents=True)
    (guarded / ".handrail" / "tasks" / "t" / "task.json").write_text('{"task": "t"}')
    code, report = doctor(handrail, guarded, "--fix", env={"PATH": "/usr/bin:/bin"})
    assert code == 1
    assert any(".gemini/settings.json: invalid JSON" in f for f in findings(report, "files"))
    assert any(".handrail/tasks/t/task.json" in f for f in findings(report, "policy"))
    assert findings(report, "harness-hooks")[0].startswith("error: handrail is not on PATH")
    assert (guarded / ".gemini" / "settings.json").read_text() == "{not json"
    r = handrail("doctor", cwd=guarded, env={"PATH": "/usr/bin:/bin"})
    assert r.returncode == 1 and r.stdout.splitlines()[-1].startswith("not ok: ")


def test_doctor_gives_advice_as_warnings(guarded: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    from handrail.records import gate_states, task_states

    assert handrail("autonomy", "init", "bot", "--owner", "me", cwd=guarded).returncode == 0
    task = task_states.new_task(str(guarded), "login", phase="implement")
    (Path(task.dir) / "harness-contract.json").write_text(json.dumps(
        {"criteria": [{"id": "works", "binary": True}]}))
    gate_states.request(task.dir, "login", "publish", "r1", paths=[], why="a push to main")
    code, report = doctor(handrail, guarded, env={"HANDRAIL_NOW": "2099-01-01T00:00:00Z"})
    assert code == 0 and report["ok"] is True
    advice = findings(report, "advice")
    assert any("agents/bot/autonomy-envelope.md: untouched for" in a for a in advice)
    assert "warning: task login: gate publish waits for a human" in advice
    assert any("binary criterion 'works' has no verification" in f for f in findings(report, "policy"))
    assert not any("no task is in an edit phase" in a for a in advice)
