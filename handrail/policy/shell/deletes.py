"""Recursive deletes: `rm -r` and its kin, `find -delete` and `find -exec rm`."""

from __future__ import annotations

import os

from handrail.policy.shell.common import Ctx, in_project, is_temp, operands, rx
from handrail.policy.shell.parts import resolve
from handrail.policy.shell.tokens import flag_name, is_flag

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part
    from handrail.policy.shell.syntax import Word

    Finding = tuple[int, str, str]


# --------------------------------------------------------------------------- rm and find


def check_rm(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    if any(v.startswith("find -exec") for v in part.via) and all(w.raw == "{}" or not w.dyn for w in part.words):
        return []  # `find … -exec rm -rf {} +`: find-delete judges what find selects
    recursive = False
    prompting = False
    for t in toks[1:]:
        if t == "--":
            break
        if not is_flag(t):
            continue
        name = flag_name(t)
        if name in ("-r", "--recursive"):
            recursive = True
        elif name in ("-f",):
            prompting = False
        elif name in ("-i", "-I") or (name == "--interactive" and not t.endswith("=never")):
            prompting = True
    if part.name == "rimraf":
        recursive = True
    wild = [w for w in part.words[1:] if w.wild]
    if wild:
        return [(3, "rm-recursive", f"{part.name} gets arguments only known at run time ({wild[0].raw}), "
                                    "which may add -r and any path")]
    if part.extra and not prompting and not any(v.startswith("find -exec") for v in part.via):
        return [(3, "rm-recursive", f"{part.name} deletes files only known at run time (fed by xargs or find)")]
    if not recursive or (prompting and part.feed is None):  # a pipe or a heredoc may answer the prompts
        return []
    if part.extra:
        return [(3, "rm-recursive", f"{part.name} -r deletes paths only known at run time")]
    ops = operands(part.words)
    if not ops:
        return []
    for w in ops:
        path = resolve(w, part.cwd, ctx.home)
        shown = w.raw
        if path is None:
            return [(3, "rm-recursive", f"{part.name} -r deletes {shown}, a path only known at run time")]
        if path == ctx.project or ctx.project.startswith(path.rstrip("/") + "/") or (
                w.glob and ctx.project.startswith(os.path.dirname(path) + "/")):
            # `cd .. && rm -rf *`: a glob in a folder above the work tree names the work tree too
            return [(3, "rm-recursive", f"{part.name} -r deletes {shown}: the whole work tree")]
        if in_project(path, ctx):
            real = _followed(w, path, ctx)
            if real is not None:  # `ln -s /srv/x build; rm -rf build/*`: judged by where the link leads
                path, shown = real, f"{w.raw} (through a link, {real})"
        if in_project(path, ctx):
            if regenerable(path[len(ctx.project) + 1 :]):
                continue
            # git brings back only what it tracks and what was committed: the rest is gone
            return [(3, "rm-recursive", f"{part.name} -r deletes {shown}, and what git does not track or was not "
                                        "committed in it cannot be brought back (only regenerable outputs such as "
                                        f"{', '.join(REGENERABLE[:4])} are removed without a human)")]
        if is_temp(path, ctx):
            continue
        return [(3, "rm-recursive", f"{part.name} -r deletes {shown}, outside the work tree (only temp folders "
                                    "and caches are removed there without a human)")]
    return []


def _followed(w: Word, path: str, ctx: Ctx) -> str | None:
    """Where a removal of `path` lands once the links on disk are followed, when that is outside
    the work tree; None when it stays inside. `rm -r build` removes a link named build itself,
    `rm -r build/` and `build/*` what it leads to."""
    through = w.text.endswith("/") or w.glob
    head, tail = (path, "") if through else os.path.split(path)
    try:
        real = os.path.join(os.path.realpath(head), tail) if tail else os.path.realpath(head)
    except ValueError:  # a name no file can have: nothing on disk to follow
        return None
    root = os.path.realpath(ctx.project)
    return None if real == root or real.startswith(root + "/") else real


# Outputs that a build, an install or a test run makes again: removing them loses nothing.
REGENERABLE = ("package-lock.json", "yarn.lock", "pnpm-lock.yaml", "node_modules", "dist", "build", "target",
               "__pycache__", ".pytest_cache", ".mypy_cache", ".venv",
               ".ruff_cache", ".tox", ".nox", ".next", ".nuxt", ".turbo", ".parcel-cache", ".gradle", "coverage",
               "htmlcov", ".coverage", "out", "venv", ".eggs", ".cache")
_REGEN_SUFFIXES = (".pyc", ".pyo", ".egg-info", ".o", ".class")


def regenerable(rel: str) -> bool:
    """Is a path (relative to the work tree) a regenerable output, or inside one? A glob that
    could name anything else is not: `build/*` is, `*` and `src/*` are not."""
    parts = [p for p in rel.split("/") if p and p != "."]
    if not parts:
        return False
    for i, p in enumerate(parts):
        if p in REGENERABLE or p.endswith(_REGEN_SUFFIXES) or (p.startswith("*") and p[1:].endswith(_REGEN_SUFFIXES)
                                                              and "/" not in p):
            return all(c not in q for q in parts[:i] for c in "*?[")
        if p == "**" and i + 1 < len(parts) and parts[i + 1] in REGENERABLE:
            return True
    return False


def _everything(path: str) -> bool:
    """`*`, `.*`, `*.*`: a glob that names every entry of its folder."""
    base = os.path.basename(path)
    return bool(rx("_GLOBS").search(base)) and not base.translate(str.maketrans("", "", "*?.[]!^-"))


def check_find(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    texts = [w.text for w in part.words]
    if not _find_deletes(texts):
        return []
    roots = []
    for w in part.words[1:]:
        if w.text.startswith(("-", "(", "!")) and not w.dyn:
            break
        roots.append(w)
    paths = [resolve(w, part.cwd, ctx.home) for w in roots] or [part.cwd]
    if all(p is not None and is_temp(p, ctx) and not in_project(p, ctx) for p in paths):
        return [(2, "find-delete", "find deletes files in a temp folder")]
    if all(p is not None and in_project(p, ctx) for p in paths) and \
            _only_regenerable(part.words[len(roots) + 1 :]):
        return [(2, "find-delete", "find deletes regenerable outputs only")]
    return [(3, "find-delete", "find deletes every file it matches")]


# find's primaries that take the next word as their value: `-name -delete` names a file.
_FIND_ARGS = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
                        "-type", "-xtype", "-user", "-group", "-perm", "-size", "-newer", "-mtime", "-mmin", "-atime",
                        "-amin", "-ctime", "-cmin", "-maxdepth", "-mindepth", "-lname", "-ilname", "-samefile",
                        "-inum", "-links", "-uid", "-gid", "-fstype", "-printf", "-fprint", "-fprintf", "-fls",
                        "-regextype", "-newermt", "-used"})


_EXEC_WRAPPERS = frozenset({"env", "command", "builtin", "exec", "nice", "nohup", "sudo", "doas", "busybox", "time",
                            "stdbuf", "ionice", "setsid", "timeout", "xargs"})


def _find_deletes(texts: list[str]) -> bool:
    """Does find delete: `-delete` as an action (not a file name nor an argument of -exec echo),
    or -exec/-ok of a program that removes?"""
    from handrail.policy.shell.parts import prog_name

    i = 1
    while i < len(texts):
        t = texts[i]
        if t in _FIND_ARGS:
            i += 2
            continue
        if t == "-delete":
            return True
        if t in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            # `-exec env rm -rf {} ;`, `-exec command rm …`: look through what only runs the rest
            while j < len(texts) and (prog_name(texts[j]) in _EXEC_WRAPPERS or "=" in texts[j] or
                                      (texts[j].startswith("-") and j > i + 1)):
                j += 1
            if j < len(texts) and prog_name(texts[j]) in ("rm", "unlink", "shred", "srm", "rimraf", "rmdir"):
                return True
            while i < len(texts) and texts[i] not in (";", "+"):
                i += 1
        i += 1
    return False


# The tests a `find … -delete` may combine with names of regenerable outputs and stay tier 2.
_FIND_NEUTRAL = frozenset({"-type", "-maxdepth", "-mindepth", "-depth", "-delete", "-print", "-prune", "-xdev",
                           "-mount", "-a", "-and"})
_FIND_VALUES = frozenset({"-type", "-maxdepth", "-mindepth"})


def _only_regenerable(expr: list[Word]) -> bool:
    """`-name __pycache__ -type d -delete`: every name a regenerable output, nothing that widens it."""
    names = 0
    i = 0
    while i < len(expr):
        w = expr[i]
        t = w.text
        if w.dyn:
            return False
        if t in ("-name", "-iname") and i + 1 < len(expr) and not expr[i + 1].dyn:
            if not regenerable(expr[i + 1].text):
                return False
            names += 1
            i += 2
            continue
        if t in ("-exec", "-execdir") and i + 1 < len(expr) and expr[i + 1].text in ("rm", "rmdir", "unlink"):
            # `-exec rm -rf {} +`: the same delete as -delete
            while i < len(expr) and expr[i].text not in (";", "+"):
                i += 1
            i += 1
            continue
        if t not in _FIND_NEUTRAL:
            return False
        i += 2 if t in _FIND_VALUES else 1
    return names > 0


def check_rsync(part: Part, ctx: Ctx) -> list[Finding]:
    """rsync deletes at the destination what the source lacks, or the source itself."""
    found = [w.text for w in part.words[1:] if w.text.startswith(
        ("--delete", "--del", "--remove-source-files", "--remove-sent-files"))]
    if not found:
        return []
    sources = [t for t in found if t.startswith(("--remove-source-files", "--remove-sent-files"))]
    dest = None if sources else _rsync_temp_destination(part, ctx)
    if dest is not None:
        # what --delete removes lies under the destination: a temp folder, as `rm -r` of one
        return [(2, "rm-recursive", f"rsync {found[0]} deletes files under {dest}, a temp folder")]
    t = (sources or found)[0]
    return [(3, "rm-recursive", f"rsync {t} deletes files that cannot be brought back from here")]


# rsync(1) options that take a value (the next word when not given with `=`).
_RSYNC_VALUES = frozenset({"--exclude", "--include", "--filter", "--files-from", "--exclude-from", "--include-from",
                           "--rsh", "--rsync-path", "--temp-dir", "--partial-dir", "--compare-dest", "--copy-dest",
                           "--link-dest", "--backup-dir", "--suffix", "--chmod", "--chown", "--log-file",
                           "--password-file", "--bwlimit", "--timeout", "--port", "--block-size", "--max-size",
                           "--min-size", "--out-format", "--remote-option", "-e", "-f", "-T", "-B", "-M"})


def _rsync_temp_destination(part: Part, ctx: Ctx) -> str | None:
    """The destination of a local rsync when it lies inside a temp folder, else None."""
    ops = operands(part.words, _RSYNC_VALUES, "efTBM")
    if len(ops) < 2 or any(w.dyn for w in ops) or any(w.text in ("-t", "--target-directory") for w in part.words):
        return None
    dest = ops[-1]
    if ":" in dest.text.split("/", 1)[0] or dest.text.startswith("rsync://"):
        return None  # a remote destination
    path = resolve(dest, part.cwd, ctx.home)
    # a project inside a temp folder is still the project
    return path if path is not None and is_temp(path, ctx) and not in_project(path, ctx) else None
