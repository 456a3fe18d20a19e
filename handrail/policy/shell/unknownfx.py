"""A protected path named by a program whose use of it handrail does not know.

The effect table (effects.py) knows, for some programs, which words they read and which they
write. Any other word is one whose fate is unknown: `python3 -m json.tool IN OUT` writes OUT,
`patch -o F`, `tar -cf F`, `zip F`, `curl --output-dir D -O`, `rsync --log-file=F` write F,
and none of them is in the table's writes. Unknown is not harmless: a word that names a
protected path (handrail's store, git's hooks, the harnesses' settings, CI configuration) or
the configuration in the home folder is judged a write of it unless the table says this part
only reads it. The words looked at are operands and option values (`--opt=VALUE`, `-oVALUE`).
"""

from __future__ import annotations

from handrail.policy.shell.common import Ctx, _protected, in_project, sensitive
from handrail.policy.shell.parts import resolve
from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part

    Finding = tuple[int, str, str]

# Programs that write no file their arguments name, beyond the writes the table already lists
# (and an option of options.DANGEROUS, which makes them judged word by word again): their
# other words are patterns, filters or names, never a file they change.
_EXTRA_PURE = frozenset({"wc", "diff", "cmp", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum",
                         "sha512sum", "b2sum", "cksum", "sum", "cut", "comm", "join", "paste", "fold", "fmt",
                         "expand", "unexpand", "rev", "tr", "column", "pwd", "id", "whoami", "uname", "env",
                         "command", "builtin", "hash", "alias", "unalias", "read", "shift", "return", "break",
                         "continue", "set", "shopt", "trap", "umask", "ulimit", "jq", "gojq", "jaq", "yq",
                         "sqlite3", "pre-commit", "actionlint", "yamllint", "shellcheck"})  # sqlite3: see sqlitefx
# git verbs that change no file of the work tree their operands name: they read, list, stage
# or commit. (`git restore --staged` and `git reset` without --hard touch only the index.)
_GIT_READ_VERBS = frozenset({"status", "log", "diff", "show", "blame", "annotate", "grep", "ls-files", "ls-tree",
                             "cat-file", "rev-parse", "check-ignore", "check-attr", "add", "commit", "describe",
                             "shortlog", "rev-list", "whatchanged", "range-diff", "merge-base", "name-rev",
                             "for-each-ref", "show-ref", "count-objects", "fsck", "verify-commit", "verify-tag",
                             "help", "version", "var", "difftool", "hash-object", "check-ref-format", "reflog",
                             "branch", "tag", "switch", "fetch", "push", "pull", "remote", "stage", "diff-files",
                             "diff-index", "diff-tree", "ls-remote", "cherry", "show-branch", "bisect", "notes",
                             "bundle"})  # bundle: what `create` writes is the table's (targets.py)
_GIT_GLOBAL_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path",
                                "--config-env"})


def _pure() -> frozenset[str]:
    if not _PURE:
        from handrail.policy.shell import sources

        _PURE.append(frozenset(sources._READ_ALL) | frozenset(sources._GREPS) | sources._METADATA_ONLY
                     | _EXTRA_PURE)
    return _PURE[0]


_PURE: list[frozenset[str]] = []


def _git_verb(words: list[Word]) -> str:
    i = 1
    while i < len(words):
        t = words[i].text
        if t in _GIT_GLOBAL_VALUED:
            i += 2
            continue
        if t.startswith("-"):
            i += 1
            continue
        return t
    return ""


def _index_only(verb: str, texts: list[str]) -> bool:
    """`git restore --staged F`, `git reset F`: only the index changes, not the file."""
    if verb == "restore":
        return any(t in ("--staged", "-S") for t in texts) and not any(t in ("--worktree", "-W") for t in texts)
    return verb == "reset" and not any(t in ("--hard", "--merge", "--keep") for t in texts)


def _exempt(part: Part, ctx: Ctx) -> bool:
    """Is every word of this part known not to be written by it, beyond the table's writes?"""
    name = part.name
    if name == "handrail":
        return True  # its verbs' writes are its own table (selfverbs.WRITES)
    if name == "git":
        texts = [w.text for w in part.words[1:]]
        verb = _git_verb(part.words)
        if verb == "config" and not any(t in ("-f", "--file") or t.startswith("--file=") for t in texts):
            return True  # its values are names and settings; the file it writes is git's own
        return verb in _GIT_READ_VERBS or _index_only(verb, texts)
    if name in _pure():
        from handrail.policy.shell import options

        return not options.check_options(part, ctx)
    return False


def _candidates(w: Word) -> list[Word]:
    """The word, and the value it carries as `--opt=VALUE` or `-oVALUE`."""
    t = w.text
    out = [w]
    if t.startswith("--") and "=" in t:
        out.append(_value(w, t.split("=", 1)[1]))
    elif t.startswith("-") and len(t) > 2 and not t.startswith("--"):
        out.append(_value(w, t[2:]))
    elif "=" in t and not t.startswith("="):
        out.append(_value(w, t.split("=", 1)[1]))  # `of=F`, `file=F` (dd's and make's style)
    return out


def _value(w: Word, text: str) -> Word:
    v = Word(text, w.raw)
    v.dyn = w.dyn
    v.tilde = text.startswith("~")
    return v


def _why(path: str, w: Word, ctx: Ctx) -> tuple[str, str] | None:
    """(rule, why) when `path` is a protected path or the home folder's configuration."""
    from handrail.policy.shell.targets import _on_disk

    hit = _protected(path, w, ctx, delete=False, container="/" in w.text)  # not `vault secrets list`
    if hit is None:
        real = _on_disk(path, ctx, delete=False)
        if real is not None:
            hit = _protected(real, w, ctx, delete=False, container=True)
    if hit is not None:
        return "protected-paths", f"which matches '{hit[0]}' ({hit[1]})"
    if in_project(path, ctx):
        return None
    why = sensitive(path, ctx)
    if why is None or why in ("outside the work tree", "another user's home folder", "a system path"):
        # A write there needs another user's rights (the privilege rule) or is no harness's
        # or shell's configuration: read-only arguments such as `-I/usr/include` stay as they are.
        return None
    return "system-paths", why


def check_unknown_words(part: Part, ctx: Ctx) -> list[Finding]:
    """Tier 3 for each word naming a protected path whose use by this part is not known."""
    if len(part.words) < 2 or not part.name or _exempt(part, ctx):
        return []
    from handrail.policy.shell.effects import of_part

    eff = of_part(part)
    known: set[str] = set()
    for w in [r for r, _ in eff.reads] + eff.writes + eff.removes:
        path = resolve(w, part.cwd, ctx.home)
        if path is not None:
            known.add(path)
    public = {resolve(w, part.cwd, ctx.home) for w in _public_inputs(part)}
    guessed = _reads_guessed(part)
    out: list[Finding] = []
    for word in _named_paths(part):
        for w in _candidates(word):
            path = resolve(w, part.cwd, ctx.home)
            if path is None or path in public or (path in known and not guessed):
                continue
            if path in known and any(path == resolve(x, part.cwd, ctx.home) for x in eff.writes + eff.removes):
                continue  # a known write: the write rules judge it
            hit = _why(path, w, ctx)
            if hit is not None and ctx.enabled(hit[0]):
                out.append((3, hit[0], f"{part.name} is given {word.raw}, {hit[1]}: what {part.name} does with it "
                                       "is not known, so it is judged a write"))
                break
        if out:
            break
    return out


# Options whose value is a pattern of names to leave out or take in, not a file the program
# opens (`tar --exclude=.env`, `rsync --exclude .git/`, `grep --exclude-dir .handrail`); zip's
# `-x`/`-i` take every word up to the next option.
_FILTERS = frozenset({"--exclude", "--include", "--exclude-dir", "--include-dir", "--ignore", "--glob"})
_ZIP_FILTERS = frozenset({"-x", "-i", "--exclude", "--include"})


def _named_paths(part: Part) -> list[Word]:
    """The words that may name files: every word after the program but filter patterns."""
    out: list[Word] = []
    skip = listing = False
    for w in part.words[1:]:
        t = w.text
        if skip:
            skip = False
            continue
        if listing and not t.startswith("-"):
            continue
        listing = part.name == "zip" and t in _ZIP_FILTERS
        if t in _FILTERS and not listing:
            skip = True
            continue
        if t.split("=", 1)[0] in _FILTERS and t.startswith("--") and "=" in t:
            continue
        out.append(w)
    return out


def _reads_guessed(part: Part) -> bool:
    """Are the part's reads a guess (every path-like word of a program the table does not know)?"""
    from handrail.policy.shell import pymodules, sources, toolreads

    name = part.name
    if name in sources._READERS or name in ("source", ".", "find", "fd", "fdfind"):
        return False
    if name == "python" and pymodules.json_tool(part) is not None:
        return False  # its reads and writes are known (pymodules.json_tool)
    return not (name in toolreads.KNOWN and name != "openssl")


def _public_inputs(part: Part) -> list[Word]:
    """openssl's certificate inputs (`openssl x509 -in cert.pem`): read, never written (toolreads)."""
    from handrail.policy.shell import toolreads

    words = part.words
    public = toolreads._PUBLIC_INPUT.get(words[1].text.lstrip("-")) if part.name == "openssl" else None
    if not public:
        return []
    if words[1].text.lstrip("-") == "verify":
        return words[2:]  # every operand is a certificate it checks
    return [words[i + 1] for i, w in enumerate(words[:-1]) if w.text in public]
