"""One answer per question: each decision made in one place, and every entry point asking it.

Each test feeds the same input through every entry point that answers the question and
expects one answer; where behaviour cannot show a second answer creeping back, a test
reads the source and finds the one module allowed to decide."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from helpers import git, run_handrail
from hookkit import events, hook

import handrail
from handrail.policy import agents

PACKAGE = Path(handrail.__file__).parent


def sources() -> list[tuple[str, ast.Module]]:
    """(path relative to the package, its syntax tree) for every module of handrail."""
    return [(p.relative_to(PACKAGE).as_posix(), ast.parse(p.read_text(encoding="utf-8")))
            for p in sorted(PACKAGE.rglob("*.py"))]


# --------------------------------------------------------------------------- the acting agent

# The same agent, told three ways: its harness's own marker, handrail's, the generic one.
AS_CLAUDE = ({"CLAUDECODE": "1"}, {"HANDRAIL_AGENT": "claude"}, {"AI_AGENT": "claude"})


def _supervise(project: Path, *task_types: str) -> None:
    assert run_handrail("autonomy", "init", "claude", "--owner", "op", cwd=project).returncode == 0
    for task_type in task_types:
        r = run_handrail("autonomy", "set", "claude", task_type, "needsFullSupervision", "--note", "n", cwd=project)
        assert r.returncode == 0, r.stderr


def _hook_claude(project: Path, tool: str, tool_input: dict, env: dict[str, str]) -> str:
    payload = {"hook_event_name": "PreToolUse", "cwd": str(project), "tool_name": tool, "tool_input": tool_input}
    r = hook("claude", payload, cwd=project, env=env)
    assert r.code == 0 and r.json is not None, r
    return str(r.json["hookSpecificOutput"]["permissionDecision"])


@pytest.mark.parametrize("env", AS_CLAUDE, ids=lambda e: next(iter(e)))
def test_classify_and_the_hook_agree_on_who_acts(project: Path, env: dict[str, str]) -> None:
    _supervise(project, "shell")
    r = run_handrail("classify", "--json", "git status", cwd=project, env=env)
    answer = json.loads(r.stdout.strip().splitlines()[-1])
    assert (r.returncode, answer["decision"]) == (1, "ask"), r
    assert answer["envelope"]["state"] == "needsFullSupervision"
    assert _hook_claude(project, "Bash", {"command": "git status"}, env) == "ask"


@pytest.mark.parametrize("env", AS_CLAUDE, ids=lambda e: next(iter(e)))
def test_can_edit_and_the_hook_agree_on_who_acts(project: Path, env: dict[str, str]) -> None:
    _supervise(project, "code-inline")
    r = run_handrail("can-edit", "--json", "--file", "src/app.py", cwd=project, env=env)
    assert r.returncode == 1 and json.loads(r.stdout)["reason"].startswith("envelope"), r
    assert _hook_claude(project, "Edit", {"file_path": str(project / "src/app.py"), "old_string": "a",
                                          "new_string": "b"}, env) == "deny"


def test_a_person_is_bound_by_no_envelope_anywhere(project: Path) -> None:
    _supervise(project, "shell", "code-inline")
    assert run_handrail("classify", "git status", cwd=project).returncode == 0
    assert run_handrail("can-edit", "--file", "src/app.py", cwd=project).returncode == 0


def test_an_event_names_the_agent_its_marker_shows(project: Path) -> None:
    r = run_handrail("notify", "--level", "info", "--topic", "t", "--message", "hello", cwd=project,
                     env={"CLAUDECODE": "1"})
    assert r.returncode == 0, r.stderr
    assert [e["agent"] for e in events(project) if e["event_type"] == "notify_info"] == ["claude"]


def _marker_reads(tree: ast.Module) -> set[str]:
    """Marker variables read by name: `env.get("CLAUDECODE")`, `environ["OPENCODE"]`, `"X" in env`."""
    found: set[str] = set()
    for node in ast.walk(tree):
        keys: list[ast.expr] = []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop"):
            keys = node.args[:1]
        elif isinstance(node, ast.Subscript):
            keys = [node.slice]
        elif isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
            keys = [node.left]
        found |= {k.value for k in keys if isinstance(k, ast.Constant) and k.value in agents.VARIABLES}
    return found


# Not "who acts" but another question a marker answers: whether Claude Code's SDK mode has a
# person to ask (harnesses/claude.py CAN_ASK).
_OTHER_QUESTIONS = {"harnesses/claude.py": {"CLAUDE_CODE_ENTRYPOINT"}}


def test_only_policy_agents_reads_the_agent_markers() -> None:
    readers = {path: reads - _OTHER_QUESTIONS.get(path, set()) for path, tree in sources()
               if path != "policy/agents.py" and (reads := _marker_reads(tree))}
    assert {p: r for p, r in readers.items() if r} == {}


# --------------------------------------------------------------------------- the clock

PINNED = "2031-02-03T04:05:06Z"


def test_every_stored_time_reads_the_one_clock(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pinned = {"HANDRAIL_NOW": PINNED}
    assert run_handrail("task", "new", "later", cwd=project, env=pinned).returncode == 0
    assert run_handrail("autonomy", "init", "claude", "--owner", "op", cwd=project, env=pinned).returncode == 0
    assert run_handrail("notify", "--level", "info", "--topic", "t", "--message", "m", cwd=project,
                        env=pinned).returncode == 0
    task = json.loads((project / ".handrail" / "tasks" / "later" / "task.json").read_text())
    assert {task["created_at"], task["updated_at"], *(h["at"] for h in task["history"])} == {PINNED}
    assert f"updated: '{PINNED}'" in (project / "agents" / "claude" / "autonomy-envelope.md").read_text()
    assert [e["created_at"] for e in events(project) if e["event_type"] == "notify_info"] == [PINNED]
    from handrail.records import gate_states

    monkeypatch.setenv("HANDRAIL_NOW", PINNED)
    later = str(project / ".handrail" / "tasks" / "later")
    gate = gate_states.request(later, "later", "publish", "r1", paths=[], why="w")
    assert gate["at"] == PINNED


# Calls that read the machine's clock; only records/clock.py may make them.
_CLOCK_CALLS = {("time", "gmtime"), ("time", "localtime"), ("time", "strftime"), ("datetime", "now"),
                ("datetime", "utcnow"), ("datetime", "today"), ("date", "today")}
# Backup folder names: a unique folder for each write, not a stored time (claimed where backups are made).
_BACKUP_STAMPS = {"permissions.py", "install_hooks.py", "records/envelope.py"}


def test_only_the_clock_reads_the_time_of_day() -> None:
    readers = set()
    for path, tree in sources():
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and (node.func.value.id, node.func.attr) in _CLOCK_CALLS):
                readers.add(path)
    assert readers - _BACKUP_STAMPS == {"records/clock.py"}


# --------------------------------------------------------------------------- the secret paths

# A file each secret pattern names: a pattern added to scope.SECRETS needs one here.
SECRET_EXAMPLES = {".env*": ".env.local", "*.pem": "certs/site.pem", "*.key": "deploy.key",
                   "**/secrets/**": "config/secrets/db.txt", "id_rsa": "deploy/id_rsa", "id_dsa": "keys/id_dsa",
                   "id_ecdsa": "id_ecdsa", "id_ed25519": "ops/id_ed25519", "id_ecdsa_sk": "keys/id_ecdsa_sk",
                   "id_ed25519_sk": "keys/id_ed25519_sk", "*.p12": "certs/client.p12", "*.pfx": "certs/site.pfx",
                   "*.jks": "android/release.jks", "*.keystore": "android/debug.keystore",
                   "*.kdbx": "vault/team.kdbx", "*.tfstate": "infra/terraform.tfstate",
                   "*.tfstate.backup": "infra/terraform.tfstate.backup", "credentials.json": "gcp/credentials.json",
                   ".git-credentials": ".git-credentials"}


def test_every_secret_path_has_an_example() -> None:
    from handrail.policy import scope

    assert set(SECRET_EXAMPLES) == set(scope.SECRET_PATHS)


@pytest.mark.parametrize("pattern, path", sorted(SECRET_EXAMPLES.items()))
def test_a_secret_is_one_answer_for_reading_searching_and_editing(project: Path, pattern: str, path: str) -> None:
    (project / path).parent.mkdir(parents=True, exist_ok=True)
    (project / path).write_text("TOKEN=1\n")
    read = hook("claude", {"hook_event_name": "PreToolUse", "cwd": str(project), "tool_name": "Read",
                           "tool_input": {"file_path": str(project / path)}}, cwd=project).json
    assert read is not None and read["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert pattern in read["hookSpecificOutput"]["permissionDecisionReason"]
    shell = run_handrail("classify", "--json", f"cat {path}", cwd=project)
    assert (shell.returncode, json.loads(shell.stdout)["tier"]) == (1, 3), shell
    search = hook("claude", {"hook_event_name": "PreToolUse", "cwd": str(project), "tool_name": "Grep",
                             "tool_input": {"pattern": "TOKEN", "path": str((project / path).parent)}},
                  cwd=project).json
    assert search is not None and search["hookSpecificOutput"]["permissionDecision"] in ("deny", "allow")
    assert "secret" in search["hookSpecificOutput"]["permissionDecisionReason"]
    edit = run_handrail("can-edit", "--json", "--file", path, cwd=project)
    assert (edit.returncode, json.loads(edit.stdout)["rule"]) == (1, pattern), edit


def test_the_secret_patterns_are_written_in_one_module() -> None:
    from handrail.policy import scope

    writers = {path for path, tree in sources() for node in ast.walk(tree)
               if isinstance(node, ast.Constant) and node.value in scope.SECRET_PATHS}
    assert writers == {"policy/scope.py"}


# --------------------------------------------------------------------------- budgets and gate matching

def test_the_loop_runner_matches_gates_and_limits_through_the_git_rules() -> None:
    """The loop asks policy.gitrules (gate_hits, limit_problems); it compiles no gate pattern
    and compares no governor limit of its own."""
    for path, tree in sources():
        if not path.startswith("loop/"):
            continue
        for node in ast.walk(tree):
            assert not (isinstance(node, ast.Name) and node.id == "PatternSet"), path
            assert not (isinstance(node, ast.Attribute) and node.attr == "gate_paths"), path
            assert not (isinstance(node, ast.Constant) and node.value in ("max_changed_files", "max_diff_lines")), path


def test_the_loop_and_the_hooks_match_a_gate_alike() -> None:
    """Case ignored as the hooks ignore it: `SRC/Auth/**` gates `src/auth/login.py` in both."""
    from handrail.loop import runner
    from handrail.policy import gitrules
    from handrail.policy.contract import Contract

    contract = Contract({"allowed_files": ["src/**"], "governor": {"max_changed_files": 1, "max_diff_lines": 4},
                         "human_gate": {"required_for": ["auth_permission_change", "policy_change"],
                                        "paths": {"auth_permission_change": ["SRC/Auth/**"]}}},
                        ".handrail/tasks/t/harness-contract.json")
    paths = {"src/auth/login.py", "src/app.py", ".claude/settings.json"}
    rules = gitrules.task_rules("t", contract, frozenset())
    hook_gates = {theme for theme, _hit in gitrules.gate_hits(sorted(paths), rules).items()}
    assert set(runner.gate_hits(contract, paths, "t")) == hook_gates - {"policy_change"} == {"auth_permission_change"}


# --------------------------------------------------------------------------- the rules in force

def test_guard_shows_the_rules_the_commit_hook_enforces(project: Path) -> None:
    contract = project / ".handrail" / "tasks" / "login" / "harness-contract.json"
    contract.write_text(json.dumps({"allowed_files": ["src/**"], "forbidden_files": ["src/vendor/**"],
                                    "governor": {"max_changed_files": 1}}))
    shown = json.loads(run_handrail("guard", "--json", cwd=project).stdout)
    assert [(b["task"], b["max_changed_files"]) for b in shown["budgets"]] == [("login", 1)]
    budget_source = shown["budgets"][0]["source"]
    contract_rules = {(r["kind"], r["pattern"]) for r in shown["path_rules"] if r["task"] == "login"}
    assert contract_rules == {("contract_allowed", "src/**"), ("contract_forbidden", "src/vendor/**")}
    for name in ("a.py", "b.py"):
        (project / "src" / name).write_text("x = 1\n")
    git(project, "add", "src/a.py", "src/b.py")
    commit = run_handrail("hook", "pre-commit", cwd=project)
    assert commit.returncode == 1, commit
    assert f"governor.max_changed_files from {budget_source}" in commit.stdout + commit.stderr


def test_one_module_builds_the_git_policy() -> None:
    builders = {path for path, tree in sources() for node in ast.walk(tree)
                if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None))
                in ("GitPolicy", "TaskRules")}
    assert builders == {"policy/guard.py", "policy/gitrules.py"}


# --------------------------------------------------------------------------- the harness files

def test_every_file_a_harness_writes_is_protected_and_rechecked(project: Path) -> None:
    """The registry (policy/harnessfiles.py) covers what each harness module writes: scope
    protects it, and a change to it re-runs `handrail permissions --check` (init.GENERATED)."""
    import importlib
    import re

    from handrail import init, permissions
    from handrail.policy import harnessfiles, scope
    from handrail.policy import protocol as protocols

    proto = protocols.load(str(project))
    written = {name: [spec.path for spec in importlib.import_module(f"handrail.harnesses.{name}").native_files(proto)]
               for name in permissions.HARNESSES}
    assert all(written.values())
    for name, paths in written.items():
        for path in paths:
            refusal = scope.path_refusal(path, None, agent=True)
            assert refusal is not None and refusal.reason == scope.PROTECTED_PATH, (name, path)
            row = [f for f in harnessfiles.FILES if f.pattern == refusal.rule]
            assert [f.harness for f in row] == [name], (name, path, refusal.rule)
            assert re.search(init.GENERATED, path), (name, path)
    assert {f.harness for f in harnessfiles.FILES} - set(written) == {"aider"}  # written by init, not permissions
