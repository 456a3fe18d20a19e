"""`handrail deinit`: take out exactly what `init` and `permissions` added.

What goes, file by file (every harness handrail writes for, whether or not the protocol
still lists it):
- in a file shared with the user (`.claude/settings.json`, `opencode.json`, …): the rules
  `.handrail/generated.json` records as handrail's, and the hook entries that run
  `handrail hook …`; every other key and item stays. The keys and lists handrail made to
  hold them go once empty, and so do the defaults it set (`version`, `$schema`) where the
  user had none. Where what remains is what the file held before handrail first wrote it
  (its backup in `.handrail/backups/`), that backup is put back byte for byte; a file
  handrail created that holds nothing else is removed;
- a file handrail owns whole (Codex's rules, Gemini's policy, the OpenCode plugin, the
  Cline and Copilot hooks): removed, or the file it replaced put back, when it is what
  handrail writes; kept when it differs (it was edited since, and only its author knows
  whose it is now);
- `.aider.conf.yml` and `.pre-commit-config.yaml`: the settings and the `repo: local`
  entry init added, the file put back as it was where nothing else changed;
- the git hooks: handrail's scripts go, the hooks they replaced come back; with the
  pre-commit framework, its hooks go only with a config that handrail created.

`.handrail/` itself (the protocol, tasks, contracts, events, backups) is the user's record
and stays, but for `generated.json`, the record of rules that are gone now; `--purge`
removes it too, all but `backups/`, which then holds a copy of it.

Everything is planned before anything is written: a file that cannot be read stops the
run with one line naming it, and nothing is written. The files change all or none, in
the one multi-file write `permissions` uses (handrail/txn.py: a write it left unfinished
is completed first); every file changed or removed is copied first to one folder,
`.handrail/backups/<stamp>/deinit/`. The git hooks and git config change after it.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from handrail import native
from handrail.backups import BACKUPS, Backup
from handrail.errors import HandrailError
from handrail.fsio import dump_json, read_bytes
from handrail.native import JsonFile, ListSlot, MapSlot, TextFile

REMOVE, RESTORE, STRIP, KEEP = "remove", "restore", "strip", "keep"
WORDS = {  # action -> (said before, said after)
    REMOVE: ("would remove", "removed"),
    RESTORE: ("would restore", "restored"),
    STRIP: ("would take handrail's part out", "handrail's part taken out"),
    KEEP: ("kept", "kept"),
}


class Edit(NamedTuple):
    path: str            # relative to the project, `/`-separated
    action: str          # REMOVE, RESTORE, STRIP or KEEP
    why: str             # said after the action, in brackets
    new: bytes | None = None   # what the file becomes (None: removed, or kept)


# --------------------------------------------------------------------------- backups


def backups_of(root: str, rel: str) -> Iterator[bytes]:
    """What handrail backed up of `rel` before writing it, newest first: `permissions`
    keeps the relative path, `init` the base name (its files lie at the top)."""
    folder = os.path.join(root, BACKUPS)
    try:
        stamps = sorted((e.name for e in os.scandir(folder) if e.is_dir()), reverse=True)
    except FileNotFoundError:
        return
    for stamp in stamps:
        candidates = [os.path.join(folder, stamp, "permissions", rel)]
        if "/" not in rel:
            candidates.append(os.path.join(folder, stamp, "init", rel))
        for candidate in candidates:
            try:
                with open(candidate, "rb") as f:
                    yield f.read()
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                continue


def _json_object(rel: str, data: bytes) -> dict[str, Any] | None:
    """The file's top-level object, or None where a backup is not one."""
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


# --------------------------------------------------------------------------- shared JSON files


def _at(data: dict[str, Any], path: tuple[str, ...]) -> tuple[dict[str, Any] | None, object]:
    """(the object holding `path[-1]`, the value there); (None, None) where missing."""
    node: object = data
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    if not isinstance(node, dict):
        return None, None
    return node, node.get(path[-1])


def _has(data: dict[str, Any], path: tuple[str, ...]) -> bool:
    parent, _value = _at(data, path)
    return parent is not None and path[-1] in parent


def strip(data: dict[str, Any], spec: JsonFile, owned: dict[str, list[Any]] | None) -> dict[str, Any]:
    """`data` without handrail's items. `owned`: what the record names per slot; None where
    the record has lost the file, and then handrail's items count as handrail's only where
    the file runs a handrail hook (as `native.merge` judges them)."""
    out = copy.deepcopy(data)
    assume = owned is None and native.runs_handrail_hook(data)
    for slot in spec.slots:
        parent, value = _at(out, slot.path)
        if parent is None:
            continue
        key = native.slot_key(slot)
        if isinstance(slot, ListSlot) and isinstance(value, list):
            mine = owned.get(key, []) if owned is not None else (slot.items if assume else [])
            ours = slot.ours if not slot.retired or assume else None  # as native.merge tells them
            parent[slot.path[-1]] = [x for x in value if x not in mine and not (ours is not None and ours(x))]
        elif isinstance(slot, MapSlot) and isinstance(value, dict):
            if owned is not None:
                keys = set(owned.get(key, []))
            else:
                theirs = dict(slot.head + slot.tail) if assume else {}
                keys = {k for k, v in value.items() if theirs.get(k) == v}
            parent[slot.path[-1]] = {k: v for k, v in value.items() if k not in keys}
    return out


def prune(data: dict[str, Any], spec: JsonFile, keep: dict[str, Any] | None) -> dict[str, Any]:
    """Drop each slot left empty, and each object above it that this empties, but for the
    ones `keep` (the file before handrail wrote it) has too; and each default handrail set
    where `keep` lacks it, or, without `keep`, where nothing else is left."""
    out = copy.deepcopy(data)
    for slot in spec.slots:
        for depth in range(len(slot.path), 0, -1):
            path = slot.path[:depth]
            parent, value = _at(out, path)
            if parent is None or value not in ([], {}) or (keep is not None and _has(keep, path)):
                break
            parent.pop(path[-1])
    defaults = [(path, value) for path, value in spec.defaults if _at(out, path)[1] == value]
    if keep is not None:
        drop = [path for path, _v in defaults if not _has(keep, path)]
    else:
        rest = copy.deepcopy(out)
        for path, _v in defaults:
            (_at(rest, path)[0] or {}).pop(path[-1], None)
        drop = [path for path, _v in defaults] if not rest else []
    for path in drop:
        (_at(out, path)[0] or {}).pop(path[-1], None)
    return out


def _holds_handrail(data: dict[str, Any], spec: JsonFile, owned: dict[str, list[Any]] | None,
                    current: dict[str, Any]) -> bool:
    """Whether a backup already holds handrail's rules (it is a later one, not the user's own)."""
    if native.runs_handrail_hook(data):
        return True
    for slot in spec.slots:
        _p, value = _at(data, slot.path)
        mine = (owned or {}).get(native.slot_key(slot), [])
        if isinstance(slot, ListSlot) and isinstance(value, list):
            if any(x in value for x in mine):
                return True
        elif isinstance(value, dict):
            _p, now = _at(current, slot.path)
            if any(k in value and isinstance(now, dict) and now.get(k) == value[k] for k in mine):
                return True
    return False


def _spelled_out(data: dict[str, Any], spec: JsonFile) -> dict[str, Any]:
    """`data` with each rule map a user wrote as one word (OpenCode's `"edit": "ask"`) in the
    form handrail's merge gives it (`{"*": "ask"}`), which means the same: so that a file
    whose only change is that form is still the backup, and goes back byte for byte."""
    out = copy.deepcopy(data)
    for slot in spec.slots:
        parent, value = _at(out, slot.path)
        if isinstance(slot, MapSlot) and parent is not None and isinstance(value, str):
            parent[slot.path[-1]] = {"*": value}
    return out


def json_edit(root: str, spec: JsonFile, owned: dict[str, list[Any]] | None) -> Edit | None:
    raw = read_bytes(os.path.join(root, spec.path))
    if raw is None:
        return None
    current = _json_object(spec.path, raw)
    if current is None:
        raise HandrailError(f"{spec.path}: not a JSON object handrail can read; handrail left it untouched: fix "
                            "it, then run `handrail deinit` again", reason="invalid_json")
    stripped = strip(current, spec, owned)
    if stripped == current:
        return None  # nothing of handrail's in it
    before: dict[str, Any] | None = None
    for b in backups_of(root, spec.path):
        data = _json_object(spec.path, b)
        if data is None or _holds_handrail(data, spec, owned, current):
            continue
        if _spelled_out(prune(strip(data, spec, owned), spec, data), spec) == \
                _spelled_out(prune(stripped, spec, data), spec):
            return Edit(spec.path, RESTORE, "as it was before handrail wrote it", b) if b != raw else None
        before = before or data
        break
    result = prune(stripped, spec, before)
    if result == current:
        return None
    if not result and before is None:
        return Edit(spec.path, REMOVE, "handrail created it; nothing else was in it")
    return Edit(spec.path, STRIP, "every key of yours stays", dump_json(result).encode("utf-8"))


# --------------------------------------------------------------------------- whole files


def text_edit(root: str, spec: TextFile) -> Edit | None:
    raw = read_bytes(os.path.join(root, spec.path))
    if raw is None:
        return None
    if raw != spec.text.encode("utf-8"):
        if b"handrail" not in raw:
            return None  # not handrail's file (one of the user's, never replaced)
        return Edit(spec.path, KEEP, "it differs from what handrail writes: edited since? remove it by hand "
                                     "if nothing in it is yours")
    return _restore_or_remove(root, spec.path, raw, lambda b: b"handrail" not in b)


def _restore_or_remove(root: str, rel: str, raw: bytes, theirs: Callable[[bytes], bool]) -> Edit:
    """The newest backup that `theirs` takes for the user's own goes back; without one the
    file is handrail's alone, and goes."""
    for b in backups_of(root, rel):
        if theirs(b):
            return Edit(rel, RESTORE, "the file that was there before handrail wrote it", b)
    return Edit(rel, REMOVE, "handrail created it")


def aider_edit(root: str) -> Edit | None:
    """`.aider.conf.yml`: the two settings init adds (handrail/harnesses/aider.py)."""
    from handrail.harnesses import aider

    raw = read_bytes(os.path.join(root, aider.CONFIG))
    if raw is None:
        return None
    text = raw.decode("utf-8", errors="replace")
    for b in backups_of(root, aider.CONFIG):
        try:
            if aider.merged(b.decode("utf-8")) == text and b != raw:
                return Edit(aider.CONFIG, RESTORE, "as it was before handrail set aider's commit settings", b)
        except (HandrailError, UnicodeDecodeError):
            continue
    if text == aider.merged(None):
        return Edit(aider.CONFIG, REMOVE, "handrail created it")
    if aider.HEADER in text:
        return Edit(aider.CONFIG, KEEP, "edited since handrail set git-commit-verify and attribute-committer "
                                        "in it: take them out by hand if you wish")
    return None


# --------------------------------------------------------------------------- .pre-commit-config.yaml


def pre_commit_edit(root: str) -> Edit | None:
    """The `repo: local` entry of handrail's hooks that `init --pre-commit` inserted."""
    from handrail import init

    raw = read_bytes(os.path.join(root, init.PRE_COMMIT_CONFIG))
    if raw is None:
        return None
    text = raw.decode("utf-8", errors="replace")
    ids = [str(h["id"]) for h in init.LOCAL_HOOKS]
    if not any(i in text for i in ids):
        return None
    for b in backups_of(root, init.PRE_COMMIT_CONFIG):
        old = b.decode("utf-8", errors="replace")
        if not any(i in old for i in ids) and init.with_local_hooks(old) == text:
            return Edit(init.PRE_COMMIT_CONFIG, RESTORE, "as it was before handrail added its hooks", b)
    if text == init.with_local_hooks(""):
        return Edit(init.PRE_COMMIT_CONFIG, REMOVE, "handrail created it")
    out = _without_local_block(text)
    if out is None:
        return Edit(init.PRE_COMMIT_CONFIG, KEEP, "handrail's hooks in it were edited since: take the entries "
                                                  "whose id starts with handrail- out by hand")
    return Edit(init.PRE_COMMIT_CONFIG, STRIP, "your hooks, comments and layout stay", out.encode("utf-8"))


def _without_local_block(text: str) -> str | None:
    """The config without the block init inserted, found as the text it wrote (at any
    indent); None where it is not there as written."""
    from handrail import init

    block = init.with_local_hooks("").split("\n", 1)[1]  # after `repos:`
    for indent in ("", "  ", "    "):
        indented = "".join(indent + line if line.strip() else line for line in block.splitlines(keepends=True))
        if indented in text:
            return text.replace(indented, "", 1)
    return None


# --------------------------------------------------------------------------- the plan


class Plan(NamedTuple):
    root: str
    hooks: str
    edits: list[Edit]
    record: Edit | None
    git_hooks: list[tuple[str, str]]   # (hook, what happens to it)
    framework: bool                    # run `pre-commit uninstall` (the config handrail created goes)
    notes: list[str]
    bin_key: bool = False              # unset `git config handrail.bin` (the framework's hooks find handrail by it)


def _specs(root: str) -> tuple[list[JsonFile | TextFile], list[str]]:
    """Every file each harness module asks for, from the project's protocol (the files
    were written from it), or the built-in one where it cannot be read."""
    from handrail import permissions
    from handrail.policy import protocol as protocols

    notes = []
    try:
        proto = protocols.load(root)
    except HandrailError as e:
        proto = protocols.builtin()
        notes.append(f"{e}: the built-in policy says what handrail's whole files hold, so one written from "
                     "yours is kept")
    specs: list[JsonFile | TextFile] = []
    for tool in permissions.HARNESSES:
        module = permissions.harness(tool)
        if module is not None:
            specs += module.native_files(proto)
    return specs, notes


def plan(root: str, hooks: str) -> Plan:
    from handrail import init, install_hooks, permissions

    specs, notes = _specs(root)
    record = permissions.read_record(root)
    owned = permissions.owned_by_handrail(record)
    have_record = os.path.exists(os.path.join(root, permissions.RECORD))
    edits: list[Edit] = []
    for spec in specs:
        if isinstance(spec, JsonFile):
            edit = json_edit(root, spec, owned.get(spec.path, {}) if have_record else None)
        else:
            edit = text_edit(root, spec)
        if edit is not None:
            edits.append(edit)
    edits += [e for e in (aider_edit(root), pre_commit_edit(root)) if e is not None]
    record_edit = None
    raw = read_bytes(os.path.join(root, permissions.RECORD))
    if raw is not None:
        record_edit = Edit(permissions.RECORD, REMOVE, "the record of handrail's rules, which are gone now")
    framework = any(e.path == init.PRE_COMMIT_CONFIG and e.action == REMOVE for e in edits)
    said: dict[str, str] = {}
    for a in install_hooks.uninstall(hooks, dry_run=True):
        if a.did != install_hooks.KEPT:  # where handrail's is removed and the user's restored, the restore says it
            said[a.hook] = a.did
    git_hooks = list(said.items())
    if any(e.path == init.PRE_COMMIT_CONFIG and e.action in (RESTORE, STRIP) for e in edits):
        notes.append("the pre-commit framework's git hooks stay: they run the hooks of yours in "
                     f"{init.PRE_COMMIT_CONFIG} (`pre-commit uninstall` removes them)")
    leaves = any(e.path == init.PRE_COMMIT_CONFIG and e.action != KEEP for e in edits)
    return Plan(root, hooks, edits, record_edit, git_hooks, framework, notes, leaves and _bin_key(root) is not None)


def _bin_key(root: str, unset: bool = False) -> str | None:
    """`git config --local handrail.bin`, which `init --pre-commit` sets; with `unset`, removed."""
    from handrail.init import BIN_KEY
    from handrail.repo import no_git_env

    args = ["--unset", BIN_KEY] if unset else ["--get", BIN_KEY]
    r = subprocess.run(["git", "config", "--local", *args], cwd=root, env=no_git_env(), capture_output=True,
                       text=True)
    return (r.stdout.strip() or None) if r.returncode == 0 else None


# --------------------------------------------------------------------------- writing


def apply(p: Plan, backup: Backup) -> list[str]:
    """Write the plan; what was said while doing it (the framework's uninstall). The
    files go first, as one write; `backup` is the run's folder, its part `deinit/`."""
    from handrail import install_hooks, permissions, txn

    changes = [txn.Change(e.path, e.new) for e in [*p.edits, *([p.record] if p.record else [])] if e.action != KEEP]
    if changes:
        txn.write(p.root, permissions.AREA, changes, backup=backup, backup_as=lambda rel: f"{PART}/{rel}")
    said = []
    install_hooks.uninstall(p.hooks, backup_dir=os.path.join(backup.claim(), PART, "git-hooks"))
    if p.bin_key:
        _bin_key(p.root, unset=True)
    if p.framework:
        said += _framework_uninstall(p.root)
    return said


def _framework_uninstall(root: str) -> list[str]:
    from handrail.init import FRAMEWORK_HOOK_TYPES, pre_commit_executable
    from handrail.repo import no_git_env

    exe = pre_commit_executable()
    if exe is None:
        return ["pre-commit is not installed here: run `pre-commit uninstall -t "
                + " -t ".join(FRAMEWORK_HOOK_TYPES) + "` where it is, to remove its git hooks"]
    types = [arg for t in FRAMEWORK_HOOK_TYPES for arg in ("-t", t)]
    r = subprocess.run([exe, "uninstall", *types], cwd=root, env=no_git_env(), capture_output=True, text=True)
    if r.returncode != 0:
        said = (r.stderr.strip() or r.stdout.strip()).splitlines()
        return [f"pre-commit uninstall failed (exit {r.returncode}): {said[-1] if said else 'no output'}"]
    return ["the pre-commit framework's git hooks removed (`pre-commit uninstall`)"]


PART = "deinit"  # where in the run's backup folder what deinit changed goes
# What a purge keeps: the backups folder, which then also holds the purged rest.
PURGE_KEEPS = os.path.basename(BACKUPS)


def _purge(root: str, backup: str | None, dry_run: bool) -> list[str]:
    """`.handrail/` but `backups/`: copied into this run's backup, then removed."""
    top = os.path.join(root, ".handrail")
    if not os.path.isdir(top):
        return []
    names = sorted(n for n in os.listdir(top) if n != PURGE_KEEPS)
    if dry_run or backup is None:
        return [f".handrail/{n}" for n in names]
    for n in names:
        full = os.path.join(top, n)
        if os.path.isdir(full) and not os.path.islink(full):
            shutil.copytree(full, os.path.join(backup, ".handrail", n), symlinks=True)
            shutil.rmtree(full)
        else:
            os.makedirs(os.path.join(backup, ".handrail"), exist_ok=True)
            shutil.copy2(full, os.path.join(backup, ".handrail", n), follow_symlinks=False)
            os.unlink(full)
    return [f".handrail/{n}" for n in names]


# --------------------------------------------------------------------------- the command


def deinit(project: str, *, dry_run: bool = False, purge: bool = False) -> dict[str, Any]:
    """Take handrail out of the repository around `project`; the `--json` answer. The
    lock `init` and `permissions` take is held while files are written."""
    from handrail import permissions, setuplock
    from handrail.init import repository_root

    root, hooks = repository_root(project)
    p = plan(root, hooks)
    since = permissions.unfinished(root)
    if dry_run or not (_pending(p) or purge or since):
        if since is not None:
            p.notes.append(f"a `handrail permissions` run started {since} did not finish: deinit completes its "
                           "write first, so what it takes out may differ from what is shown")
        return _result(p, None, [], _purge(root, None, True) if purge else [], dry_run)
    with setuplock.held(root, "handrail deinit"):
        recovered = permissions.recover(root)
        p = plan(root, hooks)  # again, now that no init or permissions run can write in between
        if recovered is not None:
            p.notes.insert(0, recovered.line())
        run = Backup(root)
        said = apply(p, run)
        backup = os.path.join(run.claim(), PART)
        os.makedirs(backup, exist_ok=True)
    purged = _purge(root, backup, False) if purge else []
    return _result(p, backup, said, purged, dry_run)


def _pending(p: Plan) -> bool:
    """Whether the plan writes anything (a repository handrail never guarded gets no lock file either)."""
    return (any(e.action != KEEP for e in p.edits) or p.record is not None or bool(p.git_hooks) or p.framework
            or p.bin_key)


def _result(p: Plan, backup: str | None, said: list[str], purged: list[str], dry_run: bool) -> dict[str, Any]:
    from handrail.init import BIN_KEY

    when = 0 if dry_run else 1
    files = [{"path": e.path, "action": e.action, "did": f"{WORDS[e.action][when]} ({e.why})"}
             for e in [*p.edits, *([p.record] if p.record else [])]]
    hooks = [{"hook": h, "did": ("would be " + did) if dry_run else did} for h, did in p.git_hooks]
    if p.framework and dry_run:
        said = said + ["would run `pre-commit uninstall` (handrail created the config its hooks run)"]
    changed = any(f["action"] != KEEP for f in files) or bool(hooks) or p.framework or bool(purged) or p.bin_key
    kept = ("" if purged else ".handrail/ stays (your protocol, tasks and events): `handrail deinit --purge` "
            "removes it too")
    return {"root": p.root, "dry_run": dry_run, "changed": changed, "files": files, "git_hooks": hooks,
            "git_config": BIN_KEY if p.bin_key else None,
            "purged": purged, "backup_dir": None if backup is None else os.path.relpath(backup, p.root),
            "notes": p.notes + said + ([kept] if kept else [])}


def text_report(result: dict[str, Any]) -> list[str]:
    head = "handrail deinit --dry-run (nothing written)" if result["dry_run"] else "handrail deinit"
    lines = [f"{head} in {result['root']}"]
    rows = [(f["path"], f["did"]) for f in result["files"]]
    rows += [(f"git hook {h['hook']}", h["did"]) for h in result["git_hooks"]]
    if result["git_config"]:
        rows.append((f"git config {result['git_config']}", "would be unset" if result["dry_run"] else "unset"))
    rows += [(path, "would remove (--purge)" if result["dry_run"] else "removed (--purge)")
             for path in result["purged"]]
    width = max((len(what) for what, _ in rows), default=0)
    lines += [f"  {what:<{width}}  {did}" for what, did in rows]
    if not result["changed"]:
        lines.append("nothing to take out: handrail added nothing here, or deinit took it out already")
    if result["backup_dir"]:
        lines.append(f"backup of every file changed or removed: {result['backup_dir']}")
    lines += [f"note: {n}" for n in result["notes"]]
    return lines
