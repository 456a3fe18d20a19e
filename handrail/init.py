"""`handrail init`: from a plain git repository to a guarded one, in one command.

Lays the default protocol (keeping one that is already there), `.handrail/.gitignore`,
installs the git hooks (plain hooks, or the pre-commit framework's with handrail's
hooks merged into `.pre-commit-config.yaml`), and generates every permission file.
Each step leaves what is already right alone, so a second run changes nothing and
says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Any, NamedTuple

from handrail.backups import Backup
from handrail.errors import HandrailError
from handrail.fsio import atomic_write, dump_json, read_text
from handrail.policy import harnessfiles
from handrail.policy import protocol as protocols

IGNORE_FILE = os.path.join(".handrail", ".gitignore")
# What is local to one machine; the protocol, tasks, contracts and generated.json are committed.
IGNORED = ("/runtime/", "/backups/", "/tasks/*/progress.json", "/tasks/*/.progress.json.*",
           "/tasks/*/.loop.lock", "/tasks/*/attempts/", "/tasks/*/checks/", "/tasks/*/gates/")
PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
# Where the framework's local hooks find handrail on this machine: the git config of the
# repository (not committed, shared by its linked worktrees), set by `init --pre-commit`.
BIN_KEY = "handrail.bin"
# The hook types handrail's framework hooks run at; post-commit is living memory's check.
FRAMEWORK_HOOK_TYPES = ("pre-commit", "prepare-commit-msg", "pre-push", "post-commit")


def local_entry(args: str, what: str) -> str:
    """A local hook's entry: the handrail `init` recorded (git config handrail.bin), else
    the one on PATH, else one line that says how to get it, never the framework's bare
    "Executable `handrail` not found". `sh` runs it, so the committed config names no path
    of this machine. After a commit (`what` empty) a missing handrail fails nothing."""
    if what:
        lost = f"handrail: {what} refused: handrail cannot start (not at git config {BIN_KEY}, not on PATH)"
        then = "install handrail, then run: handrail init --pre-commit"
        give_up = f'{{ echo "{lost}; {then}" >&2; exit 1; }}'
    else:
        give_up = "exit 0"
    return (f'sh -c \'h=$(git config {BIN_KEY}) && [ -x "$h" ] || h=$(command -v handrail) || {give_up}; '
            f'exec "$h" {args} "$@"\' handrail')


# handrail's hooks for a repository's own `.pre-commit-config.yaml`: the ids of
# `.pre-commit-hooks.yaml`, run from the handrail installed here (`language: system`,
# through local_entry), so that committing needs no network; and a check that the
# permission files still match the protocol when either changes.
GENERATED = "^(" + "|".join((r"\.handrail/autonomy-protocol\.json", r"\.aioson/config/autonomy-protocol\.json",
                              r"\.handrail/generated\.json",
                              *(harnessfiles.regex(f.pattern) for f in harnessfiles.FILES if f.generated))) + ")"
LOCAL_HOOKS = (
    {"id": "handrail-pre-commit", "name": "handrail (commit)", "entry": local_entry("hook pre-commit", "commit"),
     "language": "system", "stages": ["pre-commit"], "pass_filenames": False, "always_run": True},
    {"id": "handrail-prepare-commit-msg", "name": "handrail (who made the commit)",
     "entry": local_entry("hook prepare-commit-msg", "commit"), "language": "system",
     "stages": ["prepare-commit-msg"], "pass_filenames": True, "always_run": True},
    {"id": "handrail-pre-push", "name": "handrail (push)", "entry": local_entry("hook pre-push", "push"),
     "language": "system", "stages": ["pre-push"], "pass_filenames": False, "always_run": True},
    {"id": "handrail-post-commit", "name": "handrail (living memory)", "entry": local_entry("hook post-commit", ""),
     "language": "system", "stages": ["post-commit"], "pass_filenames": False, "always_run": True},
    {"id": "handrail-policy-check", "name": "handrail policy check", "entry": local_entry("policy check", "commit"),
     "language": "system", "stages": ["pre-commit"], "files": r"^\.handrail/", "pass_filenames": False},
    {"id": "handrail-permissions-check", "name": "handrail permissions in sync",
     "entry": local_entry("permissions --check", "commit"), "language": "system", "stages": ["pre-commit"],
     "files": GENERATED, "pass_filenames": False},
)
NEXT = (
    ("handrail task new my-change --title \"What you are changing\"", "create a task (it starts in plan)"),
    ("handrail task phase my-change implement", "agents may edit while a task is in implement"),
    ("handrail doctor", "check that everything is in place"),
)


class Step(NamedTuple):
    what: str      # a path, or `git hooks`
    did: str       # created, updated, kept, installed, unchanged, …

    @property
    def changed(self) -> bool:
        return not self.did.startswith(("kept", "unchanged"))


def repository_root(project: str) -> tuple[str, str]:
    """(work tree root, hooks folder) of the repository around `project`."""
    from handrail import repo as git

    try:
        r = git.open_path(project)
    except HandrailError:
        where = os.path.abspath(project)
        raise HandrailError(f"{where}: not inside a git repository; handrail guards a git repository: run "
                            f"`git init` there first (or pass --project REPO), then `handrail init`",
                            reason="not_a_repository") from None
    if r.is_bare:
        raise HandrailError(f"{git.workdir(r)}: a bare repository has no work tree to guard; run `handrail init` "
                            "in a clone of it", reason="not_a_repository")
    return git.workdir(r), git.hooks_dir(r)


# --------------------------------------------------------------------------- the protocol


def lay_protocol(root: str, tools: list[str] | None, force: bool, backup: Backup | None = None) -> Step:
    """Keep a valid protocol; lay the default where there is none (only `tools` in it,
    when given); replace an invalid one only with `force`, after a backup."""
    found = protocols.discover(root)
    target = os.path.join(root, protocols.PROTOCOL_PATHS[0])
    did = "created (the default policy)"
    if found is not None:
        try:
            protocols.load(root)
            return Step(os.path.relpath(found, root), "kept (already there)")
        except HandrailError as e:
            if not force:
                raise HandrailError(f"{e}: fix it, or rerun with --force to replace it with the default policy "
                                    "(the old one is backed up)", reason=e.reason) from None
        if os.path.abspath(found) == os.path.abspath(target):
            folder = (backup or Backup(root)).under("init")()
            os.makedirs(folder, exist_ok=True)
            shutil.copy2(found, os.path.join(folder, os.path.basename(found)))
            did = f"replaced with the default policy (the invalid one is in {os.path.relpath(folder, root)})"
        else:
            did = f"created (the default policy; the invalid {os.path.relpath(found, root)} is no longer read)"
    text = read_text(protocols.DEFAULT_PROTOCOL)
    if tools:
        import json

        data = json.loads(text)
        unknown = [t for t in tools if t not in data["tools"]]
        if unknown:
            raise HandrailError(f"--tools {','.join(unknown)}: no such tool in the default policy "
                                f"(tools: {', '.join(data['tools'])})", reason="bad_arguments")
        data["tools"] = {name: spec for name, spec in data["tools"].items() if name in tools}
        text = dump_json(data)
    atomic_write(target, text)
    return Step(protocols.PROTOCOL_PATHS[0], did)


def ignore_local_state(root: str) -> Step:
    """`.handrail/.gitignore`: the lines of IGNORED it lacks are added; the user's stay."""
    path = os.path.join(root, IGNORE_FILE)
    try:
        current = read_text(path)
    except HandrailError:
        current = None
    have = set((current or "").split())
    missing = [line for line in IGNORED if line not in have]
    if not missing:
        return Step(IGNORE_FILE, "kept (already there)")
    head = "# handrail: what stays on this machine (runtime, backups, loop state)\n" if current is None else ""
    body = (current or "") + ("\n" if current and not current.endswith("\n") else "")
    atomic_write(path, body + head + "".join(f"{line}\n" for line in missing))
    return Step(IGNORE_FILE, "created" if current is None else "updated")


# --------------------------------------------------------------------------- git hooks


def plain_hooks(root: str, hooks: str, force: bool, backup: Backup | None = None) -> list[Step]:
    from handrail import install_hooks

    return [Step(f"git hook {a.hook}", a.did)
            for a in install_hooks.install(hooks, root, force=force, backup=backup)]


def tracked_hooks(root: str, hooks: str) -> list[str]:
    """The hooks of a folder in the work tree (`core.hooksPath = .githooks`) that git tracks
    and that are not handrail's: installing replaces them with a script that holds this
    machine's paths, a change every clone gets once it is committed."""
    from handrail import install_hooks
    from handrail import repo as git

    rel = os.path.relpath(hooks, root)
    if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel):
        return []
    index = git.open_path(root).index
    out = []
    for name in install_hooks.HOOKS:
        path = f"{rel}/{name}".replace(os.sep, "/")
        if path in index and not install_hooks.is_ours(os.path.join(hooks, name)):
            out.append(path)
    return out


def check_tracked_hooks(root: str, hooks: str, force: bool) -> list[str]:
    """Refuse, before anything is written, to replace tracked hooks without `force`; with
    it, the warnings to print (each naming the file and where it went)."""
    from handrail.install_hooks import SAVED

    found = tracked_hooks(root, hooks)
    if not found:
        return []
    if not force:
        raise HandrailError(
            f"{found[0]}: tracked by git (core.hooksPath is {os.path.relpath(hooks, root)}): installing would move "
            f"it to {os.path.basename(found[0])}{SAVED} and write a hook with this machine's paths in its place, "
            "a change every clone gets once committed; rerun `handrail init --force` to do it anyway (your hook runs "
            "first, and `handrail deinit` puts it back), or unset core.hooksPath", reason="tracked_hooks")
    return [f"{path} is tracked by git: it is now {path}{SAVED} (handrail's hook runs it first); do not commit "
            "this change: `handrail deinit` puts it back" for path in found]


def check_framework_can_install(root: str) -> None:
    """The pre-commit framework will not install its hooks while core.hooksPath is set: say
    so before anything is written, rather than leave a half-done setup behind."""
    from handrail import repo as git

    config = git.open_path(root).config
    try:
        where = config["core.hooksPath"]
    except KeyError:
        return
    raise HandrailError(f"core.hooksPath is set ({where}): the pre-commit framework refuses to install its hooks "
                        "there; unset it (`git config --unset-all core.hooksPath`) and rerun `handrail init "
                        "--pre-commit`, or run `handrail init` for handrail's own git hooks", reason="hooks_path")


def _hook_bytes(hooks: str) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for name in FRAMEWORK_HOOK_TYPES:
        try:
            with open(os.path.join(hooks, name), "rb") as f:
                out[name] = f.read()
        except FileNotFoundError:
            out[name] = None
    return out


def pre_commit_executable() -> str | None:
    return shutil.which("pre-commit", path=os.path.dirname(sys.executable)) or shutil.which("pre-commit")


def framework_hooks(root: str, hooks: str, backup: Backup | None = None) -> list[Step]:
    """handrail's hooks merged into `.pre-commit-config.yaml`, `pre-commit install` for
    every hook type they run at (FRAMEWORK_HOOK_TYPES), and this handrail recorded where
    their entries look for it (handrail's plain hooks, where installed, are removed first
    so that nothing runs twice)."""
    from handrail import install_hooks
    from handrail.repo import no_git_env

    exe = pre_commit_executable()
    if exe is None:
        raise HandrailError("pre-commit is not installed here: install it (`pip install pre-commit`), or run "
                            "`handrail init --git-hooks` for plain git hooks", reason="missing_tool")
    steps = [merge_pre_commit_config(root, backup), record_handrail(root)]
    if any(install_hooks.is_ours(os.path.join(hooks, name)) for name in install_hooks.HOOKS):
        for a in install_hooks.uninstall(hooks):
            steps.append(Step(f"git hook {a.hook}", f"{a.did} (the pre-commit framework runs handrail now)"))
    before = _hook_bytes(hooks)
    types = [arg for name in FRAMEWORK_HOOK_TYPES for arg in ("--hook-type", name)]
    r = subprocess.run([exe, "install", *types], cwd=root, env=no_git_env(), capture_output=True, text=True)
    if r.returncode != 0:
        said = (r.stderr.strip() or r.stdout.strip()).splitlines()
        raise HandrailError(f"pre-commit install failed (exit {r.returncode}): {said[-1] if said else 'no output'}",
                            reason="hook_install_failed")
    after = _hook_bytes(hooks)
    for name in FRAMEWORK_HOOK_TYPES:
        steps.append(Step(f"git hook {name}", "unchanged" if before[name] == after[name] else
                          "installed (by the pre-commit framework)"))
    return steps


def record_handrail(root: str) -> Step:
    """`git config handrail.bin`: the handrail running now, which the local hooks' entries
    start before they look on PATH (an IDE's or a GUI client's PATH may lack it)."""
    from handrail.install_hooks import handrail_command
    from handrail.repo import no_git_env

    path = handrail_command()[0]
    what = f"git config {BIN_KEY}"
    if not path:
        return Step(what, "kept (handrail's own command was not found: the hooks look for handrail on PATH)")
    env = no_git_env()
    had = subprocess.run(["git", "config", "--local", "--get", BIN_KEY], cwd=root, env=env,
                         capture_output=True, text=True).stdout.strip()
    if had == path:
        return Step(what, "unchanged")
    subprocess.run(["git", "config", "--local", BIN_KEY, path], cwd=root, env=env, check=True,
                   capture_output=True)
    return Step(what, f"set to {path}")


def merge_pre_commit_config(root: str, backup: Backup | None = None) -> Step:
    """Add handrail's hooks that `.pre-commit-config.yaml` lacks, as one `repo: local`
    entry, keeping the user's comments, layout and line endings (handrail/precommit_config.py);
    a config that is not valid YAML, or that handrail cannot add to without changing the
    user's hooks, is left untouched and refused."""
    from handrail import precommit_config

    path = os.path.join(root, PRE_COMMIT_CONFIG)
    try:
        with open(path, encoding="utf-8", newline="") as f:  # newline="": CRLF stays CRLF
            current: str | None = f.read()
    except FileNotFoundError:
        current = None
    except (OSError, UnicodeDecodeError) as e:
        raise HandrailError(f"{PRE_COMMIT_CONFIG}: cannot read ({e}); handrail left it untouched",
                            reason="invalid_config") from None
    data = yaml_mapping(current, PRE_COMMIT_CONFIG, "handrail init --pre-commit") if current is not None else {}
    present = precommit_config.present_ids(data) if isinstance(data.get("repos", []), list) else set()
    missing = [dict(h) for h in LOCAL_HOOKS if h["id"] not in present]
    if not missing:
        return Step(PRE_COMMIT_CONFIG, "kept (already runs handrail's hooks)")
    text = precommit_config.merge(current or "", data, missing)
    atomic_write(path, text, backup_dir=(backup or Backup(root)).under("init"))
    return Step(PRE_COMMIT_CONFIG, "created" if current is None else "updated (handrail's hooks added)")


def yaml_mapping(text: str, name: str, again: str) -> dict[str, Any]:
    """A YAML file's top-level mapping ({} when empty); a one-line error naming the file, which
    handrail leaves untouched, when it is not valid YAML or not a mapping."""
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise HandrailError(f"{name}: invalid YAML{where}; handrail left it untouched: fix it, then run "
                            f"`{again}` again", reason="invalid_config") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise HandrailError(f"{name}: expected a mapping at the top level; handrail left it untouched",
                            reason="invalid_config")
    return data


def with_local_hooks(text: str) -> str:
    """`.pre-commit-config.yaml` as `init --pre-commit` writes it from `text`, which holds
    none of handrail's hooks: what `handrail deinit` recognises as init's own edit."""
    from handrail import precommit_config

    data = yaml_mapping(text, PRE_COMMIT_CONFIG, "handrail init --pre-commit") if text else {}
    return precommit_config.merge(text, data, [dict(h) for h in LOCAL_HOOKS])


# --------------------------------------------------------------------------- aider


def aider_settings(root: str, backup: Backup | None = None) -> Step:
    """aider has no hook to register: its `.aider.conf.yml` gets the settings that make its
    commits meet the git hooks as an agent's (handrail/harnesses/aider.py says which)."""
    from handrail.harnesses import aider

    did, text = aider.merge_config(root)
    if text is not None:
        path = os.path.join(root, aider.CONFIG)
        atomic_write(path, text, backup_dir=(backup or Backup(root)).under("init"))
    return Step(aider.CONFIG, did)


# --------------------------------------------------------------------------- the command


def init(project: str, *, tools: list[str] | None = None, pre_commit: bool = False,
         force: bool = False) -> dict[str, Any]:
    """Set the repository around `project` up; the `--json` answer. The lock that
    `handrail permissions` takes is held throughout, so that a second init or
    permissions run waits rather than interleaves its writes with these."""
    from handrail import setuplock

    root, hooks = repository_root(project)
    with setuplock.held(root, "handrail init"):
        return _init(root, hooks, tools, pre_commit, force)


def _init(root: str, hooks: str, tools: list[str] | None, pre_commit: bool, force: bool) -> dict[str, Any]:
    from handrail import permissions

    recovered = permissions.recover(root)  # an earlier run's write finished before this one plans
    if pre_commit:
        check_framework_can_install(root)
    warnings = [] if pre_commit else check_tracked_hooks(root, hooks, force)
    backup = Backup(root)  # one folder for everything this run replaces
    steps = [lay_protocol(root, tools, force, backup), ignore_local_state(root)]
    steps += framework_hooks(root, hooks, backup) if pre_commit else plain_hooks(root, hooks, force, backup)
    listed = protocols.tool_names(protocols.load(root))
    hooked = [t for t in tools if t != "aider"] if tools else None  # aider has settings, not permission files
    empty: dict[str, Any] = {"files": [], "notes": [], "tools": []}
    result = empty if hooked == [] else permissions.run(root, tools=hooked, backup=backup)
    for f in result["files"]:
        did = {"create": "created", "update": "updated"}.get(f["change"], "unchanged")
        if f.get("backup"):
            did += f" (the old one is in {f['backup']})"
        steps.append(Step(f["path"], did))
    if "aider" in listed and (tools is None or "aider" in tools):
        steps.append(aider_settings(root, backup))
    changed = any(s.changed for s in steps)
    notes = [n for n in result["notes"] if "built-in default" not in n and not n.startswith("aider:")]
    if recovered is not None:
        notes.insert(0, recovered.line())
    if pre_commit:
        notes.insert(0, f"the pre-commit framework runs handrail's hooks at {', '.join(FRAMEWORK_HOOK_TYPES)} "
                        "(post-commit: living memory's check); they start the handrail in git config "
                        f"{BIN_KEY}, else `handrail` on PATH")
    from handrail import trust

    # Until the user has trusted it, a harness runs none of the project's hooks: say so, per
    # harness, whenever init changed something or the client's files show the step not done.
    trusts = trust.all_of(result["tools"], root)
    notes += [f"{t.tool}: before its hooks run, {t.must}" for t in trusts if changed or t.trusted is False]
    return {"root": root, "changed": changed, "hooks": "pre-commit" if pre_commit else "git",
            "tools": result["tools"], "steps": [{"what": s.what, "did": s.did, "changed": s.changed} for s in steps],
            "rules": permissions.rule_counts(root, result["tools"]), "warnings": warnings,
            "notes": notes, "trust": [t.as_dict() for t in trusts], "next": [c for c, _why in NEXT]}


def summary(result: dict[str, Any]) -> list[str]:
    """What init added, said once: files written, rules per harness, and what it means for commits."""
    written = [s for s in result["steps"] if s["did"].startswith(("created", "updated", "replaced"))]
    merged = sum(not s["did"].startswith("created") for s in written)
    hooks = sum(s["what"].startswith("git hook ") and s["changed"] for s in result["steps"])
    rules = "; ".join(f"{tool} " + ", ".join(f"{n} {kind}" for kind, n in counts.items())
                      for tool, counts in result["rules"].items() if counts)
    said = f"added: {len(written)} files" + (f" ({merged} of yours merged, backed up first)" if merged else "")
    said += f", {hooks} git hooks" if hooks else ""
    lines = [said + (f"; rules: {rules}" if rules else "")]
    lines.append("from now on a commit needs a task in an edit phase (see next); `handrail deinit` takes all "
                 "of this out again")
    return lines


def text_report(result: dict[str, Any]) -> list[str]:
    lines = [f"handrail init in {result['root']}"]
    width = max(len(s["what"]) for s in result["steps"])
    for s in result["steps"]:
        lines.append(f"  {s['what']:<{width}}  {s['did']}")
    if not result["changed"]:
        lines.append("nothing changed: this repository is already guarded")
    else:
        lines += summary(result)
    lines += [f"warning: {w}" for w in result.get("warnings", [])]
    for n in result["notes"]:
        lines.append(f"note: {n}")
    lines.append("next:")
    width = max(len(c) for c, _why in NEXT)
    lines += [f"  {c:<{width}}  # {why}" for c, why in NEXT]
    return lines
