"""git configuration, judged by key and by scope: the one table of keys that hold git's safety
net (hooks, reflog, gc grace, fsck) or name a program git runs.

`git rebase --root`, `commit --amend`, `reset --soft HEAD~5` stay local and reversible only
while the reflog keeps the commits they leave behind and gc keeps them for its grace period;
`gc.reflogExpire now` or `core.logAllRefUpdates false` is the step that makes the next rewrite
final, so that step needs a human. A key whose value git runs (`core.pager`, `alias.*`,
`filter.*.clean`…) written to a configuration file runs later, in commands whose line does
not show it. Reads (`--get`, `--list`, `get`, one key alone) only print.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from handrail.policy.shell.common import Ctx, _protected, sensitive
from handrail.policy.shell.gitwrap import git_exec_key
from handrail.policy.shell.parts import resolve
from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part

    Finding = tuple[int, str, str]

# (key pattern, lower case; what setting it does). Keys git runs the value of come from
# gitwrap.git_exec_key, which the `-c` unwrapping shares.
SAFETY_NET = (
    ("core.hookspath", "switches the git hooks"),
    # `init --pre-commit` records there the handrail the framework's hooks start
    ("handrail.*", "chooses the handrail program the git hooks run"),
    ("core.logallrefupdates", "stops the reflog that recovers rewritten and reset commits"),
    ("gc.*", "changes how soon gc drops the reflog and unreachable commits"),
    ("receive.*", "changes what a push into this repository may overwrite or delete"),
    ("transfer.fsckobjects", "changes whether objects received are checked"),
    ("fetch.fsckobjects", "changes whether objects fetched are checked"),
    ("receive.fsckobjects", "changes whether objects pushed in are checked"),
    ("core.worktree", "moves the work tree that checkouts and resets write"),
    # where the hooks come from and which repository they guard
    ("init.templatedir", "names the hooks git init and git clone copy into a repository"),
    ("hook.*", "defines hooks that git runs from its configuration"),
    ("core.bare", "makes git take the repository for one without a work tree (or with one again), which "
                  "changes which hooks run and where"),
    ("extensions.*", "changes how git reads the repository (extensions.worktreeConfig reads hooks settings from "
                     "a file of each worktree's own)"),
    ("core.sparsecheckout", "takes files out of the work tree while git still holds them"),
    ("core.sparsecheckoutcone", "takes files out of the work tree while git still holds them"),
    ("url.*.insteadof", "sends fetches and pushes to another address"),
    ("url.*.pushinsteadof", "sends pushes to another address"),
    ("remote.*.url", "sends fetches and pushes to another address"),
    ("remote.*.pushurl", "sends pushes to another address"),
    ("protocol.*", "lets a transport run programs"),
    ("submodule.*.update", "can make git submodule update run a command"),
    ("core.attributesfile", "picks the attributes that choose filters and diff drivers"),
    # a comment character or cleanup mode that strips handrail's Handrail-Agent: trailer from
    # the messages of an agent's commits
    ("core.commentchar", "makes git strip the lines starting with it from commit messages, handrail's trailer too"),
    ("core.commentstring", "makes git strip the lines starting with it from commit messages, handrail's trailer "
                           "too"),
    ("commit.cleanup", "changes what git strips from commit messages, handrail's trailer among them"),
)
_TRAILER_KEYS = ("core.commentchar", "core.commentstring", "commit.cleanup")
_HOOKS_RULE = {"core.hookspath"}
# Keys that, given to one run, move where it works or which hooks it copies (`git -c core.worktree=…`).
_RUN_LOCATION = ("core.worktree", "core.bare", "init.templatedir", "extensions.*", "hook.*")
# Keys whose value on a `git -c` of one run already weakens what that run keeps.
_HISTORY = ("core.logallrefupdates", "gc.*")

_VALUE_OPTS = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"})
_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "-l",
                    "--list"})
_WRITES = frozenset({"--unset", "--unset-all", "--add", "--replace-all", "--rename-section", "--remove-section",
                     "-e", "--edit"})
_KNOWN = _VALUE_OPTS | _READS | _WRITES | {"--global", "--system", "--local", "--worktree", "--show-origin",
                                           "--show-scope", "--name-only", "-z", "--null", "--includes",
                                           "--no-includes", "--fixed-value", "--bool", "--int", "--bool-or-int",
                                           "--path", "--expiry-date", "--all", "--regexp", "--url", "--append",
                                           "--no-type", "--show-names", "--no-show-names"}
_READ_SUBS = frozenset({"get", "list"})
_WRITE_SUBS = frozenset({"set", "unset", "rename-section", "remove-section", "edit"})


def key_risk(key: str) -> tuple[str, str] | None:
    """(rule, why) when setting or removing `key` needs a human; None when it is a local preference."""
    low = key.lower()
    if "=" in low or not low:
        return None
    for pattern, why in SAFETY_NET:
        if fnmatchcase(low, pattern):
            return "git-safety-net", f"git configuration {key} {why}"
    kind = git_exec_key(low)
    if kind == "include":
        return "git-safety-net", f"git configuration {key} reads more configuration, which can switch the hooks"
    if kind == "command":
        return "git-safety-net", f"git configuration {key} names a program git runs later, out of sight"
    return None


def _section_risk(section: str) -> tuple[str, str] | None:
    """`--remove-section gc`, `--rename-section alias x`: every key of the section goes."""
    low = section.lower()
    for pattern, why in SAFETY_NET:
        if fnmatchcase(low + ".x", pattern) or pattern.startswith(low + "."):
            return "git-safety-net", f"the git configuration section {section} holds keys that {why.split(' ', 1)[1]}"
    if git_exec_key(low + ".x") is not None or low in ("include", "includeif", "filter", "diff", "merge",
                                                        "credential", "alias", "core"):
        return "git-safety-net", f"the git configuration section {section} holds keys that name programs git runs"
    return None


def check_run_config(part: Part, ctx: Ctx) -> list[Finding]:
    """`git -c KEY=VALUE`: this run's own configuration. Hook paths and history keys weaken what
    this very command keeps (`git -c gc.reflogExpire=now gc`)."""
    if not ctx.enabled("git-safety-net"):
        return []
    for cfg in part.git_config:
        key = cfg.split("=", 1)[0].lower()
        if key in _HOOKS_RULE:
            return [(3, "git-safety-net", "git -c core.hooksPath=… switches off the repository's git hooks")]
        if key.startswith("handrail."):
            return [(3, "git-safety-net", f"git -c {cfg.split('=', 1)[0]}=… chooses the handrail program this "
                                          "run's git hooks start")]
        if key in _TRAILER_KEYS:
            return [(3, "git-safety-net", f"git -c {cfg.split('=', 1)[0]}=… can strip handrail's trailer from "
                                          "this commit's message")]
        if any(fnmatchcase(key, p) for p in _RUN_LOCATION):
            why = next(w for p, w in SAFETY_NET if fnmatchcase(key, p))
            return [(3, "git-safety-net", f"git -c {cfg.split('=', 1)[0]}=… {why}")]
        if any(fnmatchcase(key, p) for p in _HISTORY):
            return [(3, "git-safety-net", f"git -c {cfg.split('=', 1)[0]}=… changes what this run keeps of the "
                                          "reflog and of unreachable commits")]
    return []


def _args(words: list[Word]) -> tuple[set[str], list[Word], Word | None] | str:
    """(options, operands, the file `--file` names) of `git config`; a reason when a word that
    may be an option is only known at run time."""
    ops: list[Word] = []
    opts: set[str] = set()
    target: Word | None = None
    i = 2
    while i < len(words):
        w = words[i]
        t = w.text
        name, eq, value = t.partition("=")
        if w.dyn and not ops:
            return f"git config {w.raw}: an option or key only known at run time"
        if t == "--":
            ops += words[i + 1 :]
            break
        if not t.startswith("-") or (ops and name not in _KNOWN):
            ops.append(w)
            i += 1
            continue
        glued = t.startswith("-f") and len(t) > 2  # `-fFILE`
        opts.add("-f" if glued else name)
        if glued or (name in ("-f", "--file") and eq):
            text = t[2:] if glued else value
            target = Word(text, text)
        elif name in ("-f", "--file") and i + 1 < len(words):
            target = words[i + 1]
        i += 2 if name in _VALUE_OPTS and not eq and not glued else 1
    return opts, ops, target


def check_config(part: Part, ctx: Ctx) -> list[Finding]:
    """`git config …`: a read prints (tier 1); a write is judged by its key and by the file it writes."""
    got = _args(part.words)
    if isinstance(got, str):
        return [(3, "dynamic", got)]
    opts, ops, target = got
    sub = ops[0].text if ops and ops[0].text in _READ_SUBS | _WRITE_SUBS else ""
    if sub:
        ops = ops[1:]
    if opts & _READS or sub in _READ_SUBS or (not sub and not opts & _WRITES and len(ops) <= 1):
        return [(1, "read-only", "git config only prints the configuration")]
    out: list[Finding] = []
    section = bool(opts & {"--rename-section", "--remove-section"}) or sub in ("rename-section", "remove-section")
    if opts & {"-e", "--edit"} or sub == "edit":
        if ctx.enabled("git-safety-net"):
            out.append((3, "git-safety-net", "git config --edit may change any key, the hooks and the reflog too"))
    elif ops and ctx.enabled("git-safety-net"):
        risk = _section_risk(ops[0].text) if section else key_risk(ops[0].text)
        if risk is not None:
            out.append((3, *risk))
    return out + _scope(part, opts, target, ctx)


def _scope(part: Part, opts: set[str], target: Word | None, ctx: Ctx) -> list[Finding]:
    """Where the write lands: the user's or the system's file, or the file `--file` names."""
    if opts & {"--global", "--system"} and ctx.enabled("system-paths"):
        return [(3, "system-paths", "git config --global changes the configuration of every repository")]
    if target is None:
        return []
    path = resolve(target, part.cwd, ctx.home)
    if path is None:
        return [(3, "dynamic", f"git config --file {target.raw} writes a file only known at run time")]
    hit = _protected(path, target, ctx, delete=False) if ctx.enabled("protected-paths") else None
    if hit is not None:
        return [(3, "protected-paths", f"git config --file writes {target.raw}, which matches '{hit[0]}' ({hit[1]})")]
    why = sensitive(path, ctx)
    if why is not None and ctx.enabled("system-paths"):
        return [(3, "system-paths", f"git config --file writes {target.raw}: {why}")]
    return []
