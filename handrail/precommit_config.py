"""handrail's hooks added to a repository's `.pre-commit-config.yaml`, keeping the user's text.

PyYAML cannot write a document back with its comments, so the merge reads the parser's
events (which carry each node's position in the text) to find where `repos:` ends, and
inserts one `repo: local` entry there as text: after the last item of a block list, at the
list's indentation and with the file's line endings; or as one flow mapping after the last
item of a flow list (`repos: [...]`, `repos: []`). However the key is written (`repos:`,
`"repos":`, `'repos':`), it is the parsed key that is found, never a line that looks like it.

The result is parsed again and must hold exactly the user's `repos` and other keys plus
handrail's entry; anything else (an alias as `repos`, a second `repos` key, a layout the
insert misread) is refused with one line naming the file and the key, and the file is left
as it was: a hook of the user's is never lost.
"""

from __future__ import annotations

import json
from typing import Any

from handrail.errors import HandrailError

NAME = ".pre-commit-config.yaml"


def refuse(key: str, why: str) -> HandrailError:
    return HandrailError(f"{NAME}: {key}: {why}; handrail left it untouched", reason="invalid_config")


def present_ids(data: dict[str, Any]) -> set[str]:
    """The hook ids the parsed config already runs, from any repo."""
    repos = data.get("repos", [])
    return {str(h.get("id")) for r in repos if isinstance(r, dict)
            for h in r.get("hooks") or [] if isinstance(h, dict)}


def merge(text: str, data: dict[str, Any], hooks: list[dict[str, Any]]) -> str:
    """`text` (whose parse is `data`) with a `repo: local` entry holding `hooks` added to `repos`."""
    import yaml

    entry = {"repo": "local", "hooks": hooks}
    newline = "\r\n" if "\r\n" in text else "\n"
    found = _locate(text)
    if found is None:
        if "repos" in data:
            raise refuse("repos", "not found where the parser put it")
        block = _block(entry, 0, newline)
        head = text if not text or text.endswith("\n") else text + newline
        merged = head + "repos:" + newline + block
    else:
        at, flow, column, empty = found
        if flow:
            item = json.dumps(entry, separators=(", ", ": "))
            merged = text[:at] + (item if empty else ", " + item) + text[at:]
        else:
            at = _line_end(text, at)
            glue = "" if at == 0 or text[at - 1] == "\n" else newline
            merged = text[:at] + glue + _block(entry, column, newline) + text[at:]
    try:
        check = yaml.safe_load(merged)
    except yaml.YAMLError:
        check = None
    want = {**data, "repos": [*data.get("repos", []), entry]}
    if check != want:
        raise refuse("repos", "handrail could not add its hooks here without changing yours: add them by hand "
                     "(README: Git hooks), or run `handrail init --git-hooks`")
    return merged


def _locate(text: str) -> tuple[int, bool, int, bool] | None:
    """Where an item goes in the top-level `repos` list: (text index, flow list, the block
    list's indentation, list empty); None when there is no `repos` key."""
    import yaml

    events = [ev for ev in yaml.parse(text)
              if not isinstance(ev, (yaml.StreamStartEvent, yaml.StreamEndEvent, yaml.DocumentStartEvent,
                                     yaml.DocumentEndEvent))]
    if not events or (isinstance(events[0], yaml.ScalarEvent) and len(events) == 1):
        return None  # an empty document: `repos:` is appended
    root = events[0]
    if not isinstance(root, yaml.MappingStartEvent):
        raise refuse("(top level)", "expected a mapping")
    found: list[tuple[int, bool, int, bool]] = []
    i = 1
    while not isinstance(events[i], yaml.MappingEndEvent):
        key, i = events[i], _skip(events, i)
        if isinstance(key, yaml.ScalarEvent) and key.value == "repos":
            found.append(_list_end(events, i))
        i = _skip(events, i)
    if len(found) > 1:
        raise refuse("repos", f"written {len(found)} times (the parser keeps only the last, dropping the hooks "
                     "of the others): merge them into one")
    if not found and root.flow_style is True:
        raise refuse("(top level)", "a flow mapping (`{...}`) without `repos`: write it in block style")
    return found[0] if found else None


def _skip(events: list[Any], i: int) -> int:
    """The index after the node starting at events[i]."""
    import yaml

    depth = 0
    while True:
        ev = events[i]
        if isinstance(ev, yaml.CollectionStartEvent):
            depth += 1
        elif isinstance(ev, yaml.CollectionEndEvent):
            depth -= 1
        i += 1
        if depth == 0:
            return i


def _list_end(events: list[Any], i: int) -> tuple[int, bool, int, bool]:
    """For the `repos` value starting at events[i]: where its next item goes (see _locate)."""
    import yaml

    start = events[i]
    if isinstance(start, yaml.AliasEvent):
        raise refuse("repos", "an alias (*name): adding hooks there would change what else uses it; "
                     "write the list out")
    if not isinstance(start, yaml.SequenceStartEvent):
        raise refuse("repos", "expected a list")
    end = _skip(events, i)
    items = events[i + 1:end - 1]
    if start.flow_style is True:
        if not items:
            return _at(start.end_mark), True, 0, True
        return _at(items[-1].end_mark), True, 0, False  # after the last item's scalar, `]` or `}`
    # A block list: after the last scalar, alias or flow collection inside it, since a block
    # collection's own end mark lies past the comments and blank lines that follow it.
    flows: list[bool] = []
    last = _at(start.end_mark)
    for ev in items:
        if isinstance(ev, yaml.CollectionStartEvent):
            flows.append(ev.flow_style is True)
        elif isinstance(ev, yaml.CollectionEndEvent):
            if flows.pop():
                last = _at(ev.end_mark)
        else:
            last = _at(ev.end_mark)
    return last, False, _at(start.start_mark, column=True), False


def _at(mark: Any, *, column: bool = False) -> int:
    """A parser mark's index in the text (or column); PyYAML gives every event both."""
    if mark is None:  # pragma: no cover - PyYAML's parser always sets marks
        raise refuse("repos", "the parser gave no position")
    return int(mark.column if column else mark.index)


def _line_end(text: str, at: int) -> int:
    """The start of the line after the one `at` lies on (a trailing comment stays with its item)."""
    if at == 0 or text[at - 1] == "\n":
        return at
    nl = text.find("\n", at)
    return len(text) if nl < 0 else nl + 1


def _block(entry: dict[str, Any], column: int, newline: str) -> str:
    import yaml

    dumped = yaml.safe_dump([entry], sort_keys=False, width=10_000, default_flow_style=False)
    pad = " " * column
    return "".join(pad + line + newline if line else newline for line in dumped.splitlines())
