"""Secrets that git stores and then prints: `git stash -u` and `--all` put untracked (and ignored)
files in a commit object, `git stash show -u` and the stash's third parent (`stash^3`) print them.

What a stash holds is not on disk to look at: showing a stash's untracked files needs a human
whatever the tree holds now. Making one asks when an untracked secret would go into it.
"""

from __future__ import annotations

import re

from handrail.policy.shell.common import Ctx

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.globs import PatternSet
    from handrail.policy.shell.parts import Part

    Finding = tuple[int, str, str]

_UNTRACKED_PARENT = re.compile(r"(?:^|[^\w/])(?:refs/)?stash(?:@\{[^}]*\})?\^3")
_SHOWS = frozenset({"show", "diff", "log", "cat-file", "archive", "checkout", "restore", "ls-tree", "grep",
                    "format-patch", "whatchanged", "diff-tree"})


def check_stash(part: Part, ctx: Ctx) -> list[Finding]:
    words = [w.text for w in part.words[1:]]
    sub = next((t for t in words if not t.startswith("-")), "")
    if sub in _SHOWS and any(_UNTRACKED_PARENT.search(t) for t in words):
        return [(3, "secret-read", f"git {sub} of stash^3 prints the untracked files a stash holds, which may "
                                   "be secrets")]
    if sub == "add" and any(t in ("-f", "--force") or (t.startswith("-") and not t.startswith("--") and "f" in t)
                            for t in words):
        return _forced_add(part, ctx)
    if sub != "stash":
        return []
    rest = words[words.index("stash") + 1 :]
    action = next((t for t in rest if not t.startswith("-")), "push")
    flags = {t for t in rest if t.startswith("-")}
    short = "".join(t[1:] for t in flags if not t.startswith("--"))
    if action == "show":
        if flags & {"--include-untracked", "--only-untracked"} or "u" in short:
            return [(3, "secret-read", "git stash show -u prints the untracked files a stash holds, which may "
                                       "be secrets")]
        return []
    if action not in ("push", "save", "create", "store") and rest and not rest[0].startswith("-"):
        return []
    everything = bool(flags & {"--all"}) or "a" in short
    if not (everything or flags & {"--include-untracked"} or "u" in short):
        return []
    found = _untracked_secret(ctx.project, ignored_too=everything)
    if found is None:
        return [(3, "secret-read", "git stash -u stores the untracked files of a tree too large to check for "
                                   "secrets")]
    if found:
        return [(3, "secret-read", f"git stash {'--all' if everything else '-u'} stores {found}, a secret, in a "
                                   "commit object that git shows, pushes and keeps")]
    return []


def _forced_add(part: Part, ctx: Ctx) -> list[Finding]:
    """`git add -f .` stages the secrets .gitignore keeps out, one `git diff --cached` from being shown."""
    import os

    from handrail.policy.shell.parts import resolve
    from handrail.policy.shell.secrets import secrets_below

    words = part.words[part.words.index(next(w for w in part.words if w.text == "add")) + 1 :]
    named = [resolve(w, part.cwd, ctx.home) for w in words if not w.text.startswith("-") and not w.dyn]
    dirs = [d for d in named if d is not None and os.path.isdir(d)] or ([part.cwd] if not named and part.cwd else [])
    found = secrets_below(dirs, most=1) if dirs else []
    if found is None or found:
        what = found[0] if found else "a tree too large to check"
        return [(3, "secret-read", f"git add -f stages what .gitignore keeps out, {what} included: a secret in the "
                                   "index is one `git diff --cached` away")]
    return []


def _untracked_secret(project: str, *, ignored_too: bool) -> str | None:
    """The first secret below the project that `git stash -u` (or `--all`) would take: untracked,
    and not ignored by the project's own ignore files unless `ignored_too`; None past the walk bound."""
    from handrail.policy.shell.secrets import secrets_below

    found = secrets_below([project])
    if found is None:
        return None
    ignored = None if ignored_too else _ignore_set(project)
    for path in found:
        rel = path[len(project) + 1 :]
        if ignored is None or ignored.match(rel) is None:
            return rel
    return ""


def _ignore_set(project: str) -> PatternSet | None:
    """The project's root `.gitignore` and `.git/info/exclude` (a nested `.gitignore` is not read: a
    secret it ignores is still counted, which asks)."""
    import os

    from handrail.policy.globs import PatternSet
    from handrail.policy.shell.codefile import read_code_text

    lines: list[str] = []
    for name in (".gitignore", os.path.join(".git", "info", "exclude")):
        # a regular file only: a FIFO the agent put there would hang a plain open
        text = read_code_text(os.path.abspath(os.path.join(project, name)), 1 << 20) or ""
        lines += [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    return PatternSet(lines) if lines else None

