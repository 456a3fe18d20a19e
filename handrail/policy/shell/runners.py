"""Package runners that fetch or find a program and run it: `npx`, `bunx`, `uvx`, `pnpm dlx`,
`uv run`, `poetry run`, `bundle exec`, `conda run`, `op run`…, and `python -m handrail`.

`npx -y cowsay@1.2 hi` runs `cowsay hi`: the package's name, without scope or version, is
the program the rules judge.
"""

from __future__ import annotations

from handrail.policy.shell.argscan import fs, opt_end, sub
from handrail.policy.shell.parts import word
from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part, State, Walker

_NPX = fs("-p", "--package", "-c", "--call", "--cache", "--registry", "--userconfig")
_UV_RUN = fs("--with", "--with-requirements", "--with-editable", "--python", "-p", "--project", "--directory",
             "--package", "--env-file", "--extra", "--group", "--only-group", "--no-group", "--index",
             "--default-index", "--index-url", "--extra-index-url", "--find-links", "-f", "--config-file",
             "--cache-dir", "--python-preference", "--from", "-w", "--exclude-newer")
RUNNERS = {  # `X run CMD`: the subcommand that runs a command, and its value options
    "poetry": ("run", fs()), "pipenv": ("run", fs()), "pdm": ("run", fs()), "hatch": ("run", fs()),
    "rye": ("run", fs()), "bundle": ("exec", fs()), "bundler": ("exec", fs()),
    "conda": ("run", fs("-n", "--name", "-p", "--prefix", "--cwd")),
    "mamba": ("run", fs("-n", "--name", "-p", "--prefix", "--cwd")),
    "micromamba": ("run", fs("-n", "--name", "-p", "--prefix", "--cwd")),
    "op": ("run", fs("--env-file")), "doppler": ("run", fs("-p", "--project", "-c", "--config")),
    "dotenvx": ("run", fs("-f", "--env-file")), "pnpm": ("exec", fs()), "yarn": ("exec", fs()),
}


def runner(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`poetry run CMD`, `pnpm exec CMD` (and `pnpm dlx PKG`, `yarn dlx PKG`)."""
    if name in ("pnpm", "yarn") and sub(words) == "dlx":
        return npx(flat, part, name, words, st)
    subcommand, opts = RUNNERS[name]
    if sub(words) != subcommand:
        return words
    end = opt_end(words, 2, opts)
    if end >= len(words):
        return words
    part.via.append(f"{name} {subcommand}")
    return words[end:]


def bun(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    return npx(flat, part, name, words, st) if sub(words) == "x" else words


def uv(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`uv tool run PKG` is `uvx PKG`; `uv run CMD` runs CMD in the project's environment."""
    if sub(words) == "tool" and len(words) > 2 and words[2].text == "run":
        return npx(flat, part, name, words, st)
    if sub(words) != "run":
        return words
    end = opt_end(words, 2, _UV_RUN)
    if end >= len(words):
        return words
    part.via.append("uv run")
    return words[end:]


_PACKAGE_OPTS = ("-p", "--package", "--from", "--spec")
_PYTHON_RUNNERS = ("uvx", "uv", "pipx")


def _package(text: str) -> str:
    """`@scope/cowsay@1.2` -> `cowsay` as a program; `ruff==0.5`, `ruff[x]` -> `ruff`."""
    at = text.find("@", 1)
    if at > 0:
        text = text[:at]
    for sep in ("==", ">=", "<=", "~=", "!=", "[", "<", ">"):
        text = text.split(sep, 1)[0]
    return text


def npx(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`npx PKG`, `npm exec|x PKG`, `pnpm|yarn dlx PKG`, `bunx`, `uvx`, `pipx run`: fetch PKG and run it.
    The command run is judged; a package the project does not pin asks as well."""
    first = 3 if name == "uv" else (2 if name in ("pnpm", "yarn", "bun", "npm", "pipx") else 1)
    i = first
    pinned_as: Word | None = None
    while i < len(words):
        t = words[i].text
        if t in ("-c", "--call") and i + 1 < len(words):
            flat.shell_text(part, words[i + 1].text, words[i + 1].dyn, False, f"{name} -c", st, words)
            return None
        if t.startswith("--call="):
            flat.shell_text(part, t[7:], words[i].dyn, False, f"{name} -c", st, words)
            return None
        if t == "--":
            i += 1
            break
        if t.startswith("-") and not words[i].dyn:
            key, eq, value = t.partition("=")
            if key in _PACKAGE_OPTS:
                pinned_as = Word(value, value) if eq else (words[i + 1] if i + 1 < len(words) else None)
            i += 2 if (t in _NPX or t in _PACKAGE_OPTS) else 1
            continue
        break
    rest = words[i:]
    if not rest:
        return words
    pkg = rest[0]
    text = _package(pkg.text).rsplit("/", 1)[-1]
    new = Word(text, pkg.raw)
    new.dyn, new.wild = pkg.dyn, pkg.wild
    label = name if first == 1 else " ".join(w.text for w in words[:first])
    part.via.append(label)
    _judge_pin(part, label, pinned_as or pkg, name in _PYTHON_RUNNERS)
    return [new] + rest[1:]


def _judge_pin(part: Part, label: str, pkg: Word, python: bool) -> None:
    from handrail.policy.shell import pins

    if pkg.dyn:
        part.flags.append(("package-runner", f"{label} fetches and runs {pkg.raw}, a package only known at run time"))
        return
    spec = pkg.text
    if spec.startswith((".", "/", "~")) or ("/" in spec and not spec.startswith("@")) or spec.startswith(
            ("file:", "git+", "git:", "github:", "http:", "https:")):
        why = "a package from a path, a repository or a link"  # not what the registry or the project holds
        part.flags.append(("package-runner", f"{label} runs {spec}: {why}, code nobody has read"))
        return
    name = _package(spec)
    pinned = pins.python_pinned(name, part.cwd) if python else pins.node_pinned(name, part.cwd)
    if not pinned:
        part.flags.append(("package-runner", f"{label} fetches and runs {name}, a package the project does not pin: "
                                             "code nobody has read"))


def npm(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`npm exec` and `npm x` are npx."""
    return npx(flat, part, name, words, st) if sub(words) in ("exec", "x") else words


def pipx(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    return npx(flat, part, name, words, st) if sub(words) == "run" else words


def tool_exec(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`mise exec TOOLS -- CMD`, `asdf exec CMD`, `nix shell PKGS -c CMD`, `corepack pnpm …`: the command runs;
    `nix run PKG` fetches and runs a package."""
    s = sub(words)
    if name == "corepack":
        if s in ("npm", "npx", "pnpm", "pnpx", "yarn"):
            part.via.append("corepack")
            return words[1:]
        return words
    if name in ("mise", "rtx") and s in ("exec", "x"):
        at = next((i for i, w in enumerate(words) if w.text == "--"), -1)
        if 0 < at < len(words) - 1:
            part.via.append(f"{name} exec")
            return words[at + 1 :]
        return words
    if name == "asdf" and s == "exec" and len(words) > 2:
        part.via.append("asdf exec")
        return words[2:]
    if name == "nix" and s in ("shell", "develop"):
        at = next((i for i, w in enumerate(words) if w.text in ("-c", "--command")), -1)
        if 0 < at < len(words) - 1:
            part.via.append(f"nix {s}")
            return words[at + 1 :]
        return words
    if name == "nix" and s == "run" and len(words) > 2:
        target = next((w for w in words[2:] if not w.text.startswith("-")), words[2])
        if not target.text.startswith((".#", "./", "path:")) or target.dyn:
            part.flags.append(("package-runner", f"nix run {target.raw} fetches and runs a package the project "
                                                 "does not hold: code nobody has read"))
    return words


# python's own options that take a value, and the modules that are handrail's command line
_PY_VALUED = "WX"
_PY_HANDRAIL = frozenset({"handrail", "handrail.__main__", "handrail.main", "handrail.cli"})
_PY_SCRIPTS = ("handrail/__main__.py", "handrail/main.py", "handrail/cli.py")


def python_module(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`python -m handrail …` (`python -u -m handrail`, `-mhandrail`, `-m handrail.cli`, a path to
    `handrail/__main__.py`) is handrail itself, judged by its own rules; any other module of
    handrail run as a program is a human's call."""
    i = 1
    while i < len(words) and not words[i].dyn:
        t = words[i].text
        if t == "--" or not t.startswith("-") or t == "-":
            if t.replace("\\", "/").endswith(_PY_SCRIPTS) and t != "--":
                part.via.append("python")
                return [word("handrail")] + words[i + 1:]
            return words
        flags = t[1:]
        if t.startswith("--") or "c" in flags.split("m", 1)[0]:
            return words  # `--version`, `--help`, `-c CODE`: not a module run here
        at = flags.find("m")
        if at >= 0:
            module = flags[at + 1:] or (words[i + 1].text if i + 1 < len(words) and not words[i + 1].dyn else "")
            rest = words[i + 1:] if flags[at + 1:] else words[i + 2:]
            if module in _PY_HANDRAIL:
                part.via.append("python -m")
                return [word("handrail")] + rest
            if module == "pre_commit":  # the framework's command line, judged as `pre-commit …`
                part.via.append("python -m")
                return [word("pre-commit")] + rest
            if module.startswith("handrail."):
                part.flags.append(("human-verbs", f"python -m {module} runs a module of handrail's own"))
            return words
        i += 2 if flags[-1:] in _PY_VALUED else 1
    return words
