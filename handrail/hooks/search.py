"""The search question: may a harness's own search tool (Grep, grep_search, search_codebase…)
look through these folders? It prints what it finds, so a search over a folder that holds
a secret file prints the secret, whatever pattern it looks for.

The answer is read from the files, not from the pattern: the secret files below each
searched folder (the shell classifier's walk, `secrets_below`), less those the tool's own
globs leave out. None left: no objection. Otherwise a refusal that carries `exclude`, the
rg-style exclusion globs that would keep every secret out, for an adapter whose harness
lets a hook rewrite the call's arguments; the others refuse. A tree too large to walk
within the hook's deadline is refused: not knowing is no proof of no secret.
"""

from __future__ import annotations

import fnmatch
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.hooks.pretool import Answer, Question

# A secret list this long is cut short by the walk: the exclusions could miss one.
MOST = 64
_GLOB_SPECIAL = frozenset("\\*?[]{}!,")


def judge(q: Question, project: str, cwd: str) -> Answer:
    from handrail.hooks.pretool import DENY, NONE, PREFIX, Answer, absolute, inside, secret_at
    from handrail.policy.shell.secrets import secrets_below

    roots = [absolute(p, cwd) for p in q.paths] or [cwd]
    shown = ", ".join(inside(r, project) or r for r in roots[:3])
    for root in roots:
        secret = None if os.path.isdir(root) else secret_at(root, project)
        if secret is not None:
            return Answer(DENY, f"{PREFIX}denied: {q.tool} would print {secret[0]}, which holds secrets; "
                                "ask a human for what you need from it")
    found = secrets_below([r for r in roots if os.path.isdir(r)], most=MOST)
    if found is None:
        return Answer(DENY, f"{PREFIX}denied: {q.tool} would search {shown}, a tree too large to check for "
                            "secret files; search a smaller folder")
    searched = [f for f in found if _searched(f, roots, q.globs)]
    if not searched:
        return Answer(NONE)
    names = sorted({os.path.basename(f) for f in searched})
    # A name a glob cannot spell literally in every tool (`\\`, `*`, `[`, a comma, a space…) cannot be
    # excluded reliably, nor can a list the walk cut short: such a search is refused, not narrowed.
    exact = len(found) < MOST and not any(c in n for n in names for c in _GLOB_SPECIAL) and \
        all(n.isprintable() and not any(c.isspace() for c in n) for n in names)
    exclude = [f"!{n}" for n in names] if exact else []
    first = inside(searched[0], project) or searched[0]
    how = f"exclude them (glob {_joined(names)})" if exclude else "search a folder that holds none"
    answer = Answer(DENY, f"{PREFIX}denied: {q.tool} would search {shown}, where {first} holds secrets "
                          f"({len(searched)} such file{'s' if len(searched) > 1 else ''}): {how}, or search a "
                          "folder without them; ask a human for what you need from a secret")
    answer.exclude = exclude
    return answer


def _joined(names: list[str]) -> str:
    return f"!{names[0]}" if len(names) == 1 else "!{" + ",".join(names) + "}"


def _searched(path: str, roots: list[str], globs: list[str]) -> bool:
    """Whether the tool's globs may let it read `path`, read as ripgrep reads them and so that no
    doubt hides a secret: a glob without a slash matches the file name, one with a slash the
    path below the searched folder; the last glob that matches decides (an adapter whose tool
    applies exclusions last puts them last); when include globs are given, a file none of
    them matches is left out. An include glob matches regardless of case, and one handrail
    cannot read exactly (a character class, an escape: ripgrep, minimatch and fnmatch differ
    there) matches everything; such an exclusion keeps nothing out."""
    rel = next((os.path.relpath(path, r) for r in roots if path.startswith(r.rstrip("/") + "/")), path)
    decided: bool | None = None
    for glob in globs:
        if glob.startswith("!"):
            if _plain(glob[1:]) and _matches(glob[1:], path, rel):
                decided = False
        elif not _plain(glob) or _matches(glob.lower(), path.lower(), rel.lower()):
            decided = True
    if decided is not None:
        return decided
    return not any(not g.startswith("!") for g in globs)


def _plain(glob: str) -> bool:
    """A glob every tool reads alike: `*`, `?`, `**`, braces and literal text, nothing else."""
    return not any(c in glob for c in "[]\\")


def _matches(glob: str, path: str, rel: str) -> bool:
    target = rel if "/" in glob.strip("/") else os.path.basename(path)
    return any(fnmatch.fnmatchcase(target, g) or fnmatch.fnmatchcase(target, g.replace("**/", ""))
               for g in _braces(glob.lstrip("/")))


def _braces(glob: str, depth: int = 0) -> list[str]:
    """`*.{py,js}` as its alternatives (the form rg and the harnesses' tools accept)."""
    start = glob.find("{")
    end = glob.find("}", start)
    if start < 0 or end < 0 or depth > 4:
        return [glob]
    head, body, tail = glob[:start], glob[start + 1:end], glob[end + 1:]
    return [g for alt in body.split(",") for g in _braces(head + alt + tail, depth + 1)][:256]
