"""Schema validation with messages that name the file, the JSON path and a likely fix.

jsonschema is imported only when a file's content has not been validated before: a
file that passed is remembered by the hash of its content (and of handrail's
version), so the hooks that run before every agent action never load it. The loaders
only note what passed (`passed`); handrail/records/validated.py writes the notes when
the command ends (handrail/main.py).
"""

from __future__ import annotations

import json
import os

from handrail import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SCHEMA_DIR = os.path.join(os.path.dirname(__file__), "schemas")
# Cache kinds -> the schema file that judges them.
SCHEMA_OF = {"protocol": "autonomy-protocol", "contract": "harness-contract"}


def cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "handrail", "validated")


def digest(kind: str, text: str) -> str:
    """Keyed by handrail's version, the schema's content and the file's content, so a
    changed schema (an editable install, a local patch) never trusts an old verdict."""
    try:
        from _blake2 import blake2b  # a builtin module: hashlib's import costs milliseconds
    except ImportError:  # pragma: no cover - other interpreters
        from hashlib import blake2b
    h = blake2b(f"{__version__}\0{kind}\0".encode(), digest_size=20)
    try:
        with open(os.path.join(_SCHEMA_DIR, f"{SCHEMA_OF.get(kind, kind)}.schema.json"), "rb") as f:
            h.update(f.read())
    except OSError:
        pass
    h.update(b"\0" + text.encode())
    return h.hexdigest()


def known_valid(kind: str, text: str) -> bool:
    return os.path.exists(os.path.join(cache_dir(), digest(kind, text)))


# (kind, text) of each file that passed validation in this process, not yet remembered.
PASSED: list[tuple[str, str]] = []


def passed(kind: str, text: str) -> None:
    """Note that `text` passed, for the records side to remember (nothing is written here)."""
    PASSED.append((kind, text))


def load_schema(name: str) -> dict[str, Any]:
    with open(os.path.join(_SCHEMA_DIR, f"{name}.schema.json"), encoding="utf-8") as f:
        schema: dict[str, Any] = json.load(f)
        return schema


def json_path(parts: object) -> str:
    out = ""
    for p in parts:  # type: ignore[attr-defined]
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def schema_errors(data: object, schema_name: str, path: str) -> list[str]:
    """One line per problem: `FILE: JSON.PATH: what is wrong (did you mean …)`."""
    import jsonschema

    schema = load_schema(schema_name)
    validator = jsonschema.Draft202012Validator(schema)
    lines: list[str] = []
    for err in sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path]):
        _describe(err, path, lines)
    return lines


def _branch_errors(err) -> list[Any] | None:  # type: ignore[no-untyped-def]
    """For a `oneOf`/`anyOf` failure, the errors of the one branch whose type fits the value.

    `{"command": "x", "timeot": 1}` fails both the string and the object branch; only
    the object branch says what to fix (the unknown key), so that is what is reported.
    """
    if err.validator not in ("oneOf", "anyOf") or not err.context:
        return None
    branches: dict[object, list[Any]] = {}
    for sub in err.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    fitting = [
        subs for subs in branches.values()
        if not any(s.validator == "type" and list(s.absolute_path) == list(err.absolute_path) for s in subs)
    ]
    return fitting[0] if len(fitting) == 1 else None


def _describe(err, path: str, lines: list[str]) -> None:  # type: ignore[no-untyped-def]
    import difflib

    where = list(err.absolute_path)
    branch = _branch_errors(err)
    if branch is not None:
        for sub in branch:
            _describe(sub, path, lines)
        return
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        known = list(err.schema.get("properties", {}))
        for key in err.instance:
            if key in known:
                continue
            near = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            hint = f" (did you mean '{near[0]}'?)" if near else f" (valid keys: {', '.join(known)})"
            lines.append(f"{path}: {json_path(where + [key])}: unknown key{hint}")
        return
    if err.validator == "enum" and isinstance(err.instance, str):
        options = [str(o) for o in err.validator_value]
        near = difflib.get_close_matches(err.instance, options, n=1, cutoff=0.6)
        hint = f" (did you mean '{near[0]}'?)" if near else ""
        lines.append(f"{path}: {json_path(where)}: '{err.instance}' is not one of {', '.join(options)}{hint}")
        return
    if err.validator == "propertyNames":
        lines.append(f"{path}: {json_path(where)}: key {err.instance!r} is not allowed: {err.message}")
        return
    lines.append(f"{path}: {json_path(where)}: {err.message}")
