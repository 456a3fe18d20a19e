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
    "npm": ("exec", fs("-c", "--call", "--package", "-w", "--workspace")),
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


def npx(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    first = 3 if name == "uv" else (2 if name in ("pnpm", "yarn", "bun") else 1)
    i = first
    while i < len(words):
        t = words[i].text
        if t in ("-c", "--call") and i + 1 < len(words):
            flat.shell_text(part, words[i + 1].text, words[i + 1].dyn, False, f"{name} -c", st, words)
            return None
        if t == "--":
            i += 1
            break
        if t.startswith("-") and not words[i].dyn:
            i += 2 if (t in _NPX or t == "--from") else 1
            continue
        break
    rest = words[i:]
    if not rest:
        return words
    pkg = rest[0]
    text = pkg.text
    at = text.find("@", 1)
    if at > 0:
        text = text[:at]
    text = text.rsplit("/", 1)[-1]
    new = Word(text, pkg.raw)
    new.dyn, new.wild = pkg.dyn, pkg.wild
    part.via.append(name if first == 1 else " ".join(w.text for w in words[:first]))
    return [new] + rest[1:]


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
            if module.startswith("handrail."):
                part.flags.append(("human-verbs", f"python -m {module} runs a module of handrail's own"))
            return words
        i += 2 if flags[-1:] in _PY_VALUED else 1
    return words
