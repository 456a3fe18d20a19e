"""The rules shipped with handrail, for what word patterns cannot say.

Each rule has a name that a protocol's `rules` map can switch off (`"rm-recursive":
false`); `dynamic` and `unparseable` cannot be switched off, because without them
anything could be hidden. A rule answers with findings: (tier, rule, why). Tier 3
needs a human whatever the patterns say; tier 2 marks a local change.
"""

from __future__ import annotations

import os

from handrail.policy.shell import (
    agentclients,
    dynopts,
    envreads,
    escapes,
    gitimport,
    gitstash,
    globdots,
    guardenv,
    installs,
    interactive,
    localprog,
    options,
    precommit,
    pymodules,
    remote,
    selfverbs,
    sends,
    system,
    unknownfx,
    winenv,
)
from handrail.policy.shell.code import (
    INTERPRETERS,
    check_assigns,
    check_code,
    check_disk,
    check_sql,
)
from handrail.policy.shell.common import (
    ALWAYS_ON,
    DISK_TOOLS,
    RULES,
    SOURCE,
    Ctx,
    operands,
)
from handrail.policy.shell.deletes import check_find, check_rm, check_rsync
from handrail.policy.shell.effects import of_part
from handrail.policy.shell.gitbypass import check_uninstall
from handrail.policy.shell.gitrules import check_git
from handrail.policy.shell.secrets import check_secret_reads
from handrail.policy.shell.targets import WRITERS, check_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from handrail.policy.shell.parts import Part

    Finding = tuple[int, str, str]


# --------------------------------------------------------------------------- dispatch

_BY_NAME: dict[str, list[tuple[str, Callable[[Part, list[str], Ctx], list[Finding]]]]] = {}


def _register(names: frozenset[str] | tuple[str, ...], rule: str,
              fn: Callable[[Part, list[str], Ctx], list[Finding]]) -> None:
    for n in names:
        _BY_NAME.setdefault(n, []).append((rule, fn))


_register(("rm", "rimraf"), "rm-recursive", check_rm)
_register(("find",), "find-delete", check_find)
_register(("git",), "", check_git)
_register(INTERPRETERS, "", check_code)
_register(("psql", "mysql", "mariadb", "sqlite3", "clickhouse-client", "duckdb", "mongosh", "mongo", "cockroach",
           "redis-cli"), "sql-destroy", check_sql)
_register(tuple(DISK_TOOLS) + ("diskutil",), "disk-write", check_disk)


def _plain(fn: Callable[[Part, Ctx], list[Finding]]) -> Callable[[Part, list[str], Ctx], list[Finding]]:
    return lambda part, _toks, ctx: fn(part, ctx)


_register(("env", "printenv", "set", "export", "declare", "typeset", "compgen", "jq", "gojq", "jaq", "yq", "ps", "gh"),
          "env-dump",
          _plain(system.check_env_dump))
_register(("systemctl", "service", "journalctl", *system._KERNEL), "system", _plain(system.check_services))
_register(("kill", "killall", "pkill", "killall5"), "system", _plain(system.check_kill))
_register(("crontab", *system._SCHEDULERS), "schedule", _plain(system.check_schedule))
_register(("history",), "history", _plain(system.check_history))
_register(("rd", "rmdir", "del", "erase", *system._PS_DESTROY, *system._PS_DELETE, *system._PS_EXEC), "windows",
          _plain(system.check_windows))
_register((*system.POWERSHELL, *system.CMD), "dynamic", _plain(system.check_powershell))
_register(("curl", "wget", "http", "https", "xh", "xhs"), "network-send", _plain(remote.check_http))
_register(("gh",), "network-send", _plain(remote.check_gh))
_register(("nc", "ncat", "netcat", "socat", "telnet", "sftp", "ftp", "tftp", "lftp", "ssh"), "network-send",
          _plain(remote.check_socket))
_register((*sends.NETWORK, *sends.FETCHERS), "network-send", _plain(sends.check_carried))
_register(tuple({k.split(" ", 1)[0] for k in options.DANGEROUS} | options.PAGERS), "option-effect",
          _plain(options.check_options))
_register(tuple(dynopts.programs()), "dynamic", _plain(dynopts.check_run_time_options))
_register(("scp", "rsync", "sftp"), "network-send", _plain(remote.check_copy_out))
_register(("rsync",), "rm-recursive", _plain(check_rsync))
_register((*remote._DB_RESETS, "python", "php", "npx", "bin/rails", "node", "bunx", "pnpm", "yarn"), "db-reset",
          _plain(remote.check_db_reset))
_register(("docker", "podman", "nerdctl"), "system", _plain(remote.check_container))
_register(("python", "php"), "network-send", _plain(remote.check_serve))
_register(("ansible", "ansible-playbook"), "system", _plain(remote.check_ansible))
_register(("tmux", "screen"), "dynamic", _plain(remote.check_multiplexer))
_register(("git",), "dynamic", _plain(escapes.check_git_transport))
_register(("git",), "network-send", _plain(remote.check_git_url))
_register(("git",), "secret-read", _plain(gitstash.check_stash))
_register(("git",), gitimport.RULE, _plain(gitimport.check_import))
_register(INTERPRETERS, "env-dump", _plain(envreads.check_env_reads))
_register(("sqlite3",), "dynamic", _plain(escapes.check_sqlite))
_register(("hash",), "dynamic", _plain(escapes.check_hash))
_register(("make", "gmake"), "dynamic", _plain(escapes.check_make))
_register(("node", "bun", "deno", "perl", "ruby", "awk", "gawk", "mawk", "nawk"), "dynamic",
          _plain(escapes.check_preloads))
_register(("python",), "dynamic", _plain(pymodules.check_module))
_register(("echo", "printf", "write-output", "write-host", "write", *sends.NETWORK, "git", "pip", "npm", "pnpm", "yarn",
           "uv"), "env-dump",
          _plain(escapes.check_secret_vars))
_register(tuple(escapes._SETTERS), "agent-markers", _plain(escapes.check_marker_setters))
_register(("handrail",), selfverbs.RULE, _plain(selfverbs.check_handrail))
_register(("pre-commit",), precommit.RULE, _plain(precommit.check_framework))
_register(("pip", "pip3", "pipx", "uv", "python", "python3"), "",
          lambda part, _toks, ctx: check_uninstall(part.name, [w.text for w in part.words[1:]]))
_register(interactive.PROGRAMS, "dynamic", _plain(interactive.check_interactive))
_register(tuple(installs.PROGRAMS), installs.RULE, _plain(installs.check_install))
_register(agentclients.PROGRAMS, "agent-client", _plain(agentclients.check_agent_client))


def findings(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    """Every shipped rule's findings about one part."""
    out: list[Finding] = []
    for rule, why in part.flags:
        if rule in ALWAYS_ON or ctx.enabled(rule):
            out.append((3, rule, why))
    name = part.name
    if ctx.enabled("privilege"):
        out += system.check_privilege(part, ctx)
    if part.assigns or name in ("unset", "export", "declare", "typeset", "readonly", "local"):
        # one scan finds agent-markers, code-env and history findings: each is switched by its own name
        out += [f for f in system.check_markers(part, ctx) if ctx.enabled(f[1])]
    if part.assigns or part.git_paths or name in ("export", "declare", "typeset", "readonly", "local"):
        out += guardenv.check_guard_env(part, ctx)
    if winenv.is_candidate(part):
        out += winenv.check_windows_env(part, ctx)
    if part.assigns or name in system.SUBSCRIPT_EVAL:
        out += system.check_subscripts(part, ctx)
    for rule, fn in _BY_NAME.get(name, ()):
        if not rule or ctx.enabled(rule):
            out += fn(part, toks, ctx)
    if name.startswith("mkfs") and ctx.enabled("disk-write"):
        out += check_disk(part, toks, ctx)
    if part.redirs or name in WRITERS:
        eff = of_part(part)
        out += check_paths(part, eff.writes, eff.removes, ctx)
    out += unknownfx.check_unknown_words(part, ctx)
    out += [f for f in localprog.check_local_program(part, ctx) if f[1] in ALWAYS_ON or ctx.enabled(f[1])]
    if (part.words or part.redirs) and ctx.enabled("secret-read"):
        out += check_secret_reads(part, ctx)
    if (part.assigns or name in globdots.SETTERS) and ctx.enabled("secret-read"):
        out += globdots.check_glob_dots(part)
    if (part.assigns or name in ("export", "declare", "typeset", "local", "readonly")) and \
            ctx.enabled("git-safety-net"):
        out += check_assigns(part, ctx)
    return out


def home_dir() -> str:
    return os.path.expanduser("~").rstrip("/") or "/"


# The pre-tool hooks judge each written path as an edit (writes.py) from the same effects
# (effects.py) as the rules above.
__all__ = ["ALWAYS_ON", "RULES", "SOURCE", "Ctx", "findings", "home_dir", "operands"]
