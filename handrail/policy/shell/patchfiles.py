"""The files a patch writes and removes: `git apply P`, `git am MBOX` and `patch -p1 < P` change whatever the
patch text names, so handrail reads it (bounded) and judges those files as written. A patch
it cannot read (not on disk yet, from a pipe, named at run time) names unknown files."""

from __future__ import annotations

import os
import re

from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part

PATCH_LIMIT = 256 * 1024
# git apply options that only look at the patch, or touch only the index
_GIT_READ_ONLY = frozenset({"--check", "--stat", "--numstat", "--summary", "--cached"})
_AM_SESSION = frozenset({"--abort", "--continue", "--skip", "--quit", "--show-current-patch", "--resolved", "-r",
                         "--retry", "--allow-empty"})
_GIT_VALUES = frozenset({"-p", "-C", "--directory", "--include", "--exclude", "--whitespace", "--build-fake-ancestor"})
_PATCH_VALUES = frozenset({"-p", "-d", "--directory", "-i", "--input", "-o", "--output", "-r", "--reject-file",
                           "-D", "--ifdef", "-F", "--fuzz", "-z", "--suffix", "-B", "--prefix", "-V",
                           "--version-control", "-Y", "--basename-prefix", "--quoting-style", "-g", "--get"})
_HEADER = re.compile(r"^(?:diff --git a/(\S+) b/(\S+)|\+\+\+ (\S+)|--- (\S+)|rename (?:from|to) (\S+)|copy to (\S+))",
                     re.M)


def patch_writes(part: Part) -> tuple[list[Word], list[Word]]:
    """(written, removed) of `git apply …` or `patch …`; ([], []) when it changes no file."""
    words = part.words
    git = part.name == "git"
    args = words[2:] if git else words[1:]
    opts: dict[str, str] = {}
    operands: list[Word] = []
    values = _GIT_VALUES if git else _PATCH_VALUES
    i = 0
    while i < len(args):
        t = args[i].text
        if t.startswith("-") and len(t) > 1 and not args[i].dyn:
            name, eq, val = t.partition("=")
            if not eq and name in values and i + 1 < len(args):
                i += 1
                val = args[i].text
            elif not eq and len(name) > 2 and name[:2] in values and not name.startswith("--"):
                name, val = name[:2], name[2:]  # `-p1`, `-ifix.diff`
            opts[name] = val
        else:
            operands.append(args[i])
        i += 1
    if git and (_GIT_READ_ONLY & set(opts)) and "--apply" not in opts:
        return [], []
    if git and words[1].text == "am" and _AM_SESSION & set(opts):
        return [], []  # goes on with (or drops) the mailbox judged when `git am` began
    if not git and "--dry-run" in opts:
        return [], []
    if not git and operands:
        return [operands[0]], []  # `patch FILE [P]`: the patch is applied to FILE
    patch = opts.get("-i") or opts.get("--input")
    sources: list[Word] = [Word(patch, patch)] if patch else list(operands if git else [])
    sources += [r.target for r in part.redirs if r.op == "<" and r.target is not None]
    if not sources:
        return [_unknown("the patch it reads from its input")], []
    p = opts.get("-p", "")
    strips = [int(p)] if p.isdigit() else [1] if git else [0, 99]  # patch without -p: the base name
    prefix = opts.get("--directory") or opts.get("-d") or ""
    written: list[Word] = []
    for src in sources:
        text = None if src.dyn else _read(src.text, part.cwd)
        if text is None:
            written.append(_unknown(f"the patch {src.raw}"))
            continue
        for m in _HEADER.finditer(text):
            path = next(g for g in m.groups() if g)
            if path == "/dev/null":
                continue
            for n in ([0] if m.group(1) or m.group(2) else strips):  # `diff --git a/X b/Y` is stripped already
                name = os.path.join(prefix, _stripped(path, n))
                written.append(Word(name, f"{name} (named in {src.raw})"))
    return list({w.text: w for w in written}.values()), []


def _stripped(path: str, n: int) -> str:
    parts = path.split("/")
    return "/".join(parts[n:]) if len(parts) > n else parts[-1]


def _unknown(what: str) -> Word:
    w = Word(f"$({what})", f"what {what} names")
    w.dyn = True
    return w


def _read(path: str, cwd: str | None) -> str | None:
    full = path if os.path.isabs(path) or cwd is None else os.path.join(cwd, path)
    from handrail.policy.shell.codefile import read_code_text

    text = read_code_text(full, PATCH_LIMIT)
    return None if text is None else text[:PATCH_LIMIT]
