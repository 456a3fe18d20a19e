"""History made where no hook ran, brought into the project.

handrail's git hooks judge each commit as it is made in the project: a commit that touches
`.handrail/**`, the harnesses' settings or the git hooks is refused there. A clone on the same
machine has none of those hooks (`git clone . /tmp/c` copies no hooks), so an agent can commit
anything there and bring the commits back: `git pull /tmp/c`, `git fetch /tmp/c main:main`,
`git fetch /tmp/c` then `git merge FETCH_HEAD`, a remote whose URL is such a path, or a push
run in the clone whose target is the project (`git -C /tmp/c push <project> HEAD:x`). Once in,
a merge or fast-forward moves the project's branch onto commits no hook saw; pre-commit never
runs for them. So bringing commits from a repository on this machine into the project needs a
human: a path, `file://`, a host that is this machine, a configured remote whose URL is one
(after `insteadOf`), or a source only known at run time. Fetching a configured network remote
is the ordinary way work arrives and stays as the policy says: its commits were pushed through
that remote's own checks, and the pre-push hook and CI judge what leaves.

A path that is the project's own repository (`.`, its root, its git folder, a linked worktree)
brings nothing new. Where git runs somewhere else (`-C`, `--git-dir`, a `cd` out of the project),
a fetch there changes another repository and is left alone; a push from there into the project
is the same import run the other way.
"""

from __future__ import annotations

import os

from handrail.policy.shell import gitrepo
from handrail.policy.shell.common import in_project
from handrail.policy.shell.parts import resolve
from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx, Finding
    from handrail.policy.shell.parts import Part

RULE = "git-safety-net"
# Options of fetch, pull and push whose value is the next word (git's parse-options: `--opt V`).
_VALUES = frozenset({"--depth", "--deepen", "--shallow-since", "--shallow-exclude", "--refmap", "-o",
                     "--server-option", "--upload-pack", "-j", "--jobs", "--negotiation-tip", "--filter", "-s",
                     "--strategy", "-X", "--strategy-option", "--recurse-submodules-default", "--submodule-prefix",
                     "--repo", "--push-option", "--receive-pack", "--exec", "--recurse-submodules"})
# Subcommands that move a branch or the work tree onto the commits they name.
_TAKERS = frozenset({"merge", "rebase", "cherry-pick", "reset", "checkout", "switch", "branch", "update-ref",
                     "read-tree", "pull", "worktree", "tag"})
_UPSTREAM = ("@{u}", "@{upstream}", "@{push}")
_BRINGERS = frozenset({"fetch", "pull", "remote", "bundle", "push"})


class _Here:
    """The repository a git command runs in: the project's, another one, or unknown."""

    __slots__ = ("gitdir", "kind", "shown")

    def __init__(self, kind: str, gitdir: str | None, shown: str) -> None:
        self.kind = kind  # "project", "elsewhere", "unknown"
        self.gitdir = gitdir
        self.shown = shown


def where(part: Part, ctx: Ctx) -> _Here:
    """Where this git command runs: `--git-dir`/GIT_DIR first, then its folder (`-C`, `cd`)."""
    given = [w for opt, w in part.git_paths if opt == "--git-dir"] + [w for n, w in part.assigns if n == "GIT_DIR"]
    if given:
        path = resolve(given[-1], part.cwd, ctx.home)
        if path is None:
            return _Here("unknown", None, given[-1].raw)
        if gitrepo.same_repository(path, ctx.project):
            return _Here("project", gitrepo.git_dir(ctx.project), given[-1].raw)
        return _Here("elsewhere", path, given[-1].raw)
    cwd = part.cwd
    if cwd is None:
        return _Here("unknown", None, "a folder only known at run time")
    if in_project(cwd, ctx):
        return _Here("project", gitrepo.git_dir(ctx.project), cwd)
    probe = cwd
    for _ in range(64):
        found = gitrepo.git_dir(probe)
        if found is not None:
            kind = "project" if gitrepo.same_repository(probe, ctx.project) else "elsewhere"
            return _Here(kind, found, probe)
        up = os.path.dirname(probe)
        if up == probe:
            break
        probe = up
    return _Here("elsewhere", None, cwd)


def _scan(words: list[Word]) -> tuple[set[str], list[Word]]:
    opts: set[str] = set()
    ops: list[Word] = []
    i = 0
    while i < len(words):
        w = words[i]
        t = w.text
        if t == "--":
            ops += words[i + 1:]
            break
        if t.startswith("-") and len(t) > 1 and not w.dyn:
            opts.add(t.split("=", 1)[0])
            if t in _VALUES:
                if t == "--repo" and i + 1 < len(words):
                    ops.insert(0, words[i + 1])
                i += 1
            elif t.startswith("--repo="):
                ops.insert(0, _tail(w))
        else:
            ops.append(w)
        i += 1
    return opts, ops


def _tail(w: Word) -> Word:
    out = Word(w.text.split("=", 1)[1], w.raw.split("=", 1)[-1])
    out.dyn = w.dyn
    return out


def _foreign(source: Word, cfg: gitrepo.Config, part: Part, ctx: Ctx, base: str | None) -> str | None:
    """Why the repository `source` names is another one on this machine; None when it is a
    network remote or the project's own repository."""
    if source.dyn:
        return f"{source.raw} is only known at run time"
    name = source.text
    urls = cfg.remotes.get(name)
    if urls is None:
        if _bare_name(name) and not os.path.exists(os.path.join(base or ctx.project, name)):
            return None  # no remote here and no such folder: a remote of configuration not read here, or git fails
        urls = [name]
    for url in urls:
        url = gitrepo.rewritten(url, cfg)
        if not gitrepo.local_url(url):
            continue
        path = _url_path(url, base, ctx.home)
        if path is not None and gitrepo.same_repository(path, ctx.project):
            continue
        shown = name if url == name else f"{name} ({url})"
        return f"{shown} is a repository on this machine"
    return None


def _bare_name(name: str) -> bool:
    """A word git would take for a remote's name before a path: no slash, no scheme, no `~`."""
    return bool(name) and "/" not in name and "\\" not in name and ":" not in name and name[0] not in "~."


def _url_path(url: str, base: str | None, home: str) -> str | None:
    if url.lower().startswith("file://"):
        url = url[7:]
    w = Word(url, url)
    w.tilde = url.startswith("~")
    return resolve(w, base, home)


def _config(here: _Here, part: Part) -> gitrepo.Config:
    cfg = gitrepo.config(here.gitdir) if here.gitdir is not None else gitrepo.Config()
    return gitrepo.with_overrides(cfg, part.git_config)


def check_import(part: Part, ctx: Ctx) -> list[Finding]:
    """git fetch, pull, remote update, remote add, bundle unbundle from a repository here, and
    merges of what such a fetch left (FETCH_HEAD, its remote-tracking branches); a push into
    the project from another repository."""
    words = part.words
    if len(words) < 2 or not ctx.enabled(RULE):
        return []
    sub = words[1].text
    if sub not in _BRINGERS and sub not in _TAKERS:
        return []  # the subcommands that neither fetch nor take fetched commits: no disk read for them
    here = where(part, ctx)
    if sub == "push":
        return _push_in(part, here, ctx)
    if here.kind == "elsewhere":
        return []
    opts, ops = _scan(words[2:])
    cfg = _config(here, part)
    base = part.cwd
    sources: list[Word] = []
    if sub in ("fetch", "pull"):
        if "--all" in opts:
            sources = [_word(n) for n in cfg.remotes]
        elif "--multiple" in opts:
            sources = ops
        elif ops:
            sources = ops[:1]
        else:
            default = gitrepo.default_remote(here.gitdir, cfg) if here.gitdir else None
            sources = [_word(default)] if default else []
    elif sub == "remote" and ops:
        action = ops[0].text
        if action == "add" and len(ops) >= 3:
            # without -f it fetches nothing yet, but a pull of the name follows it (`git remote add x
            # ../clone && git pull x`), which this classification cannot see in the configuration
            sources = ops[2:3]
        elif action == "update":
            sources = ops[1:] or [_word(n) for n in cfg.remotes]
    elif sub == "bundle" and bundle_file(words[2:])[0] == "unbundle":
        return [(3, RULE, "git bundle unbundle brings commits from a file into the repository, made where no "
                          "git hook of the project ran")]
    for source in sources:
        why = _foreign(source, cfg, part, ctx, base)
        if why is not None:
            return [(3, RULE, f"git {sub} brings commits from {why}: commits made there passed none of the "
                              "project's git hooks")]
    if sub in _TAKERS:
        return _takes_foreign(sub, ops, here, cfg, part, ctx)
    return []


def bundle_file(rest: list[Word]) -> tuple[str, Word | None]:
    """`git bundle ACTION [options] FILE …` (`rest` starts at ACTION): the action and the bundle file.
    `create` writes it, `verify`, `list-heads` and `unbundle` read it; `-` (standard output or
    input) is no file. The only option with a separate value is create's `--version N`."""
    if not rest:
        return "", None
    i = 1
    while i < len(rest):
        t = rest[i].text
        if t == "--":
            i += 1
            break
        if not t.startswith("-") or t == "-":
            break
        i += 2 if t == "--version" else 1
    file = rest[i] if i < len(rest) else None
    return rest[0].text, (None if file is None or file.text == "-" else file)


def bundle_written(words: list[Word]) -> list[Word]:
    """The file `git bundle create FILE` writes; none for any other git command."""
    if len(words) < 3 or words[1].text != "bundle":
        return []
    action, file = bundle_file(words[2:])
    return [file] if action == "create" and file is not None else []


def _word(text: str) -> Word:
    return Word(text, text)


def _takes_foreign(sub: str, ops: list[Word], here: _Here, cfg: gitrepo.Config, part: Part,
                   ctx: Ctx) -> list[Finding]:
    """`git merge FETCH_HEAD` after a fetch from a path, `git rebase x/main` of a remote whose URL is
    a path, a bare `git merge` whose upstream is such a remote."""
    names = [w.text for w in ops if not w.dyn]
    if here.gitdir is not None and any("FETCH_HEAD" in n for n in names):
        fetched = gitrepo.fetch_head_sources(here.gitdir)
        if isinstance(fetched, str):
            return [(3, RULE, f"git {sub} FETCH_HEAD takes the commits its FETCH_HEAD names, and that file is "
                              f"{fetched}")]
        for source in fetched or []:
            if _foreign(_word(source), gitrepo.Config(), part, ctx, part.cwd) is not None:
                return [(3, RULE, f"git {sub} FETCH_HEAD takes the commits last fetched from {source}, a "
                                  "repository on this machine where no git hook of the project ran")]
    remotes = set()
    for n in names:
        ref = n.removeprefix("refs/").removeprefix("remotes/")
        head = ref.split("/", 1)[0]
        if "/" in ref and head in cfg.remotes:
            remotes.add(head)
    if (sub in ("merge", "rebase") and not ops) or any(n.endswith(_UPSTREAM) for n in names):
        default = gitrepo.default_remote(here.gitdir, cfg) if here.gitdir else None
        if default:
            remotes.add(default)
    for remote in sorted(remotes):
        why = _foreign(_word(remote), cfg, part, ctx, part.cwd)
        if why is not None:
            return [(3, RULE, f"git {sub} takes commits fetched from {why}, where no git hook of the project ran")]
    return []


def _push_in(part: Part, here: _Here, ctx: Ctx) -> list[Finding]:
    """A push run in another repository whose target is the project."""
    if here.kind == "project":
        return []
    _opts, ops = _scan(part.words[2:])
    cfg = _config(here, part)
    target: Word | None = None
    if ops:
        target = ops[0]
    elif here.gitdir is not None:
        default = gitrepo.default_remote(here.gitdir, cfg)
        if default is None:
            return []
        target = _word(default)
    elif here.kind == "elsewhere":
        return []  # no repository there: git refuses
    if target is None or target.dyn:
        shown = target.raw if target is not None else "its default remote"
        return [(3, RULE, f"git push from {here.shown} to {shown}, a target only known at run time, may push "
                          "commits no git hook of the project saw into the project")]
    for url in cfg.remotes.get(target.text, [target.text]):
        url = gitrepo.rewritten(url, cfg)
        if not gitrepo.local_url(url):
            continue
        path = _url_path(url, part.cwd, ctx.home)
        if path is None or gitrepo.same_repository(path, ctx.project):
            return [(3, RULE, f"git push from {here.shown} into {target.raw}, the project's repository: commits "
                              "made there passed none of the project's git hooks")]
    return []
