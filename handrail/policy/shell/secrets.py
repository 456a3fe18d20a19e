"""Secrets read through the shell: every program that reads, copies or sends a file, judged
against the paths the Read tool refuses (reads.py)."""

from __future__ import annotations

import re

from handrail.policy.shell.common import Ctx, in_project
from handrail.policy.shell.parts import resolve
from handrail.policy.shell.syntax import SENT, Word
from handrail.policy.shell.targets import _cp_operands, _option_files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part

    Finding = tuple[int, str, str]


# --------------------------------------------------------------------------- secrets read through the shell

# The pre-tool hook refuses the Read tool on secrets (handrail/policy/reads.py); these are the
# same reads spelled as shell commands. The paths come from reads.py, never restated here.
# Per program: (short options that take a value, long options that take a value).
_READ_ALL: dict[str, tuple[str, frozenset[str]]] = {
    "cat": ("", frozenset()), "tac": ("bs", frozenset({"--separator"})),
    "less": ("bhjkoOpPtTxyz#", frozenset({"--log-file", "--LOG-FILE", "--pattern", "--prompt", "--tag",
                                           "--tag-file", "--tabs", "--window", "--shift", "--jump-target"})),
    "more": ("n", frozenset({"--lines"})), "most": ("", frozenset()),
    "head": ("nc", frozenset({"--lines", "--bytes"})),
    "tail": ("ncs", frozenset({"--lines", "--bytes", "--sleep-interval", "--pid", "--max-unchanged-stats"})),
    "bat": ("lHrm", frozenset({"--language", "--highlight-line", "--line-range", "--map-syntax", "--theme",
                               "--style", "--tabs", "--terminal-width", "--wrap", "--paging", "--color",
                               "--decorations", "--pager", "--file-name", "--italic-text"})),
    "nl": ("bdfhilnsvw", frozenset({"--body-numbering", "--section-delimiter", "--footer-numbering",
                                    "--header-numbering", "--line-increment", "--join-blank-lines",
                                    "--number-format", "--number-separator", "--starting-line-number",
                                    "--number-width"})),
    "od": ("AjNt", frozenset({"--address-radix", "--skip-bytes", "--read-bytes", "--format"})),
    "hexdump": ("efns", frozenset()), "hd": ("efns", frozenset()),
    "strings": ("ntTe", frozenset({"--bytes", "--radix", "--target", "--encoding", "--output-separator"})),
    "base64": ("w", frozenset({"--wrap"})), "base32": ("w", frozenset({"--wrap"})),
}
_READ_ALL["batcat"] = _READ_ALL["bat"]
_GREPS: dict[str, tuple[str, frozenset[str]]] = {
    "grep": ("efmABCdD", frozenset({"--regexp", "--file", "--max-count", "--after-context", "--before-context",
                                    "--context", "--directories", "--devices", "--include", "--exclude",
                                    "--exclude-dir", "--exclude-from", "--label", "--binary-files"})),
    "rg": ("efmABCgtTjEMdr", frozenset({"--regexp", "--file", "--max-count", "--after-context", "--before-context",
                                        "--context", "--glob", "--iglob", "--type", "--type-not", "--threads",
                                        "--encoding", "--max-columns", "--max-depth", "--replace", "--pre",
                                        "--pre-glob", "--type-add", "--type-clear", "--sort", "--sortr",
                                        "--ignore-file", "--max-filesize", "--colors", "--color",
                                        "--context-separator", "--path-separator", "--engine"})),
    "ag": ("ABCGgm", frozenset({"--after", "--before", "--context", "--file-search-regex", "--ignore",
                                "--ignore-dir", "--max-count", "--pager", "--depth", "--path-to-ignore",
                                "--workers"})),
}
_GREPS["egrep"] = _GREPS["fgrep"] = _GREPS["grep"]
_GREPS["ack"] = _GREPS["ag"]
_SED = ("efl", frozenset({"--expression", "--file", "--line-length"}))
_AWK = ("fvFiIlEW", frozenset({"--file", "--assign", "--field-separator", "--include", "--load", "--exec"}))
_SCP: tuple[str, frozenset[str]] = ("cDFiJlLoPSX", frozenset())
_RSYNC = ("efTBM", frozenset({"--exclude", "--include", "--filter", "--files-from", "--exclude-from",
                              "--include-from", "--rsh", "--rsync-path", "--temp-dir", "--partial-dir",
                              "--compare-dest", "--copy-dest", "--link-dest", "--backup-dir", "--suffix", "--chmod",
                              "--chown", "--log-file", "--password-file", "--bwlimit", "--timeout", "--port",
                              "--block-size", "--max-size", "--min-size", "--out-format", "--remote-option"}))
_TAR = ("fCTXbgKNLVHI", frozenset({"--file", "--directory", "--files-from", "--exclude-from", "--exclude",
                                   "--blocking-factor", "--listed-incremental", "--starting-file", "--newer",
                                   "--tape-length", "--label", "--format", "--use-compress-program", "--transform",
                                   "--owner", "--group", "--mode", "--mtime"}))
_ZIP = ("bntPOZs", frozenset({"--temp-path", "--suffixes", "--password", "--output-file", "--compression-method",
                              "--split-size"}))
# curl options whose value names a file it sends: `@file` for data and headers, `name=@file` or
# `name=<file` for forms, the value itself for uploads.
_CURL_AT = ("-d", "--data", "--data-binary", "--data-ascii", "--json", "-H", "--header")
_CURL_FORM = ("-F", "--form")
_CURL_UPLOAD = ("-T", "--upload-file")
SECRET_READERS = frozenset([*_READ_ALL, *_GREPS, "xxd", "sed", "gsed", "awk", "gawk", "mawk", "nawk", "cp", "mv",
                            "install", "scp", "rsync", "tar", "zip", "curl", "wget", "source", "."])
_SECRET_HINT: list[re.Pattern[str]] = []


def _value(w: Word, text: str) -> Word:
    """A word for the part of `w` that is an option's value (`-d@.env`, `--data=@.env`)."""
    v = Word(text, text if not w.dyn else w.raw)
    v.dyn = w.dyn
    return v


def _getopt(words: list[Word], short: str, long: frozenset[str], attached: str = "") -> tuple[
        list[Word], list[tuple[str, Word | None]]]:
    """(operands, [(option, value)]) as getopt reads them: a short option that takes a value takes
    the rest of its word or the next word; one in `attached` takes only the rest of its word."""
    ops: list[Word] = []
    opts: list[tuple[str, Word | None]] = []
    i, n = 1, len(words)
    while i < n:
        w = words[i]
        t = w.text
        if t == "--":
            ops += words[i + 1 :]
            break
        if len(t) > 1 and t[0] == "-" and not w.dyn:
            if t.startswith("--"):
                name, eq, val = t.partition("=")
                if eq:
                    opts.append((name, _value(w, val)))
                elif name in long and i + 1 < n:
                    opts.append((name, words[i + 1]))
                    i += 1
                else:
                    opts.append((name, None))
            else:
                for j in range(1, len(t)):
                    c = t[j]
                    if c in attached:
                        opts.append(("-" + c, _value(w, t[j + 1 :]) if j + 1 < len(t) else None))
                        break
                    if c in short:
                        if j + 1 < len(t):
                            opts.append(("-" + c, _value(w, t[j + 1 :])))
                        elif i + 1 < n:
                            opts.append(("-" + c, words[i + 1]))
                            i += 1
                        else:
                            opts.append(("-" + c, None))
                        break
                    opts.append(("-" + c, None))
            i += 1
            continue
        ops.append(w)
        i += 1
    return ops, opts


def _values(opts: list[tuple[str, Word | None]], names: tuple[str, ...]) -> list[Word]:
    return [v for o, v in opts if o in names and v is not None]


def _secret_sources(part: Part) -> list[tuple[Word, str]]:
    """(word, verb) for every file a part reads, copies or sends."""
    name = part.name
    words = part.words
    out: list[tuple[Word, str]] = [(r.target, f"reads through {r.op}") for r in part.redirs
                                   if r.target is not None and r.op in ("<", "<>")]
    found: list[Word] = []
    if name in _READ_ALL:
        found = _getopt(words, *_READ_ALL[name])[0]
    elif name == "xxd":  # `xxd IN [OUT]`: the second operand is written
        found = _getopt(words, "cglsoCn", frozenset({"-cols", "-groupsize", "-len", "-seek", "-name"}))[0][:1]
    elif name in _GREPS:
        ops, opts = _getopt(words, *_GREPS[name])
        given = _values(opts, ("-f", "--file"))
        named = given or _values(opts, ("-e", "--regexp")) or (name in ("ag", "ack") and _values(opts, ("-g",)))
        found = given + (ops if named else ops[1:])
    elif name in ("sed", "gsed", "awk", "gawk", "mawk", "nawk"):
        sed = name in ("sed", "gsed")
        ops, opts = _getopt(words, *(_SED if sed else _AWK), attached="i" if sed else "")
        scripts = _values(opts, ("-f", "--file") if sed else ("-f", "--file", "-E", "--exec"))
        named = scripts or (sed and _values(opts, ("-e", "--expression")))
        found = scripts + [w for w in (ops if named else ops[1:])
                           if sed or not re.match(r"[A-Za-z_]\w*=", w.text)]  # awk's `var=value` operands
    elif name in ("cp", "mv", "install", "scp", "rsync"):
        if name == "scp":
            ops = _getopt(words, *_SCP)[0]
        elif name == "rsync":
            ops = _getopt(words, *_RSYNC)[0]
        else:
            ops = _cp_operands(name, words)
        to_dir = any(w.text in ("-t", "--target-directory") or w.text.startswith("--target-directory=")
                     for w in words[1:])
        found = ops if to_dir else ops[:-1]
    elif name == "tar":
        tar = list(words)
        if len(tar) > 1 and not tar[1].text.startswith("-") and not tar[1].dyn:  # `tar czf out.tgz …`
            tar[1] = _value(tar[1], "-" + tar[1].text)
        ops, opts = _getopt(tar, *_TAR)
        if any(o in ("-c", "-r", "-u", "--create", "--append", "--update") for o, _ in opts):
            found = ops
    elif name == "zip":
        kept: list[Word] = []
        listing = False  # `-x`/`-i` take every word up to the next option
        for w in words:
            if w.text in ("-x", "-i", "--exclude", "--include"):
                listing = True
            elif listing and w.text.startswith("-"):
                listing = False
            if not listing:
                kept.append(w)
        found = _getopt(kept, *_ZIP)[0][1:]
    elif name in ("curl", "wget"):
        if name == "wget":
            found = [_value(v, v.text) for v in _option_files(words, ("--post-file", "--body-file"))]
        for v in _option_files(words, _CURL_AT):
            if v.text.startswith("@") and v.text != "@-":
                found.append(_value(v, v.text[1:]))
        for v in _option_files(words, ("--data-urlencode",)):
            head, at, tail = v.text.partition("@")
            if at and "=" not in head and tail != "-":
                found.append(_value(v, tail))
        for v in _option_files(words, _CURL_FORM):
            content = v.text.partition("=")[2]
            if content[:1] in ("@", "<") and content[1:2] != "-":
                found.append(_value(v, content[1:].split(";", 1)[0]))
        found += [_value(v, v.text) for v in _option_files(words, _CURL_UPLOAD) if v.text != "."]
    elif name in ("source", ".") and len(words) > 1:
        found = [words[1]]
    elif name == "git":
        found = _git_reads(words)
    elif name in ("find", "fd", "fdfind") and any(w.text in ("-exec", "-execdir", "-ok", "-okdir", "-x", "--exec",
                                                             "-X", "--exec-batch") for w in words):
        # `find . -name .env -exec cat {} \;`: the names it selects are handed to a program
        found = [words[i + 1] for i, w in enumerate(words[:-1]) if w.text in ("-name", "-iname", "-path", "-ipath",
                                                                              "-wholename", "-g", "--glob")]
        found += [w for w in words[1:] if name != "find" and not w.text.startswith("-")][:1]
    elif name not in _METADATA_ONLY:
        # A program handrail has no table for: any word that names a file may be read by it
        # (`sort .env`, `jq . secrets/x.json`, `openssl rsa -in k.pem`, `perl -pe1 .env`).
        found = [_value(w, w.text.split("=", 1)[1]) if w.text.startswith("-") and "=" in w.text else w
                 for w in words[1:] if _pathlike(w, part)]
        found += [_value(w, w.text[3:]) for w in words[1:] if w.text.startswith("if=")]
    verb = "sends" if name in ("curl", "wget") else "copies" if name in (
        "cp", "mv", "install", "scp", "rsync", "tar", "zip") else "sources" if name in ("source", ".") else "reads"
    out += [(w, verb) for w in found]
    return out


# Programs that look at a file's name, type or metadata, or remove or create it, without
# printing what it holds (what they write or delete is judged by the path rules).
_METADATA_ONLY = frozenset({"ls", "ll", "la", "dir", "stat", "test", "[", "[[", "touch", "mkdir", "rm", "rmdir",
                            "unlink", "realpath", "readlink", "basename", "dirname", "echo", "printf", "which",
                            "chmod", "chown", "chgrp", "du", "file", "mv", "ln", "trash", "shred", "type", "cd",
                            "pushd", "export", "unset", "local", "declare", "true", "false", "exit", "wait",
                            "find", "fd", "fdfind", "tree", "locate", "sleep", "kill", "git-check-ignore"})
# git subcommands whose operands are paths of the work tree (read when they are a secret).
_GIT_READS = frozenset({"show", "cat-file", "grep", "blame", "annotate", "log", "diff", "archive", "bundle",
                        "hash-object", "ls-files"})


def _pathlike(w: Word, part: Part) -> bool:
    """A word that may name a file: it looks like a path, or a file of that name exists. (A
    subcommand such as `vault secrets list` is not taken for the `secrets/` folder.)"""
    t = w.text
    if w.dyn or w.glob or "/" in t or "." in t or t.startswith("~") or "=" in t:
        return True
    import os

    return part.cwd is not None and os.path.isfile(os.path.join(part.cwd, t))


def _git_reads(words: list[Word]) -> list[Word]:
    """`git show :.env`, `git show HEAD:.env`, `git cat-file -p HEAD:secrets/x`, `git diff --no-index a .env`,
    `git log -p -- .env`, `git blame .env`: the path after a revision's colon, or the operand."""
    from handrail.policy.shell.parts import prog_name

    sub = next((w for w in words[1:] if not w.text.startswith("-")), None)
    if sub is None or prog_name(sub.text) not in _GIT_READS:
        return []
    out: list[Word] = []
    for w in words[words.index(sub) + 1 :]:
        t = w.text
        if t.startswith("-"):
            continue
        out.append(_value(w, t.split(":", 1)[1]) if ":" in t and not t.startswith(("/", "./")) else w)
    return out


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
    for w, how in _expanded(_secret_sources(part), part, ctx):
        path = resolve(w, part.cwd, ctx.home)
        if path is None:  # `$DIR/.env`: what follows the run-time part is still known
            rel = w.text.rsplit(SENT, 1)[-1].lstrip("/")
            if "\\" in w.raw:  # PowerShell and cmd spell paths with backslashes: `$env:HOME\.ssh\id_rsa`
                rel = w.raw.replace("\\", "/").split("/", 1)[-1]
        elif in_project(path, ctx):
            rel = "" if path == ctx.project else path[len(ctx.project) + 1 :]
        else:
            rel = path  # reads.py matches at any depth: `/home/me/app/.env` too
        if not rel or rel in seen or not (hint.search(rel) or w.glob):
            continue
        seen.add(rel)
        from handrail.policy.shell.reads import read_refusal

        # a folder counts when what it holds is a secret (`cp -r secrets /tmp`, `grep -r X secrets`)
        refusal = read_refusal(rel) or read_refusal(rel.rstrip("/") + "/x")
        if refusal is not None:
            shown = w.raw if w.raw.endswith(rel) else f"{w.raw} ({rel})"
            verb, _, through = how.partition(" through ")
            shown += f" through {through}" if through else ""
            out.append((3, "secret-read", f"{part.name or 'the shell'} {verb} {shown}, which matches '{refusal.rule}' "
                                          f"({refusal.source}: {refusal.why}): a secret the Read tool may not "
                                          "open either"))
    if not out and part.name in _RECURSIVE_SEARCH:
        out += _recursive_search(part, ctx)
    return out


GLOB_LIMIT = 2000


def _expanded(sources: list[tuple[Word, str]], part: Part, ctx: Ctx) -> list[tuple[Word, str]]:
    """A glob is judged by what it names on disk (`cat .e*` names `.env`), and by itself."""
    out: list[tuple[Word, str]] = []
    for w, how in sources:
        out.append((w, how))
        if not w.glob or w.dyn or part.cwd is None:
            continue
        import glob
        import itertools

        pattern = resolve(w, part.cwd, ctx.home)
        if pattern is None:
            continue
        for hit in itertools.islice(glob.iglob(pattern, include_hidden=True, recursive=True), GLOB_LIMIT):
            named = Word(hit, f"{w.raw} (names {hit})")
            out.append((named, how))
    return out


# Searches that descend into folders: what they print may come from any file below; and
# archivers and copiers that take a whole folder with them.
_RECURSIVE_SEARCH = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "git", "tar", "zip", "7z", "rsync",
                               "scp", "cp"})
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
    roots = [resolve(w, part.cwd, ctx.home) for w in part.words[2:] if not w.text.startswith("-")]
    roots = [r for r in roots if r is not None and __import__("os").path.isdir(r)] or (
        [part.cwd] if part.cwd else [])
    found = _find_secret(roots)
    if found is None:
        return [(3, "secret-read", f"{name} searches a tree too large to check for secrets ({WALK_LIMIT:,} entries)")]
    if found:
        return [(3, "secret-read", f"{name} searches every file below, {found} included, which holds secrets: "
                                   "exclude it (--exclude, -g '!…') or search where no secret lies")]
    return []


def _archive_of_secrets(part: Part, ctx: Ctx) -> list[Finding]:
    """`tar czf /tmp/x.tgz .`, `zip -r out.zip .`, `rsync -a . host:`: a folder that holds a secret
    goes with it, unless the command excludes it."""
    import os

    texts = [w.text for w in part.words[1:]]
    name = part.name
    if name == "tar" and not any(t.startswith("-") and "c" in t or t in ("--create",) or (
            not t.startswith("-") and "c" in t and i == 0) for i, t in enumerate(texts)):
        return []
    if name in ("cp", "scp") and not any(t in ("-r", "-R", "-a", "--recursive", "--archive") or
                                          (t.startswith("-") and not t.startswith("--") and set(t[1:]) & set("rRa"))
                                          for t in texts):
        return []
    if any("exclude" in t or t.startswith("-x") for t in texts):
        return []
    roots = [resolve(w, part.cwd, ctx.home) for w in part.words[1:] if not w.text.startswith("-") and not w.dyn]
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


def _find_secret(roots: list[str]) -> str | None:
    """The first secret file under the roots ('' when none), None past the walk limit."""
    import os

    from handrail.policy.shell.reads import read_refusal

    seen = 0
    stack = list(roots)
    while stack:
        top = stack.pop()
        try:
            entries = list(os.scandir(top))
        except OSError:
            continue
        for e in entries:
            seen += 1
            if seen > WALK_LIMIT:
                return None
            try:
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if e.name not in _SKIP_DIRS:
                    stack.append(e.path)
            elif read_refusal(e.path) is not None:
                return e.path
    return ""
