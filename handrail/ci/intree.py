"""The policy in force in one commit, read from the commit's tree.

A CI job has no `.handrail/runtime/`, no phase ledger (`.git/handrail/phases.json`) and
no gate decisions (`gates/` is git-ignored: local state): what it has is the commits.
So a commit is judged by the protocol, tasks and contracts its own tree holds, and by
nothing else. Those files are parsed and validated by the loaders every other layer
uses (`policy.guard.load_policy`), handed the tree's copies in a private folder: one
reader, one validation, one set of messages. Folders are cached by the ids of what
they hold, so a pull request that never touches `.handrail/` reads its policy once.

A tree whose policy files cannot be read (invalid JSON, nested too deeply, a link where a
file belongs) raises `Unreadable`, naming the file: the CI check reports it as a finding and
goes on (ci/judge.py), so one planted file does not hide every other finding.

What this trusts, and what it cannot see (the README's "What the CI check trusts"):
a task's phase is what its committed `task.json` says (the ledger that guards against
git restoring an old one stays on the developer's machine); no gate is approved.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pygit2

from handrail.errors import HandrailError
from handrail.policy import gitrules
from handrail.policy import protocol as protocols
from handrail.policy import tasks as taskmod
from handrail.policy.contract import CONTRACT_FILE

_BLOB_MODES = (pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE)
_TASK_FILES = (taskmod.TASK_FILE, CONTRACT_FILE)  # never gates/: an approval is not read from a commit
_Key = tuple[str | None, ...]


class Unreadable(HandrailError):
    """A policy file of a commit's tree that handrail cannot read: `path` (None where the
    loader did not name one) and `why`, the loader's own line without the file's name."""

    def __init__(self, path: str | None, why: str) -> None:
        super().__init__(f"{path}: {why}" if path else why, reason="invalid_policy")
        self.path = path
        self.why = why


class TreePolicies:
    """`at(commit)`: the GitPolicy that commit's tree sets, for no acting agent."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self._by_key: dict[_Key, gitrules.GitPolicy | Unreadable] = {}

    def at(self, oid: str) -> gitrules.GitPolicy:
        """The policy, or Unreadable (a HandrailError) naming the file that cannot be read."""
        tree = self.repo[oid].peel(pygit2.Commit).tree
        files = _policy_files(tree)
        key = tuple(sorted(f"{path}={blob}" for path, blob in files.items()))
        found = self._by_key.get(key)
        if found is None:
            found = self._by_key[key] = self._load(files)
        if isinstance(found, Unreadable):
            raise found
        return found

    def _load(self, files: dict[str, str]) -> gitrules.GitPolicy | Unreadable:
        from handrail.policy.guard import load_policy

        folder = tempfile.mkdtemp(prefix="handrail-ci-")
        try:
            for path, blob in files.items():
                target = os.path.join(folder, *path.split("/"))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as f:
                    f.write(self.repo[blob].peel(pygit2.Blob).data)
            try:
                return load_policy(folder, {})
            except HandrailError as e:
                # the files are named as the commit holds them, not by the private copy's path
                return _unreadable(str(e).replace(folder + os.sep, ""), files)
            except RecursionError:
                return Unreadable(None, "a policy file nested too deeply to read")
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def _unreadable(said: str, files: dict[str, str]) -> Unreadable:
    """The loader's line, split into the file it names (one of `files`) and why."""
    said = " ".join(said.split())
    for path in sorted(files, key=len, reverse=True):
        if said.startswith(path + ":"):
            return Unreadable(path, said[len(path) + 1:].strip())
    return Unreadable(None, said)


def _policy_files(tree: pygit2.Tree) -> dict[str, str]:
    """Path -> blob id of every file `load_policy` reads, as this tree holds them."""
    out: dict[str, str] = {}
    for rel in protocols.PROTOCOL_PATHS:
        path = rel.replace(os.sep, "/")
        entry = _entry(tree, path)
        if entry is not None:
            out[path] = _blob(entry, path)
    tasks_dir = taskmod.TASKS_DIR.replace(os.sep, "/")
    folder = _entry(tree, tasks_dir)
    if not isinstance(folder, pygit2.Tree):
        return out
    for task in folder:
        if not isinstance(task, pygit2.Tree):
            continue
        for name in _TASK_FILES:
            path = f"{tasks_dir}/{task.name}/{name}"
            entry = _entry(tree, path)
            if entry is not None:
                out[path] = _blob(entry, path)
    return out


def _entry(tree: pygit2.Tree, path: str) -> pygit2.Object | None:
    try:
        return tree[path]
    except (KeyError, UnicodeError):
        return None


def _blob(entry: pygit2.Object, path: str) -> str:
    """A policy file must be a file: a link or a submodule there would be read as no policy."""
    if entry.type_str != "blob" or entry.filemode not in _BLOB_MODES:
        raise Unreadable(path, "not a regular file in the commit (a link or a submodule): handrail reads "
                               "its policy from files only")
    return str(entry.id)
