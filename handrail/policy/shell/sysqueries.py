"""The read-only forms of programs that otherwise change the kernel, services or the boot, from
their manuals: `sysctl NAME`, `launchctl print`, `spctl --assess`, `swapon --show`, `pfctl -s`.

`query(name, args)` answers True when every word is one a manual documents as only showing state,
False when any word changes it or is not known (an option no manual here names is a change until
someone reads what it does), and None for a program this module does not model.
"""

from __future__ import annotations

# sysctl(8) of procps (Linux) and of the BSDs and macOS: options that show, and the one that takes a
# value (`-r/--pattern REGEX`). `-w`, `-p/--load`, `--system`, `-f FILE` and `NAME=VALUE` write.
_SYSCTL_SHOW = frozenset({"-a", "-A", "-X", "--all", "-n", "--values", "-N", "--names", "-e", "--ignore", "-q",
                          "--quiet", "-b", "--binary", "-d", "-h", "--help", "-V", "--version", "-o", "-x", "-i",
                          "--deprecated", "-l", "-t"})
_SYSCTL_LETTERS = "aAXnNeqbdhVoxilt"
_SYSCTL_VALUE = frozenset({"-r", "--pattern"})

# launchctl(1) subcommands that print launchd's state. (`examine`, `asuser` and `bsexec` run a
# program; `getenv` prints a variable of launchd's environment; the rest load, unload, signal
# or configure.)
_LAUNCHCTL_SHOW = frozenset({"list", "print", "print-cache", "print-disabled", "plist", "procinfo", "hostinfo",
                             "resolveport", "blame", "dumpstate", "dumpjpcategory", "managerpid", "manageruid",
                             "managername", "version", "help", "error", "variant"})

# spctl(8): `--assess/-a` and `--status`, `--disable-status` query; `kext-consent status|list` print.
# With `--assess`: `-t/--type TYPE`, `-v/--verbose`, `-D`, `--raw`, `--continue`, `--ignore-cache`,
# `--no-cache` and the files assessed.
_SPCTL_QUERY = frozenset({"--status", "--disable-status"})
_SPCTL_ASSESS_FLAGS = frozenset({"-v", "--verbose", "-vv", "-vvv", "-D", "--raw", "--continue", "--ignore-cache",
                                 "--no-cache", "--"})

# swapon(8) `--show`/`-s/--summary` list the swap areas; `--bytes`, `--noheadings`, `--raw` shape it.
_SWAPON_SHOW = frozenset({"--show", "-s", "--summary"})
_SWAPON_SHAPE = frozenset({"--bytes", "--noheadings", "--raw", "-h", "--help", "-V", "--version"})


def _sysctl(args: list[str]) -> bool:
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a in _SYSCTL_VALUE:
            skip = True
        elif a.startswith("--pattern="):
            continue
        elif a.startswith("-"):
            if a not in _SYSCTL_SHOW and not (a[1:2] != "-" and all(c in _SYSCTL_LETTERS for c in a[1:])):
                return False
        elif "=" in a:
            return False  # NAME=VALUE sets the variable
    return True


def _launchctl(args: list[str]) -> bool:
    if not args:
        return False
    sub = args[0]
    if sub == "limit":
        return len(args) <= 2  # `limit` and `limit maxfiles` print; with values it sets them
    return sub in _LAUNCHCTL_SHOW


def _spctl(args: list[str]) -> bool:
    if args in (["kext-consent", "status"], ["kext-consent", "list"]):
        return True
    if len(args) == 1 and args[0] in _SPCTL_QUERY:
        return True
    if not args or args[0] not in ("-a", "--assess"):
        return False
    rest = args[1:]
    i = 0
    while i < len(rest):
        a = rest[i]
        if a in ("-t", "--type"):
            i += 2
            continue
        if a.startswith("-") and a not in _SPCTL_ASSESS_FLAGS and not a.startswith("--type="):
            return False
        i += 1
    return True


def _swapon(args: list[str]) -> bool:
    shown = False
    for a in args:
        if a in _SWAPON_SHOW or a.startswith("--show="):
            shown = True
        elif a not in _SWAPON_SHAPE:
            return False
    return shown


def _pfctl(args: list[str]) -> bool:
    # pfctl(8): `-s MODIFIER` shows (rules, nat, states, info, all, ...); `-v`, `-vv`, `-g` and `-a ANCHOR` shape it.
    shown = False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-s" and i + 1 < len(args):
            shown = True
            i += 2
            continue
        if a.startswith("-s") and len(a) > 2:
            shown = True
        elif a == "-a" and i + 1 < len(args):
            i += 1
        elif a not in ("-v", "-vv", "-g", "-n"):
            return False
        i += 1
    return shown


_QUERIES = {"sysctl": _sysctl, "launchctl": _launchctl, "spctl": _spctl, "swapon": _swapon, "pfctl": _pfctl}
MODELLED = frozenset(_QUERIES)
# launchctl subcommands that may print the environment a service was given (its plist's
# EnvironmentVariables, tokens included): read-only, but not said to be harmless.
_MAY_PRINT_ENV = frozenset({"print", "dumpstate", "procinfo"})


def shown(name: str, args: list[str]) -> list[tuple[int, str, str]]:
    """The finding for a query `query` said only shows state: tier 1, or none where what it
    shows may hold a credential (then the policy's patterns decide)."""
    if name == "launchctl" and args[0] in _MAY_PRINT_ENV:
        return []
    return [(1, "system", f"{name} {args[0] if args else ''}".rstrip() + " only shows state (read-only by its "
                                                                          "manual)")]


def query(name: str, args: list[str]) -> bool | None:
    """Does `name args…` only show state? None for a program not modelled here."""
    check = _QUERIES.get(name)
    return None if check is None else check(args)
