"""When Python code that only computes and prints still runs a file nobody read.

Python puts a folder first on `sys.path`: the working folder for `-c`, `-m` and standard
input, the script's own folder for a script. A `json.py` there turns `import json` into
that file; a `re.py` turns it into that file too, since the real `json` imports `re`. So
code read whole is pure only when no module it can reach is shadowed there, and when no
variable on the line moves the search path or runs code at start-up.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part

# Variables that add folders to the search, run a file at start-up, or import a module by name.
PATH_VARS = frozenset({"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONSAFEPATH", "PYTHONUSERBASE",
                       "PYTHONPLATLIBDIR", "PYTHONINSPECT", "PYTHONBREAKPOINT", "PYTHONWARNINGS", "PYTHONEXECUTABLE"})
_SUFFIXES = (".py", ".pyc", ".pyw", ".so", ".pyd")
SCAN_LIMIT = 5000  # a folder with more entries than this is not looked through: not pure


def imported_roots(code: str) -> set[str]:
    """The top-level names `import` statements of the code name (`import a.b` -> `a`)."""
    import ast

    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return set()
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".", 1)[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module.split(".", 1)[0])
    return out


def _modules_in(folder: str) -> set[str] | None:
    """The module names a folder provides (`x.py`, `x.cpython-312-x86_64-linux-gnu.so`, `x/__init__.py`);
    None when it cannot be listed or is too large to list."""
    names: set[str] = set()
    try:
        with os.scandir(folder) as it:
            for n, entry in enumerate(it):
                if n >= SCAN_LIMIT:
                    return None
                name = entry.name
                if name.endswith(_SUFFIXES):
                    names.add(name.split(".", 1)[0])
                elif entry.is_dir() and (os.path.exists(os.path.join(entry.path, "__init__.py")) or
                                         os.path.exists(os.path.join(entry.path, "__init__.pyc"))):
                    names.add(name)
    except FileNotFoundError:
        return names  # no folder, nothing in it to stand in (and nothing runs there)
    except (OSError, ValueError):
        return None
    return names


def script_path(part: Part, home: str) -> str | None:
    """The script a `python FILE` runs, resolved; None for `-c`, `-m` and standard input."""
    from handrail.policy.shell.interp import script_operand
    from handrail.policy.shell.parts import resolve

    # the one reading of python's command line: `-W ignore x.py` runs x.py, not `ignore`
    first, _ = script_operand("python", part.words)
    return None if first is None or first.text == "-" else resolve(first, part.cwd, home) or ""


def impurity(part: Part, codes: list[str], script: str | None) -> str | None:
    """Why code that only computes and prints may still run other code; None when it cannot.
    `script` is the file run (its folder is searched first), "" when only known at run time."""
    moved = next((name for name, _ in part.assigns if name in PATH_VARS), None)
    if moved is not None:
        return f"{moved} on the command line changes which modules {part.name} loads"
    folders = [part.cwd if script is None else os.path.dirname(script)]
    reach = set(getattr(sys, "stdlib_module_names", ()))
    for code in codes:
        reach |= imported_roots(code)
    for folder in folders:
        if not folder:
            return f"{part.name} runs in a folder only known at run time, whose files may stand in for modules"
        local = _modules_in(folder)
        if local is None:
            return f"{part.name} searches {folder} first for modules, which handrail could not list"
        hit = sorted(local & reach)
        if hit:
            shown = folder if script is not None else "the working folder"
            return f"{hit[0]} in {shown} stands in for the module of that name: its code runs, unread"
    return None
