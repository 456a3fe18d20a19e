"""The answer about inline code: which effects it has, on which literal paths, and why.

Shared by the Python reader (pycode.py) and the print-only checker (scriptcode.py); the
interface is inline.py.
"""

from __future__ import annotations

from typing import NamedTuple

EFFECTS = frozenset({"read", "write", "delete", "exec", "network", "env", "dynamic", "unknown"})
MAX_CODE = 64 * 1024
MAX_NODES = 20_000


class CodeEffects(NamedTuple):
    effects: frozenset[str]   # subset of EFFECTS; empty = pure computation / printing
    reads: tuple[str, ...]    # literal paths read; empty when one read's target is unknown
    writes: tuple[str, ...]   # literal paths written, created, moved onto, deleted; likewise
    reasons: tuple[str, ...]  # one short phrase per finding: "calls os.remove"


PURE = CodeEffects(frozenset(), (), (), ())


def _unknown(reason: str) -> CodeEffects:
    return CodeEffects(frozenset({"unknown"}), (), (), (reason,))
