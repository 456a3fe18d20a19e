"""The rules shipped with handrail, for what word patterns cannot say.

Each rule has a name that a protocol's `rules` map can switch off (`"rm-recursive":
false`); `dynamic` and `unparseable` cannot be switched off, because without them
anything could be hidden. A rule answers with findings: (tier, rule, why). Tier 3
needs a human whatever the patterns say; tier 2 marks a local change.
"""

from __future__ import annotations

import os
import re

from handrail.policy.shell.patterns import AFTER_DD, flag_name, is_flag
from handrail.policy.shell.syntax import SENT, Word
from handrail.policy.shell.unwrap import resolve

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from handrail.policy.scope import Refusal
    from handrail.policy.shell.unwrap import Part

    Finding = tuple[int, str, str]

SOURCE = "handrail built-in rule"
ALWAYS_ON = frozenset({"dynamic", "unparseable"})
RULES = {
    "unparseable": "shell text that cannot be parsed needs a human",
    "dynamic": "text built at run time is run: eval \"$X\", $CMD args, bash -c \"$X\", a script from a pipe, "
               "python -c/node -e/perl -e code that runs shell commands or deletes files",
    "download-to-shell": "code downloaded from the network is run (curl … | sh, bash <(curl …))",
    "rm-recursive": "rm -r of the whole work tree, or of anything outside it but temp folders and caches",
    "find-delete": "find -delete, find -exec rm",
    "git-discard": "git commands that throw away uncommitted work: reset --hard/--merge, checkout -- <paths>, "
                   "checkout -f, restore without --staged, switch --discard-changes, clean -f, stash drop/clear, "
                   "rm -f, read-tree -u --reset, worktree remove --force",
    "git-force-push": "git push --force/-f, +ref, --mirror",
    "git-delete-refs": "git push --delete/:branch/--prune, branch -D/-d -f/-f/-M/-C, update-ref -d, "
                       "reflog expire/delete, filter-branch, filter-repo, gc --prune=now, prune",
    "git-safety-net": "switching off git hooks: --no-verify, git commit -n, git -c core.hooksPath=…, "
                      "git config core.hooksPath, SKIP=…, HUSKY=0, pre-commit uninstall",
    "protected-paths": "writes into protected or default-forbidden paths (.git/, .handrail/, hook and harness "
                       "settings, .env*, keys) through >, >>, tee, sed -i, cp, mv, install, ln, dd, rm, chmod…",
    "system-paths": "writes, deletes and permission changes on system paths, the home folder and its dotfiles",
    "disk-write": "writes to disks and file systems: dd of=/dev/…, > /dev/sda, mkfs, wipefs, fdisk…",
    "sql-destroy": "DROP DATABASE/TABLE/SCHEMA, TRUNCATE, DELETE without WHERE through psql/mysql/sqlite3…",
    "fork-bomb": "a shell function that calls itself",
    "redirect-write": "a redirection into a file is a local change (tier 2)",
    "secret-read": "a secret the Read tool refuses (.env*, *.pem, *.key, secrets/) read through the shell: "
                   "cat/head/grep/sed/awk… of it, cp/scp/rsync/tar/zip of it, curl -d @/-F @/-T, source, < file",
}

_SOURCES: dict[str, str | tuple[str, int]] = {}
TEMP_ROOTS = ("/tmp", "/var/tmp", "/private/tmp", "/dev/shm", "/var/folders", "/private/var/folders")
SYSTEM_ROOTS = ("/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/sys", "/proc",
                "/dev", "/var", "/opt", "/root", "/srv", "/snap", "/System", "/Library", "/Applications",
                "/private", "/nix", "/mnt", "/media", "/run", "/cores", "/Volumes")
HOME_ROOTS = ("/home", "/Users")
HOME_CACHES = (".cache", ".npm/_cacache", ".npm/_npx", ".pnpm-store", ".yarn/berry/cache", ".gradle/caches",
               ".m2/repository", ".cargo/registry", ".cargo/git", "Library/Caches", ".bun/install/cache")
SAFE_DEVICES = frozenset({"/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty",
                          "/dev/random", "/dev/urandom", "/dev/full"})
DISK_TOOLS = frozenset({"mkfs", "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk",
                        "parted", "blkdiscard", "mkdosfs", "mkntfs", "newfs", "format"})
SHELL_WRITES_HOOKS = frozenset({"skip", "husky", "husky_skip_hooks", "lefthook", "lefthook_exclude",
                                "git_config_parameters", "pre_commit_allow_no_config"})
_SOURCES["_EXT"] = (r"\.(?:py|pyi|js|mjs|cjs|ts|tsx|jsx|json|md|rst|txt|ya?ml|toml|cfg|ini|go|rs|java|kt|kts|c|h|cc|"
                  r"cpp|hpp|cs|rb|php|sh|bash|zsh|html?|css|scss|sass|less|lock|xml|sql|gradle|vue|svelte|swift|"
                  r"m|mm|r|lua|pl|ex|exs|erl|dart|scala|clj|env|conf|csv|tf|proto|graphql|ipynb|svg|png|jpe?g)$")
_SOURCES["_GLOBS"] = (r"[*?\[]")

_SOURCES["_PY_RISK"] = (r"\bos\s*\.\s*(?:system|popen|exec\w*|spawn\w*|remove|unlink|rmdir|removedirs|kill|killpg|"
                      r"truncate|posix_spawn\w*)\b|\bsubprocess\b|\bshutil\s*\.\s*(?:rmtree|move)\b|\bpty\s*\.\s*spawn|"
                      r"\bcommands\s*\.|__import__|\bimportlib\b|\beval\s*\(|\bexec\s*\(|\bcompile\s*\(|"
                      r"\.(?:unlink|rmdir|rmtree)\s*\(|\bsend2trash\b|\bsh\s*\.\s*\w+\s*\(")
_SOURCES["_JS_RISK"] = (r"child_process|\bexec(?:Sync|File|FileSync)?\s*\(|\bspawn(?:Sync)?\s*\(|\bfork\s*\(|"
                      r"\b(?:rm|rmSync|rmdir|rmdirSync|unlink|unlinkSync)\s*\(|rimraf|\bDeno\s*\.\s*(?:run|Command|"
                      r"remove)|\bBun\s*\.\s*(?:spawn|\$)|\beval\s*\(|\bnew\s+Function\b|process\s*\.\s*kill|"
                      r"\$`|\bzx\b|execa")
_SOURCES["_PERL_RISK"] = (r"\bsystem\b|\bexec\b|`|\bqx\b|\bunlink\b|\brmtree\b|\bremove_tree\b|\brmdir\b|\beval\b|"
                        r"\bopen\s*\(?[^;]*\|")
_SOURCES["_RUBY_RISK"] = (r"\bsystem\b|\bexec\b|`|%x|\bFileUtils\b|\bFile\s*\.\s*(?:delete|unlink)|\bDir\s*\.\s*"
                        r"(?:rmdir|delete|unlink)|\bspawn\b|\bIO\s*\.\s*popen|\bOpen3\b|\beval\b|\bKernel\b")
_SOURCES["_PHP_RISK"] = (r"\b(?:system|exec|shell_exec|passthru|popen|proc_open|unlink|rmdir|eval|pcntl_exec)\b|`")
_SOURCES["_AWK_RISK"] = (r"\bsystem\s*\(|\|\s*\"|\"\s*\|\s*getline|\|&")
_SOURCES["_SQL_RISK"] = (r"\b(?:drop\s+(?:database|schema|table|view|user|role|owned|index)|truncate\b|"
                       r"delete\s+from\s+[\w.\"`\[\]]+\s*(?:;|$)|alter\s+table\s+\S+\s+drop\b)", re.I)
_SOURCES["_MONGO_RISK"] = (r"dropDatabase|\.drop\s*\(|deleteMany\s*\(\s*\{\s*\}|remove\s*\(\s*\{\s*\}")
_HOOKS_PATH = "core.hookspath"
_COMPILED: dict[str, re.Pattern[str]] = {}


def rx(name: str) -> re.Pattern[str]:
    """A rule's regular expression, compiled the first time a command needs it (not at import)."""
    hit = _COMPILED.get(name)
    if hit is None:
        src = _SOURCES[name]
        hit = _COMPILED[name] = re.compile(*src) if isinstance(src, tuple) else re.compile(src)
    return hit


class Ctx:
    """Where commands run: the work tree, the home folder, and which rules are on."""

    __slots__ = ("project", "home", "enabled")

    def __init__(self, project: str, home: str, enabled: Callable[[str], bool]) -> None:
        self.project = project
        self.home = home
        self.enabled = enabled


# --------------------------------------------------------------------------- paths


def _under(path: str, root: str) -> bool:
    return path.startswith(root + "/") and len(path) > len(root) + 1


def is_temp(path: str, ctx: Ctx) -> bool:
    """Strictly inside a temp folder or a cache in the home folder."""
    if any(_under(path, r) for r in TEMP_ROOTS):
        return True
    home = ctx.home
    return path.startswith(home + "/") and any(path == f"{home}/{c}" or _under(path, f"{home}/{c}")
                                               for c in HOME_CACHES)


def in_project(path: str, ctx: Ctx) -> bool:
    return path == ctx.project or path.startswith(ctx.project + "/")


def sensitive(path: str, ctx: Ctx, *, delete: bool = False) -> str | None:
    """Why a path outside the work tree must not be written or removed by an agent; None when it may."""
    if path == "/":
        return "the root of the file system"
    if is_temp(path, ctx) or in_project(path, ctx):
        return None
    if path.startswith("/dev/"):
        return None if path in SAFE_DEVICES or path.startswith(("/dev/fd/", "/dev/pts/", "/dev/shm/")) else \
            "a device"
    home = ctx.home
    if path == home:
        return "your home folder"
    if _under(path, home):
        first = path[len(home) + 1 :].split("/", 1)[0]
        if first.startswith("."):
            return f"~/{first}, the configuration in your home folder"
        return "outside the work tree" if delete else None
    for root in HOME_ROOTS:
        if path == root or _under(path, root):
            return "another user's home folder"
    for root in SYSTEM_ROOTS:
        if path == root or _under(path, root):
            return "a system path"
    # removing or moving away what lies outside the work tree cannot be undone from it
    return "outside the work tree" if delete else None


_HINT: list[re.Pattern[str]] = []
_REFUSALS: dict[str, Refusal | None] = {}


def _hint() -> re.Pattern[str]:
    """A path can match a protected or default-forbidden pattern only if it holds that pattern's longest
    literal piece: one cheap search before the pattern sets are compiled and matched."""
    if not _HINT:
        from handrail.policy import scope

        pieces = set()
        for pattern, _, _ in scope.DEFAULT_FORBIDDEN + scope.PROTECTED:
            chunks = [c for c in re.split(r"[*?\[\]/]+", pattern.lower()) if c]
            pieces.add(max(chunks, key=len) if chunks else "")
        _HINT.append(re.compile("|".join(re.escape(p) for p in sorted(pieces)), re.I))
    return _HINT[0]


def _protected(path: str | None, word: Word, ctx: Ctx, *, delete: bool,
               container: bool = False) -> tuple[str, str] | None:
    """The protected or default-forbidden rule a write (or removal) of `path` breaks. With
    `container`, a folder that holds protected paths counts too (`rm -rf .handrail`)."""
    hit = _protected_path(path, word, ctx, delete=delete)
    if hit is not None or not container or path is None or not in_project(path, ctx) or path == ctx.project:
        return hit
    from handrail.policy import scope

    rel = path[len(ctx.project) + 1 :].rstrip("/")
    low = rel.lower() + "/"
    hit = _protected_path(path + "/x", word, ctx, delete=delete)
    if hit is not None:
        return hit
    for pattern, _who, why in scope.DEFAULT_FORBIDDEN + scope.PROTECTED:
        if "/" in pattern.rstrip("/") and not pattern.startswith("**") and pattern.lower().startswith(low):
            if delete and any(p == pattern and who == scope.AGENTS for p, who, _ in scope.DEFAULT_FORBIDDEN):
                continue
            source = scope.BUILTIN_FORBIDDEN if any(p == pattern for p, _, _ in scope.DEFAULT_FORBIDDEN) \
                else scope.BUILTIN_PROTECTED
            return pattern, f"{source}: {why} (the folder holds it)"
    return None


def _protected_path(path: str | None, word: Word, ctx: Ctx, *, delete: bool) -> tuple[str, str] | None:
    if not _hint().search(word.text if path is None else path):
        return None
    from handrail.policy import scope

    if path is None:
        tail = word.text.rsplit(SENT, 1)[-1].lstrip("/")
        if not tail:
            return None
        candidates = [tail]
    elif in_project(path, ctx):
        if path == ctx.project:
            return None
        candidates = [path[len(ctx.project) + 1 :]]
    elif _under(path, ctx.home):
        candidates = [path[len(ctx.home) + 1 :]]
    else:
        candidates = [path.lstrip("/")]
    for rel in candidates:
        if rel in _REFUSALS:
            refusal = _REFUSALS[rel]
        else:
            refusal = scope.builtin_refusal(rel, agent=True)
            if len(_REFUSALS) < 10_000:
                _REFUSALS[rel] = refusal
        if refusal is None:
            continue
        if delete and refusal.reason == scope.FORBIDDEN_FILE and \
                any(p == refusal.rule and who == scope.AGENTS for p, who, _ in scope.DEFAULT_FORBIDDEN):
            continue  # removing node_modules or a lock file is regenerating it, not editing it
        return refusal.rule, f"{refusal.source}: {refusal.why}" if refusal.why else refusal.source
    return None


# --------------------------------------------------------------------------- argument helpers


def operands(words: list[Word], value_opts: frozenset[str] = frozenset(), value_letters: str = "") -> list[Word]:
    """A command's operands (its words that are no options), values of options skipped."""
    out: list[Word] = []
    i = 1
    n = len(words)
    while i < n:
        w = words[i]
        t = w.text
        if t == "--":
            return out + words[i + 1 :]
        if len(t) > 1 and t[0] == "-" and not w.dyn:
            if t.startswith("--"):
                if "=" not in t and t in value_opts:
                    i += 1
            elif t in value_opts or (t[-1] in value_letters and all(c.isalpha() for c in t[1:])):
                i += 1
            i += 1
            continue
        out.append(w)
        i += 1
    return out


# --------------------------------------------------------------------------- write targets

_PERM_OPTS = frozenset({"-R", "--recursive", "-f", "--silent", "--quiet", "-v", "--verbose", "-c", "--changes",
                        "-h", "--no-dereference", "--dereference", "--preserve-root", "--no-preserve-root", "--"})
_CP_VALUES = frozenset({"-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g",
                        "--group", "-e", "--exclude", "--include", "-f", "--filter", "--chmod", "--chown",
                        "--exclude-from", "--include-from", "--files-from", "-T", "--no-target-directory"})


def _write_targets(part: Part, toks: list[str]) -> tuple[list[Word], list[Word]]:
    """(written, removed) words of a part."""
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
            written.append(target_dir)
            if name == "mv":
                removed += ops
        elif ops:
            if name == "install" and "-d" in toks:
                written += ops
            else:
                written += ops[-1:]
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
        ops = [w for w in words[1:] if w.dyn or w.text not in _PERM_OPTS and not w.text.startswith(
            ("--reference=", "--from=")) and not (w.text.startswith("-") and set(w.text[1:]) <= set("RfvchHLP"))]
        ref = any(w.text.startswith("--reference") for w in words)
        written += ops if ref else ops[1:]
    elif name in ("rm", "unlink", "rmdir", "shred", "srm", "trash", "rimraf"):
        removed += operands(words)
    elif name in ("curl", "wget"):
        flag = "-o" if name == "curl" else "-O"
        for i, w in enumerate(words[:-1]):
            if w.text in (flag, "--output", "--output-document") and words[i + 1].text != "-":
                written.append(words[i + 1])
        written += _option_files(words, _FILE_OPTS[name])
    elif name in _FILE_OPTS:
        written += _option_files(words, _FILE_OPTS[name])
    if name in ("sed", "gsed", "awk", "gawk", "mawk", "nawk"):
        written += _script_files(part)
    if name == "uniq":
        ops = operands(words, frozenset({"-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"}))
        written += ops[1:2]
    elif name == "git" and len(words) > 1 and words[1].text == "format-patch":
        written += _option_files(words, ("-o", "--output-directory"))
    return written, removed


# Files a sed or awk script writes: sed's `w FILE` command and `s///w FILE` flag, awk's
# `print > "FILE"`.
_SOURCES["_SED_W"] = (r"(?:^|[;\n{}])\s*(?:[0-9$]+|/(?:[^/\\\n]|\\.)*/)?(?:\s*,\s*(?:[0-9$]+|/(?:[^/\\\n]|\\.)*/))?"
                     r"\s*!?\s*[wW]\s+([^\n;}]+)|s(.)(?:(?!\2)[^\\\n]|\\.)*\2(?:(?!\2)[^\\\n]|\\.)*\2"
                     r"[gpiImMe0-9]*w\s*([^\n]+)")
_SOURCES["_AWK_W"] = (r">>?\s*\"([^\"]+)\"")


def _script_files(part: Part) -> list[Word]:
    words = part.words
    awk = part.name != "sed" and part.name != "gsed"
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
}


def _option_files(words: list[Word], opts: tuple[str, ...]) -> list[Word]:
    """The values of `opts` in `words`: `-o F`, `-oF`, `--output F`, `--output=F`."""
    out: list[Word] = []
    for i, w in enumerate(words[1:], 1):
        t = w.text
        for o in opts:
            if t == o and i + 1 < len(words):
                if words[i + 1].text != "-":
                    out.append(words[i + 1])
            elif o.startswith("--") and t.startswith(o + "="):
                v = Word(t[len(o) + 1:], w.raw)
                v.dyn = w.dyn
                out.append(v)
            elif len(o) == 2 and t.startswith(o) and len(t) > 2 and not t.startswith("--"):
                v = Word(t[2:], w.raw)
                v.dyn = w.dyn
                out.append(v)
    return out


_COPIERS = frozenset({"cp", "mv", "rsync", "scp", "ln", "install"})


def _on_disk(path: str, ctx: Ctx, *, delete: bool) -> str | None:
    """Where a write to `path` inside the work tree lands once existing symbolic links are
    followed (`h -> .git/hooks/pre-commit`), in the work tree's own spelling; None when the same.
    A removal follows the links of the parent folders only: it removes the link itself."""
    if not in_project(path, ctx) or path == ctx.project:
        return None
    head, tail = os.path.split(path)
    real = os.path.join(os.path.realpath(head), tail) if delete else os.path.realpath(path)
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
    if any(w.text == "-t" or w.text.startswith("--target-directory") for w in words):
        return ops
    return ops[:-1] if len(ops) > 1 else ops


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
        hit = _protected(path, w, ctx, delete=False)
        if hit is not None:
            out.append((3, "protected-paths", f"{part.name} links {w.raw}, which matches '{hit[0]}' ({hit[1]}): "
                                              "writing through the link writes it"))
    return out


def check_paths(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    written, removed = _write_targets(part, toks)
    out: list[Finding] = []
    if part.name in ("ln", "cp") and ctx.enabled("protected-paths"):
        out += _links_protected(part, ctx)
    if not written and not removed:
        return out
    redirect_targets = {id(r.target) for r in part.redirs if r.target is not None}
    for words, delete in ((written, False), (removed, True)):
        verb = "removes" if delete else "writes"
        for w in words:
            path = resolve(w, part.cwd, ctx.home)
            shown = w.raw
            redirect = id(w) in redirect_targets
            if ctx.enabled("protected-paths"):
                container = delete or part.name in _COPIERS
                hit = _protected(path, w, ctx, delete=delete, container=container)
                real = _on_disk(path, ctx, delete=delete) if hit is None and path is not None else None
                if real is not None:
                    hit = _protected(real, w, ctx, delete=delete, container=container)
                    shown = f"{w.raw} (a link to {real[len(ctx.project) + 1:] if in_project(real, ctx) else real})"
                if hit is not None:
                    out.append((3, "protected-paths", f"{verb} {shown}, which matches '{hit[0]}' ({hit[1]})"))
                    continue
                shown = w.raw
            if path is None:
                if redirect and ctx.enabled("redirect-write"):
                    out.append((2, "redirect-write", f"writes {shown}"))
                continue
            if path.startswith("/dev/"):
                if path in SAFE_DEVICES or path.startswith(("/dev/fd/", "/dev/pts/", "/dev/shm/")):
                    continue
                if ctx.enabled("disk-write"):
                    out.append((3, "disk-write", f"{verb} the device {path}"))
                continue
            why = sensitive(path, ctx, delete=delete)
            if why is not None and ctx.enabled("system-paths"):
                out.append((3, "system-paths", f"{verb} {shown}: {why}"))
            elif redirect and ctx.enabled("redirect-write"):
                out.append((2, "redirect-write", f"writes {shown}"))
    return out


# --------------------------------------------------------------------------- rm and find


def check_rm(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    recursive = False
    prompting = False
    for i, t in enumerate(toks[1:], 1):
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
        if in_project(path, ctx):
            # inside the work tree git can bring back what it tracks; the whole tree it cannot
            if path == ctx.project or (os.path.dirname(path) == ctx.project and _everything(path)):
                return [(3, "rm-recursive", f"{part.name} -r deletes {shown}: the whole work tree")]
            continue
        if is_temp(path, ctx):
            continue
        return [(3, "rm-recursive", f"{part.name} -r deletes {shown}, outside the work tree (only temp folders "
                                    "and caches are removed there without a human)")]
    return []


def _everything(path: str) -> bool:
    """`*`, `.*`, `*.*`: a glob that names every entry of its folder."""
    base = os.path.basename(path)
    return bool(rx("_GLOBS").search(base)) and not base.translate(str.maketrans("", "", "*?.[]!^-"))


def check_find(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    texts = [w.text for w in part.words]
    deletes = "-delete" in texts
    for i, t in enumerate(texts):
        if t in ("-exec", "-execdir", "-ok", "-okdir") and i + 1 < len(texts):
            from handrail.policy.shell.unwrap import prog_name

            if prog_name(texts[i + 1]) in ("rm", "unlink", "shred", "srm", "rimraf"):
                deletes = True
    if not deletes:
        return []
    roots = []
    for w in part.words[1:]:
        if w.text.startswith(("-", "(", "!")) and not w.dyn:
            break
        roots.append(w)
    paths = [resolve(w, part.cwd, ctx.home) for w in roots] or [part.cwd]
    if all(p is not None and is_temp(p, ctx) and not in_project(p, ctx) for p in paths):
        return [(2, "find-delete", "find deletes files in a temp folder")]
    return [(3, "find-delete", "find deletes every file it matches")]


# --------------------------------------------------------------------------- git


# Options of git subcommands whose value is the next word (not an operand).
_GIT_VALUES = {
    "checkout": frozenset({"-b", "-B", "--orphan", "--conflict", "-U", "--unified", "--inter-hunk-context"}),
    "switch": frozenset({"-c", "-C", "--orphan", "--conflict"}),
    "restore": frozenset({"-s", "--conflict", "-U", "--unified"}),
    "push": frozenset({"--repo", "-o", "--push-option", "--receive-pack", "--exec"}),
    "branch": frozenset({"-u", "--sort", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at",
                         "--format", "--column"}),
    "commit": frozenset({"-m", "-F", "-C", "-c", "--author", "--date", "-t", "--fixup", "--squash", "--cleanup",
                         "--trailer"}),
    "clean": frozenset({"-e"}),
    "stash": frozenset({"-m"}),
    "config": frozenset({"-f", "--blob", "--type", "--default"}),
}


def _git_opts(toks: list[str]) -> tuple[set[str], list[str]]:
    opts: set[str] = set()
    ops: list[str] = []
    after = False
    values = _GIT_VALUES.get(toks[1], frozenset())
    skip = False
    for t in toks[2:]:
        if skip:
            skip = False
        elif after or t.startswith(AFTER_DD):
            ops.append(t.lstrip(AFTER_DD))
        elif t == "--":
            after = True
        elif is_flag(t):
            opts.add(t if t.startswith("--prune=") else flag_name(t))
            skip = t in values
        else:
            ops.append(t)
    return opts, ops


def _pathlike(t: str) -> bool:
    return t in (".", "..", "*", ":/") or t.startswith(("./", "../", ":/", "/")) or bool(rx("_GLOBS").search(t)) \
        or bool(rx("_EXT").search(t))


def check_git(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    out: list[Finding] = []
    for cfg in part.git_config:
        key = cfg.split("=", 1)[0].lower()
        if key == _HOOKS_PATH and ctx.enabled("git-safety-net"):
            out.append((3, "git-safety-net", "git -c core.hooksPath=… switches off the repository's git hooks"))
    if len(toks) < 2:
        return out
    sub = toks[1]
    opts, ops = _git_opts(toks)
    if "-h" in opts and sub != "grep":  # `git <command> --help` shows the manual
        return out
    after_dd = "--" in toks[2:]
    if "--no-verify" in opts and ctx.enabled("git-safety-net"):
        out.append((3, "git-safety-net", f"git {sub} --no-verify skips the git hooks"))
    if sub == "commit" and "-n" in opts and ctx.enabled("git-safety-net"):
        out.append((3, "git-safety-net", "git commit -n (--no-verify) skips the git hooks"))
    if sub == "config" and ctx.enabled("git-safety-net"):
        keys = [o for o in ops if o.lower() == _HOOKS_PATH]
        if keys:
            pos = ops.index(keys[0])
            writes = len(ops) > pos + 1 or opts & {"--unset", "--unset-all", "--add", "--replace-all"} \
                or (ops and ops[0] in ("set", "unset"))
            if writes and not opts & {"--get", "--get-all", "-l"}:
                out.append((3, "git-safety-net", "git config core.hooksPath switches the git hooks"))
    discard = ctx.enabled("git-discard")
    refs = ctx.enabled("git-delete-refs")
    if sub == "reset" and discard and opts & {"--hard", "--merge"}:
        out.append((3, "git-discard", f"git reset {sorted(opts & {'--hard', '--merge'})[0]} throws away "
                                      "uncommitted changes"))
    elif sub == "checkout" and discard:
        creating = opts & {"-b", "-B", "--orphan"}
        if "-f" in opts:
            out.append((3, "git-discard", "git checkout -f throws away local changes"))
        elif after_dd and ops:
            out.append((3, "git-discard", "git checkout -- <paths> overwrites uncommitted changes"))
        elif any(o.startswith("--pathspec-from-file") for o in opts):
            out.append((3, "git-discard", "git checkout --pathspec-from-file overwrites uncommitted changes"))
        elif not creating and (len(ops) >= 2 or any(_pathlike(o) for o in ops)):
            out.append((3, "git-discard", "git checkout <paths> overwrites uncommitted changes"))
    elif sub == "restore" and discard:
        if not ("-S" in opts and "-W" not in opts):
            out.append((3, "git-discard", "git restore without --staged overwrites uncommitted changes"))
    elif sub == "switch" and discard:
        if "--discard-changes" in opts:
            out.append((3, "git-discard", "git switch --discard-changes throws away local changes"))
    elif sub == "clean" and discard:
        if "-f" in opts and "-n" not in opts:
            out.append((3, "git-discard", "git clean -f deletes untracked files"))
    elif sub == "stash" and discard and ops and ops[0] in ("drop", "clear"):
        out.append((3, "git-discard", f"git stash {ops[0]} deletes stashed changes"))
    elif sub == "rm" and discard and "-f" in opts and "--cached" not in opts:
        out.append((3, "git-discard", "git rm -f deletes files with uncommitted changes"))
    elif sub == "read-tree" and discard and "-u" in opts and opts & {"--reset", "-m"}:
        out.append((3, "git-discard", "git read-tree -u --reset overwrites the work tree"))
    elif sub == "checkout-index" and discard and "-f" in opts:
        out.append((3, "git-discard", "git checkout-index -f overwrites the work tree"))
    elif sub == "worktree" and discard and ops and ops[0] == "remove" and "-f" in opts:
        out.append((3, "git-discard", "git worktree remove --force deletes a work tree with changes"))
    elif sub == "push":
        if ctx.enabled("git-force-push"):
            if "-f" in opts or "--mirror" in opts:
                out.append((3, "git-force-push", "git push --force rewrites the remote's history"))
            elif any(o.startswith("+") for o in ops[1:]):
                out.append((3, "git-force-push", "git push +<ref> force-pushes that ref"))
        if refs:
            if "-d" in opts or "--prune" in opts:
                out.append((3, "git-delete-refs", "git push --delete removes remote branches"))
            elif any(o.startswith(":") and len(o) > 1 for o in ops[1:]):
                out.append((3, "git-delete-refs", "git push :<branch> deletes a remote branch"))
    elif sub == "branch" and refs and "-f" in opts:
        what = "-D" if "-d" in opts else "-M" if "-m" in opts else "-C" if "-c" in opts else "-f"
        out.append((3, "git-delete-refs", f"git branch {what} deletes or overwrites a branch"))
    elif sub == "update-ref" and refs and "-d" in opts:
        out.append((3, "git-delete-refs", "git update-ref -d deletes a ref"))
    elif sub == "reflog" and refs and ops and ops[0] in ("expire", "delete"):
        out.append((3, "git-delete-refs", f"git reflog {ops[0]} removes the history that recovers lost work"))
    elif sub in ("filter-branch", "filter-repo") and refs:
        out.append((3, "git-delete-refs", f"git {sub} rewrites every commit"))
    elif sub == "gc" and refs and any(o in ("--prune=now", "--prune=all") for o in opts):
        out.append((3, "git-delete-refs", "git gc --prune=now deletes unreachable commits at once"))
    elif sub == "prune" and refs:
        out.append((3, "git-delete-refs", "git prune deletes unreachable commits"))
    return out


# --------------------------------------------------------------------------- code given to interpreters


def _inline_code(part: Part) -> tuple[str, list[tuple[str, bool]], bool]:
    """(language, [(code, built at run time)], reads code from stdin)."""
    name = part.name
    words = part.words
    codes: list[tuple[str, bool]] = []
    n = len(words)
    i = 1
    if name == "python":
        while i < n:
            t = words[i].text
            if t == "-":
                return "python", codes, True
            if t in ("-m",) or (not t.startswith("-")):
                return "python", codes, False
            if t in ("-W", "-X", "--check-hash-based-pycs"):
                i += 2
                continue
            if not t.startswith("--") and "c" in t[1:]:
                at = t.index("c", 1)
                if at + 1 < len(t):
                    codes.append((t[at + 1 :], words[i].dyn))
                elif i + 1 < n:
                    codes.append((words[i + 1].text, words[i + 1].dyn))
                return "python", codes, False
            if not t.startswith("--") and "m" in t[1:]:
                return "python", codes, False
            i += 1
        return "python", codes, True
    if name in ("node", "bun", "deno"):
        if name == "deno" and n > 1:
            if words[1].text == "eval" and n > 2:
                return "js", [(words[2].text, words[2].dyn)], False
            return "js", codes, False
        while i < n:
            t = words[i].text
            if t in ("-e", "--eval", "-p", "--print") and i + 1 < n:
                codes.append((words[i + 1].text, words[i + 1].dyn))
                i += 2
                continue
            if t.startswith(("--eval=", "--print=")):
                codes.append((t.split("=", 1)[1], words[i].dyn))
            elif t == "-":
                return "js", codes, True
            elif t in ("-r", "--require", "--import", "--loader"):
                i += 2
                continue
            elif not t.startswith("-"):
                return "js", codes, False
            i += 1
        return "js", codes, not codes and name == "node"
    if name in ("perl", "ruby", "php"):
        flag = {"perl": "eE", "ruby": "e", "php": "rR"}[name]
        while i < n:
            t = words[i].text
            if t.startswith("-") and not t.startswith("--") and len(t) > 1:
                hit = next((j for j in range(1, len(t)) if t[j] in flag), None)
                if hit is not None:
                    if hit + 1 < len(t):
                        codes.append((t[hit + 1 :], words[i].dyn))
                    elif i + 1 < n:
                        codes.append((words[i + 1].text, words[i + 1].dyn))
                        i += 1
                elif t[1] in "IMrdl" and len(t) == 2 and name != "php":
                    i += 1
                i += 1
                continue
            if t == "--":
                i += 1
            break
        return name, codes, not codes and i >= n
    if name in ("awk", "gawk", "mawk", "nawk"):
        while i < n:
            t = words[i].text
            if t in ("-f", "--file"):
                return "awk", codes, False
            if t in ("-v", "-F", "--assign", "--field-separator"):
                i += 2
                continue
            if t.startswith("-") and len(t) > 1:
                i += 1
                continue
            codes.append((t, words[i].dyn))
            break
        return "awk", codes, False
    return "", codes, False


_RISK = {"python": "_PY_RISK", "js": "_JS_RISK", "perl": "_PERL_RISK", "ruby": "_RUBY_RISK", "php": "_PHP_RISK",
         "awk": "_AWK_RISK"}
INTERPRETERS = frozenset({"python", "node", "bun", "deno", "perl", "ruby", "php", "awk", "gawk", "mawk", "nawk"})


def check_code(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    lang, codes, from_stdin = _inline_code(part)
    if not lang:
        return []
    label = part.name
    if from_stdin:
        if part.feed == "download":
            return [(3, "download-to-shell", f"{label} runs code downloaded from the network")] \
                if ctx.enabled("download-to-shell") else []
        if part.feed in ("pipe", "heredoc", "herestring"):
            if part.stdin_text is None:
                return [(3, "dynamic", f"{label} runs code only known at run time ({part.feed})")]
            codes.append((part.stdin_text, False))
    if part.script_text is not None:
        codes.append((part.script_text, False))
    if part.name == "deno" and len(part.words) > 2 and part.words[1].text == "run" and \
            any(w.text.startswith(("http://", "https://")) for w in part.words[2:]):
        return [(3, "download-to-shell", "deno run executes code from the network")]
    risk = rx(_RISK[lang])
    for code, dyn in codes:
        if dyn:
            return [(3, "dynamic", f"{label} runs code built at run time")]
        if risk.search(code):
            return [(3, "dynamic", f"{label} code runs shell commands or deletes files")]
    return []


def check_sql(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    texts: list[str] = []
    words = part.words
    name = part.name
    value_opts = {"psql": ("-c", "--command"), "mysql": ("-e", "--execute"), "mariadb": ("-e", "--execute"),
                  "clickhouse-client": ("-q", "--query"), "duckdb": ("-c",), "mongosh": ("--eval",),
                  "mongo": ("--eval",), "cockroach": ("-e", "--execute")}.get(name, ())
    for i, w in enumerate(words[1:], 1):
        t = w.text
        if t in value_opts and i + 1 < len(words):
            texts.append(words[i + 1].text)
        elif any(t.startswith(o + "=") for o in value_opts if o.startswith("--")):
            texts.append(t.split("=", 1)[1])
        elif len(t) > 2 and t[:2] in value_opts:
            texts.append(t[2:])
    if name == "sqlite3":
        ops = [w.text for w in words[1:] if not w.text.startswith("-")]
        texts += ops[1:]
    if name == "redis-cli":
        if any(w.text.lower() in ("flushall", "flushdb") for w in words[1:]):
            return [(3, "sql-destroy", "redis-cli FLUSHALL/FLUSHDB deletes every key")]
    if part.stdin_text:
        texts.append(part.stdin_text)
    risk = rx("_MONGO_RISK") if name in ("mongosh", "mongo") else rx("_SQL_RISK")
    for t in texts:
        m = risk.search(t)
        if m:
            return [(3, "sql-destroy", f"{name} runs '{' '.join(m.group().split())}', which destroys data")]
    return []


def check_disk(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    name = part.name
    if name.split(".", 1)[0] in DISK_TOOLS or name == "diskutil" and any(
            w.text.lower().startswith(("erase", "partition", "zero", "randomdisk", "secureerase"))
            for w in part.words[1:]):
        return [(3, "disk-write", f"{name} writes a disk or a file system")]
    return []


def check_assigns(part: Part, ctx: Ctx) -> list[Finding]:
    for name, w in _assignments(part):
        low = name.lower()
        if low not in SHELL_WRITES_HOOKS and not low.startswith("git_config_key_"):
            continue
        value = w.text.split("=", 1)[1] if "=" in w.text else ""
        if low == "skip" and value:
            return [(3, "git-safety-net", f"SKIP={value} makes the pre-commit framework skip hooks")]
        if low in ("husky", "lefthook") and value in ("0", "false"):
            return [(3, "git-safety-net", f"{name}=0 switches off the git hooks")]
        if low in ("husky_skip_hooks", "lefthook_exclude") and value:
            return [(3, "git-safety-net", f"{name} skips git hooks")]
        if (low == "git_config_parameters" or low.startswith("git_config_key_")) and _HOOKS_PATH in value.lower():
            return [(3, "git-safety-net", f"{name} sets core.hooksPath, which switches the git hooks")]
    return []


def _assignments(part: Part) -> list[tuple[str, Word]]:
    found = list(part.assigns)
    if part.name in ("export", "declare", "typeset", "local", "readonly"):
        for w in part.words[1:]:
            if "=" in w.text and not w.text.startswith("-"):
                found.append((w.text.split("=", 1)[0], w))
    return found


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
    verb = "sends" if name in ("curl", "wget") else "copies" if name in (
        "cp", "mv", "install", "scp", "rsync", "tar", "zip") else "sources" if name in ("source", ".") else "reads"
    out += [(w, verb) for w in found]
    return out


def _secret_hint() -> re.Pattern[str]:
    """A path can match a secret pattern only if it holds that pattern's longest literal piece."""
    if not _SECRET_HINT:
        from handrail.policy.shell.reads import SECRETS

        pieces = {max((c for c in re.split(r"[*?\[\]/]+", p.lower()) if c), key=len, default="") for p in SECRETS}
        _SECRET_HINT.append(re.compile("|".join(re.escape(p) for p in sorted(pieces)), re.I))
    return _SECRET_HINT[0]


def check_secret_reads(part: Part, ctx: Ctx) -> list[Finding]:
    """Reading a file the Read tool may not open (reads.py), spelled as a shell command."""
    out: list[Finding] = []
    seen: set[str] = set()
    hint = _secret_hint()
    for w, how in _secret_sources(part):
        path = resolve(w, part.cwd, ctx.home)
        if path is None:  # `$DIR/.env`: what follows the run-time part is still known
            rel = w.text.rsplit(SENT, 1)[-1].lstrip("/")
        elif in_project(path, ctx):
            rel = "" if path == ctx.project else path[len(ctx.project) + 1 :]
        else:
            rel = path  # reads.py matches at any depth: `/home/me/app/.env` too
        if not rel or rel in seen or not hint.search(rel):
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
    return out


# --------------------------------------------------------------------------- dispatch

_BY_NAME: dict[str, list[tuple[str, Callable[[Part, list[str], Ctx], list[Finding]]]]] = {}


def _register(names: frozenset[str] | tuple[str, ...], rule: str,
              fn: Callable[[Part, list[str], Ctx], list[Finding]]) -> None:
    for n in names:
        _BY_NAME.setdefault(n, []).append((rule, fn))


_WRITERS = ("tee", "touch", "truncate", "mkdir", "sudoedit", "chattr", "setfacl", "sed", "perl", "cp", "mv",
            "install", "ln", "rsync", "scp", "dd", "chmod", "chown", "chgrp", "rm", "unlink", "rmdir", "shred", "srm",
            "trash", "rimraf", "curl", "wget", "sort", "shuf", "find", "pandoc", "uniq", "git", "gsed", "awk", "gawk",
            "mawk", "nawk")
_register(("rm", "rimraf"), "rm-recursive", check_rm)
_register(("find",), "find-delete", check_find)
_register(("git",), "", check_git)
_register(INTERPRETERS, "", check_code)
_register(("psql", "mysql", "mariadb", "sqlite3", "clickhouse-client", "duckdb", "mongosh", "mongo", "cockroach",
           "redis-cli"), "sql-destroy", check_sql)
_register(tuple(DISK_TOOLS) + ("diskutil",), "disk-write", check_disk)


def findings(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    """Every shipped rule's findings about one part."""
    out: list[Finding] = []
    for rule, why in part.flags:
        if rule in ALWAYS_ON or ctx.enabled(rule):
            out.append((3, rule, why))
    name = part.name
    for rule, fn in _BY_NAME.get(name, ()):
        if not rule or ctx.enabled(rule):
            out += fn(part, toks, ctx)
    if name.startswith("mkfs") and ctx.enabled("disk-write"):
        out += check_disk(part, toks, ctx)
    if part.redirs or name in _WRITERS:
        out += check_paths(part, toks, ctx)
    if (part.redirs or name in SECRET_READERS) and ctx.enabled("secret-read"):
        out += check_secret_reads(part, ctx)
    if (part.assigns or name in ("export", "declare", "typeset", "local", "readonly")) and \
            ctx.enabled("git-safety-net"):
        out += check_assigns(part, ctx)
    if name == "pre-commit" and len(part.words) > 1 and part.words[1].text == "uninstall" and \
            ctx.enabled("git-safety-net"):
        out.append((3, "git-safety-net", "pre-commit uninstall removes the git hooks"))
    return out


def home_dir() -> str:
    return os.path.expanduser("~").rstrip("/") or "/"


# The pre-tool hooks judge each written path as an edit (handrail/policy/writes.py): the same
# reading of a command's targets as the rules above, under a name that is part of the API.
write_targets = _write_targets
