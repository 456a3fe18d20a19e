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
    FORBIDDEN_FILE,
    Refusal,
)

SECRETS = (".env*", "*.pem", "*.key", "**/secrets/**")
_WHY = {pattern: why for pattern, _who, why in DEFAULT_FORBIDDEN}
_SETS: list[tuple[PatternSet, str]] = []


def read_refusal(path: str) -> Refusal | None:
    """The secrets rule that refuses reading `path`, or None.

    `path` is project-relative (`/`-separated), or absolute for a file outside the
    project: the patterns match at any depth, so `/home/me/app/.env` is caught too.
    """
    if not _SETS:
        _SETS.extend((PatternSet([p], ignore_case=True), p) for p in SECRETS)
    rel = path.lstrip("/")
    for spec, pattern in _SETS:
        if spec.match(rel):
            return Refusal(FORBIDDEN_FILE, pattern, BUILTIN_FORBIDDEN, _WHY.get(pattern, "secrets"))
    return None
