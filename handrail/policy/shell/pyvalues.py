"""The Python reader's first pass: what each name is bound to, and the values it may hold."""

from __future__ import annotations

from handrail.policy.shell.codefx import CodeEffects
from handrail.policy.shell.pytables import (
    _BUILTINS,
    _MODULE_GLOBALS,
    _MODULES,
    _NOLIT,
    _PATH_RETURNING,
    _builtin,
    _known_module,
    _rule,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ast

    Value = tuple[str, str, str]

_MAX_VALUE_DEPTH = 40


class _Values:
    """What the names of one program stand for: the bindings (pass 1) and the values they
    give, and the findings gathered so far. pycode.py's `_Py` adds the checks (pass 2)."""

    def __init__(self, depth: int, outer: _Values | None) -> None:
        self.depth = depth
        self.outer = outer
        self.parent: dict[int, ast.AST] = {}
        self.binds: dict[str, list[ast.expr | Value]] = {}
        self.precise: set[int] = set()     # Name targets bound to their exact value
        self.alias: set[int] = set()       # values whose only use is to be given a name
        self.stars: list[str] = []
        self.memo: dict[str, frozenset[Value]] = {}
        self.busy: set[str] = set()
        self.effects: dict[str, None] = {}
        self.reasons: dict[str, None] = {}
        self.reads: dict[str, None] = {}
        self.writes: dict[str, None] = {}
        self.read_any = False
        self.write_any = False
        self.chdir = False

    # ---- results

    def add(self, effect: str, reason: str) -> None:
        self.effects[effect] = None
        self.reasons[reason] = None

    def path(self, effect: str, path: str | None, reason: str) -> None:
        self.add(effect, reason)
        if effect == "read":
            if path is None:
                self.read_any = True
            else:
                self.reads[path] = None
        elif path is None:
            self.write_any = True
        else:
            self.writes[path] = None

    def merge(self, other: CodeEffects) -> None:
        for e in other.effects:
            self.effects[e] = None
        for r in other.reasons:
            self.reasons[r] = None
        self.reads.update(dict.fromkeys(other.reads))
        self.writes.update(dict.fromkeys(other.writes))
        self.read_any |= "read" in other.effects and not other.reads
        self.write_any |= bool({"write", "delete"} & other.effects) and not other.writes

    def result(self) -> CodeEffects:
        if self.chdir:
            relative = [p for p in (*self.reads, *self.writes) if not p.startswith(("/", "~"))]
            if relative:
                self.reasons["changes directory, so relative paths are known only at run time"] = None
                self.read_any |= any(not p.startswith(("/", "~")) for p in self.reads)
                self.write_any |= any(not p.startswith(("/", "~")) for p in self.writes)
        return CodeEffects(frozenset(self.effects), () if self.read_any else tuple(self.reads),
                           () if self.write_any else tuple(self.writes), tuple(self.reasons))

    # ---- pass 1: bindings

    def bind_name(self, name: str, value: ast.expr | Value) -> None:
        self.binds.setdefault(name, []).append(value)

    def bind_target(self, target: ast.expr, value: ast.expr | None) -> None:
        import ast
        if isinstance(target, ast.Name):
            self.precise.add(id(target))
            self.bind_name(target.id, value if value is not None else ("opaque", "", ""))
        elif isinstance(target, (ast.Tuple, ast.List)):
            elts = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
            pair = elts is not None and len(elts) == len(target.elts) and \
                not any(isinstance(e, ast.Starred) for e in (*elts, *target.elts))
            for i, t in enumerate(target.elts):
                self.bind_target(t, elts[i] if pair and elts is not None else None)

    def bind(self, node: ast.AST, in_class: bool) -> None:
        import ast
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    self.bind_name(a.asname, ("mod", a.name, ""))
                else:
                    top = a.name.split(".")[0]
                    self.bind_name(top, ("mod", top, ""))
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if node.level or not node.module:
                    self.bind_name(a.asname or a.name, ("opaque", "", ""))
                elif a.name == "*":
                    self.stars.append(node.module)
                else:
                    q = f"{node.module}.{a.name}"
                    self.bind_name(a.asname or a.name, ("mod" if _known_module(q) else "sym", q, ""))
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                self.bind_target(t, node.value)
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and not in_class:
                self.alias.add(id(node.value))
        elif isinstance(node, ast.AnnAssign):
            self.bind_target(node.target, node.value)
        elif isinstance(node, ast.NamedExpr):
            self.bind_target(node.target, node.value)
            if not in_class:
                self.alias.add(id(node.value))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    self.bind_target(item.optional_vars, item.context_expr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.bind_name(node.name, ("func", "", ""))
        elif isinstance(node, ast.arg):
            self.bind_name(node.arg, ("opaque", "", ""))
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            self.bind_name(node.name, ("opaque", "", ""))
        elif isinstance(node, ast.MatchMapping) and node.rest:
            self.bind_name(node.rest, ("opaque", "", ""))
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and id(node) not in self.precise:
            self.bind_name(node.id, ("opaque", "", ""))   # for targets, augmented assignment, del

    # ---- values

    def name_values(self, name: str, d: int) -> frozenset[Value]:
        if name in self.memo:
            return self.memo[name]
        if name in self.busy:
            return frozenset({("opaque", "", "")})
        binds = self.binds.get(name)
        if binds is None:
            result = self.free_name(name, d)
        else:
            self.busy.add(name)
            vals: set[Value] = set()
            for b in binds:
                vals |= {b} if isinstance(b, tuple) else self.value(b, d + 1)
            self.busy.discard(name)
            result = frozenset(vals)
        self.memo[name] = result
        return result

    def free_name(self, name: str, d: int) -> frozenset[Value]:
        for mod in reversed(self.stars):
            if mod in _MODULES and (name in _MODULES[mod][2] or not _builtin(name)):
                return frozenset({("sym", f"{mod}.{name}", "")})
        if self.outer is not None:
            return self.outer.name_values(name, d)
        if _builtin(name) or name in _BUILTINS:
            return frozenset({("sym", f"builtins.{name}", "")})
        if name in _MODULE_GLOBALS:
            return frozenset({("pure", "", "")})
        # unbound: only exec'd code or a namespace trick could have bound it
        return frozenset({("deep", "", "")})

    def value(self, e: ast.AST, d: int = 0) -> frozenset[Value]:
        import ast
        if d > _MAX_VALUE_DEPTH:
            return frozenset({("deep", "", "")})
        if isinstance(e, ast.Name):
            return self.name_values(e.id, d)
        if isinstance(e, ast.Attribute):
            return frozenset(self.attr_value(v, e.attr) for v in self.value(e.value, d + 1))
        if isinstance(e, ast.Call):
            return self.call_values(e, d)
        if isinstance(e, ast.Constant):
            if isinstance(e.value, str):
                return frozenset({("str", e.value, "")})
            if isinstance(e.value, bytes):
                return frozenset({("str", e.value.decode("utf-8", "surrogateescape"), "")})
            return frozenset({("pure", "", "")})
        if isinstance(e, ast.BinOp):
            left, right = self.value(e.left, d + 1), self.value(e.right, d + 1)
            if isinstance(e.op, ast.Div) and any(v[0] == "path" for v in left):
                lit = self.single(left)
                tail = self.single(right)
                import posixpath
                return frozenset({("path", posixpath.join(lit, tail) if lit and tail else _NOLIT, "")})
            if isinstance(e.op, ast.Add):
                a, b = self.single(left), self.single(right)
                if a is not None and b is not None and all(v[0] == "str" for v in (*left, *right)):
                    return frozenset({("str", a + b, "")})
            return frozenset({("pure", "", "")}) if isinstance(e.left, (ast.Constant, ast.JoinedStr)) \
                else frozenset({("opaque", "", "")})
        if isinstance(e, ast.NamedExpr):
            return self.value(e.value, d + 1)
        if isinstance(e, ast.IfExp):
            return self.value(e.body, d + 1) | self.value(e.orelse, d + 1)
        if isinstance(e, ast.BoolOp):
            out: set[Value] = set()
            for v in e.values:
                out |= self.value(v, d + 1)
            return frozenset(out)
        if isinstance(e, ast.Lambda):
            return frozenset({("func", "", "")})
        if isinstance(e, ast.JoinedStr):
            return frozenset({("pure", "", "")})
        return frozenset({("opaque", "", "")})

    @staticmethod
    def single(vals: frozenset[Value]) -> str | None:
        """The one literal text these values have, if they have exactly one."""
        if len(vals) != 1:
            return None
        (kind, text, _), = vals
        if kind == "str" or (kind == "path" and text != _NOLIT):
            return text
        return None

    def literal(self, e: ast.AST | None, d: int = 0) -> str | None:
        return None if e is None else self.single(self.value(e, d + 1))

    def attr_value(self, v: Value, attr: str) -> Value:
        kind, a, _ = v
        if kind in ("mod", "sym"):
            q = f"{a}.{attr}"
            if kind == "mod" and _known_module(q):
                return ("mod", q, "")
            return ("sym", q, "")
        if kind == "path":
            return ("path", _NOLIT, "") if attr == "parent" else ("pmeth", a, attr)
        if kind == "file" or (kind == "meth" and a == "file"):
            return ("meth", "file", attr)   # a file object we saw opened: its writes are counted
        if kind in ("str", "pure"):
            return ("pure", "", "")
        if kind == "deep":
            return v
        return ("meth", "", attr)

    def call_values(self, call: ast.Call, d: int) -> frozenset[Value]:
        out: set[Value] = set()
        for kind, a, b in self.value(call.func, d + 1):
            if kind == "sym":
                out.add(self.sym_result(a, call, d))
            elif kind == "pmeth":
                if b in _PATH_RETURNING:
                    tail = self.literal(call.args[0], d) if b == "joinpath" and len(call.args) == 1 else None
                    import posixpath
                    keep = a if b in ("resolve", "absolute", "expanduser") else \
                        posixpath.join(a, tail) if tail and a != _NOLIT else _NOLIT
                    out.add(("path", keep, ""))
                else:
                    out.add(("file", "", "") if b == "open" else ("opaque", "", ""))
            elif kind == "meth" and b == "open":
                out.add(("file", "", ""))
            elif kind == "deep":
                out.add(("deep", "", ""))
            else:
                out.add(("opaque", "", ""))
        return frozenset(out)

    def sym_result(self, q: str, call: ast.Call, d: int) -> Value:
        rule = _rule(q)
        args = call.args
        if rule == "=path":
            if not args:
                return ("path", ".", "")
            parts = [self.literal(x, d) for x in args]
            texts = [p for p in parts if p is not None]
            import posixpath
            return ("path", posixpath.join(*texts) if len(texts) == len(parts) else _NOLIT, "")
        if rule == "=pathnew":
            return ("path", "~" if q.endswith(".home") else _NOLIT, "")
        if rule.startswith(("=open", "=file", "=tempfile")):
            return ("file", "", "")
        if rule == "=getattr" and len(args) >= 2:
            name = self.literal(args[1], d)
            if name is not None:
                vals = self.value(args[0], d + 1)
                return next(iter(self.attr_value(v, name) for v in vals)) if len(vals) == 1 else ("deep", "", "")
            return ("deep", "", "")
        if rule == "=import" and args:
            name = self.literal(args[0], d)
            return ("mod", name.split(".")[0], "") if name else ("deep", "", "")
        if q in ("os.path.join", "posixpath.join") and args:
            parts = [self.literal(x, d) for x in args]
            if all(p is not None for p in parts):
                import posixpath
                return ("str", posixpath.join(*parts), "")  # type: ignore[arg-type]
        if q in ("os.path.expanduser", "posixpath.expanduser", "builtins.str", "os.fspath") and len(args) == 1:
            lit = self.literal(args[0], d)
            if lit is not None:
                return ("str", lit, "")
        return ("opaque", "", "")
