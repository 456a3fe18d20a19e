"""What an agent's envelope says, read fast: for can-edit, classify and the git hooks.

PyYAML and jsonschema cost more than the whole hot-path budget, so they are loaded
only the first time an envelope's content is seen (through
`handrail.records.envelope`); after that the task-type states come from a cache
keyed by the hash of the content, handrail's version and the agent's name.
"""

from __future__ import annotations

import json
import os

from handrail import __version__
from handrail.errors import HandrailError
from handrail.policy import envelope as policy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ENVELOPES_DIR = "agents"
EXIT_IO = 3


def path_for(root: str, agent: str) -> str:
    return os.path.join(root, ENVELOPES_DIR, agent, policy.ENVELOPE_FILE)


def display_for(root: str, agent: str) -> str:
    """The path people see: relative to the project when the root is the project."""
    rel = policy.envelope_path(agent)
    here = os.path.normpath(root) == os.curdir or os.path.abspath(root) == os.getcwd()
    return rel if here else os.path.join(root, rel)


def _cache_file(agent: str, text: str) -> str:
    try:
        from _blake2 import blake2b  # builtin: hashlib's import costs milliseconds
    except ImportError:  # pragma: no cover - other interpreters
        from hashlib import blake2b
    digest = blake2b(f"{__version__}\0envelope\0{agent}\0{text}".encode(), digest_size=20).hexdigest()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "handrail", "envelope-states", digest + ".json")


def remember_states(agent: str, text: str, states: dict[str, str]) -> None:
    """Best effort: a cache that cannot be written only costs time."""
    path = _cache_file(agent, text)
    from handrail.fsio import atomic_write

    try:
        atomic_write(path, json.dumps(states))
    except OSError:
        pass


def states_for(project: str, agent: str) -> tuple[str, dict[str, str]] | None:
    """(envelope display path, task type -> state) for `agent` in `project`, or None
    when it has no envelope. Raises exit 3 for an envelope that cannot be used: the
    caller fails closed."""
    if policy.name_error(agent) is not None:
        return None  # no envelope can exist under a name `autonomy init` refuses
    display = display_for(project, agent)
    try:
        with open(path_for(project, agent), "rb") as f:
            raw = f.read()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        raise HandrailError(f"{display}: cannot read: {e.strerror}", reason="invalid_envelope",
                            exit_code=EXIT_IO) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise HandrailError(f"{display}: not UTF-8 text (byte {e.start})", reason="invalid_envelope",
                            exit_code=EXIT_IO) from None
    cache = _cache_file(agent, text)
    try:
        with open(cache, encoding="utf-8") as f:
            cached = json.load(f)
        if isinstance(cached, dict):
            return display, cached
    except (OSError, ValueError):
        pass
    from handrail.records.envelope import parse

    data, _ = parse(text, display, agent)
    states = policy.states_of(data)
    remember_states(agent, text, states)
    return display, states


def apply_to_edit(project: str, agent: str, answer: dict[str, Any]) -> dict[str, Any]:
    """can-edit's allowed answer, or the refusal the agent's envelope makes of it."""
    found = states_for(project, agent)
    if found is None:
        return answer
    display, states = found
    decision = policy.decide(states, policy.CODE_INLINE, agent=agent, envelope=display)
    if decision.verdict == policy.ALLOW:
        return answer
    return policy.refused_edit(answer, decision, agent, display)


def decide_for(project: str, agent: str | None, task_type: str, *, tier: int | None = None) -> policy.Decision:
    """The envelope's word on an action already allowed, for `agent` (None: nobody
    named, so no envelope applies). Raises exit 3 on an unusable envelope."""
    found = states_for(project, agent) if agent else None
    display, states = found if found else (policy.envelope_path(agent or "AGENT"), None)
    return policy.decide(states, task_type, agent=agent or "the agent", envelope=display, tier=tier)
