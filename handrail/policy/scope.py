"""Which paths an agent may change: one implementation for every layer.

Order of the checks, first refusal wins: default-forbidden paths (no contract can
lift them), protected paths (the agent may not relax its own guardrails), the task
contract's `forbidden_files`, then its `allowed_files`. Forbidden and protected
matching ignores case, so `.ENV` on a case-insensitive file system is still `.env`.

Each rule says whom it binds. Default-forbidden patterns say it per pattern. Protected
paths bind agents; for a human they are handrail's and the harnesses' own files (what
`handrail init` writes, a task's `task.json`, contract, gates and memory), which no
task contract scopes: a human's change to one is never "outside the scope". The
protocol's `tiers.tier2_notified.write_paths` open protected paths to agents, with a
notice: never a default-forbidden one, never the contract's `forbidden_files`, and
never handrail's policy, tasks or gates (the protocol refuses such a pattern).
"""

from __future__ import annotations

from handrail.policy import harnessfiles
from handrail.policy.globs import PatternSet

EVERYONE = "everyone"
AGENTS = "agents"

BUILTIN_FORBIDDEN = "handrail default-forbidden paths"
BUILTIN_PROTECTED = "handrail protected paths"

# (pattern, whom it binds, why). The one list of a project's secret paths: nobody changes
# them, and an agent may not read them either (shell/reads.py, the hooks' read and search
# checks, the harnesses' native read denies).
SECRETS: tuple[tuple[str, str, str], ...] = (
    (".env*", EVERYONE, "environment files hold secrets (not the templates: .env.example, .env.sample, …)"),
    ("*.pem", EVERYONE, "private keys and certificates"),
    ("*.key", EVERYONE, "private keys"),
    ("**/secrets/**", EVERYONE, "secrets folder, at any depth"),
    *((name, EVERYONE, "an SSH private key (ssh-keygen's default names)")
      for name in ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk")),
    ("*.p12", EVERYONE, "a PKCS#12 bundle: a private key with its certificate"),
    ("*.pfx", EVERYONE, "a PKCS#12 bundle: a private key with its certificate"),
    ("*.jks", EVERYONE, "a Java keystore: private keys"),
    ("*.keystore", EVERYONE, "a keystore: private keys (an Android signing key, a Java keystore)"),
    ("*.kdbx", EVERYONE, "a KeePass password database"),
    ("*.tfstate", EVERYONE, "Terraform state holds every secret of the resources it made, in plain text"),
    ("*.tfstate.backup", EVERYONE, "Terraform state holds every secret of the resources it made, in plain text"),
    ("credentials.json", EVERYONE, "a Google OAuth client or service-account key"),
    (".git-credentials", EVERYONE, "git's stored passwords and tokens"),
)
SECRET_PATHS: tuple[str, ...] = tuple(p for p, _who, _why in SECRETS)

# Secrets bind everyone; generated trees and lock files bind agents only, so a human
# updating a lock file is never stopped.
DEFAULT_FORBIDDEN: tuple[tuple[str, str, str], ...] = SECRETS + (
    (".git/**", EVERYONE, "git's own database and hooks"),
    (".git", EVERYONE, "git's own database and hooks (a worktree's .git file, a submodule's folder)"),
    ("**/node_modules/**", AGENTS, "installed packages are generated, not edited"),
    ("package-lock.json", AGENTS, "lock files change only through the package manager"),
    ("yarn.lock", AGENTS, "lock files change only through the package manager"),
    ("pnpm-lock.yaml", AGENTS, "lock files change only through the package manager"),
    ("npm-shrinkwrap.json", AGENTS, "lock files change only through the package manager"),
    ("bun.lockb", AGENTS, "lock files change only through the package manager"),
)

# The committed templates of an environment file, which `.env*` lets be: the names dotenv
# tooling reads or documents for the file listing the variables with placeholder values
# (dotenv-safe `.env.example`, dotenv-extended `.env.schema` and `.env.defaults`, Symfony's
# `.env.dist`, `.env.sample` and `.env.template` in project generators). They hold no secrets
# and are meant to be read, edited and committed. Only `.env*` makes this exception: a
# template inside `secrets/` is still refused by `**/secrets/**`.
ENV_TEMPLATES = frozenset({".env.example", ".env.sample", ".env.template", ".env.dist", ".env.defaults",
                           ".env.schema"})
ENV_PATTERN = ".env*"


def env_template(path: str) -> bool:
    """`.env*` matches `path` (`/`-separated, any depth) only through a template's name: every
    part of it named `.env…` is a template (`.env.example`, or what a folder of that name holds)."""
    named = [p for p in path.lower().split("/") if p.startswith(".env")]
    return bool(named) and all(p in ENV_TEMPLATES for p in named)


# Every file through which an agent could loosen its own leash: handrail's state,
# git hooks, and each harness's permission and hook files.
PROTECTED: tuple[tuple[str, str, str], ...] = (
    ("**/.handrail/**", AGENTS, "handrail's policy, tasks and gates (at any depth: a nested one is never read)"),
    (".aioson/config/autonomy-protocol.json", AGENTS, "the policy handrail reads where .handrail has none"),
    ("agents/*/autonomy-envelope.md", AGENTS, "what the operator approved each agent to do"),
    *((f.pattern, AGENTS, f.why) for f in harnessfiles.FILES),  # each harness's own files
    (".pre-commit-config.yaml", AGENTS, "git hooks run by the pre-commit framework"),
    (".pre-commit-hooks.yaml", AGENTS, "git hooks run by the pre-commit framework"),
    (".husky/**", AGENTS, "git hooks run by husky"),
    (".githooks/**", AGENTS, "git hooks folder"),
    # The other git-hook managers: each one's config names the commands git runs on a commit or a
    # push, on a person's machine, and can leave handrail's hook out. The names are the ones each
    # tool reads (a name without a slash matches at any depth: lefthook's `.config/lefthook.yml`
    # too). package.json is left open, though husky v4 and simple-git-hooks read a key of it: its
    # `scripts` run on `npm install` and `npm test` anyway, and protecting it would stop every
    # dependency change.
    (".huskyrc*", AGENTS, "git hooks run by husky v4"),
    ("husky.config.js", AGENTS, "git hooks run by husky v4"),
    *((f"{stem}.{ext}", AGENTS, "git hooks run by lefthook")
      for stem in ("lefthook", ".lefthook", "lefthook-local", ".lefthook-local")
      for ext in ("yml", "yaml", "toml", "json")),
    (".lefthook/**", AGENTS, "scripts lefthook runs as git hooks"),
    (".lefthook-local/**", AGENTS, "scripts lefthook runs as git hooks"),
    (".overcommit.yml", AGENTS, "git hooks run by overcommit"),
    (".git-hooks/**", AGENTS, "overcommit's folder of the project's own hooks"),
    *((f"{stem}.{ext}", AGENTS, "git hooks run by simple-git-hooks")
      for stem in ("simple-git-hooks", ".simple-git-hooks") for ext in ("js", "cjs", "mjs", "json")),
    # What the editor, direnv or a dev container runs on a person's machine when the folder opens
    # (`.envrc`, which direnv runs on `cd`, is refused as `.env*` already). `.vscode/extensions.json`
    # only recommends extensions a person then chooses to install: left open.
    ("*.code-workspace", AGENTS, "a VS Code workspace (its own settings, tasks and launch configurations)"),
    (".vscode/tasks.json", AGENTS, "VS Code tasks (one marked runOn folderOpen runs when the folder opens)"),
    (".vscode/launch.json", AGENTS, "VS Code launch configurations (what runs on F5, and its preLaunchTask)"),
    (".devcontainer/**", AGENTS, "dev container config (initializeCommand runs on the host)"),
    (".devcontainer.json", AGENTS, "dev container config (initializeCommand runs on the host)"),
    # An agent handrail has no hook for still starts the MCP servers and runs the commands its config names.
    (".continue/**", AGENTS, "Continue's config (MCP servers it starts, its rules and prompts)"),
    # The CI job is the layer no agent runs: whatever decides what it runs decides whether
    # `handrail ci` runs at all, and whether its failure fails the pipeline.
    (".github/workflows/**", AGENTS, "GitHub Actions workflows (they run the CI check, or drop it)"),
    (".github/actions/**", AGENTS, "local GitHub Actions a workflow's steps run"),
    (".gitlab-ci.yml", AGENTS, "the GitLab CI pipeline (it runs the CI check, or drops it)"),
    (".gitlab/ci/**", AGENTS, "GitLab CI files the pipeline includes"),
    # `handrail ci` runs on any engine: each one's own pipeline file decides whether it runs.
    (".circleci/**", AGENTS, "the CircleCI pipeline (it runs the CI check, or drops it)"),
    ("Jenkinsfile", AGENTS, "the Jenkins pipeline (it runs the CI check, or drops it)"),
    ("azure-pipelines.yml", AGENTS, "the Azure Pipelines pipeline (it runs the CI check, or drops it)"),
    ("bitbucket-pipelines.yml", AGENTS, "the Bitbucket pipeline (it runs the CI check, or drops it)"),
    (".travis.yml", AGENTS, "the Travis CI pipeline (it runs the CI check, or drops it)"),
    (".buildkite/**", AGENTS, "the Buildkite pipeline (it runs the CI check, or drops it)"),
    (".drone.yml", AGENTS, "the Drone pipeline (it runs the CI check, or drops it)"),
    (".woodpecker.yml", AGENTS, "the Woodpecker pipeline (it runs the CI check, or drops it)"),
    (".woodpecker/**", AGENTS, "the Woodpecker pipeline (it runs the CI check, or drops it)"),
    (".gitea/workflows/**", AGENTS, "Gitea Actions workflows (they run the CI check, or drop it)"),
    (".forgejo/workflows/**", AGENTS, "Forgejo Actions workflows (they run the CI check, or drop it)"),
    # Who must review: the CI check leaves a policy change to a reviewer the owners name.
    ("CODEOWNERS", AGENTS, "who must review which paths (read at the root, in .github/, .gitlab/ or docs/)"),
    (".gitmodules", AGENTS, "submodules: code from another repository, which no path rule judges"),
)

FORBIDDEN_FILE = "forbidden_file"
PROTECTED_PATH = "protected_path"
NOT_IN_ALLOWED = "not_in_allowed_files"
HARD_LINKED = "hard_linked"
WRITE_PATH = "write_path"
WRITE_PATHS_KEY = "tiers.tier2_notified.write_paths"

# Files that loosen the leash wherever they sit: a write path covering one of these
# would hand the agent its own policy, so the protocol refuses it (protocol.py).
NEVER_WRITE_PATHS: tuple[str, ...] = (
    ".handrail/autonomy-protocol.json",
    ".handrail/generated.json",
    ".handrail/.gitignore",
    ".handrail/tasks/t/task.json",
    ".handrail/tasks/t/harness-contract.json",
    ".handrail/tasks/t/gates/publish.json",
    "agents/a/autonomy-envelope.md",
    ".claude/settings.json",
    ".codex/hooks.json",
    "opencode.json",
    ".pre-commit-config.yaml",
    ".husky/pre-commit",
    ".githooks/pre-commit",
    "lefthook.yml",
    ".lefthook/pre-commit/x.sh",
    ".overcommit.yml",
    ".git-hooks/pre_commit/x.rb",
    ".simple-git-hooks.json",
    ".mcp.json",
    ".claude/agents/a.md",
    ".vscode/settings.json",
    ".github/workflows/ci.yml",
    ".gitlab-ci.yml",
    ".gitmodules",
)


class Refusal:
    """Why a path may not change: the reason word, the pattern, and where it came from."""

    __slots__ = ("reason", "rule", "source", "why")

    def __init__(self, reason: str, rule: str, source: str, why: str = "") -> None:
        self.reason = reason
        self.rule = rule
        self.source = source
        self.why = why

    def as_dict(self) -> dict[str, str]:
        return {"reason": self.reason, "rule": self.rule, "source": self.source}

    def describe(self, path: str) -> str:
        what = {
            FORBIDDEN_FILE: "is forbidden",
            PROTECTED_PATH: "is protected",
            NOT_IN_ALLOWED: "is not in allowed_files",
            HARD_LINKED: "has other hard links",
        }[self.reason]
        detail = f" ({self.why})" if self.why else ""
        return f"{path} {what}: rule '{self.rule}' from {self.source}{detail}"

    def __repr__(self) -> str:
        return f"Refusal({self.reason!r}, {self.rule!r}, {self.source!r})"


class ContractScope:
    """The part of a task contract that decides which paths may change."""

    __slots__ = ("allowed", "forbidden", "source")

    def __init__(self, allowed: list[str], forbidden: list[str], source: str) -> None:
        self.allowed = PatternSet(allowed)
        self.forbidden = PatternSet(forbidden, ignore_case=True)
        self.source = source


class WritePaths:
    """The protocol's `write_paths`: protected paths an agent may write, with a notice."""

    __slots__ = ("patterns", "source")

    def __init__(self, patterns: list[str], source: str) -> None:
        self.patterns = PatternSet(patterns, ignore_case=True)
        self.source = source

    def match(self, path: str) -> str | None:
        return self.patterns.match(path)

    def notice(self, path: str, pattern: str) -> str:
        return (f"{path} is protected, and open to agents by write_paths '{pattern}' "
                f"({WRITE_PATHS_KEY} in {self.source})")


def _builtin(rules: tuple[tuple[str, str, str], ...], binds: frozenset[str]) -> tuple[tuple[PatternSet, str, str], ...]:
    return tuple((PatternSet([p], ignore_case=True), p, why) for p, who, why in rules if who in binds)


_AGENT_RULES = frozenset({EVERYONE, AGENTS})
_HUMAN_RULES = frozenset({EVERYONE})
_COMPILED: dict[tuple[str, bool], tuple[tuple[PatternSet, str, str], ...]] = {}


def _rules(kind: str, agent: bool) -> tuple[tuple[PatternSet, str, str], ...]:
    key = (kind, agent)
    if key not in _COMPILED:
        table = DEFAULT_FORBIDDEN if kind == FORBIDDEN_FILE else PROTECTED
        _COMPILED[key] = _builtin(table, _AGENT_RULES if agent else _HUMAN_RULES)
    return _COMPILED[key]


def builtin_refusal(path: str, *, agent: bool = True, write_paths: WritePaths | None = None) -> Refusal | None:
    """Default-forbidden and protected paths, for whom they bind; a protected path that
    `write_paths` opens is no refusal (the caller gives the notice: `write_path_hit`)."""
    for reason, source in ((FORBIDDEN_FILE, BUILTIN_FORBIDDEN), (PROTECTED_PATH, BUILTIN_PROTECTED)):
        for spec, pattern, why in _rules(reason, agent):
            if spec.match(path) and not (pattern == ENV_PATTERN and env_template(path)):
                if reason == PROTECTED_PATH and write_paths is not None and write_paths.match(path) is not None:
                    return None
                return Refusal(reason, pattern, source, why)
    return None


def write_path_hit(path: str, write_paths: WritePaths | None) -> str | None:
    """The write_paths pattern that opens this protected path to agents, if one does."""
    if write_paths is None or not any(spec.match(path) for spec, _p, _w in _rules(PROTECTED_PATH, True)):
        return None
    return write_paths.match(path)


def handrail_own(path: str) -> bool:
    """A file of handrail's or a harness's own (every protected pattern): no task
    contract scopes it for a human."""
    return protected_rule(path) is not None


def protected_rule(path: str) -> tuple[str, str] | None:
    """(pattern, why) of the first protected pattern `path` falls under, if any."""
    for spec, pattern, why in _rules(PROTECTED_PATH, True):
        if spec.match(path):
            return pattern, why
    return None


def hard_link_refusal(path: str, links: int) -> Refusal | None:
    """An agent's edit through one name of a file with other names changes them all,
    wherever they are, and no path rule sees those names: refused."""
    if links <= 1:
        return None
    return Refusal(HARD_LINKED, f"st_nlink {links}", "handrail hard-link rule",
                   f"the file has {links} names: an edit here changes the others too, and no path rule sees "
                   "them (a link to .handrail/autonomy-protocol.json would rewrite the policy)")


def forbidden_refusal(path: str, scope: ContractScope | None) -> Refusal | None:
    hit = None if scope is None else scope.forbidden.match(path)
    if scope is None or hit is None:
        return None
    return Refusal(FORBIDDEN_FILE, hit, scope.source, "forbidden by the task contract")


def contract_refusal(path: str, scope: ContractScope | None) -> Refusal | None:
    if scope is None:
        return None
    found = forbidden_refusal(path, scope)
    if found is not None:
        return found
    # A written list restricts even where none of its patterns can match (an unclosed
    # `[`, a comment, blanks): it then allows nothing, never everything.
    if scope.allowed.patterns and scope.allowed.match(path) is None:
        return Refusal(NOT_IN_ALLOWED, ", ".join(scope.allowed.patterns), scope.source,
                       "outside the task contract's allowed_files")
    return None


def path_refusal(path: str, scope: ContractScope | None, *, agent: bool = True,
                 write_paths: WritePaths | None = None) -> Refusal | None:
    """The first rule that refuses a change to `path` (relative, `/`-separated).

    A protected path is handrail's own file: for a human, no contract scopes it; for
    an agent, a write path is not limited by `allowed_files` either (the protocol
    opened it), only by `forbidden_files`."""
    found = builtin_refusal(path, agent=agent, write_paths=write_paths)
    if found is not None or scope is None:
        return found
    if not agent and handrail_own(path):
        return None
    if agent and write_path_hit(path, write_paths) is not None:
        return forbidden_refusal(path, scope)
    return contract_refusal(path, scope)
