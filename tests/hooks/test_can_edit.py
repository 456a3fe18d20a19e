"""`handrail can-edit`, run as a harness runs it: the real console script on a scratch repository."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import as_person

from handrail.records import task_states

FORBIDDEN_SOURCE = "handrail default-forbidden paths"
PROTECTED_SOURCE = "handrail protected paths"
EDIT_PHASES = ("implement", "doc_review")
OTHER_PHASES = ("plan", "review", "done")


def make_task(repo: Path, slug: str, phase: str, *, updated_at: str | None = None,
              contract: dict | None = None) -> None:
    task_states.new_task(str(repo), slug, phase=phase)
    if updated_at is not None:
        path = repo / ".handrail/tasks" / slug / "task.json"
        data = json.loads(path.read_text())
        data["updated_at"] = updated_at
        path.write_text(json.dumps(data))
    if contract is not None:
        (repo / ".handrail/tasks" / slug / "harness-contract.json").write_text(json.dumps(contract))


def ask(handrail, repo: Path, *args: str, cwd: Path | None = None) -> tuple[int, dict]:  # type: ignore[no-untyped-def]
    """Run can-edit --json; the exit code and the JSON object on the last line."""
    r = handrail("can-edit", "--project", str(repo), *args, "--json", cwd=cwd)
    assert r.stdout.strip(), r.stderr
    assert "Traceback" not in r.stderr
    return r.returncode, json.loads(r.stdout.splitlines()[-1])


def human(handrail, repo: Path, *args: str) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    return handrail("can-edit", "--project", str(repo), *args)


def assert_allowed(answer: dict, task: str, phase: str, all_tasks: list[tuple[str, str]]) -> None:
    """The allowed shape of the issue. A `file` key (the path judged) may come along."""
    assert set(answer) - {"file"} == {"allowed", "reason", "primary_task", "all_edit_tasks"}
    assert answer["allowed"] is True
    assert answer["reason"] == "edit_task"
    assert answer["primary_task"] == {"task": task, "phase": phase}
    assert answer["all_edit_tasks"] == [{"task": t, "phase": p} for t, p in all_tasks]


def assert_refused(answer: dict, reason: str, rule: str, source: str) -> None:
    assert set(answer) == {"allowed", "reason", "rule", "source", "task", "phase", "file"}
    assert answer["allowed"] is False
    assert (answer["reason"], answer["rule"], answer["source"]) == (reason, rule, source)


def assert_error(code: int, answer: dict, reason: str, *needles: str) -> None:
    assert code == 2
    assert set(answer) == {"allowed", "reason", "error"}
    assert answer["allowed"] is False and answer["reason"] == reason
    for n in needles:
        assert n in answer["error"], (n, answer["error"])


# ----------------------------------------------------------------------------- no --task, no --file


def test_no_tasks_at_all(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    code, answer = ask(handrail, repo)
    assert code == 1
    assert answer == {"allowed": False, "reason": "no_edit_tasks", "tasks": []}


@pytest.mark.parametrize("phase", OTHER_PHASES)
def test_no_task_in_an_edit_phase(handrail, repo: Path, phase: str) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", phase)
    make_task(repo, "b", "plan")
    code, answer = ask(handrail, repo)
    assert code == 1
    assert answer == {"allowed": False, "reason": "no_edit_tasks",
                      "tasks": [{"task": "a", "phase": phase}, {"task": "b", "phase": "plan"}]}


@pytest.mark.parametrize("phase", EDIT_PHASES)
def test_a_task_in_an_edit_phase_allows(handrail, repo: Path, phase: str) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "plan")
    make_task(repo, "b", phase)
    code, answer = ask(handrail, repo)
    assert code == 0
    assert_allowed(answer, "b", phase, [("b", phase)])
    assert "file" not in answer


def test_several_edit_tasks_most_recently_moved_first(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "old", "implement", updated_at="2026-01-01T00:00:00Z")
    make_task(repo, "new", "doc_review", updated_at="2026-02-01T00:00:00Z")
    make_task(repo, "idle", "review", updated_at="2026-03-01T00:00:00Z")
    code, answer = ask(handrail, repo)
    assert code == 0
    assert_allowed(answer, "new", "doc_review", [("new", "doc_review"), ("old", "implement")])


def test_the_answer_follows_task_phase(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    assert handrail("task", "new", "login", "--project", str(repo)).returncode == 0
    assert ask(handrail, repo)[0] == 1
    assert as_person("task", "phase", "login", "implement", "--project", str(repo), cwd=repo).returncode == 0
    assert ask(handrail, repo)[0] == 0
    assert handrail("task", "phase", "login", "review", "--project", str(repo)).returncode == 0
    assert ask(handrail, repo)[0] == 1


def test_project_defaults_to_the_working_directory(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    r = handrail("can-edit", "--json", "--file", "src/x.py", cwd=repo)
    assert r.returncode == 0
    assert json.loads(r.stdout.splitlines()[-1])["primary_task"] == {"task": "a", "phase": "implement"}


# ----------------------------------------------------------------------------- --file, no --task


def test_file_inside_the_scope_of_an_edit_task(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement", contract={"allowed_files": ["src/**"]})
    code, answer = ask(handrail, repo, "--file", "src/app.py")
    assert code == 0
    assert_allowed(answer, "a", "implement", [("a", "implement")])


def test_file_needs_an_edit_task(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "plan")
    code, answer = ask(handrail, repo, "--file", "src/app.py")
    assert code == 1
    assert answer == {"allowed": False, "reason": "no_edit_tasks", "tasks": [{"task": "a", "phase": "plan"}]}


def test_file_allowed_by_any_edit_task_names_that_task(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "api", "implement", updated_at="2026-02-01T00:00:00Z", contract={"allowed_files": ["src/**"]})
    make_task(repo, "docs", "doc_review", updated_at="2026-01-01T00:00:00Z", contract={"allowed_files": ["docs/**"]})
    make_task(repo, "ops", "plan", contract={"allowed_files": ["ops/**"]})
    everyone = [("api", "implement"), ("docs", "doc_review")]
    code, answer = ask(handrail, repo, "--file", "docs/guide.md")
    assert code == 0
    assert_allowed(answer, "docs", "doc_review", everyone)
    code, answer = ask(handrail, repo, "--file", "src/app.py")
    assert code == 0
    assert_allowed(answer, "api", "implement", everyone)
    # in no edit task's scope (ops is only planned): refused, naming the most recent edit task
    code, answer = ask(handrail, repo, "--file", "ops/deploy.sh")
    assert code == 1
    assert_refused(answer, "not_in_allowed_files", "src/**", ".handrail/tasks/api/harness-contract.json")
    assert (answer["task"], answer["phase"], answer["file"]) == ("api", "implement", "ops/deploy.sh")


def test_a_task_without_contract_admits_what_another_forbids(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "strict", "implement", updated_at="2026-02-01T00:00:00Z",
              contract={"forbidden_files": ["legacy/**"]})
    make_task(repo, "free", "implement", updated_at="2026-01-01T00:00:00Z")
    code, answer = ask(handrail, repo, "--file", "legacy/x.py")
    assert code == 0
    assert answer["primary_task"] == {"task": "free", "phase": "implement"}


# ----------------------------------------------------------------------------- --task, no --file


@pytest.mark.parametrize("phase", EDIT_PHASES)
def test_task_in_an_edit_phase(handrail, repo: Path, phase: str) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", phase)
    make_task(repo, "b", "implement")
    code, answer = ask(handrail, repo, "--task", "a")
    assert code == 0
    assert_allowed(answer, "a", phase, [("a", phase)])


@pytest.mark.parametrize("phase", OTHER_PHASES)
def test_task_not_in_an_edit_phase(handrail, repo: Path, phase: str) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", phase)
    make_task(repo, "b", "implement")  # another task editing does not help task a
    code, answer = ask(handrail, repo, "--task", "a")
    assert code == 1
    assert answer == {"allowed": False, "reason": "no_edit_tasks", "tasks": [{"task": "a", "phase": phase}]}


def test_unknown_task(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    code, answer = ask(handrail, repo, "--task", "nope")
    assert_error(code, answer, "task_not_found", "nope")
    code, answer = ask(handrail, repo, "--task", "nope", "--file", "src/x.py")
    assert_error(code, answer, "task_not_found", "nope")


# ----------------------------------------------------------------------------- --task and --file


def test_task_and_file_use_that_tasks_scope_only(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "api", "implement", contract={"allowed_files": ["src/**"], "forbidden_files": ["src/vendor/**"]})
    make_task(repo, "docs", "implement", contract={"allowed_files": ["docs/**"]})
    code, answer = ask(handrail, repo, "--task", "api", "--file", "src/app.py")
    assert code == 0
    assert_allowed(answer, "api", "implement", [("api", "implement")])
    # docs/ is in another task's scope, not in this one's
    code, answer = ask(handrail, repo, "--task", "api", "--file", "docs/guide.md")
    assert code == 1
    assert_refused(answer, "not_in_allowed_files", "src/**", ".handrail/tasks/api/harness-contract.json")
    assert (answer["task"], answer["phase"]) == ("api", "implement")
    code, answer = ask(handrail, repo, "--task", "api", "--file", "src/vendor/lib.js")
    assert code == 1
    assert_refused(answer, "forbidden_file", "src/vendor/**", ".handrail/tasks/api/harness-contract.json")


def test_task_and_file_with_task_not_editing(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "review")
    code, answer = ask(handrail, repo, "--task", "a", "--file", "src/app.py")
    assert code == 1
    assert answer == {"allowed": False, "reason": "no_edit_tasks", "tasks": [{"task": "a", "phase": "review"}]}


def test_contract_forbidden_matching_ignores_case(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement", contract={"forbidden_files": ["src/vendor/**"]})
    code, answer = ask(handrail, repo, "--task", "a", "--file", "SRC/Vendor/x.js")
    assert code == 1 and answer["reason"] == "forbidden_file"


# ----------------------------------------------------------------------------- rules


@pytest.mark.parametrize(
    ("file", "reason", "rule", "source"),
    [
        (".env", "forbidden_file", ".env*", FORBIDDEN_SOURCE),
        (".ENV.local", "forbidden_file", ".env*", FORBIDDEN_SOURCE),
        ("deploy/server.pem", "forbidden_file", "*.pem", FORBIDDEN_SOURCE),
        (".git/hooks/pre-commit", "forbidden_file", ".git/**", FORBIDDEN_SOURCE),
        ("package-lock.json", "forbidden_file", "package-lock.json", FORBIDDEN_SOURCE),
        (".handrail/autonomy-protocol.json", "protected_path", "**/.handrail/**", PROTECTED_SOURCE),
        (".handrail/tasks/a/harness-contract.json", "protected_path", "**/.handrail/**", PROTECTED_SOURCE),
        (".claude/settings.local.json", "protected_path", ".claude/settings*.json", PROTECTED_SOURCE),
        (".pre-commit-config.yaml", "protected_path", ".pre-commit-config.yaml", PROTECTED_SOURCE),
        (".gitlab-ci.yml", "protected_path", ".gitlab-ci.yml", PROTECTED_SOURCE),
        ("lefthook.yml", "protected_path", "lefthook.yml", PROTECTED_SOURCE),
        (".overcommit.yml", "protected_path", ".overcommit.yml", PROTECTED_SOURCE),
        (".vscode/tasks.json", "protected_path", ".vscode/tasks.json", PROTECTED_SOURCE),
        (".devcontainer/devcontainer.json", "protected_path", ".devcontainer/**", PROTECTED_SOURCE),
        (".gemini/commands/ship.toml", "protected_path", ".gemini/commands/**", PROTECTED_SOURCE),
        (".envrc", "forbidden_file", ".env*", FORBIDDEN_SOURCE),
    ],
)
def test_builtin_rules_refuse_whatever_the_contract_allows(handrail, repo: Path, file: str, reason: str,  # type: ignore[no-untyped-def]
                                                         rule: str, source: str) -> None:
    make_task(repo, "a", "implement", contract={"allowed_files": ["**"]})
    for args in (("--file", file), ("--task", "a", "--file", file)):
        code, answer = ask(handrail, repo, *args)
        assert code == 1
        assert_refused(answer, reason, rule, source)
        assert (answer["task"], answer["phase"], answer["file"]) == ("a", "implement", file)


def test_an_environment_template_may_be_edited(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement", contract={"allowed_files": ["**"]})
    code, answer = ask(handrail, repo, "--file", ".env.example")
    assert code == 0, answer
    code, answer = ask(handrail, repo, "--file", ".env.example.local")
    assert code == 1 and answer["rule"] == ".env*"


def test_secrets_folder(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    code, answer = ask(handrail, repo, "--file", "SECRETS/prod.txt")
    assert code == 1
    assert answer["reason"] == "forbidden_file" and answer["rule"].endswith("secrets/**")
    assert answer["source"] == FORBIDDEN_SOURCE


# ----------------------------------------------------------------------------- paths


def test_relative_and_absolute_file(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement", contract={"allowed_files": ["src/**"]})
    for file in ("src/app.py", "./src/app.py", "src/../src/app.py", str(repo / "src" / "app.py")):
        code, answer = ask(handrail, repo, "--file", file)
        assert code == 0, (file, answer)
        assert answer.get("file", "src/app.py") == "src/app.py"
    code, answer = ask(handrail, repo, "--file", str(repo / ".env"))
    assert code == 1 and answer["reason"] == "forbidden_file"


def test_relative_file_is_relative_to_the_project_not_the_cwd(handrail, repo: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement", contract={"allowed_files": ["src/**"]})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code, _ = ask(handrail, repo, "--file", "src/app.py", cwd=elsewhere)
    assert code == 0
    r = handrail("can-edit", "--project", "repo", "--file", "src/app.py", "--json", cwd=tmp_path)
    assert r.returncode == 0


@pytest.mark.parametrize("file", ["../outside.txt", "src/../../outside.txt", "/etc/passwd", "..", "."])
def test_paths_outside_the_project_are_out_of_scope(handrail, repo: Path, file: str) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    for args in (("--file", file), ("--task", "a", "--file", file)):
        code, answer = ask(handrail, repo, *args)
        assert code == 1
        assert answer == {"allowed": False, "reason": "out_of_scope", "task": "a", "phase": "implement", "file": file}


def test_absolute_path_of_a_sibling_with_the_same_prefix(handrail, repo: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    sibling = tmp_path / "repo-evil" / "x.py"
    code, answer = ask(handrail, repo, "--file", str(sibling))
    assert code == 1 and answer["reason"] == "out_of_scope"


def test_a_symlink_pointing_outside_is_out_of_scope(handrail, repo: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.txt").write_text("x")
    (repo / "link.txt").symlink_to(outside / "target.txt")
    (repo / "linkdir").symlink_to(outside)
    for file in ("link.txt", "linkdir/target.txt", "linkdir/new.txt", str(repo / "linkdir" / "new.txt")):
        code, answer = ask(handrail, repo, "--file", file)
        assert code == 1
        assert answer == {"allowed": False, "reason": "out_of_scope", "task": "a", "phase": "implement", "file": file}


def test_a_symlink_to_a_forbidden_file_is_refused(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    (repo / ".env").write_text("TOKEN=x\n")
    (repo / "config.txt").symlink_to(".env")
    code, answer = ask(handrail, repo, "--file", "config.txt")
    assert code == 1
    assert_refused(answer, "forbidden_file", ".env*", FORBIDDEN_SOURCE)
    (repo / "settings").symlink_to(".handrail")
    code, answer = ask(handrail, repo, "--file", "settings/autonomy-protocol.json")
    assert code == 1 and answer["reason"] == "protected_path"


def test_a_symlink_into_a_contract_forbidden_folder_is_refused(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement", contract={"allowed_files": ["src/**"], "forbidden_files": ["src/vendor/**"]})
    (repo / "src" / "vendor").mkdir(parents=True)
    (repo / "src" / "shortcut").symlink_to("vendor")
    code, answer = ask(handrail, repo, "--file", "src/shortcut/lib.js")
    assert code == 1 and answer["reason"] == "forbidden_file" and answer["rule"] == "src/vendor/**"


def test_a_symlink_that_stays_inside_is_judged_by_both_paths(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement", contract={"allowed_files": ["src/**", "lib/**"]})
    (repo / "src").mkdir()
    (repo / "lib").symlink_to("src")
    code, _ = ask(handrail, repo, "--file", "lib/x.py")
    assert code == 0


def test_a_file_that_does_not_exist_yet_is_fine(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement", contract={"allowed_files": ["src/**"]})
    code, answer = ask(handrail, repo, "--file", "src/brand/new/module.py")
    assert code == 0 and answer["allowed"] is True
    assert not (repo / "src").exists()


def test_the_project_itself_through_a_symlink(handrail, repo: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    alias = tmp_path / "alias"
    alias.symlink_to(repo)
    for file in (str(alias / "src" / "x.py"), str(repo / "src" / "x.py"), "src/x.py"):
        r = handrail("can-edit", "--project", str(alias), "--file", file, "--json")
        assert r.returncode == 0, (file, r.stdout)


# ----------------------------------------------------------------------------- broken inputs


def test_broken_task_json(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    (repo / ".handrail/tasks/a/task.json").write_text('{"slug": "a",\n "phase": }')
    for args in ((), ("--task", "a"), ("--file", "src/x.py")):
        code, answer = ask(handrail, repo, *args)
        assert_error(code, answer, "invalid_policy", ".handrail/tasks/a/task.json", "line 2 column")


def test_task_json_with_unknown_phase(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    path = repo / ".handrail/tasks/a/task.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "phase": "coding"}))
    code, answer = ask(handrail, repo)
    assert_error(code, answer, "invalid_policy", ".handrail/tasks/a/task.json", "phase", "coding")


def test_task_json_that_is_not_an_object(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    (repo / ".handrail/tasks/a/task.json").write_text("[]")
    code, answer = ask(handrail, repo, "--task", "a")
    assert_error(code, answer, "invalid_policy", ".handrail/tasks/a/task.json")


def test_a_task_folder_with_an_unsafe_name_is_an_invalid_policy(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    odd = repo / ".handrail/tasks/my task"
    odd.mkdir()
    (odd / "task.json").write_text(json.dumps({"slug": "my task", "phase": "implement"}))
    code, answer = ask(handrail, repo)
    assert_error(code, answer, "invalid_policy", "my task")


@pytest.mark.parametrize("args", [(), ("--file", "src/app.py")])
def test_a_protocol_that_is_not_json_refuses_every_edit_naming_the_file(handrail, repo: Path,  # type: ignore[no-untyped-def]
                                                                         args: tuple[str, ...]) -> None:
    make_task(repo, "a", "implement")
    (repo / ".handrail" / "autonomy-protocol.json").write_text("{ not json")
    code, answer = ask(handrail, repo, *args)
    assert_error(code, answer, "invalid_policy", ".handrail/autonomy-protocol.json")
    r = handrail("can-edit", "--project", str(repo), *args)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("handrail can-edit: error: ") and len(r.stderr.strip().splitlines()) == 1
    assert "autonomy-protocol.json" in r.stderr


@pytest.mark.parametrize("args", [(), ("--task", "a"), ("--file", "src/x.py"), ("--task", "a", "--file", "src/x.py")])
def test_invalid_contract_is_an_invalid_policy(handrail, repo: Path, args: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement", contract={"allowed_files": ["src/**"], "forbiden_files": ["x"]})
    code, answer = ask(handrail, repo, *args)
    assert_error(code, answer, "invalid_policy", ".handrail/tasks/a/harness-contract.json", "forbiden_files",
                 "did you mean 'forbidden_files'")


def test_contract_with_broken_json(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    (repo / ".handrail/tasks/a/harness-contract.json").write_text('{"allowed_files": [')
    code, answer = ask(handrail, repo, "--file", "src/x.py")
    assert_error(code, answer, "invalid_policy", ".handrail/tasks/a/harness-contract.json", "line 1 column")


@pytest.mark.parametrize("slug", ["../x", "/", "a/b", "..", ".hidden", "a b"])
def test_bad_task_slug(handrail, repo: Path, slug: str) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    code, answer = ask(handrail, repo, "--task", slug)
    assert_error(code, answer, "bad_arguments")


def test_empty_task_slug(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    code, answer = ask(handrail, repo, "--task", "")
    assert_error(code, answer, "bad_arguments", "empty")


def test_missing_project_folder(handrail, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, answer = ask(handrail, tmp_path / "nowhere")
    assert_error(code, answer, "bad_arguments", "nowhere")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--bogus",), "--bogus"),
        (("--file",), "--file"),
        (("--task",), "--task"),
        (("--json=yes",), "--json"),
        (("stray",), "stray"),
    ],
)
def test_bad_arguments(handrail, repo: Path, args: tuple[str, ...], needle: str) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    r = handrail("can-edit", "--project", str(repo), "--json", *args)
    assert r.returncode == 2
    answer = json.loads(r.stdout.splitlines()[-1])
    assert_error(r.returncode, answer, "bad_arguments", needle)
    assert "usage: handrail can-edit" in r.stderr


def test_option_with_equals_sign(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    r = handrail("can-edit", f"--project={repo}", "--task=a", "--file=.env", "--json")
    assert r.returncode == 1
    assert json.loads(r.stdout.splitlines()[-1])["reason"] == "forbidden_file"


def test_errors_without_json_are_one_line_on_stderr(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    r = human(handrail, repo, "--task", "ghost")
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.splitlines()[0].startswith("handrail can-edit: error: ")
    assert "handrail task new ghost" in r.stderr
    assert "Traceback" not in r.stderr


# ----------------------------------------------------------------------------- what a person reads


def one_line(r: subprocess.CompletedProcess[str]) -> str:
    lines = r.stdout.splitlines()
    assert len(lines) == 1, r.stdout
    return lines[0]


def test_human_lines_say_what_to_do_next(handrail, repo: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    r = human(handrail, repo)
    assert r.returncode == 1
    assert "handrail task new" in one_line(r)

    make_task(repo, "login", "plan")
    r = human(handrail, repo)
    assert r.returncode == 1
    assert "handrail task phase login implement" in one_line(r)

    task_states.set_phase(str(repo), "login", "implement")
    (repo / ".handrail/tasks/login/harness-contract.json").write_text(json.dumps({"allowed_files": ["src/**"]}))
    r = human(handrail, repo, "--file", "src/app.py")
    assert r.returncode == 0
    line = one_line(r)
    assert line.startswith("allowed") and "login" in line and "src/app.py" in line

    r = human(handrail, repo, "--file", "README.md")
    assert r.returncode == 1
    line = one_line(r)
    assert "allowed_files" in line and ".handrail/tasks/login/harness-contract.json" in line

    r = human(handrail, repo, "--file", ".env")
    assert r.returncode == 1
    line = one_line(r)
    assert ".env*" in line and "human" in line

    r = human(handrail, repo, "--file", str(tmp_path / "elsewhere.txt"))
    assert r.returncode == 1
    assert "outside the project" in one_line(r)


def test_json_is_the_last_line_only(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    make_task(repo, "a", "implement")
    r = handrail("can-edit", "--project", str(repo), "--json")
    assert len(r.stdout.splitlines()) == 1
    assert json.loads(r.stdout)["allowed"] is True


def test_help_does_not_run_the_check(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    r = handrail("can-edit", "--help", cwd=repo)
    assert r.returncode == 0
    assert "can-edit" in r.stdout
