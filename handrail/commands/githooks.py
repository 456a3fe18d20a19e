"""`handrail install-hooks` and `uninstall-hooks`: plain git hooks that run handrail."""

from __future__ import annotations

from handrail.commands.human import require_human
from handrail.commands.render import echo
from handrail.errors import EXIT_OK, HandrailError


def install(*, symlink: bool, force: bool, project: str) -> int:
    from handrail import install_hooks

    folder, root = _hooks_folder(project)
    for a in install_hooks.install(folder, root, symlink=symlink, force=force):
        echo(f"{a.hook}: {a.did}")
    echo(f"hooks folder: {folder}")
    return EXIT_OK


def uninstall(*, project: str) -> int:
    from handrail import install_hooks

    folder, _root = _hooks_folder(project)
    require_human("uninstall-hooks", "", "a human removes handrail's git hooks")
    actions = install_hooks.uninstall(folder)
    for a in actions:
        echo(f"{a.hook}: {a.did}")
    if not actions:
        echo(f"no handrail hooks in {folder}")
    return EXIT_OK


def _hooks_folder(project: str) -> tuple[str, str]:
    from handrail import repo as git

    r = git.open_path(project)
    if r.is_bare:
        raise HandrailError(f"{project}: a bare repository has no commits to guard", reason="bad_arguments")
    return git.hooks_dir(r), git.workdir(r)
