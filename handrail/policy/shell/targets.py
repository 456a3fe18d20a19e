"""What a command writes and removes, and the rules on where: protected paths, system paths,
redirections (tier 2). The pre-tool hooks judge the same targets as edits (writes.py)."""

from __future__ import annotations

import os

from handrail.policy.shell import gitimport, installs, ptys, pymodules, selfverbs, sqlitefx
from handrail.policy.shell.archives import PROGRAMS as ARCHIVE_PROGRAMS
from handrail.policy.shell.archives import extracted
from handrail.policy.shell.argscan import file_values
from handrail.policy.shell.common import _SOURCES, SAFE_DEVICES, Ctx, _protected, in_project, operands, rx, sensitive
from handrail.policy.shell.landing import Landing, above_project, landings
from handrail.policy.shell.parts import resolve
from handrail.policy.shell.sidewrites import COMPRESSORS, compressed, download_files
from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part

    Finding = tuple[int, str, str]


# --------------------------------------------------------------------------- write targets

_PERM_OPTS = frozenset({"-R", "--recursive", "-f", "--silent", "--quiet", "-v", "--verbose", "-c", "--changes",
                        "-h", "--no-dereference", "--dereference", "--preserve-root", "--no-preserve-root", "--"})
_CP_VALUES = frozenset({"-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g",
                        "--group", "-e", "--exclude", "--include", "-f", "--filter", "--chmod", "--chown",
                        "--exclude-from", "--include-from", "--files-from", "-T", "--no-target-directory"})


def write_targets(part: Part) -> tuple[list[Word], list[Word]]:
    """(written, removed) words of a part: the writing half of the effect table (effects.py)."""
    name = part.name
    words = part.words
    written: list[Word] = []
    removed: list[Word] = []
    for r in part.redirs:
        if r.target is None or r.op in ("<", "<<", "<<-", "<<<", "<&"):
            continue
        if r.op == ">&" and (r.target.text.isdigit() or r.target.text == "-"):
            continue
        written.append(r.target)
    if name in ("tee", "touch", "truncate", "mkdir", "sudoedit", "chattr", "setfacl"):
        value = {"truncate": frozenset({"-s", "-r", "--size", "--reference"}),
                 "mkdir": frozenset({"-m", "--mode"}), "setfacl": frozenset({"-m", "-x", "-M", "-X"})}.get(name,
                                                                                                       frozenset())
        written += operands(words, value)
    elif name in ("sed", "perl"):
        inplace = any(w.text.startswith("--in-place") or (w.text.startswith("-") and not w.text.startswith("--")
                      and "i" in w.text[1:].split("e", 1)[0]) for w in words[1:])
        if inplace:
            ops = operands(words, frozenset({"-e", "-f", "-l", "-E", "-M", "-I", "--expression", "--file"}))
            has_script = any(w.text in ("-e", "-f", "-E", "--expression", "--file") or
                             w.text.startswith(("--expression=", "--file=")) or
                             (w.text.startswith("-") and not w.text.startswith("--") and w.text[-1] in "eE")
                             for w in words[1:])
            written += ops if has_script else ops[1:]
    elif name in ("cp", "mv", "install", "ln", "rsync", "scp"):
        ops = _cp_operands(name, words)
        target_dir = None
        for i, w in enumerate(words):
            if w.text == "-t" and i + 1 < len(words):
                target_dir = words[i + 1]
            elif w.text.startswith("--target-directory="):
                target_dir = Word(w.text.split("=", 1)[1], w.raw)
        if target_dir is not None:
            written += [target_dir, *landings(part, ops, target_dir)]
            if name == "mv":
                removed += ops
        elif ops:
            if name == "install" and any(_is_dir_flag(w.text) for w in words[1:]):
                written += ops
            else:
                written += ops[-1:] + landings(part, ops[:-1], ops[-1])
                if name == "mv":
                    removed += ops[:-1]
    elif name == "dd":
        for w in words[1:]:
            if w.text.startswith("of="):
                t = Word(w.text[3:], w.raw)
                t.dyn, t.tilde = w.dyn, w.text.startswith("of=~")
                written.append(t)
    elif name in ("chmod", "chown", "chgrp"):
        # `chmod -x file`: a mode may look like an option, so only the known options are skipped
        ops = [w for w in words[1:] if w.dyn or (w.text not in _PERM_OPTS and not w.text.startswith(
            ("--reference=", "--from=")) and not (w.text.startswith("-") and set(w.text[1:]) <= set("RfvchHLP")))]
        ref = any(w.text.startswith("--reference") for w in words)
        written += ops if ref else ops[1:]
    elif name in ("rm", "unlink", "rmdir", "shred", "srm", "trash", "rimraf"):
        removed += operands(words)
    elif name in ("curl", "wget"):
        written += download_files(words, "o" if name == "curl" else "O") + file_values(words, _FILE_OPTS[name])
    elif name in _FILE_OPTS or name in _EXTRACTORS:
        written += file_values(words, _FILE_OPTS[name]) if name in _FILE_OPTS else _extract_dirs(part)
    elif name in COMPRESSORS or name == "xxd":
        written_c, removed_c = compressed(name, words)
        written += written_c
        removed += removed_c
    if name in ("sed", "gsed", "awk", "gawk", "mawk", "nawk"):
        written += _script_files(part)
    if name in ARCHIVE_PROGRAMS:  # each file the archive holds (read from the archive), as written
        written += extracted(part)
    if name == "uniq":
        ops = operands(words, frozenset({"-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"}))
        written += ops[1:2]
    elif name in ("git", "patch", "gpatch", "handrail", "sqlite3", "script", "python"):
        verb_written, verb_removed = _verb_writes(part)
        written, removed = written + verb_written, removed + verb_removed
    written += installs.written(part) if name in installs.FOLDERS else []  # `pip install --target DIR`
    return written, removed


def _verb_writes(part: Part) -> tuple[list[Word], list[Word]]:
    """git rm/mv, format-patch -o, bundle create, the files a patch names (`git apply`, `patch`), what
    handrail's own verbs write (`handrail ci --output F`: selfverbs.WRITES), sqlite3's files (sqlitefx),
    script's typescript (ptys) and `python -m json.tool`'s output (pymodules)."""
    if part.name in ("handrail", "sqlite3", "script", "python"):
        return {"handrail": selfverbs.written, "sqlite3": sqlitefx.written, "script": ptys.written,
                "python": pymodules.written}[part.name](part), []
    words = part.words
    sub = words[1].text if part.name == "git" and len(words) > 1 else ""
    if sub in ("rm", "mv") and len(words) > 2:
        return _git_moves(words)
    if sub in ("format-patch", "bundle"):  # `format-patch -o DIR`, `bundle create FILE REVS…`
        return gitimport.bundle_written(words) or file_values(words, ("-o", "--output-directory")), []
    if sub in ("apply", "am") or part.name != "git":  # `git am` writes the mailbox's files before it commits
        from handrail.policy.shell.patchfiles import patch_writes

        return patch_writes(part)
    return [], []


def _is_dir_flag(t: str) -> bool:
    """`install -d`, `-Dd`, `--directory`: its operands are folders it makes."""
    return t == "--directory" or (t[:1] == "-" and t[1:2] != "-" and "d" in t[1:])


def _git_moves(words: list[Word]) -> tuple[list[Word], list[Word]]:
    """(written, removed) by `git rm` and `git mv`. `git rm --cached` leaves the files on disk but
    takes them out of the next commit: a removal all the same, of a protected folder too."""
    ops = operands(words[1:])
    if words[1].text == "rm":
        return [], ops
    return (ops[-1:], ops[:-1]) if len(ops) >= 2 else ([], [])


# Files a sed or awk script writes: sed's `w FILE` command and `s///w FILE` flag, awk's
# `print > "FILE"`.
_SOURCES["_SED_W"] = (r"(?:^|[;\n{}])\s*(?:[0-9$]+|/(?:[^/\\\n]|\\.)*/)?(?:\s*,\s*(?:[0-9$]+|/(?:[^/\\\n]|\\.)*/))?"
                     r"\s*!?\s*[wW]\s+([^\n;}]+)|s(.)(?:(?!\2)[^\\\n]|\\.)*\2(?:(?!\2)[^\\\n]|\\.)*\2"
                     r"[gpiImMe0-9]*w\s*([^\n]+)")
_SOURCES["_AWK_W"] = (r">>?\s*\"([^\"]+)\"")


def _script_files(part: Part) -> list[Word]:
    words = part.words
    awk = part.name != "sed" and part.name != "gsed"
    if not awk:
        from handrail.policy.shell.sedscript import script_files

        return script_files(words, "write", part.cwd)
    scripts = [words[i + 1].text for i, w in enumerate(words[:-1]) if w.text in ("-e", "--expression")]
    if not scripts:
        ops = [w for w in words[1:] if not w.text.startswith("-")]
        scripts = [ops[0].text] if ops else []
    out: list[Word] = []
    for sc in scripts:
        for m in rx("_AWK_W" if awk else "_SED_W").finditer(sc):
            target = next((g for g in (m.groups() if awk else (m.group(1), m.group(3))) if g), None)
            if target and target.strip() not in ("/dev/stdout", "/dev/stderr"):
                out.append(Word(target.strip(), target.strip()))
    return out


# Options whose value is a file the command writes (`sort -o .git/config`, `git log --output=…`).
_FILE_OPTS: dict[str, tuple[str, ...]] = {
    "sort": ("-o", "--output"), "shuf": ("-o", "--output"), "git": ("--output",),
    "find": ("-fprint", "-fprint0", "-fls", "-fprintf"), "curl": ("-D", "--dump-header", "-c", "--cookie-jar",
                                                                  "--trace", "--trace-ascii", "--stderr", "--libcurl"),
    "wget": ("-o", "--output-file", "-a", "--append-output"), "pandoc": ("-o", "--output"),
    # test and lint reports, and the folders of build output and mypy's reports
    "pytest": ("--junitxml", "--junit-xml", "--resultlog", "--report-log", "--html"),
    "flake8": ("--output-file",), "ruff": ("--output-file", "-o"), "bandit": ("-o", "--output"),
    "pylint": ("--output",), "mypy": ("--junit-xml", "--html-report", "--txt-report", "--linecount-report",
                                      "--xml-report", "--cobertura-xml-report"),
    "cargo": ("--target-dir",), "tree": ("-o",), "eslint": ("-o", "--output-file"),
}


_COPIERS = frozenset({"cp", "mv", "rsync", "scp", "ln", "install"})

# Archive extractors and the option naming the folder they unpack into (the archive's own
# names are unknown here, so the folder is what is written: outside the work tree it is a
# system write).
_EXTRACTORS = {"tar": ("-C", "--directory"), "bsdtar": ("-C", "--directory"), "gtar": ("-C", "--directory"),
               "unzip": ("-d",), "7z": ("-o",), "7za": ("-o",)}


def _extract_dirs(part: Part) -> list[Word]:
    name, words = part.name, part.words
    texts = [w.text for w in words[1:]]
    if name in ("tar", "bsdtar", "gtar"):
        first = texts[0] if texts else ""
        extracting = any(t in ("--extract", "--get") or (t.startswith("-") and not t.startswith("--") and "x" in t)
                         for t in texts) or (bool(first) and not first.startswith("-") and "x" in first)
    elif name in ("7z", "7za"):
        extracting = bool(texts) and texts[0] in ("x", "e")
    else:
        extracting = True
    if not extracting:
        return []
    return file_values(words, _EXTRACTORS[name])


def _on_disk(path: str, ctx: Ctx, *, delete: bool) -> str | None:
    """Where a write to `path` inside the work tree lands once existing symbolic links are
    followed (`h -> .git/hooks/pre-commit`), in the work tree's own spelling; None when the same.
    A removal follows the links of the parent folders only: it removes the link itself."""
    if not in_project(path, ctx) or path == ctx.project:
        return None
    head, tail = os.path.split(path)
    try:
        real = os.path.join(os.path.realpath(head), tail) if delete else os.path.realpath(path)
    except ValueError:  # a name no file can have (a lone surrogate, a NUL): nothing on disk to follow
        return None
    root = os.path.realpath(ctx.project)
    if real == root or real.startswith(root + "/"):
        real = ctx.project + real[len(root):]
    return None if real == path else real


def _link_sources(part: Part) -> list[Word]:
    """What `ln` or `cp -l/-s` makes a second name for: writing through that name writes it."""
    name = part.name
    words = part.words
    if name == "cp" and not any(w.text in ("-l", "--link", "-s", "--symbolic-link") or
                                (w.text.startswith("-") and not w.text.startswith("--") and
                                 ("l" in w.text or "s" in w.text)) for w in words[1:]):
        return []
    if name not in ("ln", "cp"):
        return []
    ops = _cp_operands(name, words)
    to_dir = next((words[i + 1] for i, w in enumerate(words[:-1]) if w.text in ("-t", "--target-directory")), None)
    sources = ops if to_dir is not None else ops[:-1] if len(ops) > 1 else ops
    symbolic = any(w.text in ("-s", "--symbolic", "--symbolic-link") or (
        w.text.startswith("-") and not w.text.startswith("--") and "s" in w.text) for w in words[1:])
    if not symbolic:
        return sources
    # A symbolic link's relative target is read from the folder the link is in, not from here:
    # `ln -s ../.handrail src/hr` names the work tree's .handrail.
    where = to_dir.text if to_dir is not None else ops[-1].text if len(ops) > 1 else "."
    if to_dir is None and len(ops) > 1 and not where.endswith("/") and not os.path.isdir(
            os.path.join(part.cwd or "", where)):
        where = os.path.dirname(where) or "."
    out = []
    for w in sources:
        if w.dyn or w.text.startswith(("/", "~")) or where in (".", ""):
            out.append(w)
            continue
        moved = Word(os.path.join(where, w.text), f"{w.raw} (from {where})")
        moved.glob = w.glob
        out.append(moved)
    return out


# `-f` and `-T` take no value in cp, mv, ln and install (`mv -f .git/hooks/pre-commit x`);
# `-m`, `-o`, `-g` take one in install only.
_CP_OWN_VALUES = frozenset({"-t", "--target-directory", "-S", "--suffix"})
_INSTALL_VALUES = _CP_OWN_VALUES | frozenset({"-m", "--mode", "-o", "--owner", "-g", "--group"})


def _cp_operands(name: str, words: list[Word]) -> list[Word]:
    if name in ("cp", "mv", "ln"):
        return operands(words, _CP_OWN_VALUES, "tS")
    if name == "install":
        return operands(words, _INSTALL_VALUES, "tSmog")
    return operands(words, _CP_VALUES, "ef")


def _links_protected(part: Part, ctx: Ctx) -> list[Finding]:
    out: list[Finding] = []
    for w in _link_sources(part):
        path = resolve(w, part.cwd, ctx.home)
        if path is None:
            continue
        if path == ctx.project or path == "/" or ctx.project.startswith(path.rstrip("/") + "/"):
            out.append((3, "protected-paths", f"{part.name} links {w.raw}, the work tree or a folder above it, "
                                              "through which its .git and .handrail can be written"))
            continue
        hit = _protected(path, w, ctx, delete=False, container=True)
        if hit is not None:
            out.append((3, "protected-paths", f"{part.name} links {w.raw}, which matches '{hit[0]}' ({hit[1]}): "
                                              "writing through the link writes it"))
    return out


def check_paths(part: Part, written: list[Word], removed: list[Word], ctx: Ctx) -> list[Finding]:
    """The rules on where a part writes and removes (its effects: effects.of_part)."""
    out: list[Finding] = []
    if part.name in ("ln", "cp") and ctx.enabled("protected-paths"):
        out += _links_protected(part, ctx)
    if not written and not removed:
        return out
    from handrail.policy.shell.globdots import names_dotfiles
    from handrail.policy.shell.globwrites import with_hits

    redirect_targets = {id(r.target) for r in part.redirs if r.target is not None}
    flagged: set[int] = set()  # globs already found to touch a protected path: one finding says it
    for words, delete in ((written, False), (removed, True)):
        for w, came_from in with_hits(words, part.cwd, ctx.home, names_dotfiles(part)):
            if id(came_from or w) in flagged:
                continue
            redirect = id(came_from or w) in redirect_targets or type(w).__name__ == "ScriptFile"  # sed's `w FILE`
            if came_from is w:
                out.append((3, "dynamic", f"{'removes' if delete else 'writes'} {w.raw}, a glob that names more "
                                          "than 2,000 files: too many to check"))
                continue
            found = _judge(part, w, ctx, delete=delete, redirect=redirect)
            if found and any(tier == 3 for tier, _, _ in found) and (w.glob or came_from is not None):
                flagged.add(id(came_from or w))
            out += found
    return out


def _judge(part: Part, w: Word, ctx: Ctx, *, delete: bool, redirect: bool) -> list[Finding]:
    """The rules on one written or removed word."""
    out: list[Finding] = []
    verb = "removes" if delete else "writes"
    path = resolve(w, part.cwd, ctx.home)
    shown = w.raw
    if ctx.enabled("protected-paths"):
        if path is not None and above_project(path, ctx) and (delete or (isinstance(w, Landing) and w.contents)):
            return [(3, "protected-paths", f"{verb} {shown}, the work tree or a folder above it, with the protected "
                                           "paths in it (.git, .handrail, the harnesses' settings)")]
        container = delete or part.name in _COPIERS or part.name in ("chmod", "chown", "chgrp", "chattr")
        hit = _protected(path, w, ctx, delete=delete, container=container)
        real = _on_disk(path, ctx, delete=delete) if hit is None and path is not None else None
        if real is not None:
            hit = _protected(real, w, ctx, delete=delete, container=container)
            shown = f"{w.raw} (a link to {real[len(ctx.project) + 1:] if in_project(real, ctx) else real})"
        if hit is None and w.glob and path is not None and in_project(path, ctx) and path != ctx.project:
            from handrail.policy.shell.globwrites import could_name

            hit = could_name(path[len(ctx.project) + 1:])
            if hit is not None:
                shown = f"{w.raw}, a glob that can name a path"
        if hit is not None:
            out.append((3, "protected-paths", f"{verb} {shown}, which matches '{hit[0]}' ({hit[1]})"))
            return out
        shown = w.raw
    if path is None:
        if w.raw == "{}" and any(v.startswith("find -exec") for v in part.via):
            return out  # a file find found: find's own rule judges where it looks
        # a target known only at run time could be any file, a protected one included
        out.append((3, "dynamic", f"{verb} {shown}, a path only known at run time"))
        return out
    if path.startswith("/dev/") and part.name in ("mv", "cp", "install") and not redirect:
        out.append((3, "system-paths", f"{part.name} onto {shown} replaces a device file"))
        return out
    if path.startswith("/dev/"):
        if path in SAFE_DEVICES or path.startswith(("/dev/fd/", "/dev/pts/", "/dev/shm/")):
            return out
        if ctx.enabled("disk-write"):
            out.append((3, "disk-write", f"{verb} the device {path}"))
        return out
    why = sensitive(path, ctx, delete=delete)
    if why is not None and ctx.enabled("system-paths"):
        out.append((3, "system-paths", f"{verb} {shown}: {why}"))
    elif redirect and ctx.enabled("redirect-write"):
        out.append((2, "redirect-write", f"writes {shown}"))
    return out


# Every program `write_targets` knows the written or removed operands of: the write rules
# run for these (and for any part with a redirection).
WRITERS = frozenset({"tee", "touch", "truncate", "mkdir", "sudoedit", "chattr", "setfacl", "sed", "gsed", "perl",
                     *_COPIERS, "dd", "chmod", "chown", "chgrp", "rm", "unlink", "rmdir", "shred", "srm", "trash",
                     "rimraf", "curl", "wget", "uniq", "git", "awk", "gawk", "mawk", "nawk", "script", *_FILE_OPTS,
                     *COMPRESSORS, "xxd", *_EXTRACTORS, *ARCHIVE_PROGRAMS, "patch", "gpatch",
                     "handrail", "sqlite3", "python", *installs.FOLDERS})
