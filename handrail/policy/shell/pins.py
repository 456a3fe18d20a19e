"""Is a package a runner fetches one the project pins? `npx tsc`, `pnpm dlx prettier`, `uvx ruff`
run the project's own copy, or one named in its manifest, only then; any other name is code
fetched from a registry that nobody in the project has read.

Node: a `node_modules/.bin/<name>` in the folder or one above it (what npx runs first), or the
name among a package.json's dependencies. Python: the name as a requirement in pyproject.toml,
a requirements file, or uv.lock / poetry.lock / pdm.lock, in the folder or one above it.
"""

from __future__ import annotations

import json
import os
import re

_NODE_DEPS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")
_PY_FILES = ("pyproject.toml", "requirements.txt", "requirements-dev.txt", "dev-requirements.txt", "uv.lock",
             "poetry.lock", "pdm.lock", "Pipfile", "Pipfile.lock")
_MAX_READ = 1 << 20


def _folders(start: str) -> list[str]:
    out = []
    path = os.path.normpath(start)
    while True:
        out.append(path)
        up = os.path.dirname(path)
        if up == path or len(out) > 40:
            return out
        path = up


def _read(path: str) -> str | None:
    from handrail.policy.shell.codefile import read_code_text

    text = read_code_text(path, _MAX_READ)
    return None if text is None else text[:_MAX_READ]


def node_pinned(name: str, start: str | None) -> bool:
    if start is None or not name:
        return False
    for folder in _folders(start):
        if os.path.exists(os.path.join(folder, "node_modules", ".bin", name)):
            return True
        text = _read(os.path.join(folder, "package.json"))
        if text is None:
            continue
        try:
            manifest = json.loads(text)
        except ValueError:
            continue
        if isinstance(manifest, dict) and any(isinstance(manifest.get(k), dict) and name in manifest[k]
                                              for k in _NODE_DEPS):
            return True
    return False


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def python_pinned(name: str, start: str | None) -> bool:
    if start is None or not name:
        return False
    spelled = r"[-_.]+".join(re.escape(p) for p in re.split(r"[-_.]+", _normal(name)))
    # `"ruff>=0.5"`, `ruff==0.5` at a line's start, `name = "ruff"` in a lock, `ruff = "*"` in a Pipfile
    rx = re.compile(rf"""(?im)(?:["']|^\s*|name\s*=\s*["']){spelled}\s*(?:[<>=!~;\[@ "']|$)""")
    for folder in _folders(start):
        for f in _PY_FILES:
            text = _read(os.path.join(folder, f))
            if text is not None and rx.search(text):
                return True
    return False
