"""`python -m MODULE`: the module is a program, and some of them run code handrail never reads.

A REPL (`asyncio`, `code`) runs its standard input; a debugger, a profiler or a tracer (`pdb`,
`cProfile`, `profile`, `trace`, `runpy`, `timeit`, `doctest`) runs the script, module or code
string it is given; `pickle` unpickles a file, which calls whatever its `__reduce__` names;
`sqlite3` is a database shell; `webbrowser` starts a program. A test runner runs the tests of
the folder it is pointed at: inside the project those are the project's tests, anywhere else
they are code the agent may have put there (`unittest discover -s /tmp/x`, `pytest /tmp/x`).
Any other module is judged by the policy's patterns, as any other program is.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx, Finding
    from handrail.policy.shell.parts import Part
    from handrail.policy.shell.syntax import Word

_RULE = "dynamic"
RUNS_CODE = frozenset({"asyncio", "code", "pdb", "runpy", "timeit", "cProfile", "profile", "trace", "doctest",
                       "idlelib", "idlelib.idle", "pickle", "sqlite3", "webbrowser", "antigravity", "pstats",
                       "turtledemo"})
_TEST_RUNNERS = frozenset({"unittest", "pytest"})
# test runner options whose value is a folder or file whose code runs (`-s DIR`, `--rootdir DIR`)
_FOLDER_OPTS = frozenset({"-s", "--start-directory", "-t", "--top-level-directory", "--rootdir", "-c",
                          "--confcutdir"})


def module_run(words: list[Word]) -> tuple[str, int] | None:
    """(module, index of its first argument) of `python [options] -m MODULE`, `-mMODULE`, `-Im MODULE`;
    None when python runs a script, code or nothing."""
    i, n = 1, len(words)
    while i < n:
        t = words[i].text
        if t == "--" or not t.startswith("-") or t == "-":
            return None
        if t.startswith("--"):  # `--check-hash-based-pycs always` takes a value; `--version` ends the run
            i += 2 if t == "--check-hash-based-pycs" else 1
            continue
        at = next((j for j, ch in enumerate(t) if ch in "cmWX"), None)
        if at is None:
            i += 1
            continue
        if t[at] == "c":
            return None
        if t[at] == "m":
            if at + 1 < len(t):
                return t[at + 1 :], i + 1
            return (words[i + 1].text, i + 2) if i + 1 < n else None
        i += 1 if at + 1 < len(t) else 2
    return None


def check_module(part: Part, ctx: Ctx) -> list[Finding]:
    run = module_run(part.words)
    if run is None:
        return []
    module, at = run
    if part.words[at - 1].dyn:
        return [(3, _RULE, "python -m runs a module named only at run time")]
    if module in RUNS_CODE:
        return [(3, _RULE, f"python -m {module} runs code or a file handrail does not read")]
    if module in _TEST_RUNNERS:
        outside = _outside(part, part.words[at:], ctx)
        if outside is not None:
            return [(3, _RULE, f"python -m {module} runs the tests of {outside}, outside the project: code "
                               "handrail does not read")]
    return []


def _outside(part: Part, args: list[Word], ctx: Ctx) -> str | None:
    """The first folder or file a test runner is given that is not in the project (or is only known
    at run time); None when all of them are in it."""
    from handrail.policy.shell.common import in_project
    from handrail.policy.shell.parts import resolve

    for k, w in enumerate(args):
        t = w.text
        named = t in _FOLDER_OPTS and k + 1 < len(args)
        value = args[k + 1] if named else w
        if named or (not t.startswith("-") and not _dotted(t) and (k == 0 or args[k - 1].text not in _FOLDER_OPTS)):
            if value.dyn:
                return value.raw
            path = resolve(value, part.cwd, ctx.home)
            if path is None or not in_project(path, ctx):
                return value.raw
        elif t.startswith(("--rootdir=", "--start-directory=", "--top-level-directory=", "--confcutdir=")):
            path = resolve(_word(t.split("=", 1)[1]), part.cwd, ctx.home)
            if w.dyn or path is None or not in_project(path, ctx):
                return t
    return None


def _dotted(text: str) -> bool:
    """`tests.test_app`, `discover`, `test_app.TestX.test_y`: a name to import, not a path."""
    return "/" not in text and not text.endswith(".py") and text not in (".", "..")


def _word(text: str) -> Word:
    from handrail.policy.shell.parts import word

    return word(text)


# `python -m json.tool [options] [infile [outfile]]` (and 3.14's `python -m json`): it reads the
# first operand and writes the second; `-` is standard input or output. Its own options, which
# argparse also takes abbreviated (`--sort`) or as `--indent=4`; any other word leaves it unknown.
_JSON_MODULES = frozenset({"json.tool", "json"})
_JSON_FLAGS = ("--sort-keys", "--no-ensure-ascii", "--json-lines", "--tab", "--no-indent", "--compact", "--help")
_JSON_VALUED = ("--indent",)


def json_tool(part: Part) -> tuple[list[Word], list[Word]] | None:
    """(files read, files written) by `python -m json.tool`; None for any other python command, or
    one with an option json.tool does not have."""
    run = module_run(part.words) if part.name == "python" else None
    if run is None or run[0] not in _JSON_MODULES or part.words[run[1] - 1].dyn:
        return None
    words, ops, i = part.words, [], run[1]
    while i < len(words):
        t = words[i].text
        i += 1
        if t == "--":
            ops += words[i:]
            break
        if t == "-" or not t.startswith("-"):
            ops.append(words[i - 1])
            continue
        name = t.split("=", 1)[0]
        known = [o for o in _JSON_FLAGS + _JSON_VALUED if o.startswith(name)] if name.startswith("--") else []
        if t != "-h" and len(known) != 1:
            return None
        i += 1 if known and known[0] in _JSON_VALUED and "=" not in t else 0
    if len(ops) > 2:
        return None
    return [w for w in ops[:1] if w.text != "-"], [w for w in ops[1:] if w.text != "-"]


def written(part: Part) -> list[Word]:
    """The file `python -m json.tool IN OUT` writes (the effect table's writes: targets.py)."""
    tool = json_tool(part)
    return tool[1] if tool is not None else []
