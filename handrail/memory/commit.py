"""`handrail memory commit`: accept an agent's update of the description only when
it is well-formed, confined to the manifest's targets, and not racing another edit.

Every rule is checked before anything is written; then the files are written
all-or-nothing through a journal (`handrail.memory.journal`: a kill at any point is
finished or undone by the next memory command), the manifest is removed, and the
outcome is recorded. A refusal writes nothing and names each rule that failed. The
retry of a commit that was written already (its answer lost) succeeds again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, TextIO

from handrail.memory import bootstrap, journal, store
from handrail.policy import agents
from handrail.policy import memory as rules
from handrail.policy.memory import Failure
from handrail.records import clock, events

MAX_BYTES = 1024 * 1024   # a description is a few pages; more is a mistake or an attack
LOCK_WAIT = 30.0          # seconds a commit waits for another memory command (a prepare) to finish


def _result(dry_run: bool) -> dict[str, Any]:
    return {"ok": False, "reason": None, "failures": [], "files": [], "dry_run": dry_run, "stripped": {},
            "session_id": None, "backup": None, "already_written": False, "recovered": None}


def read_output(source: str, stdin: TextIO) -> tuple[str | None, str | None]:
    """(the text of FILE, or of stdin for `-`; None and why it cannot be read)."""
    try:
        if source == "-":
            return stdin.read(MAX_BYTES + 1), None
        with open(source, encoding="utf-8-sig") as f:
            return f.read(MAX_BYTES + 1), None
    except UnicodeDecodeError as e:
        return None, f"not UTF-8 text (byte {e.start})"
    except OSError as e:
        return None, f"cannot be read: {e.strerror or e}"


def parse_output(text: str | None, source: str, read_error: str | None = None) -> tuple[dict[str, str], Failure | None]:
    """The `files` map of an agent's output, or why it is not one."""
    shape = 'expected {"files": {"<target path>": "<the whole new content>"}} with at least one file'
    if text is None:
        return {}, Failure(rules.INVALID_OUTPUT, source, read_error or "cannot be read")
    if len(text) > MAX_BYTES:
        return {}, Failure(rules.INVALID_OUTPUT, source, f"larger than {MAX_BYTES // 1024} KiB")
    try:
        data = json.loads(text)
    except ValueError as e:
        where = f" at line {e.lineno} column {e.colno}" if isinstance(e, json.JSONDecodeError) else ""
        return {}, Failure(rules.INVALID_OUTPUT, source, f"not JSON{where}: {shape}")
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict) or not files:
        return {}, Failure(rules.INVALID_OUTPUT, source, shape)
    for path, content in files.items():
        if not isinstance(content, str):
            return {}, Failure(rules.INVALID_OUTPUT, source, f"files.{path}: expected the file's text, "
                                                            f"found {type(content).__name__}")
    return files, None


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def resolve_problem(project: str, folder: str, rel: str) -> Failure | None:
    """Where the path really lands (symbolic links followed): in the bootstrap folder,
    itself inside the project, or refused."""
    root = os.path.realpath(project)
    home = os.path.realpath(os.path.join(project, folder))
    if not _inside(home, root):
        return Failure(rules.ALLOWED_PATHS, rel, f"{folder} resolves to {home}, outside the project")
    target = os.path.realpath(os.path.join(project, rel))
    if os.path.dirname(target) != home:
        return Failure(rules.ALLOWED_PATHS, rel, f"resolves to {target}, outside {folder}")
    return None


def commit(project: str, text: str | None, source: str, *, agent: str | None = None, dry_run: bool = False,
           env: Mapping[str, str] | None = None, read_error: str | None = None) -> dict[str, Any]:
    """Validate and (unless `dry_run`) write; the answer `--json` prints.

    Everything happens under the memory lock, after an interrupted earlier write was
    finished or undone: so the hash check sees no half-written description, and
    nothing can change the files between the check and the write but a person.
    """
    env = os.environ if env is None else env
    detected = agents.detect(env)
    who = agent or (detected.name if detected else None)
    result = _result(dry_run)
    try:
        with journal.locked(project, wait=LOCK_WAIT) as had:
            if not had:
                failures = [Failure(rules.SNAPSHOT_HASH, store.bootstrap_dir(project),
                                    "another memory command is writing the description right now; try again")]
            else:
                failures = _commit(project, text, source, who, dry_run, read_error, result)
    except OSError as e:  # the runtime folder (lock, staging) or the backups cannot be written
        failures = [Failure(rules.WRITE_FAILED, getattr(e, "filename", None) or store.RUNTIME,
                            f"{e.strerror or e}; nothing was changed")]
    if failures:
        result.update(ok=False, reason=failures[0].rule, failures=[f._asdict() for f in failures], files=[])
        if not dry_run:
            events.record(project, "memory_reflect_failed", agent=who, topic="memory", message=failures[0].line(),
                          payload={"rules": list(dict.fromkeys(f.rule for f in failures)),
                                   "failures": result["failures"], "session_id": result["session_id"]})
        return result
    result["ok"] = True
    return result


def _commit(project: str, text: str | None, source: str, who: str | None, dry_run: bool, read_error: str | None,
            result: dict[str, Any]) -> list[Failure]:
    recovered = journal.recover(project)
    if recovered is not None:
        result["recovered"] = recovered.line()
    manifest, raw, failure = _manifest(project)
    if failure is not None:
        if failure.rule == rules.MISSING_MANIFEST and _already_written(project, text, source, read_error, result):
            return []
        return [failure]
    assert manifest is not None and raw is not None
    result["session_id"] = manifest.get("session_id")
    failures, updates = _validate(project, manifest, text, source, result, read_error)
    if failures:
        return failures
    result["files"] = list(updates)
    if dry_run:
        return []
    event = {"kind": "memory_reflect_committed", "agent": who,
             "message": f"description updated: {', '.join(updates)}",
             "payload": {"files": list(updates), "session_id": result["session_id"],
                         "git_range": manifest.get("git_range"), "stripped": result["stripped"]}}
    try:
        done = journal.write(project, {rel: new.encode("utf-8") for rel, new in updates.items()},
                             backup=True, remove={store.MANIFEST: raw},
                             event=event, keep=True)
    except OSError as e:
        return [Failure(rules.WRITE_FAILED, getattr(e, "filename", None) or manifest["bootstrap_dir"],
                        f"{e.strerror or e}; nothing was changed")]
    result["backup"] = journal.backup_path(done)
    return []


def _already_written(project: str, text: str | None, source: str, read_error: str | None,
                     result: dict[str, Any]) -> bool:
    """Whether this very update is the last one written, and still in place: the retry
    of a commit whose answer was lost (killed after its write was decided) succeeds
    without writing again."""
    done = journal.last_committed(project)
    if done is None:
        return False
    files, failure = parse_output(text, source, read_error)
    if failure is not None:
        return False
    wanted = {t["path"]: t["new"] for t in done["targets"]}
    seen: dict[str, str | None] = {}
    for raw, content in files.items():
        rel, problem = rules.normalize_path(raw, list(wanted))
        if problem is not None or rel in seen:
            return False
        seen[rel] = journal.digest(rules.strip_invisible(content)[0].encode("utf-8"))
    if seen != wanted or any(journal.digest(journal.read(os.path.join(project, p))) != h for p, h in wanted.items()):
        return False
    payload = (done.get("event") or {}).get("payload") or {}
    result.update(files=list(wanted), already_written=True, backup=journal.backup_path(done),
                  session_id=payload.get("session_id"))
    return True


def _manifest(project: str) -> tuple[dict[str, Any] | None, bytes | None, Failure | None]:
    """The manifest, and its bytes (the write removes it only if it still has them)."""
    try:
        raw = journal.read(store.manifest_path(project))
        data = None if raw is None else json.loads(raw)
    except (OSError, ValueError) as e:
        return None, None, Failure(rules.INVALID_MANIFEST, store.MANIFEST, f"cannot be read ({e}): "
                             "run `handrail memory prepare --force` for a new one")
    if data is None:
        return None, None, Failure(rules.MISSING_MANIFEST, store.MANIFEST, "no reflection is pending: "
                             "`handrail memory prepare` writes one when a change needs it")
    problem = rules.manifest_problem(data)
    if problem is not None:
        return None, None, Failure(rules.INVALID_MANIFEST, store.MANIFEST,
                                   f"{problem}; run `handrail memory prepare --force` for a new one")
    assert isinstance(data, dict)
    return data, raw, None


def _validate(project: str, manifest: dict[str, Any], text: str | None, source: str, result: dict[str, Any],
              read_error: str | None) -> tuple[list[Failure], dict[str, str]]:
    """Every rule's failures (most basic first) and the cleaned files to write."""
    files, failure = parse_output(text, source, read_error)
    if failure is not None:
        return [failure], {}
    allowed = rules.allowed_paths(manifest)
    folder = manifest["bootstrap_dir"]
    failures: list[Failure] = []
    updates: dict[str, str] = {}
    for raw, content in files.items():
        rel, problem = rules.normalize_path(raw, allowed)
        problem = problem or resolve_problem(project, folder, rel)
        if problem is None and rel in updates:
            problem = Failure(rules.INVALID_OUTPUT, raw, f"{rel} is given twice")
        if problem is not None:
            failures.append(problem)
            continue
        updates[rel], removed = rules.strip_invisible(content)
        if removed:
            result["stripped"][rel] = removed
    snapshot = manifest["current_bootstrap_snapshot"]
    now = clock.now()
    for rel, new in updates.items():
        failures += rules.check_file(rel, new, snapshot[rel], now)
    failures += _hash_problem(project, manifest)
    failures.sort(key=lambda f: _ORDER.get(f.rule, len(_ORDER)))
    return failures, updates


_ORDER = {rule: i for i, rule in enumerate((rules.INVALID_OUTPUT, rules.ALLOWED_PATHS, rules.MUST_HAVE_FRONTMATTER,
                                            rules.MUST_UPDATE_GENERATED_AT, rules.MUST_DIFF_CONTENT,
                                            rules.SNAPSHOT_HASH))}


def _hash_problem(project: str, manifest: dict[str, Any]) -> list[Failure]:
    folder = manifest["bootstrap_dir"]
    now = bootstrap.snapshot(project, folder)
    if now.digest == manifest["snapshot_hash"]:
        return []
    then = manifest["current_bootstrap_snapshot"]
    changed = [p for p, data in now.contents if (None if data is None else data.decode("utf-8", "replace")) != then[p]]
    return [Failure(rules.SNAPSHOT_HASH, folder, f"{', '.join(changed) or 'the bootstrap files'} changed since "
                    "prepare: someone else edited the description; run `handrail memory prepare --force` for a "
                    "fresh snapshot and redo the update on top of it")]
