"""The files an archive writes when it is unpacked: `tar xf A`, `unzip A` write whatever names
the archive holds, so handrail reads its list of members (bounded) and judges those files as
written, joined to the folder it unpacks into. A member that is a link (it makes a path that
leads elsewhere), names rewritten at run time (`--transform`), or an archive it cannot read
(not on disk yet, from a pipe, too large, a format it does not open) unpacked where a
repository keeps its own files, write unknown files; the same archive unpacked into a
folder of its own writes that folder."""

from __future__ import annotations

import os

from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part

ARCHIVE_LIMIT = 64 * 1024 * 1024  # bytes of archive read to list it
MEMBER_LIMIT = 4096
_TARS = frozenset({"tar", "bsdtar", "gtar"})
# tar options whose value is the next word (or the rest of a bundle)
_TAR_VALUED = frozenset("fCbTXgHKLNV")
_TAR_LONG_VALUED = frozenset({"--file", "--directory", "--files-from", "--exclude-from", "--blocking-factor",
                              "--format", "--owner", "--group", "--mode", "--newer", "--after-date",
                              "--strip-components", "--transform", "--xform", "--use-compress-program",
                              "--to-command", "--exclude", "--label", "--starting-file"})
_RENAMES = frozenset({"--transform", "--xform", "-s"})


PROGRAMS = frozenset({*_TARS, "unzip", "python", "python3", "cmake", "7z", "7za", "7zr", "jar", "ar", "cpio", "pax"})
_PY_MODULES = {"tarfile": ("-e", "--extract"), "zipfile": ("-e", "--extract")}


def extracted(part: Part) -> list[Word]:
    """The files an unpacking command writes; [] when it does not unpack (`tar cf`, `unzip -l`)."""
    name, words = part.name, part.words
    texts = [w.text for w in words]
    if name in _TARS:
        return _tar(words[1:], part)
    if name == "cmake" and texts[1:3] == ["-E", "tar"]:
        return _tar(words[3:], part)
    if name == "unzip":
        return _unzip(part)
    if name in ("python", "python3"):
        return _python(words, part)
    if name in ("7z", "7za", "7zr") and len(texts) > 1 and texts[1] in ("x", "e"):
        ops = [w for w in words[2:] if not w.text.startswith("-")]
        dests = [_value(w.text[2:], w) for w in words[2:] if w.text.startswith("-o") and len(w.text) > 2]
        return _members(ops[0], part, dests, -2 if texts[1] == "e" else 0, False) if ops else []
    if name == "jar" and len(texts) > 2 and "x" in texts[1] and "f" in texts[1]:
        return _members(words[2], part, [], 0, False)
    # formats handrail does not open: what they hold is unknown
    if name == "ar" and len(texts) > 1 and "x" in texts[1].lstrip("-"):
        return _unreadable("the archive ar unpacks", part, [Word(".", ".")])
    if (name == "cpio" and any(t == "--extract" or (t[:1] == "-" and "i" in t[1:]) for t in texts[1:])) or \
            (name == "pax" and any(t[:1] == "-" and "r" in t[1:] for t in texts[1:])):
        return _unreadable(f"the archive {name} unpacks", part, [Word(".", ".")])
    return []


def _python(words: list[Word], part: Part) -> list[Word]:
    """`python3 -m tarfile -e A [DIR]`, `python3 -m zipfile -e A DIR`."""
    texts = [w.text for w in words]
    if "-m" not in texts:
        return []
    at = texts.index("-m") + 1
    module = texts[at] if at < len(texts) else ""
    if module not in _PY_MODULES or not set(texts[at + 1:]) & set(_PY_MODULES[module]):
        return []
    ops = [w for w in words[at + 1:] if not w.text.startswith("-")]
    return _members(ops[0], part, ops[1:2], 0, False) if ops else []


def _tar(words: list[Word], part: Part) -> list[Word]:
    opts: dict[str, list[Word]] = {}
    flags: set[str] = set()
    operands: list[Word] = []
    i = 0
    if words and not words[0].text.startswith("-") and not words[0].dyn:  # `tar xzf A`: the old bundle
        bundle, i = words[0].text, 1
        for c in bundle:
            flags.add(c)
            if c in _TAR_VALUED and i < len(words):
                opts.setdefault(f"-{c}", []).append(words[i])
                i += 1
    while i < len(words):
        w = words[i]
        t = w.text
        if t.startswith("--"):
            name, eq, val = t.partition("=")
            if eq:
                opts.setdefault(name, []).append(_value(val, w))
            elif name in _TAR_LONG_VALUED and i + 1 < len(words):
                i += 1
                opts.setdefault(name, []).append(words[i])
            else:
                flags.add(name)
        elif t.startswith("-") and len(t) > 1:
            for n, c in enumerate(t[1:], 1):
                flags.add(c)
                if c in _TAR_VALUED:
                    rest = t[n + 1:]
                    if rest:
                        opts.setdefault(f"-{c}", []).append(_value(rest, w))
                    elif i + 1 < len(words):
                        i += 1
                        opts.setdefault(f"-{c}", []).append(words[i])
                    break
        else:
            operands.append(w)
        i += 1
    if not ({"x", "--extract", "--get"} & flags):
        return []
    if _RENAMES & (set(opts) | flags):
        return [_unknown("the names --transform gives the archive's members")]
    archives = opts.get("-f", []) + opts.get("--file", [])
    if not archives:
        return [_unknown("the archive tar reads from its input")]
    strip = opts.get("--strip-components", [Word("0", "0")])[-1].text
    dests = opts.get("-C", []) + opts.get("--directory", [])
    absolute = bool({"P", "--absolute-names"} & flags)
    return _members(archives[-1], part, dests, int(strip) if strip.isdigit() else -1, absolute)


def _unzip(part: Part) -> list[Word]:
    words = part.words[1:]
    texts = [w.text for w in words]
    if any(t in ("-l", "-v", "-t", "-z", "-Z", "-p", "-c", "--help", "-h") or
           (t.startswith("-") and not t.startswith("--") and set(t[1:]) & set("lvtzZpc")) for t in texts):
        return []  # lists, tests or prints: writes no file
    dests: list[Word] = []
    operands: list[Word] = []
    i = 0
    while i < len(words):
        t = words[i].text
        if t == "-d" and i + 1 < len(words):
            i += 1
            dests.append(words[i])
        elif t.startswith("-d") and len(t) > 2:
            dests.append(_value(t[2:], words[i]))
        elif t in ("-x",):
            break  # what follows are names left out: the members are judged all the same
        elif not t.startswith("-"):
            operands.append(words[i])
        i += 1
    if not operands:
        return []
    junk = any(t.startswith("-") and "j" in t for t in texts)
    return _members(operands[0], part, dests, -2 if junk else 0, False)


def _members(archive: Word, part: Part, dests: list[Word], strip: int, absolute: bool) -> list[Word]:
    """Every member's path, as written; `strip` -1: unknown, -2: only the base names."""
    if archive.dyn or archive.text == "-" or strip == -1:
        return [_unknown(f"the archive {archive.raw}")]
    where = [d for d in dests] or [Word(".", ".")]
    names = _listing(archive.text, part.cwd)
    if names is None:
        return _unreadable(f"the archive {archive.raw}", part, where)

    out: list[Word] = []
    for name, link in names:
        if link:
            out.append(_unknown(f"a link the archive {archive.raw} makes ({name})"))
            continue
        rel = name if absolute and name.startswith("/") else name.lstrip("/")
        if strip == -2:
            rel = os.path.basename(rel.rstrip("/"))
        elif strip:
            pieces = rel.split("/")
            if len(pieces) <= strip:
                continue
            rel = "/".join(pieces[strip:])
        if not rel or rel == ".":
            continue
        for d in where:
            if d.dyn:
                out.append(_unknown(f"the folder {d.raw}"))
                continue
            path = rel if rel.startswith("/") else os.path.normpath(os.path.join(d.text, rel))
            out.append(Word(path, f"{path} (a member of {archive.raw})"))
    return list({w.text: w for w in out}.values())


def _unreadable(what: str, part: Part, where: list[Word]) -> list[Word]:
    """Names unknown: harmless below a folder of its own (the unpackers keep `..` out), not where
    a repository keeps its own files (.git, .handrail), nor in a folder known only at run time."""
    if any(d.dyn or _holds_a_repository(d.text, part.cwd) for d in where):
        return [_unknown(f"{what} (unreadable here, and unpacked beside the repository's own files)")]
    return where


def _holds_a_repository(folder: str, cwd: str | None) -> bool:
    full = folder if os.path.isabs(folder) or cwd is None else os.path.join(cwd, folder)
    return any(os.path.lexists(os.path.join(full, name)) for name in (".git", ".handrail")) or cwd is None


def _listing(path: str, cwd: str | None) -> list[tuple[str, bool]] | None:
    """(member name, whether it is a link) for each member, or None when unreadable."""
    full = path if os.path.isabs(path) or cwd is None else os.path.join(cwd, path)
    from handrail.policy.shell.codefile import regular_file

    try:
        if not regular_file(os.path.abspath(full)) or os.path.getsize(full) > ARCHIVE_LIMIT:
            return None
    except (OSError, ValueError):
        return None
    import tarfile
    import zipfile

    try:
        if zipfile.is_zipfile(full):
            with zipfile.ZipFile(full) as z:
                infos = z.infolist()
                if len(infos) > MEMBER_LIMIT:
                    return None
                return [(i.filename, (i.external_attr >> 16) & 0o170000 == 0o120000) for i in infos]
        with tarfile.open(full) as t:
            out: list[tuple[str, bool]] = []
            for m in t:
                out.append((m.name, m.issym() or m.islnk() or not (m.isfile() or m.isdir())))
                if len(out) > MEMBER_LIMIT:
                    return None
            return out
    except (OSError, EOFError, tarfile.TarError, zipfile.BadZipFile, ValueError, RuntimeError):
        return None


def _value(text: str, w: Word) -> Word:
    """An option's value glued to it (`--file=A`, `-fA`), known as the word it came in is."""
    v = Word(text, text)
    v.dyn = w.dyn
    return v


def _unknown(what: str) -> Word:
    w = Word(f"$({what})", f"what {what} names")
    w.dyn = True
    return w
