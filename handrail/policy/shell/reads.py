"""Which files an agent may not even read: secrets.

The default-forbidden paths that hold secrets (`.env*`, `*.pem`, `*.key`,
`secrets/**`) bind reads too: what an agent reads ends up in a model's context.
The other default-forbidden paths (`.git/**`, lock files, node_modules) are safe to read.
"""

from __future__ import annotations

from handrail.policy.globs import PatternSet
from handrail.policy.scope import (
    BUILTIN_FORBIDDEN,
    DEFAULT_FORBIDDEN,
    ENV_PATTERN,
    FORBIDDEN_FILE,
    SECRET_PATHS,
    Refusal,
    env_template,
)

SECRETS = SECRET_PATHS
# Credential files that live outside projects, in a home folder or the system: matched at
# any depth of an absolute path, so that whoever the home folder belongs to, it is caught.
CREDENTIALS = (
    "**/.ssh/**", "**/.aws/credentials", "**/.aws/sso/cache/**",
    "**/.aws/cli/cache/**", "**/.netrc", "**/_netrc", "**/.npmrc", "**/.yarnrc.yml", "**/.pypirc",
    "**/.docker/config.json", "**/.kube/config", "**/.kube/**/config", "**/.config/gcloud/**",
    "**/.azure/**", "**/.git-credentials", "**/.config/git/credentials", "**/.config/gh/hosts.yml",
    "**/.gnupg/**", "**/.password-store/**", "**/.vault-token", "**/.terraform.d/credentials.tfrc.json",
    "**/.pgpass", "**/.my.cnf", "**/.cargo/credentials", "**/.cargo/credentials.toml", "**/.gem/credentials",
    "**/.config/hub", "**/.m2/settings-security.xml", "**/.gradle/gradle.properties", "**/.boto",
    "**/.s3cfg", "**/.config/rclone/rclone.conf", "**/.config/op/**", "**/.local/share/keyrings/**",
    "**/Library/Keychains/**", "**/.config/anthropic/**", "**/.claude/.credentials.json",
    "**/.codex/auth.json", "**/.config/github-copilot/**", "**/.gemini/oauth_creds.json",
    "etc/shadow", "etc/gshadow", "etc/shadow-", "etc/sudoers", "etc/sudoers.d/**", "etc/ssh/ssh_host_*_key",
    "etc/ssl/private/**", "**/.bash_history", "**/.zsh_history", "**/.python_history", "**/.psql_history",
    "**/.mysql_history", "**/.node_repl_history", "proc/*/environ", "proc/self/environ", "proc/*/task/*/environ",
    # a person's own data on the machine: messages, mail, browser history and cookies
    "**/Library/Messages/**", "**/Library/Mail/**", "**/Library/Safari/**", "**/Library/Cookies/**",
    "**/Library/Application Support/Google/Chrome/**", "**/Library/Application Support/Firefox/**",
    "**/.mozilla/firefox/**", "**/.config/google-chrome/**", "**/.config/chromium/**", "**/.thunderbird/**",
)
_CREDENTIALS_WHY = "a credential or private file of the machine's user: keys, tokens, passwords, messages"
_WHY = {pattern: why for pattern, _who, why in DEFAULT_FORBIDDEN}
_SETS: list[tuple[PatternSet, str]] = []


def read_refusal(path: str) -> Refusal | None:
    """The secrets rule that refuses reading `path`, or None.

    `path` is project-relative (`/`-separated), or absolute for a file outside the
    project: the patterns match at any depth, so `/home/me/app/.env` is caught too.
    """
    if not _SETS:
        # one set: a single pass over the compiled patterns, which names the one that matched
        _SETS.append((PatternSet(SECRETS + CREDENTIALS, ignore_case=True), ""))
        _SETS.append((PatternSet([p for p in SECRETS + CREDENTIALS if p != ENV_PATTERN], ignore_case=True), ""))
    pattern = _SETS[0][0].match(path.lstrip("/"))
    if pattern == ENV_PATTERN and env_template(path):
        # a template of `.env` (scope.ENV_TEMPLATES), unless another pattern names it (`secrets/.env.example`)
        pattern = _SETS[1][0].match(path.lstrip("/"))
    if pattern is None or (".ssh/" in pattern and public_ssh(path)):
        return None  # a public key is meant to be shared
    why = _WHY.get(pattern) or (_CREDENTIALS_WHY if pattern in CREDENTIALS else "secrets")
    return Refusal(FORBIDDEN_FILE, pattern, BUILTIN_FORBIDDEN, why)


def public_ssh(path: str) -> bool:
    """A file under `.ssh/` that holds no secret: public keys (`*.pub`, `authorized_keys`, which lists
    only public keys), the hosts' public keys (`known_hosts`, `known_hosts.old`) and `config`, which
    names hosts and key files but holds no key. Every other file there may be a private key, whatever
    it is named (`github_deploy`, `work`), so it is a secret."""
    low = "/" + path.lower().lstrip("/")
    below = low.rsplit("/.ssh/", 1)[-1] if "/.ssh/" in low else low.rsplit("/", 1)[-1]
    name = below.split("/", 1)[0]  # the entry of .ssh: a folder of that name holds the same
    return name.endswith(".pub") or name.startswith("known_hosts") or name in ("config", "authorized_keys",
                                                                                "authorized_keys2")
