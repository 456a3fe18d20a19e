"""What a harness module asks to be written, and how a JSON file it shares with the
user is merged.

Each harness module (`handrail/harnesses/<name>.py`, section `# ---- native files`)
returns JsonFile and TextFile values; `handrail/permissions.py` plans and writes them.

A JsonFile names *slots*: the places in the user's file where handrail's rules live.
Everything outside them is the user's and is kept as it is. Inside a slot, handrail's
own items are tracked (in `.handrail/generated.json`, and for hook entries by their
command too), so a regeneration replaces them, drops the ones the protocol no longer
has, and never writes one twice; the user's items in the same slot are kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from handrail.policy import scope

HOOK_PREFIX = "handrail hook "


class ListSlot(NamedTuple):
    """A list at `path` (keys from the top). handrail's items come first, in order,
    then the user's. `ours` recognises handrail's items without the record (hook
    entries, by their command), so a lost record never duplicates them. `retired`: a
    setting handrail no longer writes; its old items go, and the list too once empty."""

    path: tuple[str, ...]
    items: list[Any]
    ours: Callable[[Any], bool] | None = None
    retired: bool = False


class MapSlot(NamedTuple):
    """An ordered object at `path` whose later keys win (OpenCode's permission rules,
    `allow`, `ask` or `deny`). Order: the catch-all key `"*"` first, then `head`, then
    the user's keys, then `tail`, so that handrail's strict rules (`tail`) come last
    and win."""

    path: tuple[str, ...]
    head: list[tuple[str, Any]]
    tail: list[tuple[str, Any]]


class JsonFile(NamedTuple):
    path: str                                           # relative to the project, `/`-separated
    slots: Sequence[ListSlot | MapSlot]
    defaults: Sequence[tuple[tuple[str, ...], Any]] = ()   # set only where the user has no value


class TextFile(NamedTuple):
    """A file handrail owns whole: regenerating replaces it (after a backup)."""

    path: str
    text: str
    executable: bool = False


class ShapeError(ValueError):
    """The user's file has a value of the wrong kind where handrail's rules go."""


# --------------------------------------------------------------------------- helpers for harness modules


def hook_command(harness: str, *, block_on_failure: bool = False) -> str:
    """The command a harness runs before each tool call. With `block_on_failure`, a
    handrail that cannot start (not on PATH) exits 2, which Claude Code, Codex and
    Gemini CLI treat as a refusal, instead of 127, which they let through."""
    command = f"{HOOK_PREFIX}{harness}"
    return f"{command} || exit 2" if block_on_failure else command


def runs_handrail_hook(entry: object) -> bool:
    """A hook entry (or a group of them) whose command runs `handrail hook …`."""
    if isinstance(entry, str):
        return HOOK_PREFIX in entry
    if isinstance(entry, dict):
        return any(runs_handrail_hook(v) for v in entry.values())
    if isinstance(entry, list):
        return any(runs_handrail_hook(v) for v in entry)
    return False


def path_denies() -> list[str]:
    """Every path an agent may not change: default-forbidden and protected, gitignore syntax."""
    return list(dict.fromkeys(p for p, _who, _why in scope.DEFAULT_FORBIDDEN + scope.PROTECTED))


def secret_paths() -> list[str]:
    """The project's secret paths (scope.SECRETS): an agent may not read them either."""
    return list(scope.SECRET_PATHS)


def user_json(project: str, rel: str, *, comments: bool = False) -> Any:
    """A harness file the user may have written, parsed; None when it is absent. Not JSON:
    HandrailError naming the file. `comments`: the harness reads it with comments allowed."""
    import json
    import os

    from handrail.errors import HandrailError

    try:
        with open(os.path.join(project, rel), encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as e:
        raise HandrailError(f"{rel}: cannot be read ({e})") from None
    try:
        return json.loads(without_comments(text) if comments else text)
    except ValueError as e:
        raise HandrailError(f"{rel}: not valid JSON ({e})") from None


def without_comments(text: str) -> str:
    """JSON with comments (`//` and `/* */` outside strings), as Qwen Code and VS Code read their
    settings, without them."""
    out: list[str] = []
    i, n, quoted = 0, len(text), False
    while i < n:
        c = text[i]
        if quoted:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
            out.append(c)
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


# --------------------------------------------------------------------------- merging


def _kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number")


def _parent(data: dict[str, Any], path: tuple[str, ...], where: str) -> dict[str, Any]:
    """The object holding `path[-1]`, created where missing."""
    node = data
    for i, key in enumerate(path[:-1]):
        child = node.get(key)
        if child is None:
            child = node[key] = {}
        elif not isinstance(child, dict):
            raise ShapeError(f"{where}: {'.'.join(path[:i + 1])}: expected an object, found {_kind(child)}")
        node = child
    return node


def _drop(data: dict[str, Any], path: tuple[str, ...]) -> None:
    """Remove the value at `path`, then each object above it that this leaves empty."""
    nodes = [data]
    for key in path[:-1]:
        nodes.append(nodes[-1][key])
    nodes[-1].pop(path[-1], None)
    for node, key in zip(reversed(nodes[:-1]), reversed(path[:-1]), strict=True):
        if node[key]:
            break
        node.pop(key)


def slot_key(slot: ListSlot | MapSlot) -> str:
    return ".".join(slot.path)


def merge(current: dict[str, Any], spec: JsonFile,
          record: dict[str, list[Any]] | None) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """The file with handrail's slots filled, and the new record of what handrail owns.

    `record` maps a slot's dotted path to what handrail wrote there last time. Without
    one (a first run, or a record that was lost), items equal to handrail's count as
    handrail's only where the file already runs a handrail hook, i.e. handrail wrote
    it before; otherwise they are the user's. An item the user wrote that handrail
    also writes stays the user's: it is never recorded, so it survives when the
    protocol drops it.
    """
    import copy

    data = copy.deepcopy(current)
    assume_ours = record is None and runs_handrail_hook(current)
    owned: dict[str, list[Any]] = {}
    for path, value in spec.defaults:
        _parent(data, path, spec.path).setdefault(path[-1], value)
    for slot in spec.slots:
        parent = _parent(data, slot.path, spec.path)
        key = slot_key(slot)
        previous = None if record is None else record.get(key, [])
        old = parent.get(slot.path[-1])
        if isinstance(slot, ListSlot):
            parent[slot.path[-1]], owned[key] = _merge_list(old, slot, previous, assume_ours, spec.path)
            if slot.retired and not parent[slot.path[-1]]:
                _drop(data, slot.path)
        else:
            parent[slot.path[-1]], owned[key] = _merge_map(old, slot, previous, assume_ours, spec.path)
    return data, owned


def _merge_list(old: object, slot: ListSlot, previous: list[Any] | None, assume_ours: bool,
                where: str) -> tuple[list[Any], list[Any]]:
    if old is None:
        old = []
    if not isinstance(old, list):
        raise ShapeError(f"{where}: {'.'.join(slot.path)}: expected a list, found {_kind(old)}")
    mine = unique(slot.items)
    if previous is None:
        previous = [x for x in old if x in mine] if assume_ours else []
    # A retired setting's old items are told by their text only where no record says which
    # were handrail's and handrail wrote the file before: the same text may be the user's.
    ours = slot.ours if not slot.retired or assume_ours else None
    user = [x for x in old if x not in previous and not (ours is not None and ours(x))]
    owned = [x for x in mine if x not in user]
    return owned + user, owned


def _merge_map(old: object, slot: MapSlot, previous: list[Any] | None, assume_ours: bool,
               where: str) -> tuple[dict[str, Any], list[Any]]:
    if old is None:
        old = {}
    elif isinstance(old, str):
        old = {"*": old}  # `"bash": "ask"` is the same rule as `"bash": {"*": "ask"}`
    if not isinstance(old, dict):
        raise ShapeError(f"{where}: {'.'.join(slot.path)}: expected an object, found {_kind(old)}")
    mine = dict(slot.head + slot.tail)
    if previous is None:
        previous = [k for k, v in old.items() if mine.get(k) == v] if assume_ours else []
    user = {k: v for k, v in old.items() if k not in previous}
    # Where the user set a key handrail sets too, the stricter value stays: the user's
    # `deny` outranks handrail's `allow`, handrail's `ask` a user's `allow`. A key the
    # user holds (same or stricter value) stays theirs, and outlives handrail's rule.
    theirs = {k for k in mine if k in user and (user[k] == mine[k] or _strictness(user[k]) > _strictness(mine[k]))}
    owned = [k for k in mine if k not in theirs]
    value = {k: user[k] if k in theirs else v for k, v in mine.items()}
    merged: dict[str, Any] = {}
    if "*" in mine or "*" in user:
        merged["*"] = value["*"] if "*" in mine else user["*"]
    for k, _v in slot.head:
        merged.setdefault(k, value[k])
    for k, v in user.items():
        if k not in mine:
            merged.setdefault(k, v)
    for k, _v in slot.tail:
        merged.pop(k, None)
        merged[k] = value[k]
    return merged, owned


STRICTNESS = {"allow": 0, "ask": 1, "deny": 2}


def _strictness(value: object) -> int:
    return STRICTNESS.get(value, -1) if isinstance(value, str) else -1


def unique(items: list[Any]) -> list[Any]:
    """The items without repeats, first one kept (items may be objects, so no set)."""
    import json

    seen: set[str] = set()
    out = []
    for x in items:
        key = json.dumps(x, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out
