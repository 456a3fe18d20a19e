"""Which files a command reads, copies or sends: per program, the operands and option values
that name a file (`cat F`, `grep PAT F`, `cp F DEST`, `curl -d @F`, `tar czf out F`, `git show
HEAD:F`), read as that program's option parser reads them.

For a program handrail has no table for, any word that looks like a path counts.
"""

from __future__ import annotations

import re

from handrail.policy.shell import pymodules, toolreads
from handrail.policy.shell.argscan import file_values, long_option
from handrail.policy.shell.syntax import Word
from handrail.policy.shell.targets import _cp_operands

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from handrail.policy.shell.parts import Part

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
_TAR_LISTS = frozenset({"--file", "--files-from"})  # `--files` is --files-from, `--fil` is neither
_ZIP = ("bntPOZs", frozenset({"--temp-path", "--suffixes", "--password", "--output-file", "--compression-method",
                              "--split-size"}))
# curl options whose value names a file it sends: `@file` for data and headers, `name=@file` or
# `name=<file` for forms, the value itself for uploads.
_CURL_AT = ("-d", "--data", "--data-binary", "--data-ascii", "--json", "-H", "--header")
_CURL_FORM = ("-F", "--form")
_CURL_UPLOAD = ("-T", "--upload-file")


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


def secret_sources(part: Part) -> list[tuple[Word, str]]:
    """(word, verb) for every file a part reads, copies or sends."""
    name = part.name
    words = part.words
    out: list[tuple[Word, str]] = [(r.target, f"reads through {r.op}") for r in part.redirs
                                   if r.target is not None and r.op in ("<", "<>")]
    out += [(w, f"reads through {part.via[-1] if part.via else 'xargs'} -a") for w in part.arg_files]
    if name == "git":  # `git -c commit.template=.env commit`: the template is the message
        out += [(_value(Word(c, c), c.partition("=")[2]), "reads") for c in part.git_config
                if c.partition("=")[0].lower() == "commit.template"]
    reader = _READERS.get(name)
    found: list[Word] = []
    if reader is not None:
        found = reader(name, words)
    elif name in ("source", ".") and len(words) > 1:
        found = [words[1]]
    elif name in ("find", "fd", "fdfind"):
        found = _find_exec(name, words)
    elif name in toolreads.KNOWN:
        found = toolreads.reads(name, words, part.cwd, lambda ws: _any_path(ws, part))
    elif name == "python" and (tool := pymodules.json_tool(part)) is not None:
        found = tool[0]
    elif name not in _METADATA_ONLY:
        found = _any_path(words, part)
    verb = "sends" if name in ("curl", "wget") else "copies" if name in (
        "cp", "mv", "install", "scp", "rsync", "tar", "zip") else "sources" if name in ("source", ".") else "reads"
    out += [(w, verb) for w in found]
    # cmd and PowerShell read `config\.env` as config/.env, where bash reads config.env
    out += [(_windows(w), v) for w, v in out if "\\" in w.raw and not w.dyn]
    return out


def _windows(w: Word) -> Word:
    return Word(w.raw.replace('"', "").replace("'", "").replace("\\", "/"), w.raw)


def _any_path(words: list[Word], part: Part) -> list[Word]:
    """A program handrail has no table for: any word that names a file may be read by it
    (`sort .env`, `perl -pe1 .env`, `dd if=.env`)."""
    found = [_value(w, w.text.split("=", 1)[1]) if w.text.startswith("-") and "=" in w.text else w
             for w in words[1:] if _pathlike(w, part)]
    return found + [_value(w, w.text[3:]) for w in words[1:] if w.text.startswith("if=")]


def _read_all(name: str, words: list[Word]) -> list[Word]:
    return _getopt(words, *_READ_ALL[name])[0]


def _xxd(name: str, words: list[Word]) -> list[Word]:
    # `xxd IN [OUT]`: the second operand is written
    return _getopt(words, "cglsoCn", frozenset({"-cols", "-groupsize", "-len", "-seek", "-name"}))[0][:1]


def _grep(name: str, words: list[Word]) -> list[Word]:
    """The files searched: every operand once a pattern is given by option, else all but the first."""
    ops, opts = _getopt(words, *_GREPS[name])
    given = _values(opts, ("-f", "--file"))
    named = given or _values(opts, ("-e", "--regexp")) or (name in ("ag", "ack") and _values(opts, ("-g",)))
    return given + (ops if named else ops[1:])


def _sed_awk(name: str, words: list[Word]) -> list[Word]:
    """Script files, and the operands after the program text (`-e`/`-f` leave none of it there)."""
    sed = name in ("sed", "gsed")
    ops, opts = _getopt(words, *(_SED if sed else _AWK), attached="i" if sed else "")
    scripts = _values(opts, ("-f", "--file") if sed else ("-f", "--file", "-E", "--exec"))
    named = scripts or (sed and _values(opts, ("-e", "--expression")))
    return scripts + [w for w in (ops if named else ops[1:])
                      if sed or not re.match(r"[A-Za-z_]\w*=", w.text)]  # awk's `var=value` operands


def _copy(name: str, words: list[Word]) -> list[Word]:
    """What a copy takes: every operand but the last, or all with `-t DIR`."""
    listed: list[Word] = []
    if name == "scp":
        ops = _getopt(words, *_SCP)[0]
    elif name == "rsync":
        ops, opts = _getopt(words, *_RSYNC)
        # the list of files to take (its errors print each line), and a password it sends
        listed = _values(opts, ("--files-from", "--password-file"))
    else:
        ops = _cp_operands(name, words)
    to_dir = any(w.text in ("-t", "--target-directory") or w.text.startswith("--target-directory=")
                 for w in words[1:])
    return listed + (ops if to_dir else ops[:-1])


def _tar(name: str, words: list[Word]) -> list[Word]:
    tar = list(words)
    if len(tar) > 1 and not tar[1].text.startswith("-") and not tar[1].dyn:  # `tar czf out.tgz …`
        tar[1] = _value(tar[1], "-" + tar[1].text)
    tar = [tar[0]] + [_value(w, long_option(w.text, _TAR_LISTS)) if not w.dyn else w for w in tar[1:]]
    ops, opts = _getopt(tar, *_TAR)
    # `tar -T LIST`: the list is read, and tar's errors print each line it cannot find
    listed = _values(opts, ("-T", "--files-from"))
    if any(o in ("-c", "-r", "-u", "--create", "--append", "--update") for o, _ in opts):
        return listed + ops
    return listed


def _zip(name: str, words: list[Word]) -> list[Word]:
    kept: list[Word] = []
    listing = False  # `-x`/`-i` take every word up to the next option
    for w in words:
        if w.text in ("-x", "-i", "--exclude", "--include"):
            listing = True
        elif listing and w.text.startswith("-"):
            listing = False
        if not listing:
            kept.append(w)
    return _getopt(kept, *_ZIP)[0][1:]


def _upload(name: str, words: list[Word]) -> list[Word]:
    """The files curl and wget send: `-d @file`, `-F name=@file`, `-T file`, `--post-file=file`."""
    found: list[Word] = []
    if name == "wget":
        found = [_value(v, v.text) for v in file_values(words, ("--post-file", "--body-file"))]
    for v in file_values(words, _CURL_AT):
        if v.text.startswith("@") and v.text != "@-":
            found.append(_value(v, v.text[1:]))
    for v in file_values(words, ("--data-urlencode",)):
        head, at, tail = v.text.partition("@")
        if at and "=" not in head and tail != "-":
            found.append(_value(v, tail))
    for v in file_values(words, _CURL_FORM):
        content = v.text.partition("=")[2]
        if content[:1] in ("@", "<") and content[1:2] != "-":
            found.append(_value(v, content[1:].split(";", 1)[0]))
    found += [_value(v, v.text) for v in file_values(words, _CURL_UPLOAD) if v.text != "."]
    return found


def _git(name: str, words: list[Word]) -> list[Word]:
    return _git_reads(words)


def _find_exec(name: str, words: list[Word]) -> list[Word]:
    """`find . -name .env -exec cat {} \\;`: the names it selects are handed to a program."""
    if not any(w.text in ("-exec", "-execdir", "-ok", "-okdir", "-x", "--exec", "-X", "--exec-batch") for w in words):
        return []
    found = [words[i + 1] for i, w in enumerate(words[:-1]) if w.text in ("-name", "-iname", "-path", "-ipath",
                                                                          "-wholename", "-g", "--glob")]
    return found + [w for w in words[1:] if name != "find" and not w.text.startswith("-")][:1]


# Each program handrail knows the reads of: (its name, its words) -> the words that name a file it
# reads, copies or sends.
_READERS: dict[str, Callable[[str, list[Word]], list[Word]]] = {
    **dict.fromkeys(_READ_ALL, _read_all), "xxd": _xxd, **dict.fromkeys(_GREPS, _grep),
    **dict.fromkeys(("sed", "gsed", "awk", "gawk", "mawk", "nawk"), _sed_awk),
    **dict.fromkeys(("cp", "mv", "install", "scp", "rsync"), _copy), "tar": _tar, "zip": _zip,
    "curl": _upload, "wget": _upload, "git": _git,
}


# Programs that look at a file's name, type or metadata, or remove or create it, without
# printing what it holds (what they write or delete is judged by the path rules). Not `type`:
# bash's only names a command, but cmd's and PowerShell's print the file (`type .env`).
_METADATA_ONLY = frozenset({"ls", "ll", "la", "dir", "stat", "test", "[", "[[", "touch", "mkdir", "rm", "rmdir",
                            "unlink", "realpath", "readlink", "basename", "dirname", "echo", "printf", "which",
                            "chmod", "chown", "chgrp", "du", "file", "mv", "ln", "trash", "shred", "cd",
                            "pushd", "export", "unset", "local", "declare", "true", "false", "exit", "wait",
                            "find", "fd", "fdfind", "tree", "locate", "sleep", "kill", "git-check-ignore"})
# git subcommands whose operands are paths of the work tree (read when they are a secret).
_GIT_READS = frozenset({"am", "add", "show", "cat-file", "grep", "blame", "annotate", "log", "diff", "archive",
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
    if sub is not None and sub.text == "config":
        # `git config commit.template .env`: every later `git commit` puts the file in its message
        texts = [w.text.lower() for w in words]
        at = texts.index("commit.template") if "commit.template" in texts else -1
        return words[at + 1 : at + 2] if at > 0 else []
    if sub is not None and prog_name(sub.text) in _GIT_MESSAGE_FILES:
        return _git_message_files(prog_name(sub.text), words[words.index(sub) + 1 :])
    if sub is not None and sub.text == "bundle":  # its operands are revisions; the bundle file is read
        from handrail.policy.shell.gitimport import bundle_file

        action, file = bundle_file(words[words.index(sub) + 1 :])
        return [file] if file is not None and action in ("verify", "list-heads", "unbundle") else []
    if sub is None or prog_name(sub.text) not in _GIT_READS:
        return []
    out: list[Word] = []
    for w in words[words.index(sub) + 1 :]:
        t = w.text
        if t.startswith("-"):
            continue
        out.append(_value(w, t.split(":", 1)[1]) if ":" in t and not t.startswith(("/", "./")) else w)
    return out

# git subcommands that put a file into history as a message: (the short options that take a
# value, and of those the ones that name the file; the long options that name it).
_GIT_MESSAGE_FILES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "commit": ("mFcCtS", "Ft", ("--file", "--template")), "tag": ("mFu", "F", ("--file",)),
    "notes": ("mFcC", "F", ("--file",)), "merge": ("msXFS", "F", ("--file",)),
}


def _git_message_files(sub: str, words: list[Word]) -> list[Word]:
    """`git commit -F .env`, `git tag -a v1 --file=.env`, `git notes add -F.env`: the file becomes a
    message in history, which any `git log` prints back. git takes any unambiguous prefix of a
    long option (`--fil=.env`), so any prefix of four letters or more counts."""
    letters, files, longs = _GIT_MESSAGE_FILES[sub]
    out: list[Word] = []
    for i, w in enumerate(words):
        t = w.text
        nxt = words[i + 1] if i + 1 < len(words) else None
        if t == "--":
            break
        if t.startswith("--") and not w.dyn:
            name, eq, val = t.partition("=")
            if len(name) >= 5 and any(o.startswith(name) for o in longs):
                out += [_value(w, val)] if eq else [nxt] if nxt is not None else []
        elif t.startswith("-") and not w.dyn:
            c = next((c for c in t[1:] if c in letters), "")
            if c and c in files:
                rest = t[t.index(c) + 1 :]
                out += [_value(w, rest)] if rest else [nxt] if nxt is not None else []
    return [w for w in out if w.text != "-"]


READERS = _READERS  # the reading half of the effect table (effects.py)
