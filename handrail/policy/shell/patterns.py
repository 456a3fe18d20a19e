"""Protocol patterns matched against simple commands, word by word.

A pattern is split and normalised exactly like a command, so spellings meet:
short-flag clusters are split (`-rf` = `-r -f` = `-fr`), the long forms of common
flags become their short ones (`--recursive --force` = `-rf`; `git branch -D` =
`-d -f`), unambiguous abbreviations of known long options are expanded (`--forc`),
`python3.12` is `python` and `npm i` is `npm install`. Words after `--` are never flags.

`*` stands for any words, none included; a word with `*`, `?` or `[` inside is a glob
over one word. Consecutive flags in a pattern are a set: for a tier-3 pattern they may
stand anywhere among the command's options (git and GNU tools take options after
operands) and an unquoted expansion may stand for any of them; for tiers 1 and 2 the
command's flags there must be exactly those, so that an allow pattern never lends its
trust to a flag it does not name.
"""

from __future__ import annotations

import re

from handrail.policy.shell.syntax import SENT
from handrail.policy.shell.unwrap import prog_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from handrail.policy.shell.syntax import Word

    # (kind, value): None (STAR), a word (LIT), a compiled glob (GLOB) or a set of flag names (FLAGS)
    Element = tuple[int, Any]

STAR, LIT, GLOB, FLAGS = 0, 1, 2, 3

AFTER_DD = "\x02"  # marks an operand after `--` that starts with a dash

COMMON = {"--recursive": "-r", "--force": "-f", "--verbose": "-v", "--quiet": "-q", "--all": "-a",
          "--interactive": "-i", "--dry-run": "-n", "--help": "-h"}
ALIASES: dict[str, dict[str, str]] = {
    "rm": {"-R": "-r", "--dir": "-d"},
    "cp": {"-R": "-r", "--archive": "-a", "--no-clobber": "-n", "--target-directory": "-t", "--link": "-l",
           "--symbolic-link": "-s", "--update": "-u"},
    "mv": {"--no-clobber": "-n", "--target-directory": "-t", "--update": "-u"},
    "ln": {"--symbolic": "-s", "--target-directory": "-t", "--no-dereference": "-n"},
    "chmod": {"--recursive": "-R"},
    "chown": {"--recursive": "-R"},
    "chgrp": {"--recursive": "-R"},
    "ls": {"--recursive": "-R", "--reverse": "-r", "--almost-all": "-A", "--human-readable": "-h"},
    "grep": {"-R": "-r", "--extended-regexp": "-E", "--ignore-case": "-i", "--line-number": "-n",
             "--files-with-matches": "-l", "--count": "-c", "--invert-match": "-v"},
    "sed": {"--in-place": "-i", "--expression": "-e", "--quiet": "-n", "--silent": "-n", "--regexp-extended": "-E",
            "-r": "-E", "--file": "-f"},
    "curl": {"--request": "-X", "--output": "-o", "--data": "-d", "--header": "-H", "--location": "-L",
             "--silent": "-s", "--fail": "-f", "--show-error": "-S", "--remote-name": "-O", "--insecure": "-k",
             "--user": "-u", "--force": "--force"},
    "wget": {"--output-document": "-O", "--quiet": "-q"},
    "kubectl": {"--force": "--force", "--filename": "-f", "--namespace": "-n", "--all-namespaces": "-A",
                "--recursive": "-R", "--all": "--all"},
    "helm": {"--namespace": "-n"},
    "tar": {"--force": "--force", "--file": "-f", "--directory": "-C", "--extract": "-x", "--create": "-c",
            "--gzip": "-z", "--list": "-t"},
    "npm": {"--global": "-g", "--save-dev": "-D", "--force": "-f"},
    "pip": {"--upgrade": "-U", "--requirement": "-r", "--editable": "-e", "--recursive": "--recursive"},
    "rsync": {"--archive": "-a", "--compress": "-z"},
    "make": {"--directory": "-C", "--jobs": "-j", "--file": "-f", "--keep-going": "-k", "--always-make": "-B"},
    "git push": {"--delete": "-d", "--set-upstream": "-u", "--tags": "--tags", "--no-verify": "--no-verify"},
    "git commit": {"--no-verify": "-n", "--message": "-m", "--all": "-a", "--file": "-F", "--signoff": "-s",
                   "--patch": "-p", "--reuse-message": "-C", "--reedit-message": "-c", "--template": "-t",
                   "--gpg-sign": "-S", "--edit": "-e", "--amend": "--amend"},
    "git branch": {"--delete": "-d", "--move": "-m", "--copy": "-c", "--list": "-l", "--remotes": "-r",
                   "-D": "-d -f", "-M": "-m -f", "-C": "-c -f", "--set-upstream-to": "-u", "--track": "-t",
                   "--show-current": "--show-current", "--merged": "--merged", "--contains": "--contains"},
    "git clean": {"--exclude": "-e"},
    "git checkout": {"--track": "-t", "--patch": "-p", "--merge": "-m", "--ours": "--ours", "--theirs": "--theirs",
                     "--orphan": "--orphan", "--detach": "--detach"},
    "git switch": {"--create": "-c", "--force-create": "-C", "--force": "--discard-changes",
                   "-f": "--discard-changes", "--discard-changes": "--discard-changes", "--detach": "-d",
                   "--track": "-t", "--merge": "-m"},
    "git restore": {"--staged": "-S", "--worktree": "-W", "--source": "-s", "--patch": "-p"},
    "git rm": {"--cached": "--cached"},
    "git tag": {"--delete": "-d", "--list": "-l", "--annotate": "-a", "--message": "-m", "--sign": "-s"},
    "git add": {"--all": "-A", "--update": "-u", "--patch": "-p", "--intent-to-add": "-N"},
    "git fetch": {"--prune": "-p", "--tags": "-t"},
    "git pull": {"--rebase": "-r"},
    "git stash": {"--include-untracked": "-u", "--message": "-m", "--keep-index": "-k", "--patch": "-p"},
    "git reset": {"--hard": "--hard", "--soft": "--soft", "--mixed": "--mixed", "--merge": "--merge",
                  "--keep": "--keep", "--patch": "-p"},
    "git gc": {"--prune": "--prune", "--aggressive": "--aggressive"},
    "git worktree": {},
    "git config": {"--global": "--global", "--local": "--local", "--system": "--system", "--unset": "--unset",
                   "--get": "--get", "--list": "-l", "--add": "--add", "--unset-all": "--unset-all",
                   "--replace-all": "--replace-all", "--get-all": "--get-all", "--file": "-f"},
    "git merge": {"--no-verify": "--no-verify", "--abort": "--abort"},
}
# Letters that take a value, which may be glued to them (`-mmsg`, `-XDELETE`, `-i.bak`).
VALUE_LETTERS = {
    "git commit": "mFCct", "git checkout": "bB", "git switch": "cC", "git push": "o", "git clean": "e",
    "git stash": "m", "git tag": "mu", "git branch": "u", "git restore": "s", "git log": "n", "git config": "f",
    "curl": "XHdouAeFTwxbcKmrzECPQtUyY", "head": "nc", "tail": "nc", "grep": "efmABCdD", "rg": "egtTAmBC",
    "sed": "efli", "perl": "eEiIMmdDlx", "python": "cmWX", "node": "erp", "ruby": "eIrE", "php": "rdfc",
    "tar": "fCbTXgHKLNV", "cp": "tS", "mv": "tS", "ln": "tS", "psql": "cdhpUfv", "mysql": "eDhuPpS",
    "kubectl": "nflco", "make": "CfjIlWo", "npm": "w", "ssh": "bcDEeFIiJLlmOopQRSWw", "awk": "fvF",
    "docker": "efpvuwlm", "xargs": "adEILnPs", "sort": "kto", "cut": "dfcb", "jq": "",
}
NO_CLUSTER = frozenset({"find", "java", "javac", "terraform", "tofu", "gcc", "g++", "clang", "clang++", "cc", "go",
                        "ffmpeg", "xcodebuild", "dd", "aws", "gcloud", "az", "openssl", "mongosh", "mongo",
                        "sqlite3", "bq", "gsutil", "swift"})
SUBCOMMANDS = frozenset({"git", "npm", "pnpm", "yarn", "docker", "kubectl", "cargo", "go", "gh", "helm", "pip",
                         "uv", "poetry", "terraform", "aws", "gcloud", "brew", "apt", "apt-get", "systemctl",
                         "bun", "deno", "conda", "dotnet", "mvn", "gradle", "composer", "heroku", "fly",
                         "flyctl", "vercel", "netlify", "wrangler", "firebase", "supabase", "handrail", "aioson"})
SUB_ALIASES = {
    "npm": {"i": "install", "in": "install", "ins": "install", "inst": "install", "insta": "install",
            "instal": "install", "isnt": "install", "isnta": "install", "isntal": "install", "isntall": "install",
            "add": "install", "t": "test", "tst": "test", "run-script": "run", "rum": "run", "urn": "run",
            "un": "uninstall", "rm": "uninstall", "r": "uninstall", "remove": "uninstall", "unlink": "uninstall",
            "up": "update", "upgrade": "update", "ls": "list", "la": "list", "ll": "list", "x": "exec",
            "clean-install": "ci", "ic": "ci", "install-clean": "ci", "isntall-clean": "ci",
            "v": "view", "info": "view", "show": "view"},
    "pnpm": {"i": "install", "rm": "remove", "un": "remove", "uninstall": "remove", "up": "update",
             "upgrade": "update", "t": "test", "run-script": "run", "ls": "list"},
    "yarn": {"rm": "remove"},
    "bun": {"i": "install", "a": "add", "rm": "remove"},
}
_GLOB_CHARS = re.compile(r"[*?\[]")
_MERGED: dict[str, dict[str, str]] = {}


def _aliases(key: str, name: str) -> dict[str, str]:
    table = _MERGED.get(key)
    if table is None:
        table = dict(COMMON)
        table.update(ALIASES.get(name, {}))
        if key != name:
            table.update(ALIASES.get(key, {}))
        _MERGED[key] = table
    return table


def _long(flag: str, table: dict[str, str]) -> str:
    hit = table.get(flag)
    if hit is not None:
        return hit
    if len(flag) >= 5:
        found = {v for k, v in table.items() if k.startswith(flag)}
        if len(found) == 1:
            return found.pop()
    return flag


def normalize(argv: list[str], wild: list[bool] | None = None) -> tuple[list[str], list[bool]]:
    """Canonical tokens of a command line (argv[0] is the program), and which are unquoted expansions."""
    if not argv:
        return [], []
    name = prog_name(argv[0])
    out = [name]
    flags_wild = [False]
    rest = argv[1:]
    rwild = (wild or [False] * len(argv))[1:]
    key = name
    if name in SUBCOMMANDS and rest:
        at = _subcommand_at(name, rest, rwild)
        if at is not None:
            sub = SUB_ALIASES.get(name, {}).get(rest[at], rest[at])
            out.append(sub)
            flags_wild.append(False)
            key = f"{name} {sub}"
            # global options before the subcommand (`kubectl -n prod delete …`) go after it
            rest, rwild = rest[:at] + rest[at + 1 :], rwild[:at] + rwild[at + 1 :]
    table = _aliases(key, name)
    letters = VALUE_LETTERS.get(key, VALUE_LETTERS.get(name, ""))
    cluster = name not in NO_CLUSTER
    after_dd = False
    for t, w in zip(rest, rwild):
        if w:
            out.append(t)
            flags_wild.append(True)
            continue
        if after_dd or len(t) < 2 or t[0] != "-":
            out.append(AFTER_DD + t if after_dd and t[:1] == "-" else t)
            flags_wild.append(False)
            continue
        if t == "--":
            after_dd = True
            out.append(t)
            flags_wild.append(False)
            continue
        if t[1] == "-":
            flag, eq, value = t.partition("=")
            canon = _long(flag, table)
            if canon != flag or not eq:
                for c in canon.split():
                    out.append(c)
                    flags_wild.append(False)
            else:
                out.append(t)
                flags_wild.append(False)
            continue
        if not t[1].isalpha() or not cluster:
            out.append(t)
            flags_wild.append(False)
            continue
        j = 1
        while j < len(t):
            c = t[j]
            if not c.isalpha():
                out.append(t[j:])
                flags_wild.append(False)
                break
            for f in table.get("-" + c, "-" + c).split():
                out.append(f)
                flags_wild.append(False)
            if c in letters:
                if j + 1 < len(t):
                    out.append(t[j + 1 :])
                    flags_wild.append(False)
                break
            j += 1
    return out, flags_wild


# Global options that take a value, before a subcommand.
GLOBAL_VALUES = {
    "kubectl": frozenset({"-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server",
                          "--as", "-l"}),
    "oc": frozenset({"-n", "--namespace", "--context", "--kubeconfig"}),
    "helm": frozenset({"-n", "--namespace", "--kube-context", "--kubeconfig"}),
    "docker": frozenset({"-H", "--host", "--context", "--config", "-c", "-l", "--log-level"}),
    "gh": frozenset({"-R", "--repo"}),
    "npm": frozenset({"--prefix", "-C", "-w", "--workspace"}),
    "pnpm": frozenset({"-C", "--dir", "--filter", "-F"}),
    "yarn": frozenset({"--cwd"}),
    "cargo": frozenset({"-C", "--config", "-Z", "--color"}),
    "aws": frozenset({"--profile", "--region", "--output", "--endpoint-url", "--query"}),
    "gcloud": frozenset({"--project", "--account", "--configuration", "--format"}),
    "uv": frozenset({"--directory", "--project", "--python", "-p"}),
    "terraform": frozenset(),
}


def _subcommand_at(name: str, rest: list[str], wild: list[bool]) -> int | None:
    values = GLOBAL_VALUES.get(name, frozenset())
    i = 0
    while i < len(rest):
        t = rest[i]
        if wild[i]:
            return None
        if t == "--" or not t.startswith("-") or len(t) < 2:
            return i if t != "--" else None
        i += 2 if (t in values and "=" not in t) else 1
    return None


def is_flag(tok: str) -> bool:
    return len(tok) > 1 and tok[0] == "-" and tok != "--"


def flag_name(tok: str) -> str:
    return tok.partition("=")[0]


class Compiled:
    """One protocol pattern, ready to match."""

    __slots__ = ("pattern", "tier", "segs", "spec", "deny", "prefix", "open")

    def __init__(self, pattern: object, tier: str, segs: list[list[Element]], deny: bool) -> None:
        self.pattern = pattern
        self.tier = tier
        self.segs = segs
        self.deny = deny
        # Most patterns are words then `*` (or words alone): matched by one comparison.
        els = segs[0]
        body = els[:-1] if els and els[-1][0] == STAR else els
        simple = len(segs) == 1 and all(kind == LIT for kind, _ in body)
        self.prefix: list[str] | None = [v for _, v in body] if simple else None
        self.open = len(body) < len(els)
        spec = 0
        for seg in segs:
            for kind, val in seg:
                # named words count; a `*` makes a pattern a little less specific than its exact form
                spec += 2 * len(val) if kind == FLAGS else 2 if kind != STAR else -1
        self.spec = spec


def _glob(word: str) -> re.Pattern[str]:
    out = []
    for c in word:
        out.append(".*" if c == "*" else "." if c == "?" else re.escape(c))
    return re.compile("".join(out), re.DOTALL)


def compile_segment(text: str) -> list[Element]:
    words = text.split()
    if not words:
        raise ValueError("a pipeline part of the pattern is empty")
    first = words[0]
    els: list[Element] = []
    if first == "*":
        els.append((STAR, None))
        toks = [t for t in words[1:]]
        toks_wild = [False] * len(toks)
    else:
        toks, toks_wild = normalize([first.replace("*", "\x01")] + words[1:])
        toks[0] = toks[0].replace("\x01", "*")
    for t in toks:
        if t == "*":
            if not els or els[-1][0] != STAR:
                els.append((STAR, None))
        elif is_flag(t):
            if els and els[-1][0] == FLAGS:
                els[-1] = (FLAGS, els[-1][1] | {flag_name(t)})
            else:
                els.append((FLAGS, frozenset({flag_name(t)})))
        elif _GLOB_CHARS.search(t):
            els.append((GLOB, _glob(t)))
        else:
            els.append((LIT, t))
    return els


def _flag_ok(need: frozenset[str], names: set[str]) -> bool:
    for f in need:
        if f in names:
            continue
        if "*" in f and any(_glob(f).fullmatch(n) for n in names):
            continue
        return False
    return True


def match(els: list[Element], toks: list[str], wild: list[bool], deny: bool) -> bool:
    return _m(els, 0, toks, 0, wild, deny)


def match_one(c: Compiled, toks: list[str], wild: list[bool], any_wild: bool) -> bool:
    """`c` (a one-part pattern) against a command's tokens."""
    prefix = c.prefix
    if prefix is not None and not (c.deny and any_wild):
        n = len(prefix)
        return toks[:n] == prefix and (c.open or len(toks) == n)
    return _m(c.segs[0], 0, toks, 0, wild, c.deny)


def _m(els: list[Element], ei: int, toks: list[str], ti: int, wild: list[bool], deny: bool) -> bool:
    ne, nt = len(els), len(toks)
    while ei < ne:
        kind, val = els[ei]
        if kind == STAR:
            if ei == ne - 1:
                return True
            for k in range(ti, nt + 1):
                # In an allow pattern a `*` before more words stands for operands: it may not swallow
                # an option or a word known only at run time (`aws * list-* *` must not match
                # `aws s3 sync . s3://b --delete --exclude list-x`).
                if k > ti and not deny and (wild[k - 1] or is_flag(toks[k - 1])):
                    return False
                if _m(els, ei + 1, toks, k, wild, deny):
                    return True
            return False
        if kind == FLAGS:
            k = ti
            while k < nt and not wild[k] and is_flag(toks[k]):
                k += 1
            names = {flag_name(t) for t in toks[ti:k]}
            if deny:
                if not _flag_ok(val, names):
                    later = set(names)
                    for j in range(k, nt):
                        t = toks[j]
                        if t == "--":
                            break
                        if is_flag(t) and not wild[j]:
                            later.add(flag_name(t))
                    if not (_flag_ok(val, later) or any(wild[ti:])):
                        return False
            elif names != val and not (any("*" in f for f in val) and _flag_ok(val, names)
                                       and len(names) == len(val)):
                return False
            ti = k
            ei += 1
            continue
        if ti >= nt:
            return False
        t = toks[ti]
        if deny and wild[ti]:
            pass
        elif kind == LIT:
            if t != val:
                return False
        elif not val.fullmatch(t):
            return False
        ti += 1
        ei += 1
    return ti == nt or (deny and all(wild[ti:]))


class Index:
    """A protocol's patterns, found by program and first word."""

    __slots__ = ("by_key", "by_prog", "anywhere", "pipelines")

    def __init__(self) -> None:
        self.by_key: dict[tuple[str, str | None], list[Compiled]] = {}
        self.by_prog: dict[str, list[Compiled]] = {}
        self.anywhere: list[Compiled] = []
        self.pipelines: list[Compiled] = []

    def add(self, c: Compiled) -> None:
        if len(c.segs) > 1:
            self.pipelines.append(c)
            return
        els = c.segs[0]
        if els[0][0] != LIT:
            self.anywhere.append(c)
            return
        sub = els[1][1] if len(els) > 1 and els[1][0] == LIT else None
        self.by_key.setdefault((els[0][1], sub), []).append(c)
        self.by_prog.setdefault(els[0][1], []).append(c)

    def candidates(self, toks: list[str], wild: list[bool]) -> list[Compiled]:
        name = toks[0]
        if len(toks) > 1 and wild[1]:
            # `git $SUB …` may be any subcommand
            found = self.by_prog.get(name, [])
            return found + self.anywhere if self.anywhere else found
        found = self.by_key.get((name, None), [])
        if len(toks) > 1:
            more = self.by_key.get((name, toks[1]))
            if more:
                found = found + more
        return found + self.anywhere if self.anywhere else found


def compile_pattern(text: str, tier: str, pattern: object, deny: bool) -> Compiled:
    segs = [compile_segment(seg) for seg in text.split("|")]
    return Compiled(pattern, tier, segs, deny)


def command_tokens(words: list[Word], extra: bool) -> tuple[list[str], list[bool]]:
    """Tokens of a part's argv; `extra` appends a stand-in for arguments only known at run time."""
    texts = [w.text for w in words]
    wild = [w.wild for w in words]
    if extra:
        # paths handed over by xargs or find: unknown, but one operand each
        texts.append(SENT)
        wild.append(False)
    return normalize(texts, wild)
