"""`handrail install-hooks` / `uninstall-hooks`: plain git hooks, without the pre-commit framework.

The hooks go where git looks for them: `core.hooksPath` when set, else `hooks/` in
the common dir (shared by every linked worktree). pre-commit and pre-push guard;
prepare-commit-msg writes the `Handrail-Agent` trailer on an agent's commit; `git am`
meets the same rules through pre-applypatch (the pre-commit check, on the index the
patch was applied to) and applypatch-msg (the trailer, on the patch's message);
post-commit only starts living memory's check (`handrail hook post-commit`),
detached, and can never fail or hold up a commit. The script written there knows the
absolute path of the handrail that installed it, so a commit from an IDE or a GUI
client whose PATH lacks handrail still runs it; when handrail cannot start at all,
the script refuses the commit or push with a message instead of letting it through.

A hook that was already there and is not handrail's is never destroyed: it is moved
to `<hook>.handrail-saved`, the handrail script runs it first (a refusal there stops
the commit), and `uninstall-hooks` puts it back.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from typing import NamedTuple

from handrail import __version__
from handrail.backups import BACKUPS, Backup
from handrail.errors import HandrailError
from handrail.fsio import atomic_write, move

HOOKS = ("pre-commit", "prepare-commit-msg", "pre-push", "pre-applypatch", "applypatch-msg", "post-commit")
MARKER = "# handrail-managed git hook"
SHARED = "handrail-hook"          # the one script that --symlink links both hooks to
SAVED = ".handrail-saved"         # suffix of a foreign hook handrail moved aside

SCRIPT = """#!/bin/sh
{marker} (handrail {version}).
# `handrail uninstall-hooks` removes it and puts back any hook it replaced.
# The paths below were handrail's when it was installed; PATH is the fallback.
HANDRAIL_BIN={bin}
HANDRAIL_PYTHON={python}
hook=$(basename "$0")
here=$(dirname "$0")
if [ "$hook" = post-commit ]; then
  # The commit is made: nothing here may fail, block or slow it. The saved hook runs
  # as before; living memory's check runs detached, and only where the project keeps
  # a description (a bootstrap folder), so other repositories pay nothing.
  [ -x "$here/post-commit{saved}" ] && "$here/post-commit{saved}" "$@"
  if [ -d .handrail/context/bootstrap ] || [ -d .aioson/context/bootstrap ]; then
    if [ -x "$HANDRAIL_BIN" ]; then set -- "$HANDRAIL_BIN"
    elif [ -x "$HANDRAIL_PYTHON" ]; then set -- "$HANDRAIL_PYTHON" -m handrail
    elif command -v handrail >/dev/null 2>&1; then set -- handrail
    else exit 0
    fi
    ( "$@" hook post-commit </dev/null >/dev/null 2>&1 & ) >/dev/null 2>&1
  fi
  exit 0
fi
verb=$hook
case "$hook" in
  pre-commit|prepare-commit-msg) what=commit ;;
  pre-push) what=push ;;
  pre-applypatch) what=commit; verb=pre-commit ;;            # git am: the patch is in the index
  applypatch-msg) what=commit; verb=prepare-commit-msg ;;    # git am: the patch's message file
  *) echo "handrail: refused: this script runs as one of {hooks} or post-commit, not as '$hook'" >&2; exit 1 ;;
esac
saved="$here/$hook{saved}"
if [ "$hook" = pre-push ]; then
  # git's ref lines arrive once on stdin; the saved hook and handrail both need them.
  input=$(mktemp "${{TMPDIR:-/tmp}}/handrail-pre-push.XXXXXX") || {{
    echo "handrail: push refused: cannot create a temporary file" >&2; exit 1; }}
  trap 'rm -f "$input"' EXIT
  cat > "$input"
else
  input=/dev/stdin
fi
if [ -x "$saved" ]; then
  "$saved" "$@" < "$input" || exit $?
fi
if [ -x "$HANDRAIL_BIN" ]; then
  "$HANDRAIL_BIN" hook "$verb" "$@" < "$input"; exit $?
fi
if [ -x "$HANDRAIL_PYTHON" ] && "$HANDRAIL_PYTHON" -c 'import handrail' 2>/dev/null; then
  "$HANDRAIL_PYTHON" -m handrail hook "$verb" "$@" < "$input"; exit $?
fi
if command -v handrail >/dev/null 2>&1; then
  handrail hook "$verb" "$@" < "$input"; exit $?
fi
echo "handrail: $what refused: handrail cannot start (not at $HANDRAIL_BIN, not on PATH);" \\
  "reinstall it, then run: handrail install-hooks" >&2
exit 1
"""


class Action(NamedTuple):
    hook: str
    did: str     # installed, updated, unchanged, saved, restored, removed, kept


def handrail_command() -> tuple[str, str]:
    """The console script and interpreter running now, as absolute paths."""
    python = os.path.abspath(sys.executable)
    found = shutil.which("handrail", path=os.path.dirname(python))
    argv0 = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if found is None and os.path.basename(argv0) == "handrail" and os.access(argv0, os.X_OK):
        found = argv0
    return (os.path.abspath(found) if found else ""), python


def script(bin_path: str, python: str) -> str:
    return SCRIPT.format(marker=MARKER, version=__version__, bin=shlex.quote(bin_path),
                         python=shlex.quote(python), saved=SAVED, hooks=", ".join(HOOKS[:-1]))


def is_ours(path: str) -> bool:
    """A hook handrail wrote: its script, or a link to the shared script."""
    if os.path.islink(path):
        return os.path.basename(os.readlink(path)) == SHARED
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return MARKER in f.read(4096)
    except (FileNotFoundError, IsADirectoryError):
        return False


def _write_script(path: str, text: str) -> bool:
    """Write the script (executable); whether anything changed."""
    if os.path.islink(path):
        os.unlink(path)
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text and os.access(path, os.X_OK):
                return False
    except FileNotFoundError:
        pass
    atomic_write(path, text, mode=0o755)
    return True


def _link(path: str) -> bool:
    if os.path.islink(path) and os.readlink(path) == SHARED:
        return False
    if os.path.lexists(path):
        os.unlink(path)
    os.symlink(SHARED, path)
    return True


def install(hooks: str, project: str, *, symlink: bool = False, force: bool = False,
            backup: Backup | None = None) -> list[Action]:
    """Install every hook of HOOKS into `hooks`; see the module docstring for what is kept.
    An earlier saved hook that `force` pushes out goes to `backup` (`init` hands in its run's)."""
    bin_path, python = handrail_command()
    text = script(bin_path, python)
    os.makedirs(hooks, exist_ok=True)
    actions: list[Action] = []
    # Check every hook before changing any, so a refusal leaves nothing half done.
    for name in HOOKS:
        path = os.path.join(hooks, name)
        if os.path.isdir(path) and not os.path.islink(path):
            raise HandrailError(f"{path} is a folder, not a hook; move it away first", reason="hook_in_the_way")
        if (os.path.lexists(path) and not is_ours(path) and os.path.lexists(path + SAVED) and not force):
            raise HandrailError(
                f"{path} is not handrail's, and {name}{SAVED} already holds the hook handrail replaced earlier; "
                f"rerun with --force to keep {name} as the saved hook (the earlier one goes to "
                f"{BACKUPS})", reason="hook_in_the_way")
    if symlink:
        shared = os.path.join(hooks, SHARED)
        actions.append(Action(SHARED, "written" if _write_script(shared, text) else "unchanged"))
    for name in HOOKS:
        path = os.path.join(hooks, name)
        saved = path + SAVED
        did = "installed"
        if os.path.lexists(path) and not is_ours(path):
            if os.path.lexists(saved):
                backup = backup or Backup(project)
                folder = backup.under("hooks")()
                os.makedirs(folder, exist_ok=True)
                move(saved, os.path.join(folder, name + SAVED))
            move(path, saved)
            did = "installed (the hook that was there runs first)"
        elif os.path.lexists(path):
            did = "updated"
        changed = _link(path) if symlink else _write_script(path, text)
        actions.append(Action(name, did if changed or did.startswith("installed (") else "unchanged"))
    if not symlink:
        shared = os.path.join(hooks, SHARED)
        if os.path.exists(shared) and is_ours(shared) and not any(
                os.path.islink(os.path.join(hooks, n)) for n in HOOKS):
            os.unlink(shared)
    return actions


KEPT = "kept (not handrail's)"


def uninstall(hooks: str, *, dry_run: bool = False, backup_dir: str | None = None) -> list[Action]:
    """Remove handrail's hooks and put back what they replaced; with `dry_run`, only say
    what that would do. `backup_dir`: where each script removed is copied first."""
    actions: list[Action] = []

    def remove(path: str) -> None:
        if dry_run:
            return
        if backup_dir is not None and not os.path.islink(path):
            os.makedirs(backup_dir, exist_ok=True)
            shutil.copy2(path, os.path.join(backup_dir, os.path.basename(path)))
        os.unlink(path)

    for name in HOOKS:
        path = os.path.join(hooks, name)
        saved = path + SAVED
        gone = False
        if os.path.lexists(path):
            if is_ours(path):
                remove(path)
                gone = True
                actions.append(Action(name, "removed"))
            else:
                actions.append(Action(name, KEPT))
        if os.path.lexists(saved) and (gone or not os.path.lexists(path)):
            if not dry_run:
                move(saved, path)
            actions.append(Action(name, "restored (the hook that was there before)"))
    shared = os.path.join(hooks, SHARED)
    if os.path.lexists(shared) and is_ours(shared):
        remove(shared)
        actions.append(Action(SHARED, "removed"))
    return actions
