"""`handrail memory commit`: accept an agent's update of the description only when
it is well-formed, confined to the manifest's targets, and not racing another edit.

Every rule is checked before anything is written; then the files are written
all-or-nothing (each staged in a temporary file, then renamed; a rename that fails
puts back the files already renamed), the manifest is removed, and the outcome is
recorded. A refusal writes nothing and names each rule that failed.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import TextIO

from handrail.memory import bootstrap, store
from handrail.policy import agents
from handrail.policy import memory as rules
from handrail.policy.memory import Failure
from handrail.records import clock, events

MAX_BYTES = 1024 * 1024   # a description is a few pages; more is a mistake or an attack
LOCK = os.path.join(store.RUNTIME, "memory.lock")


def _result(dry_run: bool) -> dict:
    return {"ok": False, "reason": None, "failures": [], "files": [], "dry_run": dry_run, "stripped": {},
            "session_id": None, "backup": None}


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


@contextlib.contextmanager
def _locked(project: str) -> Iterator[bool]:
    """One commit at a time between the hash check and the last rename; yields
    whether the lock was had (False: another commit holds it)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: the hash check alone guards
        yield True
        return
    events.ensure_runtime_dir(project)
    fd = os.open(os.path.join(project, LOCK), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def commit(project: str, text: str | None, source: str, *, agent: str | None = None, dry_run: bool = False,
           env: Mapping[str, str] | None = None, read_error: str | None = None) -> dict:
    """Validate and (unless `dry_run`) write; the answer `--json` prints."""
    env = os.environ if env is None else env
    detected = agents.detect(env)
    who = agent or (detected.name if detected else None)
    result = _result(dry_run)
    updates: dict[str, str] = {}
    manifest, failure = _manifest(project)
    if failure is None:
        assert manifest is not None
        result["session_id"] = manifest.get("session_id")
        failures, updates = _validate(project, manifest, text, source, result, read_error)
        if not failures and not dry_run:
            try:
                failures = _write(project, manifest, updates, result)
            except OSError as e:  # the runtime folder (lock) or the backups cannot be written
                failures = [Failure(rules.WRITE_FAILED, getattr(e, "filename", None) or store.RUNTIME,
                                    f"{e.strerror or e}; nothing was changed")]
    else:
        failures = [failure]
    if failures:
        result.update(reason=failures[0].rule, failures=[f._asdict() for f in failures], files=[])
        if not dry_run:
            events.record(project, "memory_reflect_failed", agent=who, topic="memory", message=failures[0].line(),
                          payload={"rules": list(dict.fromkeys(f.rule for f in failures)),
                                   "failures": result["failures"], "session_id": result["session_id"]})
        return result
    result["ok"] = True
    if dry_run:
        result["files"] = list(updates)
    else:
        events.record(project, "memory_reflect_committed", agent=who, topic="memory",
                      message=f"description updated: {', '.join(result['files'])}",
                      payload={"files": result["files"], "session_id": result["session_id"],
                               "git_range": manifest.get("git_range") if manifest else None,
                               "stripped": result["stripped"]})
    return result


def _manifest(project: str) -> tuple[dict | None, Failure | None]:
    try:
        data = store.load_manifest(project)
    except (OSError, ValueError) as e:
        return None, Failure(rules.INVALID_MANIFEST, store.MANIFEST, f"cannot be read ({e}): "
                             "run `handrail memory prepare --force` for a new one")
    if data is None:
        return None, Failure(rules.MISSING_MANIFEST, store.MANIFEST, "no reflection is pending: "
                             "`handrail memory prepare` writes one when a change needs it")
    problem = rules.manifest_problem(data)
    if problem is not None:
        return None, Failure(rules.INVALID_MANIFEST, store.MANIFEST,
                             f"{problem}; run `handrail memory prepare --force` for a new one")
    assert isinstance(data, dict)
    return data, None


def _validate(project: str, manifest: dict, text: str | None, source: str, result: dict,
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


def _hash_problem(project: str, manifest: dict) -> list[Failure]:
    folder = manifest["bootstrap_dir"]
    now = bootstrap.snapshot(project, folder)
    if now.digest == manifest["snapshot_hash"]:
        return []
    then = manifest["current_bootstrap_snapshot"]
    changed = [p for p, data in now.contents if (None if data is None else data.decode("utf-8", "replace")) != then[p]]
    return [Failure(rules.SNAPSHOT_HASH, folder, f"{', '.join(changed) or 'the bootstrap files'} changed since "
                    "prepare: someone else edited the description; run `handrail memory prepare --force` for a "
                    "fresh snapshot and redo the update on top of it")]


def _write(project: str, manifest: dict, updates: dict[str, str], result: dict) -> list[Failure]:
    with _locked(project) as had:
        if not had:
            return [Failure(rules.SNAPSHOT_HASH, manifest["bootstrap_dir"],
                            "another memory commit is writing the description right now; try again")]
        # Checked again under the lock: the first check may have raced another commit.
        late = _hash_problem(project, manifest)
        if late:
            return late
        old = dict(bootstrap.snapshot(project, manifest["bootstrap_dir"]).contents)
        stamp = clock.now().strftime("%Y%m%dT%H%M%SZ")
        backup = os.path.join(".handrail", "backups", stamp, "bootstrap")
        try:
            write_all(project, updates, old, backup)
        except OSError as e:
            return [Failure(rules.WRITE_FAILED, getattr(e, "filename", None) or manifest["bootstrap_dir"],
                            f"{e.strerror or e}; nothing was changed")]
        try:
            os.unlink(store.manifest_path(project))
        except FileNotFoundError:
            pass
    result["files"] = list(updates)
    result["backup"] = backup if any(old.get(p) is not None for p in updates) else None
    return []


def write_all(project: str, updates: dict[str, str], old: Mapping[str, bytes | None], backup: str) -> None:
    """Write every file or none: stage them all, back up what they replace, then rename."""
    staged: list[tuple[str, str]] = []
    try:
        for rel, text in updates.items():
            path = os.path.join(project, rel)
            tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{os.getpid()}.tmp")
            staged.append((tmp, path))
            _write_bytes(tmp, text.encode("utf-8"))
            try:
                os.chmod(tmp, os.stat(path).st_mode & 0o7777)
            except FileNotFoundError:
                pass
        for rel in updates:
            if old.get(rel) is not None:
                _write_bytes(os.path.join(project, backup, os.path.basename(rel)), old[rel] or b"")
    except BaseException:
        _discard(tmp for tmp, _path in staged)
        raise
    done: list[str] = []
    try:
        for tmp, path in staged:
            os.replace(tmp, path)
            done.append(path)
    except BaseException:
        for rel in updates:
            path = os.path.join(project, rel)
            if path in done:
                data = old.get(rel)
                if data is None:
                    _discard([path])
                else:
                    _write_bytes(path, data)
        _discard(tmp for tmp, path in staged if path not in done)
        raise


def _write_bytes(path: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _discard(paths: Iterable[str]) -> None:
    for p in paths:
        try:
            os.unlink(p)
        except OSError:
            pass
