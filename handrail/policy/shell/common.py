"""What every rule shares: the rule names, where commands run, path classes, operands.

The rules shipped with handrail, for what word patterns cannot say.

Each rule has a name that a protocol's `rules` map can switch off (`"rm-recursive":
false`); `dynamic` and `unparseable` cannot be switched off, because without them
anything could be hidden. A rule answers with findings: (tier, rule, why). Tier 3
needs a human whatever the patterns say; tier 2 marks a local change.
"""

from __future__ import annotations

import re

from handrail.policy.shell.syntax import SENT, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from handrail.policy.scope import Refusal

    Finding = tuple[int, str, str]

SOURCE = "handrail built-in rule"
ALWAYS_ON = frozenset({"dynamic", "unparseable", "human-verbs"})
RULES = {
    "unparseable": "shell text that cannot be parsed needs a human",
    "human-verbs": "handrail's own verbs that loosen the policy, in every spelling: task phase into an edit phase, "
                   "task new --phase implement, gate approve/reject, autonomy set (raising), loop reset, "
                   "uninstall-hooks, deinit, init --force, permissions --protocol",
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
                      "git config core.hooksPath, SKIP=…, HUSKY=0, pre-commit uninstall; weakening the reflog "
                      "or gc's grace (gc.*, core.logAllRefUpdates), writing configuration git runs (alias.*, "
                      "core.pager, filter.*…) or that redirects remotes",
    "protected-paths": "writes into protected or default-forbidden paths (.git/, .handrail/, hook and harness "
                       "settings, .env*, keys) through >, >>, tee, sed -i, cp, mv, install, ln, dd, rm, chmod…, or "
                       "given to a program whose use of them is not known (json.tool IN OUT, patch -o, zip)",
    "system-paths": "writes, deletes and permission changes on system paths, the home folder and its dotfiles",
    "disk-write": "writes to disks and file systems: dd of=/dev/…, > /dev/sda, mkfs, wipefs, fdisk…",
    "sql-destroy": "statements that change or remove what a database holds, which no undo restores: DELETE, "
                   "UPDATE, DROP, ALTER, REPLACE, TRUNCATE, MERGE through psql/mysql/sqlite3…, mongosh's delete/"
                   "update/drop",
    "fork-bomb": "a shell function that calls itself",
    "redirect-write": "a redirection into a file is a local change (tier 2)",
    "network-send": "requests that send data or change remote state: curl -X DELETE/-d, gh api -X/-f, nc, scp to a "
                    "host; a URL or host name built at run time: curl https://host/$USER, dig $X.host",
    "option-effect": "an option that makes a reading program write or run something: tar --to-command, sort -o, "
                     "git diff --output, ruff --fix…",
    "db-reset": "framework commands that drop or reset a database: rails db:drop, manage.py flush, ecto.reset…",
    "privilege": "running as another user: sudo, su, doas, pkexec, runas, runuser",
    "agent-markers": "changing the variables that say an agent acts: env -u CLAUDECODE, unset CODEX_…, env -i, "
                     "Remove-Item Env:CLAUDECODE, cmd's set CLAUDECODE=",
    "code-env": "variables that make programs load code: BASH_ENV, ENV, LD_PRELOAD, NODE_OPTIONS, PERL5OPT…",
    "history": "wiping or hiding shell history: history -c, unset HISTFILE, HISTSIZE=0",
    "env-dump": "printing the whole environment: env, printenv, set, export -p, gci env:",
    "system": "services, the kernel, users, the network, signals to init or to every process",
    "schedule": "jobs that run later: crontab, at, batch, schtasks, systemd-run",
    "windows": "PowerShell and cmd deletes and formats: Remove-Item -Recurse -Force, rd /s, del /s, Format-Volume",
    "agent-client": "starting another agent client (claude -p, codex exec, opencode run, aider…), whose tool calls "
                    "the hook may never see",
    "package-runner": "npx, npm exec, pnpm/yarn dlx, bunx, uvx, pipx run, nix run of a package the project does "
                      "not pin: code fetched from a registry that nobody has read",
    "package-install": "package installs whose code runs later outside the work tree (pip --user, npm -g, cargo/go/"
                       "gem/pipx/uv tool/brew/apt install…), or comes from a source the line picks (an index or "
                       "registry URL, a repository, a link), and writes of a package manager's configuration",
    "local-program": "a program named by a path outside the system's folders (./src/ls, /tmp/x/git), or looked "
                     "up through a PATH the line sets: code of the work tree, not the program its name says (tier 2)",
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

_SOURCES["_SQL_RISK"] = (r"\b(?:drop\s+(?:database|schema|table|view|user|role|owned|index)|truncate\b|"
                       r"delete\s+from\s+[\w.\"`\[\]]+\s*(?:;|$)|alter\s+table\s+\S+\s+drop\b)", re.I)
_SOURCES["_MONGO_RISK"] = (r"dropDatabase|\.drop\s*\(|deleteMany\s*\(\s*\{\s*\}|remove\s*\(\s*\{\s*\}|"
                           r"\.(?:delete(?:One|Many)|update(?:One|Many)|replaceOne|findOneAnd(?:Delete|Update|Replace)|"
                           r"findAndModify|remove|bulkWrite|renameCollection)\s*\(")
# SQL's string literals, quoted names and comments, and then its words: read for the verbs that overwrite
_SOURCES["_SQL_LITERALS"] = (r"'(?:[^']|'')*'|\"[^\"]*\"|`[^`]*`|--[^\n]*|/\*.*?\*/", re.S)
_SOURCES["_SQL_WORDS"] = (r"[a-z_]+|\(")
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

    __slots__ = ("enabled", "home", "project")

    def __init__(self, project: str, home: str, enabled: Callable[[str], bool]) -> None:
        self.project = project
        self.home = home
        self.enabled = enabled


# --------------------------------------------------------------------------- paths


def _under(path: str, root: str) -> bool:
    return path.startswith(root + "/") and len(path) > len(root) + 1


# Folders under the cache folder that are no cache to write into: the pre-commit framework's
# store holds the code git's hooks run (each hook repository's checkout and its environment), and
# handrail's own cache says which policies it has already found valid.
GUARDED_CACHES = {
    ".cache/pre-commit": "the pre-commit framework's store of the code git's hooks run",
    ".cache/handrail": "handrail's own cache of the policies it has found valid",
}


def _guarded_cache(path: str, home: str) -> str | None:
    for folder, why in GUARDED_CACHES.items():
        root = f"{home}/{folder}"
        if path == root or _under(path, root):
            return f"~/{folder}, {why}"
    return None


def is_temp(path: str, ctx: Ctx) -> bool:
    """Strictly inside a temp folder or a cache in the home folder."""
    if any(_under(path, r) for r in TEMP_ROOTS):
        return True
    home = ctx.home
    if _guarded_cache(path, home) is not None:
        return False
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
    guarded = _guarded_cache(path, home)
    if guarded is not None:
        return guarded
    if _under(path, home):
        first = path[len(home) + 1 :].split("/", 1)[0]
        if first.startswith("."):
            return f"~/{first}, the configuration in your home folder"
        return "outside the work tree"
    for root in HOME_ROOTS:
        if path == root or _under(path, root):
            return "another user's home folder"
    for root in SYSTEM_ROOTS:
        if path == root or _under(path, root):
            return "a system path"
    # what lies outside the work tree is outside every task's scope, and cannot be restored from it
    return "outside the work tree"


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
