"""Which paths an agent (or a person) may change, and the rule that says no."""

from __future__ import annotations

import pytest

from handrail.policy.scope import (
    BUILTIN_FORBIDDEN,
    BUILTIN_PROTECTED,
    DEFAULT_FORBIDDEN,
    PROTECTED,
    ContractScope,
    builtin_refusal,
    path_refusal,
)

CONTRACT = ".handrail/tasks/t/harness-contract.json"


def rule(text: str) -> str:
    """The built-in rule written as `text` (the tables may widen it to `**/text`)."""
    found = [p for p, _, _ in DEFAULT_FORBIDDEN + PROTECTED if p == text or p == f"**/{text}"]
    assert len(found) == 1, (text, found)
    return found[0]

# (path, the default-forbidden rule that refuses it)
FORBIDDEN = [
    (".env", ".env*"),
    (".env.local", ".env*"),
    ("services/api/.env.production", ".env*"),
    ("server.pem", "*.pem"),
    ("deploy/certs/server.pem", "*.pem"),
    ("id_rsa.key", "*.key"),
    ("config/tls/site.key", "*.key"),
    ("secrets/token.txt", "secrets/**"),
    ("secrets/deep/er/file", "secrets/**"),
    (".git/config", ".git/**"),
    (".git/hooks/pre-commit", ".git/**"),
    (".git", ".git"),
    ("vendor/sub/.git", ".git"),
    ("node_modules/left-pad/index.js", "node_modules/**"),
    ("package-lock.json", "package-lock.json"),
    ("web/package-lock.json", "package-lock.json"),
    ("yarn.lock", "yarn.lock"),
    ("pnpm-lock.yaml", "pnpm-lock.yaml"),
    ("npm-shrinkwrap.json", "npm-shrinkwrap.json"),
    ("bun.lockb", "bun.lockb"),
]

PROTECTED_PATHS = [
    (".circleci/config.yml", ".circleci/**"),
    ("Jenkinsfile", "Jenkinsfile"),
    ("azure-pipelines.yml", "azure-pipelines.yml"),
    ("bitbucket-pipelines.yml", "bitbucket-pipelines.yml"),
    (".travis.yml", ".travis.yml"),
    (".buildkite/pipeline.yml", ".buildkite/**"),
    (".drone.yml", ".drone.yml"),
    (".woodpecker.yml", ".woodpecker.yml"),
    (".woodpecker/test.yml", ".woodpecker/**"),
    (".gitea/workflows/ci.yml", ".gitea/workflows/**"),
    (".forgejo/workflows/ci.yml", ".forgejo/workflows/**"),
    (".handrail/autonomy-protocol.json", ".handrail/**"),
    (".handrail/tasks/login/task.json", ".handrail/**"),
    (".handrail/tasks/login/harness-contract.json", ".handrail/**"),
    (".claude/settings.json", ".claude/settings*.json"),
    (".claude/settings.local.json", ".claude/settings*.json"),
    (".codex/config.toml", ".codex/**"),
    (".codex/rules/default.rules", ".codex/**"),
    ("opencode.json", "opencode.json*"),
    ("opencode.jsonc", "opencode.json*"),
    (".opencode/plugin/guard.ts", ".opencode/**"),
    (".cursor/hooks.json", ".cursor/hooks.json"),
    (".gemini/settings.json", ".gemini/settings.json"),
    (".github/hooks/handrail.json", ".github/hooks/**"),
    (".clinerules/hooks/PreToolUse", ".clinerules/hooks/**"),
    (".pre-commit-config.yaml", ".pre-commit-config.yaml"),
    (".aioson/config/autonomy-protocol.json", ".aioson/config/autonomy-protocol.json"),
    # A subagent's file sets its own tools, permissionMode and hooks; a workflow runs the CI check.
    (".claude/agents/reviewer.md", ".claude/agents/**"),
    (".claude/commands/ship.md", ".claude/commands/**"),
    (".mcp.json", ".mcp.json"),
    (".vscode/settings.json", ".vscode/settings.json"),
    (".github/workflows/ci.yml", ".github/workflows/**"),
    (".gitlab-ci.yml", ".gitlab-ci.yml"),
    (".gitmodules", ".gitmodules"),
    ("CODEOWNERS", "CODEOWNERS"),
    # What runs on a person's machine: the other git-hook managers, the editor, a dev container.
    ("lefthook.yml", "lefthook.yml"),
    (".lefthook-local.yaml", ".lefthook-local.yaml"),
    (".config/lefthook.toml", "lefthook.toml"),
    (".lefthook/pre-commit/lint.sh", ".lefthook/**"),
    (".overcommit.yml", ".overcommit.yml"),
    (".git-hooks/pre_commit/no_fixme.rb", ".git-hooks/**"),
    (".simple-git-hooks.cjs", ".simple-git-hooks.cjs"),
    (".huskyrc.json", ".huskyrc*"),
    ("app.code-workspace", "*.code-workspace"),
    (".vscode/tasks.json", ".vscode/tasks.json"),
    (".vscode/launch.json", ".vscode/launch.json"),
    (".devcontainer/devcontainer.json", ".devcontainer/**"),
    (".devcontainer.json", ".devcontainer.json"),
    (".gemini/commands/review.toml", ".gemini/commands/**"),
    (".gemini/extensions/tools/gemini-extension.json", ".gemini/extensions/**"),
    (".continue/mcpServers/db.yaml", ".continue/**"),
    ("docs/CODEOWNERS", "CODEOWNERS"),
]


@pytest.mark.parametrize(("path", "text"), FORBIDDEN)
def test_default_forbidden_paths_are_refused_with_their_rule(path: str, text: str) -> None:
    r = path_refusal(path, None)
    assert r is not None
    assert (r.reason, r.rule, r.source) == ("forbidden_file", rule(text), BUILTIN_FORBIDDEN)
    assert r.as_dict() == {"reason": "forbidden_file", "rule": rule(text), "source": BUILTIN_FORBIDDEN}


@pytest.mark.parametrize("path", [".env.example", "api/.env.sample", ".ENV.Template", ".env.dist",
                                  ".env.defaults", ".env.schema"])
def test_environment_templates_are_no_secrets(path: str) -> None:
    assert path_refusal(path, None) is None


@pytest.mark.parametrize(("path", "text"), [(".env.example.local", ".env*"), (".env.local/.env.example", ".env*"),
                                            ("secrets/.env.example", "secrets/**")])
def test_a_template_name_lends_nothing_to_the_rest_of_the_path(path: str, text: str) -> None:
    r = path_refusal(path, None)
    assert r is not None and r.rule == rule(text)


@pytest.mark.parametrize(("path", "text"), PROTECTED_PATHS)
def test_protected_paths_are_refused_with_their_rule(path: str, text: str) -> None:
    r = path_refusal(path, None)
    assert r is not None
    assert (r.reason, r.rule, r.source) == ("protected_path", rule(text), BUILTIN_PROTECTED)


def example(pattern: str) -> str:
    """A path the pattern is written to catch: `**` and `*` filled in."""
    return pattern.replace("**", "x/y").replace("*", "x").lstrip("/")


@pytest.mark.parametrize(("pattern", "reason", "source"),
                         [(p, "forbidden_file", BUILTIN_FORBIDDEN) for p, _, _ in DEFAULT_FORBIDDEN]
                         + [(p, "protected_path", BUILTIN_PROTECTED) for p, _, _ in PROTECTED])
def test_every_builtin_rule_refuses_and_names_itself(pattern: str, reason: str, source: str) -> None:
    """Each rule in the tables (including ones added after the issue) refuses what it was written for."""
    path = example(pattern)
    r = path_refusal(path, None)
    assert r is not None, path
    assert (r.reason, r.rule, r.source) == (reason, pattern, source)
    assert r.why
    upper = path_refusal(path.upper(), None)
    assert upper is not None and upper.rule == pattern


@pytest.mark.parametrize(
    ("path", "reason", "text"),
    [
        (".ENV", "forbidden_file", ".env*"),
        (".Env.Local", "forbidden_file", ".env*"),
        ("SECRETS/x", "forbidden_file", "secrets/**"),
        ("Secrets/API.txt", "forbidden_file", "secrets/**"),
        ("CERT.PEM", "forbidden_file", "*.pem"),
        ("Private.KEY", "forbidden_file", "*.key"),
        (".GIT/config", "forbidden_file", ".git/**"),
        ("Node_Modules/x.js", "forbidden_file", "node_modules/**"),
        ("Package-Lock.JSON", "forbidden_file", "package-lock.json"),
        (".HANDRAIL/autonomy-protocol.json", "protected_path", ".handrail/**"),
        (".Claude/Settings.json", "protected_path", ".claude/settings*.json"),
        (".GitHub/Hooks/x.json", "protected_path", ".github/hooks/**"),
        (".Pre-Commit-Config.YAML", "protected_path", ".pre-commit-config.yaml"),
    ],
)
def test_forbidden_and_protected_matching_ignores_case(path: str, reason: str, text: str) -> None:
    r = path_refusal(path, None)
    assert r is not None and (r.reason, r.rule) == (reason, rule(text))


@pytest.mark.parametrize(
    "path",
    ["src/app.py", "README.md", "environment.py", "docs/env.md", "secrets.md", "src/secrets.py",
     "keys/readme.md", "pem.txt", ".github/workflows.md", ".github/ISSUE_TEMPLATE/bug.md", ".claude/README.md",
     "CLAUDE.md", "AGENTS.md", ".cursor/rules/style.mdc", ".vscode/extensions.json", "handrail/x.py", "my.git/x",
     "gitignore", "package.json", "docs/lefthook.md", ".pre-commit-config.yml", ".devcontainer.md"],
)
def test_ordinary_paths_pass_without_a_contract(path: str) -> None:
    assert path_refusal(path, None) is None


# ----------------------------------------------------------------------------- contracts


def scope(allowed: list[str], forbidden: list[str]) -> ContractScope:
    return ContractScope(allowed, forbidden, CONTRACT)


def test_contract_forbidden_beats_allowed() -> None:
    s = scope(["src/**"], ["src/vendor/**"])
    r = path_refusal("src/vendor/lib.js", s)
    assert r is not None
    assert (r.reason, r.rule, r.source) == ("forbidden_file", "src/vendor/**", CONTRACT)
    assert path_refusal("src/app.py", s) is None


def test_contract_forbidden_ignores_case_allowed_does_not() -> None:
    s = scope(["src/**"], ["src/vendor/"])
    r = path_refusal("src/VENDOR/lib.js", s)
    assert r is not None and r.reason == "forbidden_file"
    r = path_refusal("SRC/app.py", s)
    assert r is not None and r.reason == "not_in_allowed_files"


def test_not_in_allowed_files_names_the_allowed_patterns() -> None:
    s = scope(["src/**", "tests/**"], [])
    r = path_refusal("README.md", s)
    assert r is not None
    assert (r.reason, r.rule, r.source) == ("not_in_allowed_files", "src/**, tests/**", CONTRACT)
    assert "README.md" in r.describe("README.md") and CONTRACT in r.describe("README.md")
    assert path_refusal("tests/test_app.py", s) is None


def test_empty_allowed_files_allows_everything_not_forbidden() -> None:
    s = scope([], ["docs/**"])
    assert path_refusal("anything/at/all.py", s) is None
    r = path_refusal("docs/x.md", s)
    assert r is not None and r.reason == "forbidden_file"


def test_no_contract_can_lift_a_default_forbidden_or_protected_path() -> None:
    s = scope([".env", "secrets/**", ".handrail/**", "**"], [])
    for path, reason, source in ((".env", "forbidden_file", BUILTIN_FORBIDDEN),
                                 ("secrets/a", "forbidden_file", BUILTIN_FORBIDDEN),
                                 (".handrail/autonomy-protocol.json", "protected_path", BUILTIN_PROTECTED)):
        r = path_refusal(path, s)
        assert r is not None and (r.reason, r.source) == (reason, source)


def test_a_negation_in_the_contract_cannot_lift_a_default_rule() -> None:
    s = scope([], ["!.env"])
    r = path_refusal(".env", s)
    assert r is not None and r.source == BUILTIN_FORBIDDEN


def test_a_negation_inside_forbidden_files_carves_out_a_file() -> None:
    s = scope(["src/**"], ["src/generated/", "!src/generated/README.md"])
    assert path_refusal("src/generated/README.md", s) is None
    r = path_refusal("src/generated/api.py", s)
    assert r is not None and r.rule == "src/generated/"


# ----------------------------------------------------------------------------- whom a rule binds


@pytest.mark.parametrize(
    "path",
    ["package-lock.json", "yarn.lock", "pnpm-lock.yaml", "npm-shrinkwrap.json", "bun.lockb",
     "node_modules/x/index.js", ".handrail/autonomy-protocol.json", ".claude/settings.json",
     ".pre-commit-config.yaml"],
)
def test_lock_files_generated_trees_and_protected_paths_bind_agents_only(path: str) -> None:
    assert builtin_refusal(path, agent=True) is not None
    assert builtin_refusal(path, agent=False) is None
    assert path_refusal(path, None, agent=False) is None


@pytest.mark.parametrize(("path", "text"), [(".env", ".env*"), ("a/b.pem", "*.pem"), ("x.key", "*.key"),
                                            ("secrets/a", "secrets/**"), (".git/HEAD", ".git/**"),
                                            ("SECRETS/x", "secrets/**")])
def test_secrets_and_git_bind_everyone(path: str, text: str) -> None:
    for agent in (True, False):
        r = builtin_refusal(path, agent=agent)
        assert r is not None and (r.reason, r.rule) == ("forbidden_file", rule(text))


def test_a_human_still_answers_to_the_contract() -> None:
    s = scope(["src/**"], [])
    r = path_refusal("README.md", s, agent=False)
    assert r is not None and r.reason == "not_in_allowed_files"


@pytest.mark.parametrize("allowed", [["[unclosed"], ["#src/**"], ["   "], ["[src/**"]])
def test_allowed_files_whose_patterns_match_nothing_allow_nothing(allowed: list[str]) -> None:
    # A written allowed_files list restricts, even when git would discard every pattern
    # in it: the scope is then empty, never unbounded.
    r = path_refusal("src/app.py", scope(allowed, []))
    assert r is not None and r.reason == "not_in_allowed_files"
