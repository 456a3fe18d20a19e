"""Which paths an agent may change: one implementation for every layer.

Order of the checks, first refusal wins: default-forbidden paths (no contract can
lift them), protected paths (the agent may not relax its own guardrails), the task
contract's `forbidden_files`, then its `allowed_files`. Forbidden and protected
matching ignores case, so `.ENV` on a case-insensitive file system is still `.env`.
"""

from __future__ import annotations

from handrail.policy.globs import PatternSet

EVERYONE = "everyone"
AGENTS = "agents"

BUILTIN_FORBIDDEN = "handrail default-forbidden paths"
BUILTIN_PROTECTED = "handrail protected paths"

# (pattern, whom it binds, why). Secrets bind everyone; generated trees and lock
# files bind agents only, so a human updating a lock file is never stopped.
DEFAULT_FORBIDDEN: tuple[tuple[str, str, str], ...] = (
    (".env*", EVERYONE, "environment files hold secrets"),
    ("*.pem", EVERYONE, "private keys and certificates"),
    ("*.key", EVERYONE, "private keys"),
    ("**/secrets/**", EVERYONE, "secrets folder, at any depth"),
    (".git/**", EVERYONE, "git's own database and hooks"),
    (".git", EVERYONE, "git's own database and hooks (a worktree's .git file, a submodule's folder)"),
    ("**/node_modules/**", AGENTS, "installed packages are generated, not edited"),
    ("package-lock.json", AGENTS, "lock files change only through the package manager"),
    ("yarn.lock", AGENTS, "lock files change only through the package manager"),
    ("pnpm-lock.yaml", AGENTS, "lock files change only through the package manager"),
    ("npm-shrinkwrap.json", AGENTS, "lock files change only through the package manager"),
    ("bun.lockb", AGENTS, "lock files change only through the package manager"),
)

# Every file through which an agent could loosen its own leash: handrail's state,
# git hooks, and each harness's permission and hook files.
PROTECTED: tuple[tuple[str, str, str], ...] = (
    ("**/.handrail/**", AGENTS, "handrail's policy, tasks and gates (at any depth: a nested one is never read)"),
    ("agents/*/autonomy-envelope.md", AGENTS, "what the operator approved each agent to do"),
    (".claude/settings*.json", AGENTS, "Claude Code permissions and hooks"),
    (".codex/**", AGENTS, "Codex rules and hooks"),
    ("opencode.json*", AGENTS, "OpenCode permissions"),
    (".opencode/**", AGENTS, "OpenCode plugins"),
    (".cursor/hooks.json", AGENTS, "Cursor hooks"),
    (".cursor/cli.json", AGENTS, "Cursor permissions"),
    (".gemini/settings.json", AGENTS, "Gemini CLI settings and hooks"),
    (".github/hooks/**", AGENTS, "Copilot hooks"),
    (".clinerules/hooks/**", AGENTS, "Cline hooks"),
    (".pre-commit-config.yaml", AGENTS, "git hooks run by the pre-commit framework"),
    (".pre-commit-hooks.yaml", AGENTS, "git hooks run by the pre-commit framework"),
    (".husky/**", AGENTS, "git hooks run by husky"),
    (".githooks/**", AGENTS, "git hooks folder"),
)

FORBIDDEN_FILE = "forbidden_file"
PROTECTED_PATH = "protected_path"
NOT_IN_ALLOWED = "not_in_allowed_files"


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


def builtin_refusal(path: str, *, agent: bool = True) -> Refusal | None:
    """Default-forbidden and protected paths, for whom they bind."""
    for reason, source in ((FORBIDDEN_FILE, BUILTIN_FORBIDDEN), (PROTECTED_PATH, BUILTIN_PROTECTED)):
        for spec, pattern, why in _rules(reason, agent):
            if spec.match(path):
                return Refusal(reason, pattern, source, why)
    return None


def contract_refusal(path: str, scope: ContractScope | None) -> Refusal | None:
    if scope is None:
        return None
    hit = scope.forbidden.match(path)
    if hit is not None:
        return Refusal(FORBIDDEN_FILE, hit, scope.source, "forbidden by the task contract")
    # A written list restricts even where none of its patterns can match (an unclosed
    # `[`, a comment, blanks): it then allows nothing, never everything.
    if scope.allowed.patterns and scope.allowed.match(path) is None:
        return Refusal(NOT_IN_ALLOWED, ", ".join(scope.allowed.patterns), scope.source,
                       "outside the task contract's allowed_files")
    return None


def path_refusal(path: str, scope: ContractScope | None, *, agent: bool = True) -> Refusal | None:
    """The first rule that refuses a change to `path` (relative, `/`-separated)."""
    return builtin_refusal(path, agent=agent) or contract_refusal(path, scope)
