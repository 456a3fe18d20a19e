"""One pinned project root: a call's folder, a nested `.handrail`, a repository made
inside the project or a linked worktree never picks the policy, the tasks or the gates."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helpers import git, run_handrail

sys.path.insert(0, str(Path(__file__).parent / "git"))  # gitkit: a repository driven as an agent drives git

from gitkit import AGENT, Project, refused

from handrail import install_hooks
from handrail.policy import protocol as protocols
from handrail.projectroot import HARNESS_DIRS, find_root
from handrail.records import task_states

DEPLOY = "make deploy"  # tier 3 in the project's policy, tier 1 in the nested one


@pytest.fixture(autouse=True)
def no_harness_dirs(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, _ in HARNESS_DIRS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HANDRAIL_HOOK_DEADLINE_MS", "60000")  # a loaded machine is not what is tested


def policy(tier1: list[str], tier3: list[str]) -> str:
    data = json.loads(Path(protocols.DEFAULT_PROTOCOL).read_text())
    tiers = data["tiers"]
    tiers["tier1_silent"]["shell_patterns"] = [p for p in tiers["tier1_silent"]["shell_patterns"]
                                               if p not in tier3] + tier1
    tiers["tier3_blocking"]["shell_patterns"] = [p for p in tiers["tier3_blocking"]["shell_patterns"]
                                                 if p not in tier1] + tier3
    return json.dumps(data)


@pytest.fixture
def guarded(repo: Path) -> Path:
    """A guarded repository: task `t` in implement, `make deploy` tier 3, src/app.py committed,
    and a nested src/.handrail whose protocol puts `make deploy` in tier 1."""
    task_states.new_task(str(repo), "t", phase="implement")  # a person's step: the CLI wants a terminal
    (repo / ".handrail" / "autonomy-protocol.json").write_text(policy([], [DEPLOY]))
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print('hi')\n")
    git(repo, "add", "src/app.py")
    git(repo, "commit", "-q", "-m", "app")
    return repo


def nest(folder: Path) -> None:
    (folder / ".handrail").mkdir(parents=True, exist_ok=True)
    (folder / ".handrail" / "autonomy-protocol.json").write_text(policy([DEPLOY], []))


def hook(harness: str, payload: dict[str, object], cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    r = run_handrail("hook", harness, input=json.dumps(payload), cwd=cwd, env=env)
    return r.returncode, r.stdout + r.stderr


def claude_bash(command: str, cwd: Path) -> dict[str, object]:
    return {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command},
            "cwd": str(cwd), "session_id": "s"}


def claude_write(path: Path, cwd: Path) -> dict[str, object]:
    return {"hook_event_name": "PreToolUse", "tool_name": "Write",
            "tool_input": {"file_path": str(path), "content": "x"}, "cwd": str(cwd), "session_id": "s"}


def decision(out: str) -> str:
    line = [x for x in out.splitlines() if x.startswith("{")][-1]
    return str(json.loads(line)["hookSpecificOutput"]["permissionDecision"])


# ----------------------------------------------------------------------------- hooks


def test_a_nested_protocol_does_not_loosen_the_projects_tier_3(guarded: Path) -> None:
    nest(guarded / "src")
    nested = run_handrail("classify", "--protocol", str(guarded / "src/.handrail/autonomy-protocol.json"), DEPLOY,
                          cwd=guarded / "src")
    assert nested.returncode == 0, "the nested protocol allows it: read, it would loosen the policy"
    for cwd in (guarded / "src", guarded):
        code, out = hook("claude", claude_bash(DEPLOY, cwd), cwd=cwd)
        assert code == 0 and decision(out) == "ask", out
    code, out = hook("codex", {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                               "tool_input": {"command": DEPLOY}, "cwd": str(guarded / "src")}, cwd=guarded / "src")
    assert code == 2 or '"deny"' in out, out
    assert run_handrail("classify", DEPLOY, cwd=guarded / "src").returncode == 1


def test_a_repository_made_inside_the_project_keeps_the_projects_policy(guarded: Path) -> None:
    inner = guarded / "src" / "x"
    inner.mkdir()
    git(inner, "init", "-q")
    nest(inner)  # unguarded until it holds .handrail: that is an edit agents are refused
    (inner / ".handrail").rename(inner / "h")
    _, out = hook("claude", claude_bash(DEPLOY, inner), cwd=inner)
    assert decision(out) == "ask", out
    assert find_root(str(inner), {}) == str(guarded)


def test_read_only_commands_run_from_a_subfolder_create_nothing_there(guarded: Path) -> None:
    src = guarded / "src"
    assert run_handrail("can-edit", "--file", "app.py", cwd=src).returncode == 0
    r = run_handrail("can-edit", "--json", "--file", ".handrail/x", cwd=src)
    assert r.returncode == 1 and json.loads(r.stdout.splitlines()[-1])["reason"] == "protected_path"
    run_handrail("classify", "--project", ".", "git reset --hard", cwd=src)
    hook("claude", claude_bash("git reset --hard", src), cwd=src)
    hook("claude", claude_write(src / ".handrail" / "x", src), cwd=src)
    assert not (src / ".handrail").exists()
    events = run_handrail("events", "--json", cwd=guarded).stdout
    assert "edit_refused" in events and "command_blocked" in events


def test_an_agent_edit_of_a_nested_handrail_is_refused_everywhere(guarded: Path) -> None:
    target = guarded / "src" / ".handrail" / "x"
    r = run_handrail("can-edit", "--json", "--file", "src/.handrail/x", cwd=guarded)
    answer = json.loads(r.stdout.splitlines()[-1])
    assert r.returncode == 1 and answer["reason"] == "protected_path" and answer["rule"] == "**/.handrail/**"
    _code, out = hook("claude", claude_write(target, guarded / "src"), cwd=guarded / "src")
    assert decision(out) == "deny" and "is protected" in out
    _, out = hook("claude", claude_bash("echo '{}' > .handrail/autonomy-protocol.json", guarded / "src"),
                     cwd=guarded / "src")
    assert decision(out) == "deny" and "src/.handrail/autonomy-protocol.json" in out
    install_hooks.install(str(guarded / ".git" / "hooks"), str(guarded))
    target.parent.mkdir(parents=True)
    target.write_text("x\n")
    project = Project(guarded)
    refused(project.commit("src/.handrail/x", env=AGENT), "src/.handrail/x is protected")
    assert project.commit(env={}).returncode == 0  # a human commits it


# ----------------------------------------------------------------------------- harness project folders


def test_the_harness_project_folder_starts_the_search_and_git_wins(guarded: Path) -> None:
    pkg = guarded / "pkg"
    nest(pkg)
    env = {"CLAUDE_PROJECT_DIR": str(pkg)}
    _code, out = hook("claude", claude_bash(DEPLOY, pkg), cwd=pkg, env=env)
    assert decision(out) == "ask", out
    _, out = hook("claude", claude_write(guarded / "src" / "app.py", pkg), cwd=pkg, env=env)
    assert decision(out) == "allow", out
    assert find_root("/", env) == str(guarded)  # the call's folder does not choose


def test_outside_git_the_harness_folder_is_the_project(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / ".handrail").mkdir(parents=True)
    (proj / ".handrail" / "autonomy-protocol.json").write_text(policy([], [DEPLOY]))
    nest(proj / "src")
    env = {"CLAUDE_PROJECT_DIR": str(proj)}
    _, out = hook("claude", claude_bash(DEPLOY, proj / "src"), cwd=proj / "src", env=env)
    assert decision(out) == "ask", out
    assert find_root(str(proj / "src"), env) == str(proj)
    # Without one, the nearest protocol up from the call's folder (a nested one is an edit agents are refused).
    assert find_root(str(tmp_path / "proj" / "lib"), {}) == str(proj)
    assert find_root(str(tmp_path), {}) == str(tmp_path)


def test_a_payload_project_folder_is_the_harness_word(guarded: Path) -> None:
    nest(guarded / "src")
    payload = {"tool": "bash", "args": {"command": DEPLOY, "workdir": str(guarded / "src")},
               "directory": str(guarded)}
    _, out = hook("opencode", payload, cwd=guarded / "src")
    assert '"deny"' in out, out


# ----------------------------------------------------------------------------- worktrees and submodules


def test_a_linked_worktree_belongs_to_its_main_repository(guarded: Path, tmp_path: Path) -> None:
    for where in (guarded / "src" / "wt", tmp_path / "wt"):
        git(guarded, "worktree", "add", "-q", str(where), "-b", where.parent.name)
        assert find_root(str(where / "src"), {}) == str(guarded)
        _code, out = hook("claude", claude_write(where / "src" / "app.py", where), cwd=where)
        assert decision(out) == "allow", out  # judged relative to the worktree, by the main tasks
        _, out = hook("claude", claude_write(where / ".env", where), cwd=where)
        assert decision(out) == "deny", out


def test_a_submodule_is_its_own_project(guarded: Path, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q", "-b", "main")
    git(lib, "commit", "-q", "--allow-empty", "-m", "lib")
    git(guarded, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    assert find_root(str(guarded / "vendor" / "lib"), {}) == str(guarded / "vendor" / "lib")


def forged_gate(project: Project, tree: Path) -> None:
    """An approved publish gate, as `handrail gate approve` writes it, in `tree` only."""
    project.approve("t", "publish")
    src = project.path / ".handrail" / "tasks" / "t"
    dst = tree / ".handrail" / "tasks" / "t"
    (dst / "gates").mkdir(parents=True)
    (dst / "task.json").write_text((src / "task.json").read_text())
    (dst / "gates" / "publish.json").write_text((src / "gates" / "publish.json").read_text())
    (src / "gates" / "publish.json").unlink()


@pytest.mark.parametrize("inside", [True, False], ids=["under-src", "in-tmp"])
def test_a_gate_forged_in_a_linked_worktree_approves_nothing(guarded: Path, tmp_path: Path, inside: bool) -> None:
    install_hooks.install(str(guarded / ".git" / "hooks"), str(guarded))
    (guarded / ".git" / "info").mkdir(exist_ok=True)
    (guarded / ".git" / "info" / "exclude").write_text(".handrail/\nsrc/wt/\n")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    project = Project(guarded)
    project.git("remote", "add", "origin", str(remote))
    assert project.git("push", "-q", "origin", "main", check=False).returncode == 0
    where = guarded / "src" / "wt" if inside else tmp_path / "wt"
    git(guarded, "worktree", "add", "-q", str(where), "-b", "topic")
    forged_gate(project, where)
    tree = Project(where)
    tree.write("src/new.py")
    assert tree.commit("src/new.py", env=AGENT).returncode == 0
    r = tree.git("push", "-q", "origin", "HEAD:main", check=False, env=AGENT)
    refused(r, "protected branch main", action="push")
    project.approve("t", "publish")  # the same approval in the main repository counts
    assert tree.git("push", "-q", "origin", "HEAD:main", check=False, env=AGENT).returncode == 0


def test_a_typed_project_folder_beats_the_harness_folder_in_every_command(tmp_path: Path) -> None:
    # One step for all: `--project` (relative to where the command runs), else the harness's folder.
    strict, loose, elsewhere = tmp_path / "strict", tmp_path / "loose", tmp_path / "elsewhere"
    nest(loose)
    (strict / ".handrail").mkdir(parents=True)
    (strict / ".handrail" / "autonomy-protocol.json").write_text(policy([], [DEPLOY]))
    elsewhere.mkdir()
    env = {"CLAUDE_PROJECT_DIR": str(loose)}
    assert run_handrail("classify", DEPLOY, cwd=elsewhere, env=env).returncode == 0
    assert run_handrail("classify", "--project", "../strict", DEPLOY, cwd=elsewhere, env=env).returncode == 1
    line = json.dumps({"command": DEPLOY}) + "\n"
    batch = run_handrail("classify", "--batch", "-", "--project", "../strict", input=line, cwd=elsewhere, env=env)
    assert json.loads(batch.stdout.splitlines()[0])["tier"] == 3, batch.stdout
    shown = run_handrail("policy", "show", "--tier", "3", "--project", "../strict", cwd=elsewhere, env=env)
    assert shown.returncode == 0 and DEPLOY in shown.stdout, shown.stdout + shown.stderr
    shown = run_handrail("policy", "show", "--tier", "3", cwd=elsewhere, env=env)
    assert shown.returncode == 0 and DEPLOY not in shown.stdout, shown.stdout
    task_states.new_task(str(strict), "t", phase="implement")
    typed = run_handrail("can-edit", "--project", "../strict", "--file", "app.py", cwd=elsewhere, env=env)
    assert typed.returncode == 0, typed.stdout + typed.stderr
    assert run_handrail("can-edit", "--file", "app.py", cwd=elsewhere, env=env).returncode == 1
