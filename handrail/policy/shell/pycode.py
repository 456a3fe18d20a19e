"""The Python reader: every reference to something that reads, writes, runs or sends.

`ast` is imported when code is read, not with the module: most commands hold no Python.
"""

from __future__ import annotations

from handrail.policy.shell.codefx import (
    EFFECTS,
    MAX_CODE,
    MAX_NODES,
    CodeEffects,
    _unknown,
)
from handrail.policy.shell.pytables import (
    _ANY_METHODS,
    _FRAME_ATTRS,
    _MODULES,
    _NOLIT,
    _PATH_METHODS,
    _READ_FLAGS,
    _SAFE_DUNDERS,
    _dangerous_module,
    _known_module,
    _ref_effects,
    _rule,
)
from handrail.policy.shell.pyvalues import _Values

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ast

_MAX_EXEC_DEPTH = 3


def python_effects(code: str) -> CodeEffects:
    """What this Python source would do if run; never raises."""
    try:
        return _python(code, 0, None)
    except Exception:  # noqa: BLE001 - a bug here must not let code through
        return _unknown("python code that handrail could not analyse")


def _python(code: str, depth: int, outer: _Values | None) -> CodeEffects:
    if len(code) > MAX_CODE:
        return _unknown("python code longer than 64 KiB")
    import ast
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return _unknown("python code that does not parse")
    return _Py(depth, outer).run(tree)


# the node types each pass looks at; the others only hold them
_SCOPES = frozenset({"FunctionDef", "AsyncFunctionDef", "Lambda"})
_BINDING_NODES = frozenset({"Import", "ImportFrom", "Assign", "AnnAssign", "NamedExpr", "With", "AsyncWith",
                            "FunctionDef", "AsyncFunctionDef", "ClassDef", "arg", "ExceptHandler", "MatchAs",
                            "MatchStar", "MatchMapping", "Name"})
_CHECKED_NODES = frozenset({"Import", "ImportFrom", "Call", "Attribute", "Name"})


class _Py(_Values):
    """One analysis: bindings first (flow-insensitive), then every node checked."""

    # ---- the two passes

    def run(self, tree: ast.AST) -> CodeEffects:
        import ast
        nodes: list[ast.AST] = []
        stack: list[tuple[ast.AST, bool]] = [(tree, False)]
        parent = self.parent
        while stack:
            node, in_class = stack.pop()
            nodes.append(node)
            if len(nodes) > MAX_NODES:
                return _unknown("python code with more than 20,000 syntax nodes")
            kind = type(node).__name__
            inner = True if kind == "ClassDef" else False if kind in _SCOPES else in_class
            for child in ast.iter_child_nodes(node):
                parent[id(child)] = node
                stack.append((child, inner))
            if kind in _BINDING_NODES:
                self.bind(node, in_class)
        for node in nodes:
            if type(node).__name__ in _CHECKED_NODES:
                self.check(node)
        return self.result()

    # ---- pass 2: findings

    def check(self, node: ast.AST) -> None:
        import ast
        if isinstance(node, ast.Import):
            for a in node.names:
                self.imported(a.name)
        elif isinstance(node, ast.ImportFrom):
            self.import_from(node)
        elif isinstance(node, ast.Call):
            self.call(node)
        if isinstance(node, ast.Attribute):
            if self.hidden_attr(node.attr):
                self.add("dynamic", f"uses .{node.attr}")
            for kind, mod, _ in self.value(node.value):
                q = f"{mod}.{node.attr}"
                if kind == "mod" and q in _MODULES:   # reached without an import we saw
                    for eff in _MODULES[q][0].split():
                        self.add(eff, f"uses {q}")
            if not isinstance(node.ctx, ast.Load):
                if any(v[0] in ("mod", "sym") for v in self.value(node.value)):
                    self.add("dynamic", f"changes .{node.attr} of a module")
                return
            self.ref(node)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            self.ref(node)

    @staticmethod
    def hidden_attr(attr: str) -> bool:
        return (attr.startswith("__") and attr.endswith("__") and attr not in _SAFE_DUNDERS) or \
            attr in _FRAME_ATTRS

    def imported(self, name: str) -> None:
        parts = name.split(".")
        for cut in range(1, len(parts) + 1):
            mod = ".".join(parts[:cut])
            if not _known_module(mod):
                self.add("unknown", f"imports {mod}, which handrail does not know")
                return
            for eff in _MODULES.get(mod, ("", "", {}))[0].split():
                self.add(eff, f"imports {mod}")

    def import_from(self, node: ast.ImportFrom) -> None:
        if node.level or not node.module:
            self.add("unknown", "imports from a relative package")
            return
        self.imported(node.module)
        mod = node.module
        for a in node.names:
            q = f"{mod}.{a.name}"
            if a.name == "*":
                if mod in _MODULES:
                    _imp, default, attrs = _MODULES[mod]
                    found = set().union(*(_ref_effects(r) for r in attrs.values())) if attrs else set()
                    found |= _ref_effects(default)
                    for eff in sorted(found):
                        self.path(eff, None, f"imports everything from {mod}")
            elif _known_module(q):
                self.imported(q)

    def ref(self, node: ast.expr) -> None:
        """A name or attribute read: what does merely reaching it allow?"""
        import ast
        vals = self.value(node)
        p = self.parent.get(id(node))
        if any(v[0] == "sym" and _rule(v[1]) == "=environ" for v in vals):
            self.environ_use(node, p)
            return
        if isinstance(p, ast.Attribute) and p.value is node:
            return
        if isinstance(p, ast.Call) and p.func is node:
            return
        if id(node) in self.alias:
            return
        introspect = isinstance(p, ast.Call) and p.args[:1] == [node] and \
            any(v == ("sym", f"builtins.{n}", "") for v in self.value(p.func) for n in ("getattr", "hasattr", "dir"))
        for kind, a, b in vals:
            if kind == "sym":
                rule = _rule(a)
                if rule == "=chdir":
                    self.chdir = True
                short = a.removeprefix("builtins.")
                for eff in sorted(_ref_effects(rule)):
                    self.path(eff, None, f"refers to {short}")
            elif kind == "mod" and not introspect and _dangerous_module(a):
                self.add("dynamic", f"passes the {a} module around")
            elif kind in ("meth", "pmeth") and not (a == "file" and b in ("write", "writelines")):
                what = _ANY_METHODS.get(b) if kind == "meth" else _PATH_METHODS.get(b)
                if what and what != "read":
                    for eff in ("delete", "write") if what == "move" else ("read", "write") \
                            if what == "open" else (what,):
                        self.path(eff, None, f"refers to .{b}()")
            elif kind == "deep":
                self.add("dynamic", "uses a name bound only at run time")

    def environ_use(self, node: ast.expr, p: ast.AST | None) -> None:
        """One variable by its literal name is fine; the whole environment is "env"."""
        import ast
        if isinstance(p, ast.Attribute) and p.value is node:
            call = self.parent.get(id(p))
            if p.attr in ("update", "clear"):
                return
            if p.attr in ("get", "setdefault", "pop") and isinstance(call, ast.Call) and call.func is p and \
                    call.args and self.literal(call.args[0]) is not None:
                return
        elif isinstance(p, ast.Subscript):
            if p.value is node and self.literal(p.slice) is not None:
                return
        elif isinstance(p, ast.Compare):
            if node in p.comparators and all(isinstance(op, (ast.In, ast.NotIn)) for op in p.ops):
                return
        elif isinstance(p, ast.Delete):
            return
        self.add("env", "reads the whole environment")

    def call(self, call: ast.Call) -> None:
        import ast
        f = call.func
        if isinstance(f, ast.Lambda):
            return
        if isinstance(f, ast.Attribute) and f.attr in ("format", "format_map"):
            fmt = self.literal(f.value)
            if fmt is not None and ("__" in fmt or any(x in fmt for x in _FRAME_ATTRS)):
                self.add("dynamic", "formats a string that reaches into objects")
        for kind, a, b in self.value(f):
            if kind == "sym":
                self.apply(call, a, _rule(a))
            elif kind == "pmeth":
                self.path_method(call, None if a == _NOLIT else a, b)
            elif kind == "meth":
                self.any_method(call, b, on_file=a == "file")
            elif kind in ("opaque", "deep"):
                self.add("dynamic", "calls a function known only at run time")

    def arg_path(self, call: ast.Call, spec: str) -> str | None:
        """The literal path a rule's :N names, or None when it is known only at run time."""
        import ast
        default = "." if spec.endswith(".") else None
        spec = spec.rstrip(".")
        if not spec.isdigit():
            return None
        i = int(spec)
        args = call.args
        if any(isinstance(x, ast.Starred) for x in args[: i + 1]):
            return None
        if i < len(args):
            return self.literal(args[i])
        return default if not call.keywords else None

    def apply(self, call: ast.Call, q: str, rule: str) -> None:
        import ast
        short = q.removeprefix("builtins.")
        why = f"calls {short}"
        args = call.args
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        for tok in rule.split():
            head, _, spec = tok.partition(":")
            if head in ("read", "write", "delete"):
                if spec == "*":
                    for x in args:
                        self.path(head, self.literal(x), why)
                else:
                    self.path(head, self.arg_path(call, spec) if spec else None, why)
            elif head in EFFECTS:
                self.add(head, why)
            elif head == "=open":
                p_at, _, m_at = spec.partition(":")
                path_expr = args[int(p_at)] if p_at.isdigit() and len(args) > int(p_at) else \
                    kw.get("file", kw.get("name", kw.get("filename"))) if p_at.isdigit() else None
                mode_expr = args[int(m_at)] if len(args) > int(m_at) else kw.get("mode")
                self.open_like(path_expr, mode_expr, why, has_path=p_at.isdigit())
            elif head == "=osopen":
                flags = args[1] if len(args) > 1 else kw.get("flags")
                self.path("write" if flags is None or not self.read_only_flags(flags) else "read",
                          self.literal(args[0]) if args else None, why)
            elif head == "=exec":
                self.exec_code(args[0] if args else kw.get("source"), short)
            elif head == "=import":
                name = self.literal(args[0]) if args else None
                self.add("dynamic", "calls __import__")
                if name is not None:
                    self.imported(name)
            elif head == "=getattr":
                attr = args[1] if len(args) > 1 else None
                if not (isinstance(attr, ast.Constant) and isinstance(attr.value, str)):
                    self.add("dynamic", "uses getattr with a computed name")
                elif self.hidden_attr(attr.value):
                    self.add("dynamic", f"uses .{attr.value}")
            elif head == "=getenv":
                if not args or self.literal(args[0]) is None:
                    self.add("env", "reads environment variables chosen at run time")
            elif head == "=tempfile":
                folder = kw.get("dir")
                lit = self.literal(folder) if folder is not None else None
                self.path("write", lit, "creates a temporary file")
            elif head == "=sqlite":
                target = self.literal(args[0]) if args else None
                if target not in (":memory:", ""):
                    self.path("write", target, why)
            elif head == "=chdir":
                self.chdir = True
            elif head == "=logfile":
                if "filename" in kw:
                    self.path("write", self.literal(kw["filename"]), why)
            elif head == "=fileinput":
                self.path("read", self.literal(args[0]) if args else None, why)
                if "inplace" in kw:
                    self.path("write", None, why)

    def open_like(self, path_expr: ast.expr | None, mode_expr: ast.expr | None, why: str, *,
                  has_path: bool = True, path: str | None = None) -> None:
        import ast
        if mode_expr is None:
            modes = {"read"}
        else:
            mode = self.literal(mode_expr)
            modes = {"read", "write"} if mode is None else \
                {"write"} if any(c in mode for c in "wax+") else {"read"}
        if path is None and path_expr is not None:
            if isinstance(path_expr, ast.Constant) and path_expr.value in (0, 1, 2) and \
                    not isinstance(path_expr.value, bool):
                return   # stdin, stdout, stderr
            path = self.literal(path_expr)
        for eff in sorted(modes):
            self.path(eff, path, why)

    def read_only_flags(self, flags: ast.expr) -> bool:
        import ast
        for n in ast.walk(flags):
            if isinstance(n, ast.Attribute) and n.attr not in _READ_FLAGS and not isinstance(n.value, ast.Attribute):
                if n.attr.startswith("O_"):
                    return False
            elif isinstance(n, ast.Call) or (isinstance(n, ast.Name) and n.id not in _READ_FLAGS and n.id != "os") \
                    or (isinstance(n, ast.Constant) and n.value != 0):
                return False
        return True

    def exec_code(self, src: ast.expr | None, short: str) -> None:
        code = self.literal(src) if src is not None else None
        if code is None:
            self.add("dynamic", f"calls {short} on code built at run time")
        elif self.depth >= _MAX_EXEC_DEPTH:
            self.add("dynamic", f"calls {short} on code nested too deep")
        else:
            self.merge(_python(code, self.depth + 1, self))

    def path_method(self, call: ast.Call, lit: str | None, name: str) -> None:
        what = _PATH_METHODS.get(name)
        why = f"calls Path.{name}"
        if what == "move":
            self.path("delete", lit, why)
            self.path("write", self.literal(call.args[0]) if call.args else None, why)
        elif what == "open":
            kw = {k.arg: k.value for k in call.keywords if k.arg}
            self.open_like(None, call.args[0] if call.args else kw.get("mode"), why, path=lit)
            if lit is None:
                self.read_any = self.read_any or "read" in self.effects
        elif what == "write" and name == "link_to":
            self.path("write", self.literal(call.args[0]) if call.args else None, why)
        elif what == "write" and name in ("symlink_to", "hardlink_to") and call.args:
            self.path("write", lit, why)
            self.path("read", self.literal(call.args[0]), why)  # a link to a secret is a way to read it
        elif what:
            self.path(what, lit, why)

    def any_method(self, call: ast.Call, name: str, *, on_file: bool = False) -> None:
        what = _ANY_METHODS.get(name)
        if what is None or (on_file and name in ("write", "writelines")):
            return
        why = f"calls .{name}() on an object known only at run time"
        if what == "move":
            if len(call.args) == 1 and not call.keywords:   # str.replace takes two
                self.path("delete", None, why)
                self.path("write", self.literal(call.args[0]), why)
        elif what == "open":
            texts = [self.literal(x) for x in (*call.args, *(k.value for k in call.keywords if k.arg == "mode"))]
            writing = any(t is not None and len(t) <= 3 and any(c in t for c in "wax+") for t in texts)
            self.path("write" if writing else "read", None, why)
        elif what in ("read", "write", "delete"):
            self.path(what, None, why)
        else:
            self.add(what, why)
