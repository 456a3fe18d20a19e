"""Secrets read through the shell: every program that reads, copies or sends a file, judged
against the paths the Read tool refuses (reads.py)."""

from __future__ import annotations

import re

from handrail.policy.shell.common import Ctx, in_project
from handrail.policy.shell.globdots import names_dotfiles
from handrail.policy.shell.globwrites import GLOB_LIMIT, names
from handrail.policy.shell.links import linked
from handrail.policy.shell.parts import resolve
from handrail.policy.shell.sources import _GREPS, _READ_ALL
from handrail.policy.shell.syntax import SENT, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part

    Finding = tuple[int, str, str]


# --------------------------------------------------------------------------- secrets read through the shell

# Programs that print what the files they are given hold: a file named only at run time is
# judged by the name it could have.
_PRINTERS = frozenset({*_READ_ALL, *_GREPS, "sed", "gsed", "awk", "gawk", "mawk", "nawk", "xxd", "sort", "uniq",
                       "cut", "paste", "rev", "jq", "yq", "zcat", "gzip", "diff", "cmp", "comm", "wc", "fold", "fmt",
                       "pr", "expand", "column", "split", "csplit", "iconv", "dd", "openssl", "gpg", "perl"})

_SECRET_HINT: list[re.Pattern[str]] = []


def _secret_hint() -> re.Pattern[str]:
    """A path can match a secret pattern only if it holds that pattern's longest literal piece."""
    if not _SECRET_HINT:
        from handrail.policy.shell.reads import CREDENTIALS, SECRETS

        pieces = {max((c for c in re.split(r"[*?\[\]/]+", p.lower()) if c), key=len, default="")
                  for p in SECRETS + CREDENTIALS}
        pieces.discard("")
        pieces |= {".env", ".e", "id_", ".pem", ".key", "secret", "credential", "shadow", "netrc", "npmrc"}
        _SECRET_HINT.append(re.compile("|".join(re.escape(p) for p in sorted(pieces)), re.I))
    return _SECRET_HINT[0]


def check_secret_reads(part: Part, ctx: Ctx) -> list[Finding]:
    """Reading a file the Read tool may not open (reads.py), spelled as a shell command."""
    out: list[Finding] = []
    seen: set[str] = set()
    hint = _secret_hint()
    from handrail.policy.shell.effects import of_part

    sources = of_part(part).reads + linked(part)
    printer = part.name in _PRINTERS
    for w, how in _expanded(sources, part, ctx, out):
        path = resolve(w, part.cwd, ctx.home)
        if path is None:  # `$DIR/.env`: what follows the run-time part is still known
            rel = w.text.rsplit(SENT, 1)[-1].lstrip("/")
            if "\\" in w.raw:  # PowerShell and cmd spell paths with backslashes: `$env:HOME\.ssh\id_rsa`
                rel = w.raw.replace("\\", "/").split("/", 1)[-1]
            elif w.text.startswith("/") and SENT in w.text:
                rel = w.text.replace(SENT, "x")  # `/proc/$$/environ`: any value of the run-time part
            if printer or how.startswith("reads through"):
                out += _unknown_name(part, w, how)
        else:
            rel = _relative(path, ctx)
            real = _real(path)
            if real is not None and real not in seen:
                # `cat link` where link -> .env: the link is read through to what it names
                seen.add(real)
                out += _refused(part, Word(_relative(real, ctx), f"{w.raw} (a link to {real})"), how)
        if not rel or rel in seen or not (hint.search(rel) or w.glob):
            continue
        seen.add(rel)
        out += _refused(part, w if w.raw.endswith(rel) else Word(rel, f"{w.raw} ({rel})"), how)
        if w.glob and path is not None and not in_project(path, ctx) and not out:
            out += _could_name(part, w, path)
    if not out and (part.name in _READ_ALL or part.arg_files):
        # `cat "$(echo .env)"`, `cat $(ls -a | grep env)`, `xargs -a "$F" echo`: what it prints
        # is a file chosen at run time
        printed = part.arg_files + (part.words[1:] if part.name in _READ_ALL else [])
        whole = next((w for w in printed if w.dyn and not w.text.replace(SENT, "").strip("/\"'")), None)
        if whole is not None:
            out.append((3, "secret-read", f"{part.name} prints {whole.raw}, a file only known at run time"))
    if not out and part.name in _RECURSIVE_SEARCH:
        out += _recursive_search(part, ctx)
    if not out and part.extra and printer and part.feeder is not None:
        out += fed_names(part, ctx)
    return out


def _relative(path: str, ctx: Ctx) -> str:
    if in_project(path, ctx):
        return "" if path == ctx.project else path[len(ctx.project) + 1 :]
    return path  # reads.py matches at any depth: `/home/me/app/.env` too


def _real(path: str) -> str | None:
    """Where a path that goes through a symbolic link really leads, when that is elsewhere."""
    import os

    try:
        real = os.path.realpath(path)  # bounded: the system's own limit on links followed
    except (OSError, ValueError):
        return None
    return real if real != path else None


def _refused(part: Part, w: Word, how: str) -> list[Finding]:
    from handrail.policy.shell.reads import read_refusal

    rel = w.text
    # a folder counts when what it holds is a secret (`cp -r secrets /tmp`, `grep -r X secrets`)
    refusal = read_refusal(rel) or read_refusal(rel.rstrip("/") + "/x")
    if refusal is None:
        return []
    shown = w.raw
    verb, _, through = how.partition(" through ")
    shown += f" through {through}" if through else ""
    return [(3, "secret-read", f"{part.name or 'the shell'} {verb} {shown}, which matches '{refusal.rule}' "
                               f"({refusal.source}: {refusal.why}): a secret the Read tool may not open either")]


def _could_name(part: Part, w: Word, path: str) -> list[Finding]:
    """`cat ~/.ssh/*` over a folder empty today: the glob itself could name a credential."""
    from handrail.policy.shell.overlap import meeting
    from handrail.policy.shell.reads import CREDENTIALS

    pattern = meeting(path, CREDENTIALS)
    if pattern is None:
        return []
    return [(3, "secret-read", f"{part.name} reads {w.raw}, a glob that can name a file matching '{pattern}': "
                               "a credential or private file of the machine's user")]


def _unknown_name(part: Part, w: Word, how: str) -> list[Finding]:
    """`cat ${f}nv`, `grep x $F.json`: a file whose name is only known at run time, when that name
    could be a secret's (`notes-$D.txt` cannot)."""
    from handrail.policy.shell.overlap import name_meeting
    from handrail.policy.shell.reads import CREDENTIALS, SECRETS

    last = w.text.rsplit("/", 1)[-1]
    if SENT not in last or not last.replace(SENT, ""):
        return []  # a known name in a run-time folder, or a wholly run-time one (judged below)
    pattern = name_meeting(last.replace(SENT, "*"), SECRETS + CREDENTIALS)
    if pattern is None:
        return []
    return [(3, "secret-read", f"{part.name or 'the shell'} {how.split(' through ')[0]} {w.raw}, a file named only "
                               f"at run time, which could match '{pattern}'")]




def _expanded(sources: list[tuple[Word, str]], part: Part, ctx: Ctx,
              out: list[Finding]) -> list[tuple[Word, str]]:
    """A glob is judged by what it names on disk (`cat .e*` names `.env`), and by itself; one that
    names more than GLOB_LIMIT files is not looked through (a finding in `out`)."""
    found: list[tuple[Word, str]] = []
    for w, how in sources:
        found.append((w, how))
        if not w.glob or w.dyn or part.cwd is None:
            continue
        pattern = resolve(w, part.cwd, ctx.home)
        if pattern is None:
            continue
        hits = names(pattern, names_dotfiles(part))
        if hits is None:
            out.append((3, "secret-read", f"{part.name} reads {w.raw}, which names more than {GLOB_LIMIT:,} files: "
                                          "too many to check for secrets"))
            continue
        found += [(Word(hit, f"{w.raw} (names {hit})"), how) for hit in hits]
    return found


# Searches that descend into folders: what they print may come from any file below; and
# archivers and copiers that take a whole folder with them.
_RECURSIVE_SEARCH = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "git", "tar", "zip", "7z", "rsync",
                               "scp", "cp", "diff"})
_ARCHIVERS = frozenset({"tar", "zip", "7z", "rsync", "scp", "cp"})
WALK_LIMIT = 20_000
_SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".pytest_cache",
                        ".tox", "dist", "build", "target"})


def _recursive_search(part: Part, ctx: Ctx) -> list[Finding]:
    """`grep -r X .`, `rg -uu X`, `git grep --untracked X` over a tree that holds a secret, unless the
    command excludes it."""
    texts = [w.text for w in part.words[1:]]
    name = part.name
    if name in _ARCHIVERS:
        return _archive_of_secrets(part, ctx)
    if name == "git":
        if not texts or texts[0] != "grep" or not any(t in ("--untracked", "--no-index", "--no-exclude-standard")
                                                       for t in texts):
            return []
    elif name in ("rg", "ag"):
        unrestricted = any(t in ("-uu", "-uuu", "--hidden", "-.", "--no-ignore", "--unrestricted", "-u")
                           or (t.startswith("-u") and t.count("u") >= 2 and t.strip("-u") == "") for t in texts)
        if not unrestricted:
            return []  # they skip hidden and ignored files, where secrets live
    elif not any(t in ("-r", "-R", "--recursive", "--dereference-recursive", "-d") or
                 (t.startswith("-") and not t.startswith("--") and ("r" in t or "R" in t)) for t in texts):
        return []
    if any(t.startswith(("--exclude", "--exclude-dir", "-g", "--glob", "--iglob")) and
           ("env" in t or "secret" in t or "!" in t) for t in texts):
        return []
    import os

    from handrail.policy.shell.sources import _getopt

    # option values are no operands: `git grep --no-index -e PAT` searches the current folder
    ops = _getopt(part.words[1:] if name == "git" else part.words, *_SEARCH_VALUES.get(name, _GIT_GREP))[0]
    if name != "diff" and not any(t in ("-e", "--regexp", "-f", "--file") or t.startswith(("--regexp=", "--file="))
                                  for t in texts):
        ops = ops[1:]  # the first operand is the pattern
    named = [resolve(w, part.cwd, ctx.home) for w in ops]
    roots = [r for r in named if r is not None and os.path.isdir(r)]
    if not roots and not named and part.cwd:
        roots = [part.cwd]  # `grep -r x`, `rg -uu x`: the current folder
    found = _find_secret(roots)
    if found is None:
        return [(3, "secret-read", f"{name} searches a tree too large to check for secrets ({WALK_LIMIT:,} entries)")]
    if found:
        return [(3, "secret-read", f"{name} searches every file below, {found} included, which holds secrets: "
                                   "exclude it (--exclude, -g '!…') or search where no secret lies")]
    return []


_GIT_GREP = ("efABCmO", frozenset({"--regexp", "--file", "--after-context", "--before-context", "--context",
                                   "--max-count", "--max-depth", "--threads", "--open-files-in-pager", "--and",
                                   "--or"}))
_SEARCH_VALUES = {**_GREPS, "diff": ("xXIF", frozenset({"--exclude", "--exclude-from", "--ignore-matching-lines",
                                                          "--show-function-line", "--label"}))}


def _archive_of_secrets(part: Part, ctx: Ctx) -> list[Finding]:
    """`tar czf /tmp/x.tgz .`, `zip -r out.zip .`, `rsync -a . host:`: a folder that holds a secret
    goes with it, unless the command excludes it."""
    import os

    texts = [w.text for w in part.words[1:]]
    name = part.name
    if name == "tar" and not any((t.startswith("-") and "c" in t) or t in ("--create",) or (
            not t.startswith("-") and "c" in t and i == 0) for i, t in enumerate(texts)):
        return []
    if name in ("cp", "scp") and not any(t in ("-r", "-R", "-a", "--recursive", "--archive") or
                                          (t.startswith("-") and not t.startswith("--") and set(t[1:]) & set("rRa"))
                                          for t in texts):
        return []
    if any("exclude" in t or t.startswith("-x") for t in texts):
        return []
    roots = _tar_roots(part, ctx) if name == "tar" else [
        resolve(w, part.cwd, ctx.home) for w in part.words[1:] if not w.text.startswith("-") and not w.dyn]
    dirs = [r for r in roots if r is not None and os.path.isdir(r)]
    if name in ("cp", "rsync", "scp") and dirs and roots and roots[-1] == dirs[-1]:
        dirs = dirs[:-1]  # the last operand is where it copies to
    found = _find_secret(dirs) if dirs else ""
    if found is None:
        return [(3, "secret-read", f"{name} takes a tree too large to check for secrets ({WALK_LIMIT:,} entries)")]
    if found:
        return [(3, "secret-read", f"{name} takes every file below, {found} included, which holds secrets: exclude "
                                   "it or name what to take")]
    return []


def _tar_roots(part: Part, ctx: Ctx) -> list[str | None]:
    """What tar takes, each operand from the last `-C DIR` before it (`-C /tmp stage`: /tmp/stage)."""
    out: list[str | None] = []
    base, words, skip = part.cwd, part.words, False
    for i, w in enumerate(words[1:], 1):
        t = w.text
        if skip:
            skip = False
            continue
        if t in ("-C", "--directory") and i + 1 < len(words):
            base = resolve(words[i + 1], base, ctx.home)
            skip = True
        elif t.startswith("--directory="):
            base = resolve(Word(t.split("=", 1)[1], w.raw), base, ctx.home)
        elif not t.startswith("-") and not w.dyn:
            out.append(resolve(w, base, ctx.home))
    return out


_WALKS: dict[str, str | None] = {}


def _find_secret(roots: list[str]) -> str | None:
    """The first secret file under the roots ('' when none), None past the walk limit. A tree is
    walked once per process (a batch asks about the same folders again and again)."""
    key = "\0".join(roots)
    if key not in _WALKS:
        if len(_WALKS) > 256:
            _WALKS.clear()
        _WALKS[key] = _walk(roots)
    return _WALKS[key]


def _walk(roots: list[str]) -> str | None:
    found = secrets_below(roots, most=1)
    return None if found is None else (found[0] if found else "")


def secrets_below(roots: list[str], most: int = 64) -> list[str] | None:
    """Up to `most` secret files under the roots, None past WALK_LIMIT entries: a tree too large
    to look through is not a tree without secrets."""
    import os

    from handrail.policy.shell.reads import read_refusal

    hint = _secret_hint()
    seen = 0
    found: list[str] = []
    stack = list(roots)
    walked = {os.path.realpath(r) for r in roots}
    while stack:
        top = stack.pop()
        try:
            entries = list(os.scandir(top))
        except (OSError, ValueError):
            continue
        for e in entries:
            seen += 1
            if seen > WALK_LIMIT:
                return None
            try:
                is_dir, is_link = e.is_dir(follow_symlinks=False), e.is_symlink()
            except OSError:
                continue
            if is_link:  # read as what it leads to: a file (`cfg.txt -> ../.env`), or a folder to walk
                real = os.path.realpath(e.path)
                if os.path.isdir(real) and real not in walked:
                    walked.add(real)
                    stack.append(real)
                elif any(hint.search(p) and read_refusal(p) is not None for p in (e.path, real)):
                    found.append(e.path)
            elif is_dir:
                if e.name not in _SKIP_DIRS:
                    stack.append(e.path)
            elif hint.search(e.path) and read_refusal(e.path) is not None:
                found.append(e.path)
            if len(found) >= most:
                return found
    return found


def fed_names(part: Part, ctx: Ctx) -> list[Finding]:
    """`ls -a | xargs cat`, `find . | xargs head`, `git ls-files -o | xargs cat`: the files read are
    the names another command prints, from the folder it lists; when that folder holds a secret,
    a human decides (as for `find -exec cat {}`)."""
    import os

    feeder = part.feeder
    assert feeder is not None
    texts = [w.text for w in feeder.words[1:]]
    flags = "".join(t[1:] for t in texts if t.startswith("-") and not t.startswith("--"))
    dirs = [resolve(w, feeder.cwd, ctx.home) for w in feeder.words[1:] if not w.text.startswith("-")]
    roots = [d for d in dirs if d is not None and os.path.isdir(d)] or ([feeder.cwd] if feeder.cwd else [])
    if feeder.name == "git":
        if not texts or texts[0] != "ls-files" or not ({"-o", "--others"} & set(texts) or "o" in flags):
            return []  # tracked paths: what git already holds
        roots = [feeder.cwd] if feeder.cwd else []
    found: str | None
    if feeder.name in ("ls", "dir") and "R" not in flags and "--recursive" not in texts:
        hidden = "a" in flags or "A" in flags or {"--all", "--almost-all"} & set(texts)
        found = _listed_secret(roots, bool(hidden))
    elif feeder.name in ("echo", "printf"):
        return []  # the names are written out, and each run is judged with them
    else:
        found = _find_secret(roots)
    if found is None:
        return [(3, "secret-read", f"{part.name} reads the files {feeder.name} names, from a tree too large to "
                                   f"check for secrets ({WALK_LIMIT:,} entries)")]
    if found:
        return [(3, "secret-read", f"{part.name} reads the files {feeder.name} names, {found} among them, which "
                                   "holds secrets: name the files to read")]
    return []


def _listed_secret(roots: list[str], hidden: bool) -> str:
    """The first secret `ls` lists in the folders (not below them)."""
    import os

    from handrail.policy.shell.reads import read_refusal

    for top in roots:
        try:
            entries = list(os.scandir(top))
        except (OSError, ValueError):
            continue
        for e in entries:
            if (hidden or not e.name.startswith(".")) and read_refusal(e.path) is not None:
                return e.path
    return ""
