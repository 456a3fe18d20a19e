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

Which rules in a shared file are handrail's is kept in `.handrail/generated.json`, and
that record changes together with the files: a run writes its whole plan, every
harness file and the record, as one all-or-nothing write (handrail/txn.py, area
`.handrail/runtime/permissions-txn/`), so a run killed at any point leaves either the
old set or the new set once recovered. Every writing run (`permissions`, `init`,
`deinit`, `doctor --fix`) recovers first, under the lock; `--check` and `doctor`, which
write nothing, report a write still waiting as out of sync. Where someone edited one
of the files in between, recovery leaves that file as it is and completes the rest,
so that the record names every rule of handrail's the files can hold. (No marker goes
into the shared files themselves: a key of handrail's own in another tool's settings
is one that tool's schema does not promise to keep accepting.) A record that still
holds the *intent* an older handrail wrote before its files (`writing`) is read as
before: both sets count as handrail's. Runs that write take a lock
(handrail/setuplock.py), so two never interleave.
"""

from __future__ import annotations

import importlib
import json
import os
from types import ModuleType
from typing import Any, NamedTuple

from handrail import txn
from handrail.backups import Backup
from handrail.errors import HandrailError
from handrail.fsio import dump_json, read_bytes
from handrail.native import JsonFile, MapSlot, ShapeError, TextFile, merge, unique
from handrail.policy import protocol as protocols
from handrail.policy.protocol import Protocol

HARNESSES = ("claude", "codex", "opencode", "gemini", "cursor", "copilot", "cline", "qwen")
RECORD = ".handrail/generated.json"
CREATE, UPDATE, NONE = "create", "update", "none"
Owned = dict[str, dict[str, list[Any]]]  # path -> slot -> the items handrail wrote there


# Beside the harness files: the setup files `deinit` gives back in the same write.
SETUP_FILES = (".aider.conf.yml", ".pre-commit-config.yaml")


def may_write(rel: str) -> bool:
    """The paths a journal of this area may name: the record, the harness files handrail
    generates (handrail/policy/harnessfiles.py) and SETUP_FILES, nothing else."""
    import re

    from handrail.policy import harnessfiles

    def covers(pattern: str) -> bool:  # a `dir/**` pattern is the folder's prefix; any other, the whole path
        return re.match(harnessfiles.regex(pattern) + ("" if pattern.endswith("/**") else r"\Z"), rel) is not None

    return rel == RECORD or rel in SETUP_FILES or any(covers(f.pattern) for f in harnessfiles.FILES if f.generated)


AREA = txn.Area("permissions", may_write, "`handrail permissions` write", undo_foreign=False)


class Change(NamedTuple):
    path: str              # relative to the project, `/`-separated
    tool: str
    old: bytes | None      # None: the file does not exist
    new: str
    executable: bool
    action: str            # create, update or none
    shared: bool = False   # a JSON file shared with the user, where the record says what is handrail's

    @property
    def needs_chmod(self) -> bool:
        return self.executable and self.old is not None and self.old == self.new.encode()


class Plan(NamedTuple):
    project: str
    changes: list[Change]
    record: str = ""       # the record once every change is written
    interrupted: str | None = None  # when an unfinished run whose write still waits started

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


def _parse(rel: str, data: bytes) -> object:
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        problem = f"not UTF-8 text (byte {e.start})"
    except json.JSONDecodeError as e:
        problem = f"invalid JSON at line {e.lineno} column {e.colno}: {e.msg}"
    raise HandrailError(f"{rel}: {problem}; handrail left it untouched: fix it by hand, then run "
                        "`handrail permissions` again", reason="invalid_json")


def _object(rel: str, data: bytes) -> dict[str, Any]:
    value = _parse(rel, data)
    if not isinstance(value, dict):
        raise HandrailError(f"{rel}: expected a JSON object at the top level; handrail left it untouched",
                            reason="invalid_json")
    return value


def same_json(a: object, b: object) -> bool:
    """Equal content, key order included: OpenCode's later rules win."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


class Record(NamedTuple):
    files: Owned        # what handrail wrote
    writing: Owned      # what a run that did not finish was writing
    since: str | None   # when that run started


def read_record(project: str) -> Record:
    data = read_bytes(os.path.join(project, RECORD))
    if data is None:
        return Record({}, {}, None)
    top = _object(RECORD, data)
    files = _owned(top.get("files", {}), "files")
    writing = top.get("writing")
    if writing is None:
        return Record(files, {}, None)
    if not isinstance(writing, dict):
        raise HandrailError(f"{RECORD}: writing: expected an object; handrail left it untouched",
                            reason="invalid_json")
    since = writing.get("since")
    return Record(files, _owned(writing.get("files", {}), "writing.files"), since if isinstance(since, str) else "?")


def _owned(files: object, key: str) -> Owned:
    if not isinstance(files, dict) or not all(isinstance(v, dict) and all(isinstance(x, list) for x in v.values())
                                              for v in files.values()):
        raise HandrailError(f"{RECORD}: {key}: expected an object of objects of lists; handrail left it untouched",
                            reason="invalid_json")
    return files


def owned_by_handrail(record: Record) -> Owned:
    """Every rule that may be handrail's: what it wrote, and what an unfinished run may have."""
    out = {path: dict(slots) for path, slots in record.files.items()}
    for path, slots in record.writing.items():
        mine = out.setdefault(path, {})
        for key, items in slots.items():
            mine[key] = unique(mine.get(key, []) + items)
    return out


def record_text(files: Owned) -> str:
    data: dict[str, object] = {"comment": "What `handrail permissions` wrote into files it shares with you, so "
                                          "that regenerating replaces it. Generated: do not edit.",
                               "files": dict(sorted(files.items()))}
    return dump_json(data)


def plan(project: str, proto: Protocol, tools: list[str]) -> Plan:
    """What `handrail permissions` would write for `tools`; reads only."""
    found = read_record(project)
    record = owned_by_handrail(found)
    new_record = dict(record)
    changes: list[Change] = []
    for tool in tools:
        module = harness(tool)
        assert module is not None, tool
        for spec in module.native_files(proto):
            full = os.path.join(project, spec.path)
            old = read_bytes(full)
            if isinstance(spec, JsonFile):
                current = {} if old is None else _object(spec.path, old)
                try:
                    merged, owned = merge(current, spec, record.get(spec.path))
                except ShapeError as e:
                    raise HandrailError(f"{e}; handrail left it untouched", reason="invalid_json") from None
                new_record[spec.path] = owned
                if old is not None and same_json(current, merged):
                    changes.append(Change(spec.path, tool, old, old.decode("utf-8"), False, NONE, True))
                else:
                    changes.append(Change(spec.path, tool, old, dump_json(merged), False,
                                          CREATE if old is None else UPDATE, True))
            else:
                changes.append(_text_change(spec, tool, full, old))
    text = record_text(new_record)
    old_record = read_bytes(os.path.join(project, RECORD))
    if old_record is None or not same_json(_parse(RECORD, old_record), json.loads(text)):
        changes.append(Change(RECORD, "handrail", old_record, text, False, CREATE if old_record is None else UPDATE))
    return Plan(project, changes, text, txn.unfinished(project, AREA) or found.since)


def _text_change(spec: TextFile, tool: str, full: str, old: bytes | None) -> Change:
    if old is None:
        return Change(spec.path, tool, None, spec.text, spec.executable, CREATE)
    same = old == spec.text.encode("utf-8")
    runnable = not spec.executable or os.access(full, os.X_OK)
    return Change(spec.path, tool, old, spec.text, spec.executable, NONE if same and runnable else UPDATE)


# --------------------------------------------------------------------------- writing


def apply(plan: Plan, backup: Backup | None = None) -> tuple[list[Change], str | None]:
    """Write every pending change, the record with them, all or none (handrail/txn.py);
    (what was written, the backup folder if one was used). Call with the lock held,
    after `recover()`. What the run replaces goes to `backup` (one folder for the whole
    run: `init` hands in its own), under `permissions/<path>`."""
    backup = backup or Backup(plan.project)
    pending = plan.pending
    if pending:
        txn.write(plan.project, AREA, [txn.Change(c.path, c.new.encode("utf-8"), 0o755 if c.executable else None)
                                       for c in pending],
                  backup=backup, backup_as=lambda rel: f"permissions/{rel}")
    return pending, backup.path


def recover(project: str) -> txn.Recovered | None:
    """Finish a write an earlier run left undone; call with the lock held (setuplock)."""
    return txn.recover(project, AREA)


def unfinished(project: str) -> str | None:
    """When the run whose write still waits for `recover()` started, or None."""
    return txn.unfinished(project, AREA)


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
        mode: str = "write", backup: Backup | None = None) -> dict[str, Any]:
    """`mode`: write, check (write nothing; `ok` is false when a file differs) or dry-run
    (write nothing; each change carries its diff). The `--json` answer. `backup`: the
    run's backup folder, when a larger run (`init`) shares its own.

    A write reads the protocol and the files only once it holds the lock, so that
    the last of several runs writes from the protocol as it is then."""
    if mode != "write":
        return _run(project, tools, protocol, mode)
    from handrail import setuplock

    with setuplock.held(project, "handrail permissions"):
        return _run(project, tools, protocol, mode, backup)


def _run(project: str, tools: list[str] | None, protocol: str | None, mode: str,
         backup: Backup | None = None) -> dict[str, Any]:
    recovered = recover(project) if mode == "write" else None
    proto = protocols.load(project, protocol)
    chosen, notes = select(proto, tools)
    p = plan(project, proto, chosen)
    interrupted = p.interrupted or (None if recovered is None or recovered.journal is None
                                    else recovered.journal.get("since", "?"))
    if recovered is not None:
        notes.append(recovered.line())
    if p.interrupted is not None:
        notes.append(interrupted_note(p.interrupted, mode, project))
    written: list[Change] = []
    folder = None
    if mode == "write":
        written, folder = apply(p, backup)
    files = []
    for c in p.changes:
        entry: dict[str, object] = {"path": c.path, "tool": c.tool, "change": c.action,
                                    "written": c in written}
        if mode == "dry-run" and c.action != NONE:
            entry["diff"] = diff(c)
        if c in written and c.old is not None and folder is not None and not c.needs_chmod:
            entry["backup"] = os.path.relpath(os.path.join(folder, "permissions", c.path), project)
        files.append(entry)
    in_sync = not (p.pending or p.interrupted)
    return {"ok": mode != "check" or in_sync, "mode": mode, "protocol": proto.source, "tools": chosen,
            "files": files, "backup_dir": None if folder is None else os.path.relpath(folder, project),
            "interrupted": interrupted, "notes": notes + proto.warnings}


DECISIONS = {"allow": "allow", "ask": "ask", "prompt": "ask", "deny": "deny", "forbidden": "deny"}


def rule_counts(project: str, tools: list[str]) -> dict[str, dict[str, int]]:
    """How many allow, ask and deny rules handrail keeps in each tool's files: those the
    record names in shared files (a rule map's by the value it holds), Codex's prefix rules
    and Gemini's policy prefixes. Hook entries are not rules, and are not counted."""
    import re
    import tomllib

    record = owned_by_handrail(read_record(project))
    proto = protocols.load(project)
    out: dict[str, dict[str, int]] = {}
    for tool in tools:
        module = harness(tool)
        if module is None:
            continue
        counts: dict[str, int] = {}
        for spec in module.native_files(proto):
            full = os.path.join(project, spec.path)
            if isinstance(spec, JsonFile):
                owned = record.get(spec.path, {})
                data = read_bytes(full)
                current = _object(spec.path, data) if data is not None else {}
                for slot in spec.slots:
                    mine = owned.get(".".join(slot.path), [])
                    if isinstance(slot, MapSlot):
                        node: object = current
                        for key in slot.path:
                            node = node.get(key, {}) if isinstance(node, dict) else {}
                        kinds = [DECISIONS.get(str(node.get(k))) if isinstance(node, dict) else None for k in mine]
                    else:
                        kinds = [DECISIONS.get(slot.path[-1])] * len(mine)
                    for kind in kinds:
                        if kind:
                            counts[kind] = counts.get(kind, 0) + 1
            elif spec.path.endswith(".rules") and os.path.isfile(full):
                with open(full, encoding="utf-8") as f:
                    for word in re.findall(r'^\s*decision = "(\w+)"', f.read(), re.M):
                        kind = DECISIONS.get(word, word)
                        counts[kind] = counts.get(kind, 0) + 1
            elif spec.path.endswith(".toml") and os.path.isfile(full):
                with open(full, "rb") as fb:
                    for rule in tomllib.load(fb).get("rule", []):
                        kind = DECISIONS.get(str(rule.get("decision")), "allow")
                        counts[kind] = counts.get(kind, 0) + len(rule.get("commandPrefix", []))
        out[tool] = dict(sorted(counts.items()))
    return out


def interrupted_note(since: str, mode: str, project: str) -> str:
    if mode != "write":
        from handrail import setuplock

        if setuplock.busy(project):
            return f"a `handrail permissions` run started {since} is writing the files now; check again once it is done"
    said = f"a `handrail permissions` run started {since} did not finish"
    if mode == "write":  # only a record an older handrail left holding its intent
        return f"{said}; this run removed every rule it may have left that the protocol no longer has"
    return (f"{said}: its files may be half written (some old, some new) and hold rules the protocol no longer "
            "has; run `handrail permissions` to repair them")
