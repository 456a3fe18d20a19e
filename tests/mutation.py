"""Mutants of the shell classifier's data tables: one row taken out of one table, in this process,
and the commands that might notice judged again.

A table is a module global of handrail.policy.shell (a dict, set, frozenset, tuple or list). Taking
a row out rebinds every module global that holds the very same object (a frozenset imported by
name into five modules is one table), or, for a mutable table, edits it in place so that tables
built around it (`"os": ("", "unknown", _OS_RULES)`) see the change too. rules.py registers its
rule functions under program names read from tables at import time: a table it names is followed
by a reload of rules.py, so the registration is rebuilt from the mutant. Lazily filled caches (a
module-level dict or list that is empty at import) are emptied around every mutant."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any, NamedTuple

import handrail.policy.shell as shell_package
from handrail.policy.shell import engine, rules

Table = dict[Any, Any] | frozenset[Any] | set[Any] | tuple[Any, ...] | list[Any]
Judge = Callable[[str], str]


class Spec(NamedTuple):
    """One table: `module.attr`; `nested`: its rows are (key, inner key) of a dict of dicts;
    `context`: words a command exercising a row names when the row itself names none."""

    module: str
    attr: str
    nested: bool = False
    context: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.module}.{self.attr}"


def modules() -> list[ModuleType]:
    """Every module of the shell package, imported."""
    names = [f"{shell_package.__name__}.{m.name}" for m in pkgutil.iter_modules(shell_package.__path__)]
    return [importlib.import_module(n) for n in sorted(names)]


def table(spec: Spec) -> Table:
    value: Table = getattr(sys.modules[f"{shell_package.__name__}.{spec.module}"], spec.attr)
    return value


def rows(spec: Spec) -> list[Hashable]:
    """The table's rows in a stable order: keys of a dict, members of a set, items of a sequence,
    (key, inner key) pairs of a nested dict."""
    t = table(spec)
    if spec.nested:
        assert isinstance(t, dict)
        return [(k, inner) for k, v in t.items() for inner in v]
    if isinstance(t, dict):
        return list(t)
    if isinstance(t, frozenset | set):
        return sorted(t, key=repr)
    return list(dict.fromkeys(t))


def _strings(row: Hashable) -> Iterator[str]:
    if isinstance(row, str):
        yield row
    elif isinstance(row, tuple):
        for item in row:
            yield from _strings(item)


def needles(spec: Spec, row: Hashable) -> tuple[str, ...]:
    """What a command exercising the row would contain: the row's words of two letters or more
    (lower case), or the table's context; () when neither says: then every command is judged."""
    found = [w.lower() for s in _strings(row) for w in re.findall(r"[A-Za-z0-9_]{2,}", s)]
    # a word of two letters (`os`, `ip`) is inside too many others to narrow anything by itself
    words = [w for w in found if len(w) > 2] or found
    if spec.nested or not words:
        return tuple(c.lower() for c in spec.context) + tuple(words)
    return tuple(words)


_EMPTY_AT_IMPORT = """
import importlib, pkgutil, sys
import handrail.policy.shell as p
for m in sorted(pkgutil.iter_modules(p.__path__), key=lambda m: m.name):
    mod = importlib.import_module(p.__name__ + "." + m.name)
    for k, v in vars(mod).items():
        if k.startswith("_") and isinstance(v, (dict, list)) and not v:
            print(m.name, k)
"""


class Caches:
    """The module-level dicts and lists that are empty right after import (read in a fresh
    interpreter, since this one has used them): filled on first use (compiled patterns, walked
    folders, program names), so they are emptied whenever a table changes."""

    def __init__(self) -> None:
        out = subprocess.run([sys.executable, "-c", _EMPTY_AT_IMPORT], check=True, text=True,
                             capture_output=True, timeout=60).stdout
        self.names = [tuple(line.split()) for line in out.splitlines()]
        modules()
        assert self.names, "no lazily filled cache found in the shell package"

    def clear(self, eng: engine.Engine) -> None:
        for module, attr in self.names:
            getattr(sys.modules[f"{shell_package.__name__}.{module}"], attr).clear()
        eng.memo.clear()


_RULES_SOURCE: list[str] = []


def _registered(spec: Spec) -> bool:
    """Whether rules.py reads the table while registering its rule functions."""
    if not _RULES_SOURCE:
        _RULES_SOURCE.append(inspect.getsource(rules))
    return re.search(rf"\b{re.escape(spec.attr)}\b", _RULES_SOURCE[0]) is not None


def _without(t: Table, spec: Spec, row: Hashable) -> Table:
    if spec.nested:
        assert isinstance(t, dict) and isinstance(row, tuple)
        key, inner = row[0], row[1]
        return {k: ({i: x for i, x in v.items() if i != inner} if k == key else v) for k, v in t.items()}
    if isinstance(t, dict):
        return {k: v for k, v in t.items() if k != row}
    if isinstance(t, frozenset | set):
        return type(t)(x for x in t if x != row)
    return type(t)(x for x in t if x != row)


def _replace(t: Table, new: Table) -> None:
    """Put `new`'s contents into the mutable table `t`, keeping its identity."""
    if isinstance(t, dict):
        assert isinstance(new, dict)
        t.clear()
        t.update(new)
    elif isinstance(t, set):
        t.clear()
        t.update(new)
    else:
        assert isinstance(t, list)
        t[:] = list(new)


@contextmanager
def removed(spec: Spec, row: Hashable, caches: Caches, eng: engine.Engine) -> Iterator[None]:
    """The classifier with `row` taken out of the table, for the length of the block."""
    t = table(spec)
    new = _without(t, spec, row)
    holders: list[ModuleType] = []
    saved: Table | None = None
    if isinstance(t, dict | set | list):
        saved = type(t)(t) if not isinstance(t, dict) else dict(t)
        _replace(t, new)
    else:
        holders = [m for m in modules() if any(v is t for v in vars(m).values())]
        for m in holders:
            for k, v in list(vars(m).items()):
                if v is t:
                    setattr(m, k, new)
    registered = _registered(spec)
    try:
        if registered:
            importlib.reload(rules)
        caches.clear(eng)
        yield
    finally:
        if saved is not None:
            _replace(t, saved)
        for m in holders:
            for k, v in list(vars(m).items()):
                if v is new:
                    setattr(m, k, t)
        if registered:
            importlib.reload(rules)
        caches.clear(eng)


def verdict(judge: Judge, command: str) -> str:
    """The judge's verdict, or `error: …` when a mutant makes the classifier fail: a row whose removal
    breaks the classifier is a row it uses."""
    try:
        return judge(command)
    except Exception as e:  # noqa: BLE001 - any failure of a mutant is an answer that differs
        return f"error: {type(e).__name__}"


def uncovered(specs: list[Spec], commands: list[str], judge: Judge,
              eng: engine.Engine) -> dict[str, list[Hashable]]:
    """Per table, the rows whose removal changes the verdict on none of `commands`. A mutant
    judges again only the commands that contain one of the row's needles."""
    caches = Caches()
    caches.clear(eng)
    base = {c: verdict(judge, c) for c in commands}
    lowered = [(c, c.lower()) for c in commands]
    holding: dict[str, set[str]] = {}  # needle -> the commands that contain it
    out: dict[str, list[Hashable]] = {}
    for spec in specs:
        for row in rows(spec):
            keys = needles(spec, row)
            for k in keys:
                if k not in holding:
                    holding[k] = {c for c, low in lowered if k in low}
            chosen = set().union(*(holding[k] for k in keys)) if keys else set(commands)
            pool = [c for c in commands if c in chosen]
            with removed(spec, row, caches, eng):
                hit = any(verdict(judge, c) != base[c] for c in pool)
            if not hit:
                out.setdefault(spec.name, []).append(row)
    return out
