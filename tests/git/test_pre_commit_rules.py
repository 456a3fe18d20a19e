"""The five pre-commit rules, each through a real `git commit` and the installed hook."""

from __future__ import annotations

import json

import pytest
from gitkit import AGENT, Project, commits, refused

# --------------------------------------------------------------------------- rule 1


def test_no_task_at_all_refuses_and_names_the_command_that_starts_one(project: Project) -> None:
    project.write("a.txt")
    r = project.commit("a.txt")
    refused(r, "no task exists", "handrail task new SLUG --phase implement")
    assert commits(project) == 0


def test_a_task_outside_an_edit_phase_refuses_and_names_the_phase_command(project: Project) -> None:
    project.task("login", phase="plan")
    project.write("a.txt")
    refused(project.commit("a.txt"), "task 'login' is in phase plan", "handrail task phase login implement")
    project.phase("login", "implement")
    assert project.commit().returncode == 0
    assert commits(project) == 1


def test_rule_one_can_bind_agents_only_through_the_protocol(project: Project) -> None:
    project.protocol(git={"edit_task_required_for": "agents"})
    project.write("a.txt")
    project.git("add", "a.txt")
    r = project.commit(env=AGENT)
    refused(r, "binds agents", "git.edit_task_required_for in .handrail/autonomy-protocol.json")
    assert project.commit().returncode == 0


def test_an_invalid_protocol_setting_refuses_in_one_line(project: Project) -> None:
    project.protocol(git={"edit_task_required_for": "nobody"})
    project.task("t")
    project.write("a.txt")
    r = project.commit("a.txt")
    refused(r, "edit_task_required_for", "handrail policy check")


# --------------------------------------------------------------------------- rule 2


def test_default_forbidden_path_is_refused_for_everyone(project: Project) -> None:
    project.task("t")
    project.write(".env", "A=1\n")
    refused(project.commit(".env"), ".env is forbidden", "'.env*' from handrail default-forbidden paths",
            "binds everyone", "git rm --cached -q -- .env")
    refused(project.commit(env=AGENT), ".env is forbidden")


def test_lock_files_bind_agents_but_never_a_human(project: Project) -> None:
    project.task("t")
    project.write("package-lock.json", "{}\n")
    project.git("add", "package-lock.json")
    refused(project.commit(env=AGENT), "package-lock.json is forbidden", "binds agents",
            "(a human may make this change)")
    assert project.commit(message="human updates the lock file").returncode == 0


@pytest.mark.parametrize("path", [".claude/settings.json", ".gitlab-ci.yml", "lefthook.yml",
                                  ".vscode/tasks.json", ".devcontainer/devcontainer.json"])
def test_protected_paths_bind_agents(project: Project, path: str) -> None:
    project.task("t")
    project.write(path, "{}\n")
    project.git("add", path)
    refused(project.commit(env=AGENT), f"{path} is protected", "handrail protected paths")
    assert project.commit().returncode == 0


def test_contract_forbidden_and_allowed_files(project: Project) -> None:
    project.task("login", contract={"allowed_files": ["src/**"], "forbidden_files": ["src/vendor/**"]})
    project.write("src/app.py")
    project.write("src/vendor/lib.js")
    project.write("README.md")
    r = project.commit("src/app.py", "src/vendor/lib.js", "README.md")
    refused(r, "src/vendor/lib.js is forbidden by task 'login'",
            "forbidden_files 'src/vendor/**' from .handrail/tasks/login/harness-contract.json",
            "README.md is outside the allowed_files of every edit task", "allowed_files src/** from")
    assert "src/app.py is" not in r.stderr
    project.git("rm", "-q", "--cached", "src/vendor/lib.js", "README.md")
    assert project.commit().returncode == 0


def test_a_path_allowed_by_any_edit_task_passes(project: Project) -> None:
    project.task("api", contract={"allowed_files": ["api/**"]})
    project.task("web", contract={"allowed_files": ["web/**"]})
    project.task("notes")  # no contract: it adds no allowed_files of its own
    project.write("api/a.py")
    project.write("web/b.js")
    assert project.commit("api/a.py", "web/b.js").returncode == 0
    project.write("docs/c.md")
    refused(project.commit("docs/c.md"), "docs/c.md is outside the allowed_files of every edit task",
            "api/harness-contract.json", "web/harness-contract.json")


def test_both_sides_of_a_rename_are_judged(project: Project) -> None:
    project.task("t")
    project.write("src/keep.txt", "a\nb\nc\n")
    assert project.commit("src/keep.txt").returncode == 0
    project.contract("t", {"forbidden_files": ["src/**"]})
    (project.path / "docs").mkdir()
    project.git("mv", "src/keep.txt", "docs/keep.txt")
    r = project.commit()
    refused(r, "src/keep.txt (a side of a rename) is forbidden", "git restore --staged -- src/keep.txt")
    assert "docs/keep.txt" not in r.stderr


def test_deleting_a_protected_or_contract_forbidden_path_is_refused(project: Project) -> None:
    project.task("t")
    project.write("src/a.py")
    project.write(".github/hooks/check.json", "{}\n")
    assert project.commit("src/a.py", ".github/hooks/check.json").returncode == 0
    project.contract("t", {"forbidden_files": ["src/a.py"]})
    project.git("rm", "-q", "src/a.py", ".github/hooks/check.json")
    r = project.commit(env=AGENT)
    refused(r, "src/a.py (deleted) is forbidden by task 't'", ".github/hooks/check.json (deleted) is protected")


def test_a_human_may_delete_a_tracked_secret_file_but_an_agent_may_not(project: Project) -> None:
    project.task("t")
    project.write(".env.local", "A=1\n")
    assert project.commit(".env.local", args=("--no-verify",)).returncode == 0
    project.git("rm", "-q", "--cached", ".env.local")
    refused(project.commit(env=AGENT), ".env.local (deleted) is forbidden")
    assert project.commit(message="stop tracking the env file").returncode == 0


# --------------------------------------------------------------------------- rule 3


def test_a_gate_path_waits_for_a_human_approval(project: Project) -> None:
    project.task("login", contract={"human_gate": {"required_for": ["auth_permission_change"]}})
    project.write("src/auth/session.py")
    r = project.commit("src/auth/session.py")
    refused(r, "src/auth/session.py needs the human gate 'auth_permission_change' of task 'login'",
            "'**/auth/**'", "handrail gate approve login auth_permission_change")
    project.approve("login", "auth_permission_change")
    assert project.commit().returncode == 0


def test_policy_change_gate_covers_handrail_files_for_a_human(project: Project) -> None:
    project.task("policy", contract={"human_gate": {"required_for": ["policy_change"]}})
    project.write(".handrail/tasks/policy/notes.md", "why\n")
    r = project.commit(".handrail/tasks/policy/notes.md", force_add=True)
    refused(r, "'policy_change' of task 'policy'", "handrail gate approve policy policy_change")
    project.approve("policy", "policy_change")
    assert project.commit().returncode == 0


def test_gate_paths_from_the_contract_override_the_defaults(project: Project) -> None:
    project.task("pay", contract={"human_gate": {"required_for": ["payment_logic_change"],
                                                 "paths": {"payment_logic_change": ["src/money.py"]}}})
    project.write("src/billing/x.py")
    assert project.commit("src/billing/x.py").returncode == 0
    project.write("src/money.py")
    refused(project.commit("src/money.py"), "'payment_logic_change'")


# --------------------------------------------------------------------------- rule 4


def test_max_changed_files(project: Project) -> None:
    project.task("t", contract={"governor": {"max_changed_files": 2}})
    for name in ("a", "b", "c"):
        project.write(f"{name}.txt")
    r = project.commit("a.txt", "b.txt", "c.txt")
    refused(r, "this commit changes 3 files, more than task 't' allows (2)",
            "governor.max_changed_files from .handrail/tasks/t/harness-contract.json")
    project.git("rm", "-q", "--cached", "c.txt")
    assert project.commit().returncode == 0


def test_the_contract_preset_fills_max_changed_files(project: Project) -> None:
    project.task("t", contract={"contract_mode": "safe"})  # safe: 20 files
    for i in range(21):
        project.write(f"f{i}.txt")
    project.git("add", ".")
    refused(project.commit(), "changes 21 files", "(20)")


def test_diff_lines_count_content_lines_that_look_like_headers(project: Project) -> None:
    project.task("t", contract={"governor": {"max_diff_lines": 4}})
    project.write("notes.txt", "keep\n--- not a header\n+++ nor this\n")
    assert project.commit("notes.txt").returncode == 0  # 3 added lines
    # One line removed (`--- not a header`), two added (`++ plus`, `-- minus`): 3 <= 4.
    project.write("notes.txt", "keep\n+++ nor this\n++ plus\n-- minus\n")
    assert project.commit("notes.txt").returncode == 0
    project.write("notes.txt", "++a\n--b\n++c\n")  # -4 +3 = 7 > 4
    refused(project.commit("notes.txt"), "changes 7 lines (+3 -4), more than task 't' allows (4)")


# --------------------------------------------------------------------------- rule 5

PEM = "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA" + "q" * 48 + "\n-----END RSA PRIVATE KEY-----\n"
SECRETS = {
    "private key": PEM,
    "flattened private key": json.dumps({"key": "-----BEGIN " + "PRIVATE KEY-----\n" + "MIIEvQIBADANBg" + "k" * 40}),
    "Anthropic API key": "ANTHROPIC_API_KEY=sk-ant-" + "api03-" + "A1b2" * 10 + "\n",
    "OpenAI project key": "key = 'sk-proj-" + "Zz9_" * 8 + "'\n",
    "GitHub token": "token: ghp_" + "a1B2c3" * 6 + "\n",
    "GitHub fine-grained token": "github_pat_" + "11ABCDEFG0" * 3 + "_x\n",
    "AWS access key id": "aws_access_key_id=AKIA" + "Q" * 16 + "\n",
    "Slack token": "SLACK=xoxb-" + "1234567890-abcdef\n",
}


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_staged_secrets_are_refused(project: Project, kind: str) -> None:
    project.task("t")
    project.write("config/settings.txt", "harmless\n" + SECRETS[kind])
    r = project.commit("config/settings.txt")
    expected = kind.removeprefix("flattened ")
    refused(r, "config/settings.txt:2 carries", expected, "handrail built-in secret patterns")
    # The secret itself is never echoed back in full.
    assert SECRETS[kind].strip()[:40] not in r.stderr or kind.endswith("private key")


def test_secrets_are_read_from_the_index_not_the_work_tree(project: Project) -> None:
    project.task("t")
    project.write("app.cfg", SECRETS["GitHub token"])
    project.git("add", "app.cfg")
    project.write("app.cfg", "cleaned in the work tree, not in the index\n")
    refused(project.commit(), "app.cfg:1 carries a GitHub token")
    project.git("add", "app.cfg")
    project.write("app.cfg", SECRETS["GitHub token"])  # unstaged: not part of the commit
    assert project.commit().returncode == 0


def test_text_that_only_names_a_key_header_is_not_a_secret(project: Project) -> None:
    project.task("t")
    project.write("docs/keys.md", "Look for `-----BEGIN " + "PRIVATE KEY-----` in files.\nAKIA is a prefix.\n")
    assert project.commit("docs/keys.md").returncode == 0


def test_every_problem_is_reported_once_with_its_own_next_step(project: Project) -> None:
    project.task("t", contract={"allowed_files": ["src/**"], "governor": {"max_changed_files": 1}})
    project.write(".env", "A=1\n")
    project.write("src/a.py", SECRETS["AWS access key id"])
    r = project.commit(".env", "src/a.py")
    refused(r, "refused: 3 problems", "1. .env is forbidden", "changes 2 files",
            "src/a.py:1 carries an AWS access key id")
    assert r.stderr.count("next:") == 3


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_secrets_in_wide_encodings_are_refused(project: Project, encoding: str) -> None:
    # NUL between the characters hides a token from a byte search: it is read without them.
    project.task("t")
    project.write("src/settings.py", ("harmless\nKEY = '" + SECRETS["GitHub token"].strip() + "'\n").encode(encoding))
    refused(project.commit("src/settings.py"), "src/settings.py:2 carries a GitHub token")
