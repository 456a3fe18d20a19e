"""git: discarding work, rewriting or deleting history and refs, switching off the hooks."""

from __future__ import annotations

from handrail.policy.shell.common import Ctx, rx
from handrail.policy.shell.gitbypass import check_bypass
from handrail.policy.shell.gitconfig import check_config, check_run_config
from handrail.policy.shell.tokens import AFTER_DD, flag_name, is_flag

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part

    Finding = tuple[int, str, str]


# --------------------------------------------------------------------------- git


# Options of git subcommands whose value is the next word (not an operand).
_GIT_VALUES = {
    "checkout": frozenset({"-b", "-B", "--orphan", "--conflict", "-U", "--unified", "--inter-hunk-context"}),
    "switch": frozenset({"-c", "-C", "--orphan", "--conflict"}),
    "restore": frozenset({"-s", "--conflict", "-U", "--unified"}),
    "push": frozenset({"--repo", "-o", "--push-option", "--receive-pack", "--exec"}),
    "branch": frozenset({"-u", "--sort", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at",
                         "--format", "--column"}),
    "commit": frozenset({"-m", "-F", "-C", "-c", "--author", "--date", "-t", "--fixup", "--squash", "--cleanup",
                         "--trailer"}),
    "clean": frozenset({"-e"}),
    "stash": frozenset({"-m"}),
    "config": frozenset({"-f", "--blob", "--type", "--default"}),
}


def _git_opts(toks: list[str]) -> tuple[set[str], list[str]]:
    opts: set[str] = set()
    ops: list[str] = []
    after = False
    values = _GIT_VALUES.get(toks[1], frozenset())
    skip = False
    for t in toks[2:]:
        if skip:
            skip = False
        elif after or t.startswith(AFTER_DD):
            ops.append(t.lstrip(AFTER_DD))
        elif t == "--":
            after = True
        elif is_flag(t):
            opts.add(t if t.startswith("--prune=") else flag_name(t))
            skip = t in values
        else:
            ops.append(t)
    return opts, ops


def _pathlike(t: str) -> bool:
    return t in (".", "..", "*", ":/") or t.startswith(("./", "../", ":/", "/")) or bool(rx("_GLOBS").search(t)) \
        or bool(rx("_EXT").search(t))


# Long options whose abbreviations git accepts, and that the rules below look for.
_DANGER_LONG = ("--hard", "--merge", "--force", "--force-with-lease", "--force-if-includes", "--delete", "--mirror",
                "--no-verify", "--discard-changes", "--prune", "--worktree", "--recurse-submodules")


def check_git(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    out = check_run_config(part, ctx)
    if len(toks) < 2:
        return out
    sub = toks[1]
    opts, ops = _git_opts(toks)
    # git takes any unambiguous prefix of a long option: `git reset --ha` is --hard
    opts |= {d for o in opts if o.startswith("--") and len(o) >= 4 and o not in _DANGER_LONG
             for d in _DANGER_LONG if d.startswith(o.split("=", 1)[0])}
    if "-h" in opts and sub != "grep":  # `git <command> --help` shows the manual
        return out
    for cfg in part.git_config:
        if cfg.lower().startswith("alias.") and ctx.enabled("git-safety-net"):
            out.append((3, "dynamic", f"git -c {cfg.split('=', 1)[0]}=… defines an alias for this run: what it "
                                      "runs is not what the command line says"))
    out += _general(sub, opts, ops, toks, ctx)
    if sub == "config":
        out += check_config(part, ctx)
    rule = _BY_SUBCOMMAND.get(sub)
    if rule is not None:
        out += rule(sub, opts, ops, toks, ctx)
    return out + check_bypass(sub, ops, ctx, toks)


def _general(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    """Rules that look at more than one subcommand, or at one alongside the others."""
    out: list[Finding] = []
    if sub in ("checkout", "switch") and opts & {"-B", "-C", "--force-create"} and ctx.enabled("git-delete-refs"):
        at = next((i for i, t in enumerate(toks) if t in ("-B", "-C", "--force-create")), -1)
        target = toks[at + 1] if 0 <= at < len(toks) - 1 else ""
        if target in ("main", "master", "trunk", "develop", "production", "release"):
            out.append((3, "git-delete-refs", f"git {sub} {'-B' if sub == 'checkout' else '-C'} {target} moves "
                                              f"{target} wherever it is told, dropping its own commits"))
    if sub == "rm" and ("-r" in opts or "-rf" in toks) and "--cached" not in opts and ctx.enabled("git-discard"):
        out.append((3, "git-discard", "git rm -r deletes the folders from the work tree, uncommitted changes with "
                                      "them"))
    if "--no-verify" in opts and ctx.enabled("git-safety-net"):
        out.append((3, "git-safety-net", f"git {sub} --no-verify skips the git hooks"))
    if sub == "commit" and "-n" in opts and ctx.enabled("git-safety-net"):
        out.append((3, "git-safety-net", "git commit -n (--no-verify) skips the git hooks"))
    return out


# --------------------------------------------------------------------------- discarding uncommitted work


def _one(rule: str, why: str) -> list[Finding]:
    return [(3, rule, why)]


def _reset(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    if ctx.enabled("git-discard") and opts & {"--hard", "--merge"}:
        return _one("git-discard", f"git reset {sorted(opts & {'--hard', '--merge'})[0]} throws away "
                                   "uncommitted changes")
    return []


def _checkout(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    if not ctx.enabled("git-discard"):
        return []
    creating = opts & {"-b", "-B", "--orphan"}
    if "-f" in opts:
        return _one("git-discard", "git checkout -f throws away local changes")
    if "--" in toks[2:] and ops:
        return _one("git-discard", "git checkout -- <paths> overwrites uncommitted changes")
    if any(o.startswith("--pathspec-from-file") for o in opts):
        return _one("git-discard", "git checkout --pathspec-from-file overwrites uncommitted changes")
    if not creating and (len(ops) >= 2 or any(_pathlike(o) for o in ops)):
        return _one("git-discard", "git checkout <paths> overwrites uncommitted changes")
    return []


def _restore(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    if ctx.enabled("git-discard") and not ("-S" in opts and "-W" not in opts):
        return _one("git-discard", "git restore without --staged overwrites uncommitted changes")
    return []


def _switch(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    if ctx.enabled("git-discard") and "--discard-changes" in opts:
        return _one("git-discard", "git switch --discard-changes throws away local changes")
    return []


def _clean(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    if ctx.enabled("git-discard") and "-f" in opts and "-n" not in opts:
        return _one("git-discard", "git clean -f deletes untracked files")
    return []


def _stash(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    if ctx.enabled("git-discard") and ops and ops[0] in ("drop", "clear"):
        return _one("git-discard", f"git stash {ops[0]} deletes stashed changes")
    return []


def _rm(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    if ctx.enabled("git-discard") and "-f" in opts and "--cached" not in opts:
        return _one("git-discard", "git rm -f deletes files with uncommitted changes")
    return []


def _read_tree(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    if ctx.enabled("git-discard") and "-u" in opts and opts & {"--reset", "-m"}:
        return _one("git-discard", "git read-tree -u --reset overwrites the work tree")
    return []


def _checkout_index(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    if ctx.enabled("git-discard") and "-f" in opts:
        return _one("git-discard", "git checkout-index -f overwrites the work tree")
    return []


def _worktree(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    if ctx.enabled("git-discard") and ops and ops[0] == "remove" and "-f" in opts:
        return _one("git-discard", "git worktree remove --force deletes a work tree with changes")
    return []


# --------------------------------------------------------------------------- rewriting history, deleting refs


def _push(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    out: list[Finding] = []
    if ctx.enabled("git-force-push"):
        if "-f" in opts or "--mirror" in opts:
            out.append((3, "git-force-push", "git push --force rewrites the remote's history"))
        elif any(o.startswith("+") for o in ops[1:]):
            out.append((3, "git-force-push", "git push +<ref> force-pushes that ref"))
    if ctx.enabled("git-delete-refs"):
        if "-d" in opts or "--prune" in opts:
            out.append((3, "git-delete-refs", "git push --delete removes remote branches"))
        elif any(o.startswith(":") and len(o) > 1 for o in ops[1:]):
            out.append((3, "git-delete-refs", "git push :<branch> deletes a remote branch"))
    return out


def _branch(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    if ctx.enabled("git-delete-refs") and "-f" in opts:
        what = "-D" if "-d" in opts else "-M" if "-m" in opts else "-C" if "-c" in opts else "-f"
        return _one("git-delete-refs", f"git branch {what} deletes or overwrites a branch")
    return []


def _update_ref(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    if ctx.enabled("git-delete-refs") and "-d" in opts:
        return _one("git-delete-refs", "git update-ref -d deletes a ref")
    return []


def _reflog(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    if ctx.enabled("git-delete-refs") and ops and ops[0] in ("expire", "delete"):
        return _one("git-delete-refs", f"git reflog {ops[0]} removes the history that recovers lost work")
    return []


def _filter(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    return _one("git-delete-refs", f"git {sub} rewrites every commit") if ctx.enabled("git-delete-refs") else []


def _gc(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    if ctx.enabled("git-delete-refs") and any(o in ("--prune=now", "--prune=all") for o in opts):
        return _one("git-delete-refs", "git gc --prune=now deletes unreachable commits at once")
    return []


def _prune(sub: str, opts: set[str], ops: list[str], toks: list[str], ctx: Ctx) -> list[Finding]:
    return _one("git-delete-refs", "git prune deletes unreachable commits") if ctx.enabled("git-delete-refs") else []


# The rule of each subcommand that discards work or rewrites history: (subcommand, its options,
# its operands, the tokens, the context) -> findings.
_BY_SUBCOMMAND = {
    "reset": _reset, "checkout": _checkout, "restore": _restore, "switch": _switch, "clean": _clean,
    "stash": _stash, "rm": _rm, "read-tree": _read_tree, "checkout-index": _checkout_index, "worktree": _worktree,
    "push": _push, "branch": _branch, "update-ref": _update_ref, "reflog": _reflog, "filter-branch": _filter,
    "filter-repo": _filter, "gc": _gc, "prune": _prune,
}
