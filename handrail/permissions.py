"""`handrail permissions`: each harness's own permission and hook files, from the protocol.

The run is planned whole before anything is written: every file is read, every
JSON file parsed and merged, and only then written. A file that is not valid JSON,
or holds a value of the wrong kind where handrail's rules go, stops the run with one
line naming it, and nothing is written. Every write is atomic; what it replaces is
copied first to `.handrail/backups/<stamp>/permissions/<relpath>`.

Drift is judged by content: a JSON file is in sync when its parsed content, key order
included (OpenCode's rules are ordered), equals what would be generated; a whole file
when its bytes (and, for a script, its executable bit) do. Modification times never
count. A file in sync is never rewritten, so the user's formatting survives.
"""

from __future__ import annotations

import importlib
import json
import os
import time
from types import ModuleType
from typing import NamedTuple

from handrail.errors import HandrailError
from handrail.fsio import atomic_write, dump_json
from handrail.native import JsonFile, ShapeError, TextFile, merge
from handrail.policy import protocol as protocols
from handrail.policy.protocol import Protocol

HARNESSES = ("claude", "codex", "opencode", "gemini", "cursor", "copilot", "cline")
RECORD = ".handrail/generated.json"
BACKUPS = os.path.join(".handrail", "backups")
CREATE, UPDATE, NONE = "create", "update", "none"


class Change(NamedTuple):
    path: str              # relative to the project, `/`-separated
    tool: str
    old: bytes | None      # None: the file does not exist
    new: str
    executable: bool
    action: str            # create, update or none

    @property
    def needs_chmod(self) -> bool:
        return self.executable and self.old is not None and self.old == self.new.encode()


class Plan(NamedTuple):
    project: str
    changes: list[Change]

    @property
    def pending(self) -> list[Change]:
        return [c for c in self.changes if c.action != NONE]


# --------------------------------------------------------------------------- which tools


def harness(tool: str) -> ModuleType | None:
    """The harness module that writes `tool`'s native files, or None."""
    if tool not in HARNESSES:
        return None
    module = importlib.import_module(f"handrail.harnesses.{tool}")
    return module if hasattr(module, "native_files") else None


def select(proto: Protocol, requested: list[str] | None) -> tuple[list[str], list[str]]:
    """(tools to generate, notes). Default: every tool the protocol lists that has
    native files. A requested tool must be listed in the protocol and known here."""
    listed = protocols.tool_names(proto)
    notes: list[str] = []
    if requested:
        for tool in requested:
            if tool not in HARNESSES:
                raise HandrailError(f"--tool {tool}: no native files for this tool "
                                    f"(tools with native files: {', '.join(HARNESSES)})", reason="bad_arguments")
            if tool not in listed:
                raise HandrailError(f"{proto.source}: tools.{tool}: not listed in the protocol; add it under "
                                    f"`tools` first (listed: {', '.join(listed) or 'none'})", reason="bad_arguments")
        return list(dict.fromkeys(requested)), notes
    chosen = []
    for tool in listed:
        if harness(tool) is None:
            notes.append(f"{tool}: no native files for this tool; the git hooks guard it")
        else:
            chosen.append(tool)
    return chosen, notes


# --------------------------------------------------------------------------- planning


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise HandrailError(f"{path}: is a folder, not a file; move it away first", reason="in_the_way") from None


def _parse(rel: str, data: bytes) -> object:
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        problem = f"not UTF-8 text (byte {e.start})"
    except json.JSONDecodeError as e:
        problem = f"invalid JSON at line {e.lineno} column {e.colno}: {e.msg}"
    raise HandrailError(f"{rel}: {problem}; handrail left it untouched: fix it by hand, then run "
                        "`handrail permissions` again", reason="invalid_json")


def _object(rel: str, data: bytes) -> dict:
    value = _parse(rel, data)
    if not isinstance(value, dict):
        raise HandrailError(f"{rel}: expected a JSON object at the top level; handrail left it untouched",
                            reason="invalid_json")
    return value


def same_json(a: object, b: object) -> bool:
    """Equal content, key order included: OpenCode's later rules win."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


def read_record(project: str) -> dict[str, dict[str, list]]:
    data = _read(os.path.join(project, RECORD))
    if data is None:
        return {}
    files = _object(RECORD, data).get("files", {})
    if not isinstance(files, dict) or not all(isinstance(v, dict) for v in files.values()):
        raise HandrailError(f"{RECORD}: files: expected an object of objects; handrail left it untouched",
                            reason="invalid_json")
    return files


def plan(project: str, proto: Protocol, tools: list[str]) -> Plan:
    """What `handrail permissions` would write for `tools`; reads only."""
    record = read_record(project)
    new_record = dict(record)
    changes: list[Change] = []
    for tool in tools:
        module = harness(tool)
        assert module is not None, tool
        for spec in module.native_files(proto):
            full = os.path.join(project, spec.path)
            old = _read(full)
            if isinstance(spec, JsonFile):
                current = {} if old is None else _object(spec.path, old)
                try:
                    merged, owned = merge(current, spec, record.get(spec.path))
                except ShapeError as e:
                    raise HandrailError(f"{e}; handrail left it untouched", reason="invalid_json") from None
                new_record[spec.path] = owned
                if old is not None and same_json(current, merged):
                    changes.append(Change(spec.path, tool, old, old.decode("utf-8"), False, NONE))
                else:
                    changes.append(Change(spec.path, tool, old, dump_json(merged), False,
                                          CREATE if old is None else UPDATE))
            else:
                changes.append(_text_change(spec, tool, full, old))
    text = dump_json({"comment": "What `handrail permissions` wrote into files it shares with you, so that "
                                 "regenerating replaces it. Generated: do not edit.",
                      "files": dict(sorted(new_record.items()))})
    old_record = _read(os.path.join(project, RECORD))
    if old_record is None or not same_json(_parse(RECORD, old_record), json.loads(text)):
        changes.append(Change(RECORD, "handrail", old_record, text, False, CREATE if old_record is None else UPDATE))
    return Plan(project, changes)


def _text_change(spec: TextFile, tool: str, full: str, old: bytes | None) -> Change:
    if old is None:
        return Change(spec.path, tool, None, spec.text, spec.executable, CREATE)
    same = old == spec.text.encode("utf-8")
    runnable = not spec.executable or os.access(full, os.X_OK)
    return Change(spec.path, tool, old, spec.text, spec.executable, NONE if same and runnable else UPDATE)


# --------------------------------------------------------------------------- writing


def claim_backup_dir(project: str) -> str:
    """A fresh `.handrail/backups/<stamp>` folder. The stamp is the UTC second, with a
    counter where that folder is taken (two runs within one second), claimed by
    creating it, so two runs never share one."""
    root = os.path.join(project, BACKUPS)
    os.makedirs(root, exist_ok=True)
    ignore = os.path.join(root, ".gitignore")
    if not os.path.exists(ignore):
        atomic_write(ignore, "# what handrail overwrote: local, never committed\n*\n")
    base = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    n = 1
    while True:
        name = base if n == 1 else f"{base}-{n:03d}"
        try:
            os.mkdir(os.path.join(root, name))
            return os.path.join(root, name)
        except FileExistsError:
            n += 1


def apply(plan: Plan) -> tuple[list[Change], str | None]:
    """Write every pending change; (what was written, the backup folder if one was used)."""
    stamp: str | None = None
    written = []
    for c in plan.pending:
        full = os.path.join(plan.project, c.path)
        if c.needs_chmod:
            os.chmod(full, 0o755)
            written.append(c)
            continue
        backup_dir = None
        if c.old is not None:
            if stamp is None:
                stamp = claim_backup_dir(plan.project)
            backup_dir = os.path.join(stamp, "permissions", os.path.dirname(c.path))
        atomic_write(full, c.new, backup_dir=backup_dir, mode=0o755 if c.executable else None)
        written.append(c)
    return written, stamp


def diff(c: Change) -> str:
    """A unified diff of one change, for `--dry-run`."""
    import difflib

    if c.needs_chmod:
        return f"--- a/{c.path}\n+++ b/{c.path}\nmode: make executable\n"
    old = "" if c.old is None else c.old.decode("utf-8", errors="replace")
    lines = difflib.unified_diff(old.splitlines(keepends=True), c.new.splitlines(keepends=True),
                                 fromfile="/dev/null" if c.old is None else f"a/{c.path}", tofile=f"b/{c.path}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


# --------------------------------------------------------------------------- the command


def run(project: str, *, tools: list[str] | None = None, protocol: str | None = None,
        mode: str = "write") -> dict:
    """`mode`: write, check (write nothing; `ok` is false when a file differs) or dry-run
    (write nothing; each change carries its diff). The `--json` answer."""
    proto = protocols.load(project, protocol)
    chosen, notes = select(proto, tools)
    p = plan(project, proto, chosen)
    written: list[Change] = []
    backup = None
    if mode == "write":
        written, backup = apply(p)
    files = []
    for c in p.changes:
        entry: dict[str, object] = {"path": c.path, "tool": c.tool, "change": c.action,
                                    "written": c in written}
        if mode == "dry-run" and c.action != NONE:
            entry["diff"] = diff(c)
        if c in written and c.old is not None and backup is not None and not c.needs_chmod:
            entry["backup"] = os.path.relpath(os.path.join(backup, "permissions", c.path), project)
        files.append(entry)
    return {"ok": mode != "check" or not p.pending, "mode": mode, "protocol": proto.source, "tools": chosen,
            "files": files, "backup_dir": None if backup is None else os.path.relpath(backup, project),
            "notes": notes + proto.warnings}
