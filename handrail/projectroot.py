"""The one project root every entry point uses: where the policy, tasks, gates,
envelopes and the event log live.

Finding it from the folder a call runs in would let an agent pick its policy: a
`src/.handrail/` or a `git init src/x` is one command away. So a call's `cwd` (or
`workdir`) only ever resolves relative paths; the root is found like this:

1. **Where to start.** The folder the harness names as the project, when it names
   one: `given` (a payload field the harness fills: OpenCode's `directory`, Cursor's
   `workspace_roots`, Cline's `workspaceRoots`; or a `--project` typed on a command
   line), else the first of HARNESS_DIRS set in `env`. Pre-tool hooks run as children
   of the harness, so a value in their environment is the harness's, not something
   the agent's shell chose. Else `cwd`.
   Git hooks pass an empty `env`: there git has already chosen the repository.
2. **Inside a git work tree, git wins.** The root is the top of the work tree around
   the start (read from `.git` itself: no git library on the hook path), not the
   harness's folder: a harness started in `repo/pkg/` still answers to the policy
   committed at `repo/`, which is also the one pre-commit, pre-push and CI read, so
   every layer judges by one file. A linked worktree (a `.git` file whose `gitdir`
   holds a `commondir`) belongs to its main repository: the root is the main work
   tree, so a gate or task written in a worktree the agent made approves nothing. A
   submodule (a `.git` file whose `gitdir` lies in the enclosing repository's
   `modules/`) is its own project.
3. **An unguarded repository inside a guarded one is not a project of its own.**
   A work tree with no `.handrail/` that lies inside another work tree that has one
   (and is not its submodule) answers to the outer one: `git init src/x` does not
   take `src/x` out of the project's policy. A guarded work tree keeps its own root,
   so a repository made above the project cannot capture it either.
4. **Outside any git repository:** the harness's folder, when there is one; else the
   nearest folder up from `cwd` holding `.handrail/autonomy-protocol.json` (making a
   nested one is an edit under `**/.handrail/**`, which agents are refused); else `cwd`
   itself, where the built-in default policy applies and nothing is written.

The root is never a folder below the harness's project: the search starts there and
only goes up.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import NamedTuple
else:
    from collections import namedtuple as _nt

# The environment variable each harness sets for its hooks, naming the project folder.
HARNESS_DIRS = (
    ("CLAUDE_PROJECT_DIR", "Claude Code (and Gemini CLI's Claude-compatible alias)"),
    ("GEMINI_PROJECT_DIR", "Gemini CLI"),
    ("QWEN_PROJECT_DIR", "Qwen Code (unverified)"),
    ("CURSOR_PROJECT_DIR", "Cursor (unverified)"),
)
PROTOCOL = os.path.join(".handrail", "autonomy-protocol.json")

if TYPE_CHECKING:
    class Tree(NamedTuple):
        top: str  # the folder holding `.git`
        main: str  # the main work tree: `top`, or for a linked worktree its repository's
        common: str  # the git folder shared by all worktrees of the repository
        gitdir: str  # this work tree's own git folder

    class Root(NamedTuple):
        path: str  # the project root
        common: str | None  # the repository's shared git folder; None outside git
        source: str  # how it was found, for `handrail doctor` and messages
else:
    Tree = _nt("Tree", "top main common gitdir")
    Root = _nt("Root", "path common source")


def find_root(cwd: str, env: Mapping[str, str], *, given: str | None = None) -> str:
    """The project root for a call made in `cwd` (see the module's docstring)."""
    return locate(cwd, env, given=given).path


def for_command(project: str | None, env: Mapping[str, str], *, cwd: str | None = None) -> Root:
    """The root for a command: a `--project` typed on its command line is where the search
    starts (ahead of the harness's folder; relative to `cwd`); without one, the harness's
    folder named in `env`, else `cwd` (the current folder). Every command and hook that
    takes `--project`, or runs where it is started, asks here."""
    here = os.path.abspath(cwd if cwd is not None else os.curdir)
    if project:
        folder = os.path.join(here, project)
        return locate(folder, env, given=os.path.abspath(folder))
    return locate(here, env)


def locate(cwd: str, env: Mapping[str, str], *, given: str | None = None) -> Root:
    cwd = os.path.abspath(cwd)
    harness, source = _harness_dir(env, given)
    start = harness or cwd
    tree = _guarded_tree(start)
    if tree is not None:
        return Root(tree.main, tree.common, "git")
    if harness is not None:
        return Root(harness, None, source)
    here = cwd
    while True:
        if os.path.isfile(os.path.join(here, PROTOCOL)):
            return Root(here, None, "protocol")
        parent = os.path.dirname(here)
        if parent == here:
            return Root(cwd, None, "cwd")
        here = parent


def work_tree_of(path: str, root: Root) -> str:
    """The work tree of the root's repository that holds `path` (the root itself, or a
    linked worktree of the same repository), so that `path` is judged relative to it
    against the root's tasks; the root when `path` lies in no such work tree."""
    if root.common is None:
        return root.path
    here = os.path.abspath(path)
    while not os.path.isdir(here):  # a file, or one not written yet
        parent = os.path.dirname(here)
        if parent == here:
            return root.path
        here = parent
    tree = git_tree(here)
    if tree is not None and _same(tree.common, root.common) and _same(tree.main, root.path):
        return tree.top
    return root.path


def linked_trees(root: Root) -> list[str]:
    """The linked worktrees of the root's repository that are there now, read as git keeps
    them (`<common>/worktrees/<name>/gitdir` naming each one's `.git` file): the folders
    whose sessions belong to the project as much as the root's own."""
    if root.common is None:
        return []
    out: list[str] = []
    top = os.path.join(root.common, "worktrees")
    try:
        names = sorted(os.listdir(top))
    except OSError:
        return []
    for name in names:
        dotgit = (_small_file(os.path.join(top, name, "gitdir")) or "").strip()
        if not dotgit:
            continue
        tree = os.path.dirname(os.path.join(top, name, dotgit))
        found = git_tree(tree) if os.path.isdir(tree) else None
        if found is not None and _same(found.common, root.common) and _same(found.top, tree):
            out.append(os.path.normpath(tree))
    return out


def git_tree(start: str) -> Tree | None:
    """The git work tree around `start`, read from the nearest `.git` up; None outside git."""
    here = os.path.abspath(start)
    while True:
        dotgit = os.path.join(here, ".git")
        if os.path.isdir(dotgit):
            common = _common(dotgit) or dotgit
            return Tree(here, _main_of(common, here), common, dotgit)
        if os.path.isfile(dotgit):
            return _from_file(here, dotgit)
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _from_file(top: str, dotgit: str) -> Tree:
    """A `.git` file: `gitdir: X`. With a `commondir` in X it is a linked worktree of the
    repository there; otherwise (a submodule, `--separate-git-dir`) its own repository."""
    gitdir = None
    first = (_small_file(dotgit) or "").split("\n", 1)[0].strip()
    if first.startswith("gitdir:"):
        gitdir = os.path.normpath(os.path.join(top, first[len("gitdir:"):].strip()))
    if gitdir is None or not os.path.isdir(gitdir):
        return Tree(top, top, dotgit, dotgit)  # git itself refuses it: judged as its own
    common = _common(gitdir)
    if common is None:
        return Tree(top, top, gitdir, gitdir)
    return Tree(top, _main_of(common, top), common, gitdir)


def _common(gitdir: str) -> str | None:
    rel = (_small_file(os.path.join(gitdir, "commondir")) or "").strip()
    return os.path.normpath(os.path.join(gitdir, rel)) if rel else None


def _small_file(path: str) -> str | None:
    """The text of one of git's small files, as a regular file only: a FIFO the agent put in
    its place would make a plain open wait for a writer, and the hook with it."""
    from handrail.fsio import read_regular

    data = read_regular(path, 1 << 16)
    return data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else None


def _main_of(common: str, top: str) -> str:
    """The main work tree of the repository whose shared folder is `common`: the folder
    holding it when it is a `.git` folder; `top` for a bare repository's worktrees,
    which have no main work tree."""
    if os.path.basename(common) == ".git" and os.path.isdir(common):
        return os.path.dirname(common)
    return top


def _guarded_tree(start: str) -> Tree | None:
    """The work tree around `start`, or the nearest guarded one around an unguarded one."""
    tree = git_tree(start)
    here = tree
    while here is not None and not _guarded(here):
        parent = os.path.dirname(here.top)
        outer = git_tree(parent) if parent != here.top else None
        if outer is None or _inside(here.gitdir, outer.common):
            return tree  # nothing guarded around it, or it is a submodule: its own project
        if _guarded(outer):
            return outer
        here = outer
    return tree


def _guarded(tree: Tree) -> bool:
    return os.path.isdir(os.path.join(tree.main, ".handrail"))


def keeps_records(path: str, env: Mapping[str, str]) -> bool:
    """Whether handrail may create its runtime state (the event log) in `path`: a git
    work tree, a folder that holds `.handrail/`, or the project folder the harness names
    in `env`. Anywhere else is the plain folder of step 4, where the default policy
    answers and nothing is written."""
    if os.path.lexists(os.path.join(path, ".git")) or os.path.isdir(os.path.join(path, ".handrail")):
        return True
    harness, _source = _harness_dir(env, None)
    return harness is not None and _same(harness, path)


def _harness_dir(env: Mapping[str, str], given: str | None) -> tuple[str | None, str]:
    candidates: list[tuple[str | None, str]] = [(given, "payload")] if given else []
    candidates += [(env.get(name), name) for name, _ in HARNESS_DIRS]
    for value, source in candidates:
        if value and "\0" not in value and os.path.isabs(value) and os.path.isdir(value):
            return os.path.normpath(value), source
    return None, ""


def _inside(path: str, folder: str) -> bool:
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(folder))
    return rel != os.pardir and not rel.startswith(os.pardir + os.sep)


def _same(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)
