"""Rules for what reaches beyond the project: privilege, services and the kernel, other
processes, scheduled jobs, shell history, the agent's own markers, the whole environment,
and the destructive forms of PowerShell and cmd.

Each check takes one simple command (a Part) and answers findings `(tier, rule, why)`,
as the rules in `rules.py` do; `rules.findings` calls them by program name.
"""

from __future__ import annotations

import re

from handrail.policy import agents
from handrail.policy.shell import sysqueries
from handrail.policy.shell.kills import check_kill

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx, Finding
    from handrail.policy.shell.parts import Part
    from handrail.policy.shell.syntax import Word

# Programs that run what follows as another user, root most of all.
PRIVILEGE = frozenset({"sudo", "doas", "su", "pkexec", "runas", "runuser", "sudoedit", "gsudo", "run0"})

# The environment variables by which handrail (and the git hooks) know that an agent acts:
# the table of policy/agents.py, by name. Removing or changing one is the agent loosening
# its own leash.
__all__ = ["check_kill"]

# aider's are git's identity variables, which a person's commit sets for reasons of its own.
MARKERS = frozenset(m.variable for m in agents.MARKERS if m.harness != "aider")
_MARKER_PREFIXES = ("CLAUDE_CODE_", "CODEX_", "OPENCODE_", "COPILOT_", "CLINE_", "GEMINI_CLI", "CURSOR_AGENT",
                    "HANDRAIL_")

# Variables that make a shell or interpreter run code of somebody's choosing before its own.
# (Library search paths such as PYTHONPATH are left alone: the program they serve runs the
# project's code anyway.)
CODE_ENV = frozenset({"BASH_ENV", "ENV", "PROMPT_COMMAND", "PS0", "PS4", "LD_PRELOAD", "LD_AUDIT",
                      # a prompt's `$( … )` runs at every prompt of a shell kept between commands
                      "PS1", "PS2", "PS3", "PROMPT", "PROMPT2", "PROMPT3", "PROMPT4", "RPROMPT", "RPROMPT2",
                      "RPS1", "RPS2", "SPROMPT",
                      "DYLD_INSERT_LIBRARIES", "PYTHONSTARTUP", "ZDOTDIR", "SHELLOPTS", "BASHOPTS", "IFS",
                      "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND", "LESSOPEN",
                      "LESSCLOSE", "MANPAGER", "BROWSER", "LESSKEY", "LESSKEYIN", "LESSKEY_CONTENT",
                      "RIPGREP_CONFIG_PATH", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
                      "GIT_CONFIG", "GIT_CONFIG_COUNT", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_ASKPASS",
                      "SSH_ASKPASS", "GIT_SEQUENCE_EDITOR",
                      # where programs find their configuration, which names programs to run
                      # (git's core.fsmonitor, aws's credential_process, a kubeconfig's exec)
                      "HOME", "XDG_CONFIG_HOME", "CURL_HOME", "WGETRC", "KUBECONFIG", "AWS_CONFIG_FILE",
                      "npm_config_script_shell", "NPM_CONFIG_SCRIPT_SHELL", "LD_LIBRARY_PATH",
                      "DYLD_LIBRARY_PATH", "DYLD_FRAMEWORK_PATH", "DYLD_FALLBACK_LIBRARY_PATH"})
# Option variables that load code only through some of their options.
_CODE_OPTIONS = {"NODE_OPTIONS": ("-r", "--require", "--import", "--loader", "--experimental-loader", "-e",
                                  "--eval", "-p"),
                 "PERL5OPT": ("-M", "-m", "-I", "-d", "-e"), "RUBYOPT": ("-r", "-I", "-e"),
                 "JAVA_TOOL_OPTIONS": ("-javaagent", "-agentpath", "-agentlib"),
                 "_JAVA_OPTIONS": ("-javaagent", "-agentpath", "-agentlib"),
                 # pagers take start-up commands (`+!cmd`) and log files from their option variables
                 "LESS": ("+", "-o", "-O", "--log-file", "--LOG-FILE", "-k", "--lesskey"), "MORE": ("+",),
                 "GOFLAGS": ("-toolexec", "-exec", "-vettool", "--toolexec", "--exec", "--vettool"),
                 "MANOPT": ("-P", "--pager", "-H", "--html"), "ZIPOPT": ("-TT", "--unzip-command", "-m", "--move"),
                 "TAR_OPTIONS": ("--to-command", "--checkpoint-action", "-I", "--use-compress-program",
                                 "--info-script", "-F", "--new-volume-script", "--rsh-command", "--rmt-command")}
# A variable whose name says it holds a credential.
SECRET_NAME = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "PRIVATE_KEY", "ACCESS_KEY",
               "CREDENTIAL", "AUTH", "SESSION_KEY", "_PAT", "COOKIE",
               # connection strings and URLs that carry a password in them
               "DATABASE_URL", "DB_URL", "REDIS_URL", "MONGO_URI", "MONGODB_URI", "MONGO_URL", "_DSN", "_PWD",
               "CONNECTION_STRING", "CONN_STR")


def secret_name(name: str) -> bool:
    up = name.upper()
    return any(s in up for s in SECRET_NAME)


def _code_option(name: str, value: str) -> bool:
    prefixes = _CODE_OPTIONS.get(name)
    return prefixes is not None and any(t.startswith(prefixes) for t in value.split())
HISTORY_ENV = frozenset({"HISTFILE", "HISTSIZE", "HISTFILESIZE", "HISTCONTROL", "HISTIGNORE", "SAVEHIST"})

_SYSTEMCTL_READS = frozenset({"status", "show", "cat", "list-units", "list-unit-files", "list-sockets",
                              "list-timers", "list-jobs", "list-dependencies", "is-active", "is-enabled",
                              "is-failed", "is-system-running", "help", "get-default", "show-environment"})
_SERVICE_READS = frozenset({"status", "--status-all", "--help", "-h"})
_KERNEL = frozenset({"modprobe", "insmod", "rmmod", "kexec", "sysctl", "swapoff", "swapon", "mount", "umount",
                     "losetup", "cryptsetup", "lvremove", "vgremove", "pvremove", "zpool", "zfs", "mdadm",
                     "setenforce", "grub-install", "update-grub", "efibootmgr", "chroot", "init", "telinit",
                     "ip", "ifconfig", "route", "nft", "iptables", "ip6tables", "ufw", "firewall-cmd", "pfctl",
                     "tc", "useradd", "userdel", "usermod", "groupadd", "groupdel", "passwd", "chpasswd",
                     "visudo", "launchctl", "csrutil", "spctl", "nvram", "bcdedit", "reg", "sc", "netsh"})
# Read-only forms of the programs above: the words after the program that keep them harmless.
_KERNEL_READS = {
    "sysctl": ("-a", "--all", "-n", "-N", "--values", "--names"),
    "ip": ("a", "addr", "address", "r", "route", "l", "link", "n", "neigh", "-br", "-4", "-6", "-j", "-s", "-c"),
    "ifconfig": ("-a",), "mount": ("-l",), "zpool": ("list", "status", "iostat"), "zfs": ("list", "get"),
    "ufw": ("status",), "firewall-cmd": ("--state", "--list-all", "--get-active-zones", "--list-ports"),
    "launchctl": ("list", "print", "blame"), "csrutil": ("status",), "spctl": ("--status",),
    "iptables": ("-L", "-S", "--list", "--list-rules", "-n", "-v", "-nL", "-nvL", "-vnL", "-Ln"),
    "ip6tables": ("-L", "-S", "--list", "--list-rules", "-n", "-v", "-nL", "-nvL"),
    "nft": ("list",), "route": ("-n",), "tc": ("show", "-s"), "reg": ("query",), "sc": ("query", "qc"),
    "netsh": ("show",),
}
_IFCONFIG_CHANGES = frozenset({"up", "down", "inet", "inet6", "netmask", "mtu", "add", "del", "hw", "ether",
                               "promisc", "-promisc", "alias", "-alias", "broadcast", "dstaddr", "arp", "-arp",
                               "metric", "txqueuelen", "create", "destroy"})
_SCHEDULERS = frozenset({"at", "batch", "atrm", "schtasks", "systemd-run"})


def _why(part: Part, what: str) -> list[Finding]:
    return [(3, "system", f"{part.name} {what}")]


def check_privilege(part: Part, ctx: Ctx) -> list[Finding]:
    """A command run through sudo and its kin, or the program itself."""
    via = [v.split(" ", 1)[0] for v in part.via]
    hit = next((v for v in via if v in PRIVILEGE), None) or (part.name if part.name in PRIVILEGE else None)
    if hit is None:
        return []
    return [(3, "privilege", f"runs as another user through {hit}: whatever it does, it does with their rights")]


def check_markers(part: Part, ctx: Ctx) -> list[Finding]:
    """The agent unsetting or rewriting the variables that say it is an agent."""
    out: list[Finding] = []
    for name, _w in part.assigns:
        if _is_marker(name):
            out.append((3, "agent-markers", f"sets {name}, one of the variables that say an agent is acting"))
        elif name in CODE_ENV or _code_option(name, _w.text.split("=", 1)[-1]) or (_w.dyn and name in _CODE_OPTIONS):
            out.append((3, "code-env", f"sets {name}, which makes programs load or run code of its choosing"))
        elif name in HISTORY_ENV:
            out.append((3, "history", f"sets {name}, which hides what the shell ran"))
        elif name.startswith("GIT_TRACE"):
            out += _trace_file(part, _w, ctx)
    if part.name == "unset":
        for w in part.words[1:]:
            if _is_marker(w.text) or w.dyn:
                out.append((3, "agent-markers", f"unset {w.raw} removes a variable that says an agent is acting"))
            elif w.text in HISTORY_ENV:
                out.append((3, "history", f"unset {w.raw} hides what the shell ran"))
    elif part.name in ("export", "declare", "typeset", "readonly", "local"):
        for w in part.words[1:]:
            key = w.text.split("=", 1)[0].lstrip("-")
            if w.text.startswith("-n") or (w.text.startswith("-") and "n" in w.text and part.name == "export"):
                out.append((3, "agent-markers", f"{part.name} {w.raw} un-exports variables"))
            elif _is_marker(key):
                out.append((3, "agent-markers", f"{part.name} {w.raw} changes a variable that says an agent is "
                                                "acting"))
            elif "=" in w.text and (key in CODE_ENV or _code_option(key, w.text.split("=", 1)[1])):
                out.append((3, "code-env", f"{part.name} {w.raw} makes programs load or run code of its choosing"))
            elif key in HISTORY_ENV and "=" in w.text:
                out.append((3, "history", f"{part.name} {w.raw} hides what the shell ran"))
            elif key.startswith("GIT_TRACE") and "=" in w.text:
                out += _trace_file(part, w, ctx)
    return out


def _trace_file(part: Part, assign: Word, ctx: Ctx) -> list[Finding]:
    """`GIT_TRACE=/path` (and GIT_TRACE2_EVENT, GIT_TRACE_PACKET, …): git appends its trace to
    that file, a write judged as any other; `1`, `true` or a descriptor number write to stderr."""
    from handrail.policy.shell.syntax import Word
    from handrail.policy.shell.targets import check_paths

    value = assign.text.split("=", 1)[1]
    if not assign.dyn and "/" not in value and not value.startswith("~"):
        return []
    target = Word(value, assign.raw.split("=", 1)[-1])
    target.dyn, target.tilde = assign.dyn, value.startswith("~")
    found = check_paths(part, [target], [], ctx)
    return found or [(2, "redirect-write", f"{assign.raw} appends git's trace to that file")]


def _is_marker(name: str) -> bool:
    up = name.upper()
    return up in MARKERS or up.startswith(_MARKER_PREFIXES)


def check_env_dump(part: Part, ctx: Ctx) -> list[Finding]:
    """Printing every variable prints every token the session holds."""
    name = part.name
    args = [w.text for w in part.words[1:]]
    why = "prints the whole environment, tokens and keys included"
    if name in ("env", "printenv") and not [a for a in args if not a.startswith("-")]:
        return [(3, "env-dump", f"{name} {why}")]
    if name == "printenv" and any(secret_name(a) for a in args):
        return [(3, "env-dump", f"printenv {' '.join(args)} prints a credential")]
    if name == "set" and (not args or args in (["-o", "posix"], ["-p"])):
        return [(3, "env-dump", f"set {why}")]
    if name in ("export", "declare", "typeset") and (not args or all(a in ("-p", "-x", "-px", "-xp") for a in args)):
        return [(3, "env-dump", f"{name} {' '.join(args)} {why}".replace("  ", " "))]
    if (name == "compgen" and "-v" in args) or (name == "compgen" and "-e" in args):
        return [(3, "env-dump", f"compgen {why}")]
    return _tool_dump(part, args, why)


# jq's and yq's `env` / `$ENV` hold every variable; a word that is only a field name (`.env`),
# a path (`config/env.json`) or part of a longer name is no reading of it.
_JQ_ENV = re.compile(r"(?<![\w$./\"-])env(?![\w-])|\$ENV\b|\$__loc__|\benv\s*\(")


def _tool_dump(part: Part, args: list[str], why: str) -> list[Finding]:
    name = part.name
    if name in ("jq", "gojq", "jaq", "yq") and any(_JQ_ENV.search(a) for a in args if not a.startswith("-")):
        return [(3, "env-dump", f"{name}'s env reads the environment: {why}")]
    if name == "ps":
        # BSD `e` (`ps e`, `ps axeww`) and macOS `-E` add each process's environment
        bsd = next((a for a in args if not a.startswith("-")), "")
        if (args and bsd == args[0] and "e" in bsd) or any(a.startswith("-") and not a.startswith("--") and
                                                           "E" in a for a in args):
            return [(3, "env-dump", f"ps {' '.join(args)} prints every process's environment, tokens included")]
    if name == "gh" and args[:2] == ["auth", "status"] and any(a in ("-t", "--show-token") for a in args):
        return [(3, "env-dump", "gh auth status --show-token prints the GitHub token")]
    return []


def check_services(part: Part, ctx: Ctx) -> list[Finding]:
    name = part.name
    args = [w.text for w in part.words[1:] if not w.text.startswith("-") or w.text == "--status-all"]
    if name == "systemctl":
        verb = next((a for a in args), "list-units")
        return [] if verb in _SYSTEMCTL_READS else _why(part, f"{verb} changes system services")
    if name == "service":
        if any(a in _SERVICE_READS for a in args):
            return []
        return _why(part, "changes a system service")
    if name in ("journalctl",):
        if any(w.text.startswith(("--vacuum", "--rotate", "--flush", "--relinquish", "--setup-keys"))
               for w in part.words[1:]):
            return _why(part, "deletes or rotates the system journal")
        return []
    if name in _KERNEL:
        reads = _KERNEL_READS.get(name)
        words = [w.text for w in part.words[1:]]
        shows = None if any(w.dyn for w in part.words[1:]) else sysqueries.query(name, words)
        if shows is not None or name in sysqueries.MODELLED:
            return sysqueries.shown(name, words) if shows else _why(part, "changes the kernel, the network, users "
                                                                         "or the boot")
        if reads is not None and words and all(w in reads or (w.startswith("-") and w in reads) for w in words[:1]) \
                and not _kernel_change(name, words):
            return []
        if name == "mount" and not words:
            return []
        if name in ("ip", "ifconfig") and not words:
            return []
        if name == "ifconfig" and len(words) <= 2 and not set(words) & _IFCONFIG_CHANGES:
            return []  # `ifconfig eth0`, `ifconfig -s`: shows the interfaces
        return _why(part, "changes the kernel, the network, users or the boot")
    return []


def _kernel_change(name: str, words: list[str]) -> bool:
    if name in ("iptables", "ip6tables"):
        return any(w in ("-F", "-X", "-D", "-A", "-I", "-P", "-Z", "-N", "-R", "--flush", "--delete",
                         "--append", "--insert", "--policy") for w in words)
    if name == "sysctl":
        return any("=" in w or w in ("-w", "--write", "-p", "--load", "--system") for w in words)
    if name == "ip":
        if any(w in ("show", "list", "ls", "get") for w in words[:3]):
            return False  # `ip link show up` lists the interfaces that are up
        return any(w in ("add", "del", "delete", "flush", "set", "change", "replace", "down", "up") for w in words)
    return False


def check_schedule(part: Part, ctx: Ctx) -> list[Finding]:
    name = part.name
    texts = [w.text for w in part.words[1:]]
    if name == "crontab":
        if texts and all(t in ("-l", "-u") or (not t.startswith("-") and "-l" in texts) for t in texts) and \
                "-l" in texts:
            return []
        return [(3, "schedule", "crontab replaces or removes scheduled jobs, which run later without anyone asking")]
    if name in _SCHEDULERS:
        if name == "at" and texts[:1] == ["-l"]:
            return []
        if name == "schtasks" and texts[:1] and texts[0].lower() == "/query":
            return []
        return [(3, "schedule", f"{name} schedules or removes a job that runs later without anyone asking")]
    return []


def check_history(part: Part, ctx: Ctx) -> list[Finding]:
    texts = [w.text for w in part.words[1:]]
    if part.name == "history" and any(t in ("-c", "-d", "-w", "-a", "-r", "-n", "-p", "-s") or
                                      t.startswith("-c") for t in texts):
        return [(3, "history", "history changes or wipes what the shell ran")]
    return []


# PowerShell cmdlets and aliases that delete, format, or run text as code. Compared case-folded.
_PS_DELETE = frozenset({"remove-item", "ri", "rd", "del", "erase", "clear-content", "clear-item",
                        "remove-itemproperty", "clear-recyclebin"})
_PS_DESTROY = frozenset({"format-volume", "clear-disk", "initialize-disk", "remove-partition", "stop-computer",
                         "restart-computer", "remove-localuser", "disable-localuser", "set-executionpolicy",
                         "remove-service", "stop-service", "uninstall-package", "remove-appxpackage",
                         "remove-adusers", "remove-aduser", "remove-adgroup", "remove-vm", "remove-azresourcegroup",
                         "remove-azvm", "remove-azstorageaccount", "invoke-sqlcmd", "clear-eventlog",
                         "remove-eventlog", "wevtutil", "vssadmin", "cipher", "diskpart", "format"})
_PS_EXEC = frozenset({"invoke-expression", "iex", "invoke-command", "icm", "start-process", "saps", "start",
                      "add-type", "invoke-webrequest", "iwr", "invoke-restmethod", "irm", "new-object"})
POWERSHELL = frozenset({"powershell", "powershell.exe", "pwsh", "pwsh.exe"})
CMD = frozenset({"cmd", "cmd.exe"})


def check_windows(part: Part, ctx: Ctx) -> list[Finding]:
    """cmd's `rd /s`, `del /s`, `format`, and PowerShell's deleting and code-running cmdlets."""
    low = part.name.lower()
    texts = [w.text.lower() for w in part.words[1:]]
    if low in ("rd", "rmdir") and any(t in ("/s", "/s/q", "/q/s") for t in texts):
        return [(3, "windows", f"{part.name} /s deletes a folder and everything in it")]
    if low in ("del", "erase") and any(t.startswith(("/s", "/q", "/f")) for t in texts):
        return [(3, "windows", f"{part.name} {' '.join(t for t in texts if t.startswith('/'))} deletes files "
                               "without asking")]
    if low in _PS_DESTROY:
        return [(3, "windows", f"{part.name} destroys data or changes the system")]
    if low in _PS_DELETE and any(t.startswith(("-r", "-fo", "-recurse", "-force")) for t in texts):
        return [(3, "windows", f"{part.name} -Recurse/-Force deletes without asking")]
    if low in _PS_EXEC:
        return [(3, "dynamic", f"{part.name} runs code or text built at run time")]
    return []


def check_powershell(part: Part, ctx: Ctx) -> list[Finding]:
    """PowerShell or cmd with a script file or none: an interactive shell or code handrail does not
    read (a `-Command` text was read as commands already)."""
    texts = [w.text.lower() for w in part.words[1:]]
    if len(texts) == 1 and texts[0] in ("-version", "--version", "-v", "-help", "-?", "/?"):
        return []
    kind = "cmd" if part.name.lower() in CMD else "PowerShell"
    return [(3, "dynamic", f"{part.name} runs a {kind} script or session, which handrail does not read")]



# Builtins that evaluate a variable name as an array subscript, and so run a `$( … )` inside
# it: `printf -v 'a[$(rm -rf x)]' y`, `test -v …`, `read 'a[…]'`, `(( x ))` where x holds one.
SUBSCRIPT_EVAL = frozenset({"printf", "test", "[", "[[", "read", "let", "declare", "typeset", "local", "export",
                            "readonly", "unset", "mapfile", "readarray", "wait"})


def check_subscripts(part: Part, ctx: Ctx) -> list[Finding]:
    words = [w for _, w in part.assigns]
    if part.name in SUBSCRIPT_EVAL:
        words += part.words[1:]
    for w in words:
        raw = w.raw
        at = raw.find("[")
        if at >= 0 and ("$(" in raw[at:] or "`" in raw[at:]):
            return [(3, "dynamic", f"{raw} holds a command in an array subscript, which bash runs when it "
                                   "evaluates the name")]
    return []
