"""Every git access handrail makes goes through this module (pygit2).

Decisions taken once (DESIGN.md): the repository is opened with `FROM_ENV`, so the
index git names in `GIT_INDEX_FILE` (`commit -a`, `commit PATH`) is the one read;
staged changes are the index diffed against HEAD's tree, never
`repo.diff(cached=True)`; renames and copies are found with `find_similar()`.

A pushed commit is compared with its parent by descending only into the subtrees
that differ (libgit2's tree diff reads every entry of both trees, which for many
small commits in a large repository costs a hundred times more); where files both
appear and disappear, libgit2 diffs the two trees and pairs the renames.

Paths come from pygit2 decoded with `surrogateescape`, so a path that is not UTF-8
survives matching and is turned back into its bytes where needed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import NamedTuple

import pygit2
from pygit2.enums import DiffFind, DiffOption, FileStatus, ObjectType, RepositoryOpenFlag, SortMode

from handrail import linecount
from handrail.errors import HandrailError

Z40 = "0" * 40
GITLINK = 0o160000
SYMLINK = 0o120000

# Variables that describe how to reach a remote or who commits, not which repository:
# they survive `no_git_env()` (the same list pre-commit keeps, plus identity).
_KEEP = ("GIT_EXEC_PATH", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSL_CAINFO", "GIT_SSL_NO_VERIFY",
         "GIT_CONFIG_COUNT", "GIT_HTTP_PROXY_AUTHMETHOD", "GIT_ALLOW_PROTOCOL", "GIT_ASKPASS",
         "GIT_TERMINAL_PROMPT", "GIT_CONFIG_NOSYSTEM", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
         "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE")

_STATUS = frozenset("ADMRCT")  # what a commit changes; unmodified, ignored, untracked and conflicted do not count
_BLOB = int(ObjectType.BLOB)
_FIND_COPIES = DiffFind.FIND_RENAMES | DiffFind.FIND_COPIES
_COPY_LIMIT = 200


def no_git_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """A copy of `env` without the GIT_* variables a hook inherits (GIT_DIR,
    GIT_INDEX_FILE, GIT_WORK_TREE, …), for touching any other repository."""
    source = os.environ if env is None else env
    return {k: v for k, v in source.items()
            if not k.startswith("GIT_") or k in _KEEP or k.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))}


def open_repo(path: str = ".") -> pygit2.Repository:
    """The repository git is working on, as git's own environment describes it."""
    try:
        return pygit2.Repository(path, RepositoryOpenFlag.FROM_ENV)
    except (pygit2.GitError, KeyError) as e:
        raise HandrailError(f"{os.path.abspath(path)}: not inside a git repository ({e})",
                            reason="not_a_repository") from None


def open_path(path: str) -> pygit2.Repository:
    """A repository found from `path` alone, ignoring GIT_* (for tools, not hooks)."""
    try:
        return pygit2.Repository(path)
    except (pygit2.GitError, KeyError) as e:
        raise HandrailError(f"{os.path.abspath(path)}: not inside a git repository ({e})",
                            reason="not_a_repository") from None


def workdir(repo: pygit2.Repository) -> str:
    """The work tree's root (no trailing slash); a bare repository's own folder."""
    return (repo.workdir or repo.path).rstrip("/\\") or "/"


def common_dir(repo: pygit2.Repository) -> str:
    """The folder shared by every worktree (`.git` of the main one)."""
    path = repo.path
    try:
        with open(os.path.join(path, "commondir"), encoding="utf-8") as f:
            rel = f.read().strip()
    except FileNotFoundError:
        return path.rstrip("/\\")
    return os.path.normpath(os.path.join(path, rel))


def hooks_dir(repo: pygit2.Repository) -> str:
    """Where git looks for hooks: `core.hooksPath` when set (relative to the work
    tree's root, `~` expanded), else `hooks/` in the common dir."""
    configured = config_value(repo, "core.hooksPath")
    if configured:
        configured = os.path.expanduser(configured)
        return os.path.normpath(configured if os.path.isabs(configured) else os.path.join(workdir(repo), configured))
    return os.path.join(common_dir(repo), "hooks")


def config_value(repo: pygit2.Repository, key: str) -> str | None:
    try:
        return repo.config[key]
    except KeyError:
        return None


# --------------------------------------------------------------------------- changes


class Change(NamedTuple):
    """One changed path. `path` is where the change lands (the old path for a
    deletion); `old_path` is the other side of a rename or copy."""

    status: str
    path: str
    old_path: str | None
    new_id: pygit2.Oid | None
    old_id: pygit2.Oid | None
    new_mode: int
    old_mode: int

    def paths(self) -> tuple[str, ...]:
        return (self.path,) if self.old_path is None or self.old_path == self.path else (self.path, self.old_path)


class ChangeSet:
    """The changes of one commit (or of the index), their content and line counts.

    Each blob is read once. Line counts come from the blobs, never from parsing
    patch text (so a content line beginning with `++` or `--` is content): a new or
    deleted file counts its lines; a modified one is diffed by libgit2, whose
    algorithm is git's own, so for ordinary text the numbers are those `git diff
    --numstat` shows (linecount.py counts what git would undercount).
    """

    __slots__ = ("_blobs", "changes", "repo", "tree")

    def __init__(self, repo: pygit2.Repository, changes: list[Change],
                 tree: pygit2.Tree | pygit2.Index | None = None) -> None:
        self.repo = repo
        self.changes = changes
        self.tree = tree  # what the changes lead to (a commit's tree, the index): where links are followed
        self._blobs: dict[pygit2.Oid, bytes | None] = {}

    def __len__(self) -> int:
        return len(self.changes)

    def blob(self, oid: pygit2.Oid | None, mode: int) -> bytes | None:
        """A blob's bytes (cached); None for a submodule or a missing object."""
        if oid is None or mode == GITLINK:
            return None
        if oid not in self._blobs:
            self._blobs[oid] = blob_data(self.repo, oid, mode)
        return self._blobs[oid]

    def content(self, change: Change) -> bytes | None:
        """What the change leaves at its path; None for a deletion or a submodule."""
        return None if change.status == "D" else self.blob(change.new_id, change.new_mode)

    def target(self, change: Change) -> str | None:
        """The target a symbolic link's change leaves, as git holds it (bytes that are not
        UTF-8 kept as surrogates); None for anything else, or a blob this clone lacks."""
        if change.status == "D" or change.new_mode & 0o170000 != SYMLINK:
            return None
        return _text(self.content(change))

    def link_at(self, path: str) -> str | None:
        """The target of the symbolic link at `path` in the tree the changes lead to; None
        where no link is. A change set made without that tree cannot follow links, and says so
        rather than answer "no link"."""
        if self.tree is None:
            raise RuntimeError("this change set holds no tree to follow symbolic links through")
        try:
            entry = self.tree[path]
        except (KeyError, ValueError, UnicodeError):
            return None
        mode = entry.mode if isinstance(entry, pygit2.IndexEntry) else entry.filemode
        return _text(self.blob(entry.id, mode)) if mode & 0o170000 == SYMLINK else None

    def line_counts(self) -> tuple[int, int]:
        """(added, removed) content lines, as linecount.py counts them (binary content and
        bare `\\r` line ends too); submodules count none."""
        added = removed = 0
        for c in self.changes:
            new = None if c.status == "D" else self.blob(c.new_id, c.new_mode)
            # A copy leaves its source in place: git counts it as a new file.
            old = None if c.status in ("A", "C") else self.blob(c.old_id, c.old_mode)
            if old is not None and new is not None and c.old_id == c.new_id:
                continue
            plus, minus = linecount.changed(old, new)
            added += plus
            removed += minus
        return added, removed


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "surrogateescape")


def count_lines(data: bytes | None) -> int:
    """Lines a whole blob counts for against `max_diff_lines` (linecount.py)."""
    return linecount.count(data)


def blob_data(repo: pygit2.Repository, oid: pygit2.Oid | str | None, mode: int = 0o100644) -> bytes | None:
    """A blob's bytes; None for a submodule (its id is a commit elsewhere) or a missing object."""
    if not oid or mode == GITLINK:
        return None
    try:
        kind, data = repo.odb.read(oid if isinstance(oid, pygit2.Oid) else pygit2.Oid(hex=oid))
    except (KeyError, ValueError):
        return None
    return data if kind == _BLOB else None


def _from_diff(diff: pygit2.Diff) -> list[Change]:
    # Renames always (cheap: nothing to pair without deletions). Copies only in an
    # ordinary-sized change: libgit2 compares every new file with every modified one,
    # and a copy's source is a modified file, judged in its own right anyway.
    diff.find_similar(_FIND_COPIES if len(diff) <= _COPY_LIMIT else DiffFind.FIND_RENAMES)
    out: list[Change] = []
    for d in diff.deltas:
        status = d.status_char()
        if status not in _STATUS:
            continue
        new, old = d.new_file, d.old_file
        if status == "D":
            out.append(Change("D", old.path, None, None, old.id, 0, old.mode))
            continue
        other = old.path if status in ("R", "C") and old.path != new.path else None
        if status == "A":
            out.append(Change("A", new.path, None, new.id, None, new.mode, 0))
        else:
            out.append(Change(status, new.path, other, new.id, old.id, new.mode, old.mode))
    return out


def head_commit(repo: pygit2.Repository) -> pygit2.Commit | None:
    if repo.head_is_unborn:
        return None
    return repo.head.peel(pygit2.Commit)


def merge_heads(repo: pygit2.Repository) -> list[pygit2.Commit]:
    """The other parents of a merge being concluded (`MERGE_HEAD`), if any."""
    out = []
    for oid in repo.listall_mergeheads():
        try:
            out.append(repo[oid].peel(pygit2.Commit))
        except (KeyError, ValueError):
            continue
    return out


def staged(repo: pygit2.Repository) -> ChangeSet:
    """What the commit being made changes: the index against HEAD's tree.

    With no HEAD yet (the first commit) every index entry is an addition. When a
    merge is being concluded, only paths that differ from every parent count: what
    one side already carries was judged when it was committed (and at its push).
    """
    index = repo.index
    head = head_commit(repo)
    if head is None:
        return ChangeSet(repo, [Change("A", e.path, None, e.id, None, e.mode, 0) for e in index], index)
    diff = index.diff_to_tree(head.tree)
    changes = _from_diff(diff)
    others = merge_heads(repo)
    if not others:
        return ChangeSet(repo, changes, index)
    return ChangeSet(repo, _new_to_every_parent(changes, [c.tree for c in others]), index)


def _tree_entry(tree: pygit2.Tree, path: str) -> tuple[pygit2.Oid, int] | None:
    try:
        entry = tree[path]
    except (KeyError, UnicodeError):
        return None
    return entry.id, entry.filemode


def _new_to_every_parent(changes: list[Change], other_trees: list[pygit2.Tree]) -> list[Change]:
    """Changes (already relative to the first parent) that no other parent carries."""
    kept = []
    for c in changes:
        new_side = None if c.status == "D" else (c.new_id, c.new_mode)
        differs = all(_tree_entry(t, c.path) != new_side for t in other_trees)
        if not differs and c.old_path is not None and c.status == "R":
            differs = any(_tree_entry(t, c.old_path) is not None for t in other_trees)
        if differs:
            kept.append(c)
    return kept


class TreeCache:
    """Raw entries of recently read trees, so that a walk over many commits reads
    each tree once (a commit's parent tree is usually the tree just read)."""

    __slots__ = ("_entries", "limit", "repo")

    def __init__(self, repo: pygit2.Repository, limit: int = 512) -> None:
        self.repo = repo
        self._entries: dict[bytes, frozenset[bytes]] = {}
        self.limit = limit

    def entries(self, raw_oid: bytes | None) -> frozenset[bytes]:
        if raw_oid is None:
            return frozenset()
        found = self._entries.get(raw_oid)
        if found is None:
            _kind, data = self.repo.odb.read(pygit2.Oid(raw=raw_oid))
            found = frozenset(_RAW_ENTRY.findall(data))
            if len(self._entries) >= self.limit:
                del self._entries[next(iter(self._entries))]
            self._entries[raw_oid] = found
        return found


# One entry of a raw tree object: `<octal mode> <name>\0<20-byte id>`.
_RAW_ENTRY = re.compile(rb"[0-7]+ [^\0]*\0.{20}", re.S)
_ENTRY = re.compile(rb"([0-7]+) ([^\0]*)\0(.{20})", re.S)
_TREE_MODE = b"40000"
_RawSide = tuple[bytes, bytes]  # (octal mode, raw id)


def _tree_delta(trees: TreeCache, old: bytes | None, new: bytes | None, prefix: bytes,
                out: list[tuple[bytes, _RawSide | None, _RawSide | None]]) -> None:
    """Files that differ between two trees, descending only into subtrees that differ.

    libgit2's tree-to-tree diff reads every entry of both trees, which for a push of
    many small commits in a big repository costs far more than the commits change.
    A loop over pending folders, not recursion: a commit may nest folders thousands deep.
    """
    pending = [(old, new, prefix)]
    while pending:
        old, new, prefix = pending.pop()
        a, b = trees.entries(old), trees.entries(new)
        olds = {m[1]: (m[0], m[2]) for m in (_ENTRY.match(e).groups() for e in a - b)}  # type: ignore[union-attr]
        news = {m[1]: (m[0], m[2]) for m in (_ENTRY.match(e).groups() for e in b - a)}  # type: ignore[union-attr]
        for name in olds.keys() | news.keys():
            ea, eb = olds.get(name), news.get(name)
            a_tree = ea is not None and ea[0] == _TREE_MODE
            b_tree = eb is not None and eb[0] == _TREE_MODE
            if a_tree or b_tree:
                pending.append((ea[1] if a_tree else None, eb[1] if b_tree else None,  # type: ignore[index]
                                prefix + name + b"/"))
            a_file = None if ea is None or a_tree else ea
            b_file = None if eb is None or b_tree else eb
            if a_file is not None or b_file is not None:
                out.append((prefix + name, a_file, b_file))


def _changes_between(repo: pygit2.Repository, old: pygit2.Tree | None, new: pygit2.Tree,
                     trees: TreeCache) -> list[Change]:
    """What `new` changes against `old` (None: the empty tree), renames included."""
    raw: list[tuple[bytes, _RawSide | None, _RawSide | None]] = []
    _tree_delta(trees, old.id.raw if old is not None else None, new.id.raw, b"", raw)
    if any(a is None for _p, a, _b in raw) and any(b is None for _p, _a, b in raw):
        # Files both appear and disappear: libgit2 pairs renames (and copies) as git does.
        diff = new.diff_to_tree(swap=True) if old is None else old.diff_to_tree(new)
        return _from_diff(diff)
    out = []
    for path, a, b in sorted(raw):
        name = path.decode("utf-8", "surrogateescape")
        if a is None:
            out.append(Change("A", name, None, pygit2.Oid(raw=b[1]), None, int(b[0], 8), 0))  # type: ignore[index]
        elif b is None:
            out.append(Change("D", name, None, None, pygit2.Oid(raw=a[1]), 0, int(a[0], 8)))
        else:
            ma, mb = int(a[0], 8), int(b[0], 8)
            status = "T" if (ma & 0o170000) != (mb & 0o170000) else "M"
            out.append(Change(status, name, None, pygit2.Oid(raw=b[1]), pygit2.Oid(raw=a[1]), mb, ma))
    return out


def commit_changes(repo: pygit2.Repository, oid: str, trees: TreeCache | None = None) -> ChangeSet:
    """What one commit changes against its first parent (a root commit: against
    nothing); for a merge, only what no parent already carries."""
    trees = trees or TreeCache(repo)
    commit = repo[oid].peel(pygit2.Commit)
    parents = commit.parents
    changes = _changes_between(repo, parents[0].tree if parents else None, commit.tree, trees)
    if len(parents) <= 1:
        return ChangeSet(repo, changes, commit.tree)
    return ChangeSet(repo, _new_to_every_parent(changes, [p.tree for p in parents[1:]]), commit.tree)


def missing_objects(changes: ChangeSet) -> list[str]:
    """The paths whose blobs the rules need and this repository lacks (a partial clone's
    promisor objects, a tree that names an object nobody wrote): the content each side
    leaves or removes. A submodule's commit lives in another repository: not looked for."""
    odb = changes.repo.odb
    out = []
    for c in changes.changes:
        sides = ((c.new_id, c.new_mode), (None if c.status in ("A", "C") else c.old_id, c.old_mode))
        if any(oid is not None and mode != GITLINK and oid not in odb for oid, mode in sides):
            out.append(c.path)
    return out


def partial_clone(repo: pygit2.Repository) -> str | None:
    """The remote a partial clone (`--filter`) fetches missing objects from lazily, if any:
    libgit2 never fetches them, so what such a clone lacks is not there to read."""
    config = repo.config
    for entry in config:
        name = entry.name.lower()
        if name == "extensions.partialclone" and entry.value:
            return str(entry.value)
        promisor = name.startswith("remote.") and name.endswith(".promisor")
        if promisor and str(entry.value).lower() in ("true", "1", "yes", "on"):
            return name[len("remote."):-len(".promisor")]
    return None


# --------------------------------------------------------------------------- commits and refs


def resolve(repo: pygit2.Repository, rev: str) -> str | None:
    """The commit `rev` names, or None when this repository does not have it."""
    if not rev or rev == Z40:
        return None
    try:
        return str(repo.revparse_single(rev).peel(pygit2.Commit).id)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        return None


def has_commit(repo: pygit2.Repository, oid: str) -> bool:
    return resolve(repo, oid) is not None


def is_ancestor(repo: pygit2.Repository, ancestor: str, descendant: str) -> bool:
    """Whether `descendant` contains `ancestor` (a commit is its own ancestor)."""
    a, d = resolve(repo, ancestor), resolve(repo, descendant)
    if a is None or d is None:
        return False
    return a == d or bool(repo.descendant_of(d, a))


def refs_under(repo: pygit2.Repository, prefix: str) -> dict[str, str]:
    """Ref name -> commit id for every ref under `prefix` that points at a commit."""
    out = {}
    for name in repo.references:
        if not name.startswith(prefix) or name.endswith("/HEAD"):
            continue
        oid = resolve(repo, name)
        if oid is not None:
            out[name] = oid
    return out


def tracking_refs(repo: pygit2.Repository, remote: str) -> dict[str, str]:
    """The remote-tracking refs of `remote` (none for a URL or a fresh remote)."""
    return refs_under(repo, f"refs/remotes/{remote}/")


def local_branches(repo: pygit2.Repository) -> dict[str, str]:
    return refs_under(repo, "refs/heads/")


def reflog_newest(repo: pygit2.Repository, name: str) -> tuple[str, str] | None:
    """(new id, message) of the newest reflog entry of ref `name`; None without one."""
    ref = repo.references.get(name)
    if ref is None:
        return None
    for entry in ref.log():
        return str(entry.oid_new), entry.message or ""
    return None


def reflog_oldest_message(repo: pygit2.Repository, name: str = "HEAD") -> str | None:
    ref = repo.references.get(name)
    last = None
    if ref is not None:
        for entry in ref.log():
            last = entry.message or ""
    return last


def is_loose_ref(repo: pygit2.Repository, name: str) -> bool:
    """Whether `name` is stored as its own file (written since the last pack), not only
    in packed-refs, where `git clone` leaves the refs it wrote."""
    return os.path.isfile(os.path.join(common_dir(repo), *name.split("/")))


def remote_urls(repo: pygit2.Repository, remote: str) -> list[str]:
    """The URLs a named remote fetches from and pushes to (none for a URL given as the remote)."""
    out = []
    for key in ("url", "pushurl"):
        value = config_value(repo, f"remote.{remote}.{key}")
        if value:
            out.append(value)
            if "://" not in value and ":" not in value.split("/")[0] and not os.path.isabs(value):
                out.append(os.path.normpath(os.path.join(workdir(repo), value)))
    return out


def commit_people(repo: pygit2.Repository, oid: str) -> tuple[str, str, str]:
    """(message, `author <email>`, `committer <email>`), decoded so that no byte can fail."""
    commit = repo[oid].peel(pygit2.Commit)

    def who(sig: pygit2.Signature) -> str:
        name = sig.raw_name.decode("utf-8", "replace")
        email = sig.raw_email.decode("utf-8", "replace")
        return f"{name} <{email}>"

    return commit.raw_message.decode("utf-8", "replace"), who(commit.author), who(commit.committer)


def new_commits(repo: pygit2.Repository, tips: Iterable[str], hidden: Iterable[str]) -> Iterator[str]:
    """Commits reachable from `tips` and from none of `hidden`, parents before children."""
    walker = None
    for tip in dict.fromkeys(tips):
        if walker is None:
            walker = repo.walk(tip, SortMode.TOPOLOGICAL | SortMode.REVERSE)
        else:
            walker.push(tip)
    if walker is None:
        return
    for h in dict.fromkeys(hidden):
        if has_commit(repo, h):
            walker.hide(h)
    for commit in walker:
        yield str(commit.id)


def commit_summary(repo: pygit2.Repository, oid: str) -> str:
    """`abc1234 first line of the message`, for messages."""
    commit = repo[oid].peel(pygit2.Commit)
    first = (commit.message or "").strip().splitlines()
    return f"{oid[:7]} {first[0][:60] if first else ''}".rstrip()


# --------------------------------------------------------------------------- ranges (living memory)


def range_changes(repo: pygit2.Repository, base: str | None, head: str) -> ChangeSet:
    """What `head`'s tree changes against `base`'s (None: against the empty tree),
    renames paired: `git diff base head` taken as one change, however many commits
    lie between, so a long range costs one tree comparison."""
    old = repo[base].peel(pygit2.Commit).tree if base else None
    new = repo[head].peel(pygit2.Commit).tree
    return ChangeSet(repo, _changes_between(repo, old, new, TreeCache(repo)), new)


# --------------------------------------------------------------------------- work tree (the loop runner)
#
# The loop compares the work tree with the commit its run started from, never with
# HEAD: an agent that commits, resets or checks out must not make its changes vanish.
# Work-tree content is identified as git would store it: `<octal mode>:<blob id>`.

_WORKTREE_FLAGS = DiffOption.INCLUDE_UNTRACKED | DiffOption.RECURSE_UNTRACKED_DIRS | DiffOption.INCLUDE_TYPECHANGE


def head_ids(repo: pygit2.Repository) -> tuple[str, str] | None:
    """(commit id, tree id) of HEAD; None before the first commit."""
    head = head_commit(repo)
    return None if head is None else (str(head.id), str(head.tree.id))


def worktree_changes(repo: pygit2.Repository, tree_id: str) -> list[Change]:
    """Every path whose work-tree state differs from tree `tree_id`: tracked changes,
    untracked files as additions (ignored files are not seen), renames paired.
    Work-tree ids are not computed here (`new_id` is None): see `workfile_id`."""
    tree = repo[tree_id].peel(pygit2.Tree)
    diff = tree.diff_to_workdir(_WORKTREE_FLAGS)
    diff.find_similar(DiffFind.FIND_RENAMES | DiffFind.FIND_FOR_UNTRACKED)
    out: list[Change] = []
    for d in diff.deltas:
        status = d.status_char()
        new, old = d.new_file, d.old_file
        if status in ("?", "A"):
            out.append(Change("A", new.path, None, None, None, new.mode, 0))
        elif status == "D":
            out.append(Change("D", old.path, None, None, old.id, 0, old.mode))
        elif status in ("M", "T"):
            out.append(Change(status, new.path, None, None, old.id, new.mode, old.mode))
        elif status in ("R", "C"):
            other = old.path if old.path != new.path else None
            out.append(Change(status, new.path, other, None, old.id, new.mode, old.mode))
    return out


def tree_entry_id(repo: pygit2.Repository, tree_id: str, path: str) -> str | None:
    """`<mode>:<id>` of `path` in tree `tree_id`, or None where the tree has no such file."""
    found = _tree_entry(repo[tree_id].peel(pygit2.Tree), path)
    return None if found is None else f"{found[1]:o}:{found[0]}"


def tree_blob(repo: pygit2.Repository, tree_id: str, path: str) -> bytes | None:
    found = _tree_entry(repo[tree_id].peel(pygit2.Tree), path)
    return None if found is None else blob_data(repo, found[0], found[1])


def workfile_id(root: str, path: str) -> str | None:
    """`<mode>:<blob id>` of a work-tree path as git would store it; None when absent."""
    import stat

    full = os.path.join(os.fsencode(root), os.fsencode(path))
    try:
        st = os.lstat(full)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISLNK(st.st_mode):
        return f"120000:{pygit2.hash(os.readlink(full))}"
    if stat.S_ISDIR(st.st_mode):
        return "40000:directory"  # a nested repository: its content is its own
    if not stat.S_ISREG(st.st_mode):
        return "0:special"
    mode = 0o100755 if st.st_mode & 0o111 else 0o100644
    return f"{mode:o}:{pygit2.hashfile(os.fsdecode(full))}"  # streamed: a large file is never held whole


def ignored_paths(repo: pygit2.Repository) -> list[str]:
    """Paths git ignores in the work tree; an ignored folder is one entry ending in `/`."""
    return sorted(p for p, st in repo.status(untracked_files="normal", ignored=True).items()
                  if st & FileStatus.IGNORED)
