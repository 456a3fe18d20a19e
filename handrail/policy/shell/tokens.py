"""Command-line words -> canonical tokens, so a pattern and a command meet however they are spelt.

Short-flag clusters are split (`-rf` = `-r -f` = `-fr`), the long forms of common flags
become their short ones (`--recursive --force` = `-rf`; `git branch -D` = `-d -f`),
unambiguous abbreviations of known long options are expanded (`--forc`), `python3.12` is
`python` and `npm i` is `npm install`. Words after `--` are never flags. The tables say,
per program (or `program subcommand`), which spellings are one.
"""

from __future__ import annotations

from handrail.policy.shell.parts import prog_name

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
            flag, eq, _value = t.partition("=")
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
