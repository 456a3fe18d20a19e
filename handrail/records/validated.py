"""The cache of files that passed schema validation (see handrail/policy/validate.py),
written: one empty file per content digest."""

from __future__ import annotations

import os

from handrail.policy import validate


def remember(kind: str, text: str) -> None:
    """Best effort: a cache that cannot be written only costs time."""
    try:
        folder = validate.cache_dir()
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, validate.digest(kind, text)), "w"):
            pass
    except OSError:
        pass


def save_passed() -> None:
    """Remember what the loaders noted as passed in this process."""
    while validate.PASSED:
        kind, text = validate.PASSED.pop()
        remember(kind, text)
