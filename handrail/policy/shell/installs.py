"""Package installs whose code runs later outside the work tree, or comes from a source the
command line picks: the `package-install` rule (tier 3).

An install into the project (its virtualenv, node_modules, vendor/) is a local change that a
clean checkout undoes: the patterns leave it at tier 2. These are not:
- the code lands outside the work tree, where every later session runs it: `pip install
  --user` (a `.pth` file in user site-packages runs at every Python start), `npm -g`, `yarn
  global add`, a bare `npm link`, `cargo install`, `go install`, `gem install`, `pipx install`,
  `uv tool install`, `brew install`, `apt-get install`, `conda install`. A folder the line names
  for it (`pip --target`, `npm --prefix`, `cargo --root`, `gem --install-dir`, `conda -p`) is
  instead a write of that folder (`written`), judged by the write rules like any other;
- the code comes from a source of the line's choosing rather than the registry the project
  uses: an index or registry (`-i URL`, `--extra-index-url`, `--registry URL`, `-r URL`), a
  repository or a link (`git+https://…`, `user/repo`, `https://…/x.tgz`), or the variables
  that say so (`PIP_INDEX_URL=…`, `npm_config_registry=…`);
- the package manager's own configuration is written (`npm config set`, `pip config set`,
  `go env -w`, `conda config --add`…): it lives outside the work tree and every later install
  reads where to fetch from, and what to run, there.

Whether a bare `pip install x` lands in a virtualenv is known only at run time (an activated
one, PIP_USER or `user = true` in pip.conf): the line is judged as written, as every command
is. The hook's environment need not be the shell's, and `. .venv/bin/activate &&` changes it.
"""

from __future__ import annotations

import re

from handrail.policy.shell.argscan import file_values, fs, opt_end

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx, Finding
    from handrail.policy.shell.parts import Part
    from handrail.policy.shell.syntax import Word

RULE = "package-install"

# manager -> (its install verbs, the options naming the folder the code goes to, where it goes
# without one: "" for the active environment or the project, which the line cannot tell apart)
_HOME_BIN = "outside the work tree, with its programs on PATH"
_SYSTEM = "the system"
INSTALLS: dict[str, tuple[frozenset[str], tuple[str, ...], str]] = {
    "pip": (fs("install"), ("-t", "--target", "--prefix", "--root"), ""),
    "uv pip": (fs("install", "sync"), ("-t", "--target", "--prefix"), ""),
    "uv": (fs("add", "sync", "lock"), (), ""),
    "poetry": (fs("add", "install"), (), ""),
    "pdm": (fs("add", "install"), (), ""),
    "npm": (fs("install", "ci", "update", "uninstall", "link"), ("--prefix",), ""),
    "pnpm": (fs("add", "install", "update", "remove", "link"), (), ""),
    "yarn": (fs("add", "install", "upgrade", "remove", "link"), (), ""),
    "bun": (fs("add", "install", "update", "remove", "link"), (), ""),
    "uv tool": (fs("install", "upgrade"), (), f"uv's tool folder, {_HOME_BIN}"),
    "pipx": (fs("install", "inject", "upgrade", "upgrade-all", "reinstall", "reinstall-all", "install-all"), (),
             f"pipx's environments, {_HOME_BIN}"),
    "cargo": (fs("install"), ("--root",), f"~/.cargo/bin, {_HOME_BIN}"),
    "go": (fs("install"), (), f"GOBIN (~/go/bin), {_HOME_BIN}"),
    "gem": (fs("install", "update"), ("-i", "--install-dir"), "your Ruby's gems, outside the work tree"),
    "brew": (fs("install", "reinstall", "upgrade", "tap"), (), f"Homebrew's prefix, {_HOME_BIN}"),
    "conda": (fs("install", "update"), ("-p", "--prefix"), "a conda environment outside the work tree"),
    "mamba": (fs("install", "update"), ("-p", "--prefix"), "a conda environment outside the work tree"),
    **{m: (fs("install", "reinstall", "upgrade", "add"), (), _SYSTEM)
       for m in ("apt", "apt-get", "aptitude", "dnf", "yum", "zypper", "apk", "snap", "flatpak", "port")},
}
# Flags that send an install outside the work tree, and where to
_NODE_GLOBAL = "the global node folder, with its programs on PATH"
_SYSTEM_PYTHON = "the system's Python"
GLOBAL_FLAGS: dict[str, dict[str, str]] = {
    "pip": {"--user": "your user site-packages (~/.local), where a .pth file runs in every later Python",
            "--break-system-packages": _SYSTEM_PYTHON},
    "uv pip": {"--system": _SYSTEM_PYTHON, "--break-system-packages": _SYSTEM_PYTHON},
    "npm": {"-g": _NODE_GLOBAL, "--global": _NODE_GLOBAL, "--location=global": _NODE_GLOBAL},
    "pnpm": {"-g": _NODE_GLOBAL, "--global": _NODE_GLOBAL},
    "bun": {"-g": _NODE_GLOBAL, "--global": _NODE_GLOBAL},
}
_SIMULATE = fs("-s", "--simulate", "--dry-run", "--just-print", "--no-act", "--recon", "--download-only")
_NODE = fs("npm", "pnpm", "yarn", "bun")
# Options before the verb that take a value (`npm --prefix DIR i`, `pip --log F install`)
_BEFORE = {"npm": fs("--prefix", "-C", "-w", "--workspace", "--userconfig", "--registry", "--cache"),
           "pnpm": fs("-C", "--dir", "--filter", "-F"), "yarn": fs("--cwd"), "pip": fs("--log", "--cache-dir",
                                                                                        "--proxy", "--python"),
           "cargo": fs("-C", "--config", "-Z", "--color"), "conda": fs("-n", "--name", "-p", "--prefix")}
# Options whose value is no package source (a proxy, a workspace folder: `-w packages/a` is no repository)
_NOT_SOURCES = fs("--proxy", "-w", "--workspace", "--prefix", "-C", "--dir", "--filter", "-F", "--cwd", "--cache",
                  "--userconfig")
# pip (optparse) and npm (nopt) take any prefix of a long option that is no option of its own:
# `--us`, `--targ=/x`, `--glob` are the options below (`--pre` is pip's own)
ABBREVIATED = frozenset({*(("pip", o) for o in ("--user", "--target", "--prefix", "--root", "--break-system-packages")),
                         *(("npm", o) for o in ("--global", "--prefix", "--location"))})
_OWN = fs("--pre")
# The public registries every manager fetches from by default: named on the line, nothing changes
_OFFICIAL = ("https://pypi.org/", "https://pypi.python.org/", "https://files.pythonhosted.org/",
             "https://registry.npmjs.org", "https://registry.yarnpkg.com")
_LINKS = ("git+", "git://", "git@", "hg+", "svn+", "bzr+", "http://", "https://", "ssh://", "ftp://", "github:",
          "gitlab:", "bitbucket:", "gist:")
_SHORTHAND = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+(?:#\S*)?")  # npm's `user/repo`: a GitHub repository
# Variables that move an install or pick its source, as they may be given on the line
ENV = fs("PIP_USER", "PIP_TARGET", "PIP_PREFIX", "PIP_ROOT", "PIP_BREAK_SYSTEM_PACKAGES", "PIP_INDEX_URL",
         "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONFIG_FILE", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL",
         "UV_INDEX", "UV_DEFAULT_INDEX", "UV_FIND_LINKS", "UV_SYSTEM_PYTHON", "UV_BREAK_SYSTEM_PACKAGES",
         "NPM_CONFIG_REGISTRY", "NPM_CONFIG_GLOBAL", "NPM_CONFIG_PREFIX", "NPM_CONFIG_LOCATION",
         "NPM_CONFIG_USERCONFIG", "YARN_REGISTRY", "YARN_NPM_REGISTRY_SERVER")
_OFF = fs("", "0", "false", "no", "off")
# manager -> (verb, its actions that write the manager's configuration; empty: any action)
CONFIG: dict[str, tuple[str, frozenset[str]]] = {
    "npm": ("config", fs("set", "delete", "rm", "edit", "fix")), "pnpm": ("config", fs("set", "delete")),
    "yarn": ("config", fs("set", "unset", "delete")), "pip": ("config", fs("set", "unset", "edit")),
    "conda": ("config", fs("--add", "--append", "--prepend", "--set", "--remove", "--remove-key")),
    "gem": ("sources", fs("--add", "-a")), "go": ("env", fs("-w", "-u")), "bundle": ("config", fs("set")),
    "poetry": ("config", fs()),
}
# The programs these rules read, and those of them that take an install folder (targets.py)
PROGRAMS = frozenset({m.split()[0] for m in (*INSTALLS, *CONFIG)} | {"python", "bundler"})
FOLDERS = frozenset({m.split()[0] for m, spec in INSTALLS.items() if spec[1]} | {"python"})


def command(part: Part) -> tuple[str, str, int]:
    """(manager, verb, index of the verb's first argument); `python -m pip` and `uv pip` are pip's."""
    words, name, start = part.words, part.name, 1
    if name == "python":
        texts = [w.text for w in words[1:3]]
        if texts[:2] != ["-m", "pip"] and texts[:1] != ["-mpip"]:
            return "", "", 0
        name, start = "pip", 3 if texts[0] == "-m" else 2
    elif name == "uv" and len(words) > 1 and words[1].text in ("pip", "tool"):
        name, start = f"uv {words[1].text}", 2
    elif name == "bundler":
        name = "bundle"
    i = opt_end(words, start, _BEFORE.get(name, fs()))
    if i >= len(words) or words[i].dyn:
        return name, "", i
    from handrail.policy.shell.tokens import SUB_ALIASES

    verb = words[i].text
    return name, SUB_ALIASES.get(name, {}).get(verb, verb), i + 1


def _spelt_out(name: str, words: list[Word]) -> list[Word]:
    """The words with the abbreviations of ABBREVIATED's options written in full."""
    longs = sorted(o for m, o in ABBREVIATED if m == name)
    if not longs:
        return words
    from handrail.policy.shell.syntax import Word

    out = []
    for w in words:
        key, eq, value = w.text.partition("=")
        full = next((o for o in longs if o.startswith(key)), key) if len(key) > 3 and key.startswith("--") and \
            key not in _OWN and not w.dyn else key
        if full != key:
            w = Word(full + eq + value, w.raw)
        out.append(w)
    return out


def written(part: Part) -> list[Word]:
    """The install folder the line names (`pip install --target DIR`): a write of it."""
    name, verb, _ = command(part)
    spec = INSTALLS.get(name)
    if spec is None or verb not in spec[0] or not spec[1]:
        return []
    return file_values(_spelt_out(name, part.words), spec[1])


def check_install(part: Part, ctx: Ctx) -> list[Finding]:
    name, verb, i = command(part)
    if not verb:
        return []
    texts = [w.text for w in _spelt_out(name, part.words)]
    label = " ".join(w.text for w in part.words[:i])
    if _writes_config(name, verb, texts[i:]):
        return [(3, RULE, f"{label} writes {name}'s configuration outside the work tree: where every later "
                          "install fetches its code from, and what it runs")]
    if name == "yarn" and verb == "global" and texts[i:i + 1] and texts[i] in ("add", "remove", "upgrade"):
        return [(3, RULE, f"{label} {texts[i]} changes yarn's global packages, {_HOME_BIN}: code later "
                          "commands run")]
    spec = INSTALLS.get(name)
    if spec is None or verb not in spec[0]:
        return []
    where = _where(name, verb, spec, texts, i)
    if where:
        return [(3, RULE, f"{label} changes what is installed in {where}: code later commands run, that no "
                          "checkout of the project restores")]
    for var, assign in part.assigns:
        value = assign.text.split("=", 1)[-1]
        if var.upper() in ENV and not value.startswith(_OFFICIAL) and value.lower() not in _OFF:
            return [(3, RULE, f"{label} runs with {assign.raw}: the install goes where the variable says, or "
                              "fetches from there")]
    source = _source(name, texts, i)
    return [(3, RULE, f"{label} fetches {source}: code from neither the project nor the registry it uses")] \
        if source else []


def _writes_config(name: str, verb: str, args: list[str]) -> bool:
    config = CONFIG.get(name)
    if config is None or verb != config[0] or (name == "bundle" and "--local" in args):
        return False
    return any(t in config[1] for t in args) if config[1] else _poetry_writes(args)


def _where(name: str, verb: str, spec: tuple[frozenset[str], tuple[str, ...], str], texts: list[str],
           i: int) -> str:
    """Where outside the work tree the install puts its code, or "" (the project, or an environment)."""
    if any(t == o or t.startswith(o + "=") for t in texts[1:] for o in spec[1] if o.startswith("--")) or \
            any(t in spec[1] for t in texts[1:]):
        return ""  # the folder is named: a write of it (`written`)
    if spec[2]:
        if name in ("cargo", "gem") and "--list" in texts[i:]:
            return ""
        return "" if spec[2] == _SYSTEM and any(t in _SIMULATE for t in texts[i:]) else spec[2]
    flags = GLOBAL_FLAGS.get(name, {})
    hit = next((t for t in texts[1:] if t in flags), None)
    if hit is None and "--location global" in " ".join(texts):
        hit = "--location=global"
    if hit in flags:
        return flags[hit]
    if verb == "link" and name in ("npm", "yarn", "bun") and not [t for t in texts[i:] if not t.startswith("-")]:
        return "the global node folder, where a bare link puts this project's programs on PATH"
    return ""


def _source(name: str, texts: list[str], i: int) -> str:
    """A package source of the line's choosing, as written; "" when none."""
    skip = False
    for t in texts[i:]:
        if skip:
            skip = False
            continue
        key, eq, value = t.partition("=")
        if key in _NOT_SOURCES:
            skip = not eq
            continue
        spec = value if t.startswith("-") and eq else t
        at = spec.find("@", 1)  # `alias@git+https://…`, `name @ https://…`
        if any(s.startswith(_LINKS) and not s.startswith(_OFFICIAL) for s in (spec.lower(), spec[at + 1:].strip()
                                                                                 .lower() if at > 0 else "")):
            return spec
        if name in _NODE and not t.startswith("-") and _SHORTHAND.fullmatch(spec):
            return f"{spec}, a GitHub repository"
    return ""


def _poetry_writes(args: list[str]) -> bool:
    """`poetry config KEY VALUE` and `--unset` write; `--list` and `KEY` alone read."""
    ops = [t for t in args if not t.startswith("-")]
    return "--unset" in args or (len(ops) >= 2 and "--list" not in args)
