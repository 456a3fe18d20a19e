"""The git repositories on this machine, read from their files as git lays them out: where a
work tree's git folder is, which remotes its configuration names and at which URLs, what the
last fetch brought (FETCH_HEAD), and whether a path is the project's own repository.

The classifier decides before the command runs and never starts git or opens pygit2 on the
hot path, so this reads the few plain files git itself reads: `.git` (a folder, or a file
`gitdir: …` in a linked worktree), `commondir`, `config` and `FETCH_HEAD`. What cannot be
read is reported as unknown, and the rules that ask treat unknown as a human's call. Each is
read only as a regular file (codefile.read_code): the agent can put a FIFO in its place, whose
plain open would wait for a writer and hang the hook.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

# Hosts that are this machine: an ssh or git URL to one reaches a repository here.
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0", "localhost.localdomain"})
# Compiled on first use: most commands never ask where a repository is.
_SOURCES = {
    "scp": r"^(?:[^@/:]+@)?(\[[^\]]*\]|[^/:]+):",  # `host:path`, `user@host:path`
    "url": r"^([a-zA-Z][a-zA-Z0-9+.-]*)://(?:[^@/]*@)?(\[[^\]]*\]|[^/:]*)",
    "section": r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]',
}
_COMPILED: dict[str, re.Pattern[str]] = {}
_CACHE: dict[str, tuple[tuple[int, int], Config]] = {}


class Config:
    """What a repository's configuration says about remotes: URL of each, `insteadOf` rewrites."""

    __slots__ = ("branch_remotes", "insteadof", "remotes")

    def __init__(self) -> None:
        self.remotes: dict[str, list[str]] = {}
        self.insteadof: list[tuple[str, str]] = []  # (prefix, base)
        self.branch_remotes: dict[str, str] = {}  # branch -> the remote it pulls from


def _rx(name: str) -> re.Pattern[str]:
    hit = _COMPILED.get(name)
    if hit is None:
        hit = _COMPILED[name] = re.compile(_SOURCES[name])
    return hit


def git_dir(work_tree: str) -> str | None:
    """The git folder of a work tree (or of a git folder itself): `.git`, or where a linked
    worktree's `.git` file points; None when there is none to read."""
    dot = os.path.join(work_tree, ".git")
    if os.path.isdir(dot):
        return dot
    if os.path.isfile(dot):
        head = (_text(dot, 4096) or "").strip()
        if head.startswith("gitdir:"):
            target = head[7:].strip()
            return os.path.normpath(os.path.join(work_tree, target))
        return None
    if os.path.isfile(os.path.join(work_tree, "HEAD")) and os.path.isdir(os.path.join(work_tree, "objects")):
        return work_tree  # a bare repository, or a git folder named directly
    return None


def _text(path: str, limit: int) -> str | None:
    """Up to `limit` characters' worth of a regular file git keeps; None when it is missing, cannot
    be read, or is no regular file."""
    from handrail.policy.shell.codefile import read_code_text

    text = read_code_text(os.path.abspath(path), limit)
    return None if text is None else text[:limit]


def common_dir(gitdir: str) -> str:
    """A linked worktree's git folder shares config, objects and refs with the main one."""
    rel = (_text(os.path.join(gitdir, "commondir"), 4096) or "").strip()
    return os.path.normpath(os.path.join(gitdir, rel)) if rel else gitdir


def same_repository(path: str, project: str) -> bool:
    """Is `path` the project's own repository: its root, its git folder, or a linked worktree
    (anywhere on the disk) sharing its objects and refs?"""
    if path == project:
        return True
    mine = git_dir(project)
    if mine is None:
        return False
    mine = os.path.realpath(common_dir(mine))
    if os.path.realpath(path) in (mine, os.path.realpath(project)):
        return True
    theirs = git_dir(path)
    return theirs is not None and os.path.realpath(common_dir(theirs)) == mine


def config(gitdir: str) -> Config:
    """The remotes of a repository's own `config` file (cached by its size and time, so an edit
    between two questions is seen)."""
    path = os.path.join(common_dir(gitdir), "config")
    try:
        st = os.stat(path)
    except OSError:
        return Config()
    stamp = (st.st_mtime_ns, st.st_size)
    hit = _CACHE.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    text = _text(path, 1 << 20)
    if text is None:
        return Config()
    cfg = _parse(text.splitlines())
    if len(_CACHE) < 64:
        _CACHE[path] = (stamp, cfg)
    return cfg


def _parse(lines: Iterable[str]) -> Config:
    cfg = Config()
    section, sub = "", ""
    for line in lines:
        m = _rx("section").match(line)
        if m is not None:
            section, sub = m.group(1).lower(), (m.group(2) or "").replace('\\"', '"')
            line = line[m.end():]
        key, eq, value = line.strip().partition("=")
        key = key.strip().lower()
        if not eq or not key or key.startswith(("#", ";")):
            continue
        value = value.split(" #", 1)[0].split(" ;", 1)[0].strip().strip('"')
        if section == "remote" and key in ("url", "pushurl"):
            cfg.remotes.setdefault(sub, []).append(value)
        elif section == "url" and key in ("insteadof", "pushinsteadof"):
            cfg.insteadof.append((value, sub))
        elif section == "branch" and key == "remote":
            cfg.branch_remotes[sub] = value
    return cfg


def with_overrides(cfg: Config, settings: list[str]) -> Config:
    """The configuration as a `git -c remote.x.url=… -c url.B.insteadOf=P` run sees it."""
    extra = [s for s in settings if s.lower().startswith(("remote.", "url."))]
    if not extra:
        return cfg
    out = Config()
    out.remotes = {k: list(v) for k, v in cfg.remotes.items()}
    out.insteadof = list(cfg.insteadof)
    out.branch_remotes = dict(cfg.branch_remotes)
    for s in extra:
        key, _, value = s.partition("=")
        first, _, rest = key.partition(".")
        name, _, last = rest.rpartition(".")
        if first.lower() == "remote" and last.lower() in ("url", "pushurl"):
            out.remotes[name] = [value]  # the command line's value wins over the file's
        elif first.lower() == "url" and last.lower() in ("insteadof", "pushinsteadof"):
            out.insteadof.append((value, name))
    return out


def rewritten(url: str, cfg: Config) -> str:
    """`url.<base>.insteadOf <prefix>`: the longest prefix that matches is replaced."""
    best = max((p for p in cfg.insteadof if p[0] and url.startswith(p[0])), key=lambda p: len(p[0]), default=None)
    return best[1] + url[len(best[0]):] if best is not None else url


def local_url(url: str) -> bool:
    """Does this URL (or path) name a repository on this machine? Paths, `file://`, and any
    transport to this machine's own host names; a bare name that is no URL is a path to git."""
    m = _rx("url").match(url)
    if m is not None:
        scheme, host = m.group(1).lower(), m.group(2).lower()
        return scheme == "file" or host in LOCAL_HOSTS
    if len(url) > 2 and url[1] == ":" and url[0].isalpha() and url[2] in "\\/":
        return True  # `C:\repos\x`
    m = _rx("scp").match(url)
    if m is not None and "/" not in url[: m.end()]:
        return m.group(1).lower() in LOCAL_HOSTS
    return True


def default_remote(gitdir: str, cfg: Config) -> str | None:
    """The remote a bare `git pull`, `git fetch`, `git merge` or `git push` uses: the current
    branch's, else `origin`; None when the repository names no remote at all."""
    head = (_text(os.path.join(gitdir, "HEAD"), 4096) or "").strip()
    branch = head[16:] if head.startswith("ref: refs/heads/") else ""
    name = cfg.branch_remotes.get(branch) or "origin"
    return name if name in cfg.remotes or name == "." else None


def fetch_head_sources(gitdir: str) -> list[str] | str | None:
    """Where the commits FETCH_HEAD holds came from; None when it is absent, the reason when it is
    there but not read (a FIFO, a device). Each line is `<commit> TAB [not-for-merge] TAB <what>`,
    where `<what>` is `branch 'x' of <url>` or, for a fetch of HEAD, the URL alone."""
    from handrail.policy.shell.codefile import read_code

    data = read_code(os.path.abspath(os.path.join(gitdir, "FETCH_HEAD")), 1 << 20)
    if not isinstance(data, bytes):
        return data
    lines = data[: 1 << 20].decode("utf-8", "replace").splitlines()
    out = []
    for line in lines:
        what = line.split("\t", 2)[-1].strip()
        _, sep, source = what.rpartition(" of ")
        if what:
            out.append((source if sep else what).strip())
    return out
