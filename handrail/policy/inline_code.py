"""What code handed to an interpreter (`python -c`, `node -e`, `awk '...'`) would do.

The agent writes this code, and wants it to look harmless, so the answer is built from
what the code can reach, not from what it seems to say:

- Python is parsed (`ast`) and every *reference* to something dangerous counts, called or
  not: `os.remove` passed to `map`, stored in a list, used as a decorator or a default
  argument is a delete, as `os.remove('x')` is. Calls add the literal paths. Names are
  followed through imports (`import os as o`, `from os import remove as r`, star imports),
  assignments (`f = os.remove; f(x)`) and walrus, flow-insensitively: a name is every
  value it is ever given. Every way to reach a function without naming it (`getattr` with
  a computed name, `__dict__`, `__class__`, `globals()`, `sys.modules`, `importlib`,
  `__import__`, frames) is `dynamic`, and so is a call whose callee cannot be followed
  (`x[0]()`, `f()()`, a parameter). An import of a module not in `_MODULES` is `unknown`:
  importing a module runs its code.
- The other languages get no parser: their code is pure only when a tokenizer finds
  nothing but printing of literals, arithmetic and a few named read-only values
  (`_SCRIPT_WORDS`); anything else is `unknown`. awk is read in full, being small.

Paths: `reads` and `writes` are all or nothing. They list literal paths when every read
(every write, create, move, delete) has one; as soon as one target is known only at run
time (`open(sys.argv[1])`, an f-string, a path after `os.chdir`), the tuple is empty and
the effect stands alone, which the caller takes as "target known only at run time". A
leading `~` means the home directory (as after `expanduser`). A glob pattern is reported
as written. Temporary files (`tempfile.mkstemp()`, `TemporaryDirectory()`) are a write
without a path, reason "creates a temporary file", unless `dir=` names a literal folder:
where they land is `$TMPDIR`, known only at run time.

Not seen here: what the interpreter's own options do (`-m`, `-I`, `PYTHONSTARTUP`), and
modules the current directory shadows (`python -c 'import json'` beside a `json.py`
imports that file): the caller knows the command line and the folder.
"""

from __future__ import annotations

from typing import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ast

    Value = tuple[str, str, str]

EFFECTS = frozenset({"read", "write", "delete", "exec", "network", "env", "dynamic", "unknown"})
MAX_CODE = 64 * 1024
MAX_NODES = 20_000
_MAX_EXEC_DEPTH = 3
_MAX_VALUE_DEPTH = 40


class CodeEffects(NamedTuple):
    effects: frozenset[str]   # subset of EFFECTS; empty = pure computation / printing
    reads: tuple[str, ...]    # literal paths read; empty when one read's target is unknown
    writes: tuple[str, ...]   # literal paths written, created, moved onto, deleted; likewise
    reasons: tuple[str, ...]  # one short phrase per finding: "calls os.remove"


PURE = CodeEffects(frozenset(), (), (), ())


def _unknown(reason: str) -> CodeEffects:
    return CodeEffects(frozenset({"unknown"}), (), (), (reason,))


# --------------------------------------------------------------------------- the tables
#
# A rule is a space-separated list of tokens:
#   read|write|delete[:N]   that effect; the path is positional argument N (N. = "." when
#                           absent, * = every positional argument); no :N = target unknown
#   exec|network|env|dynamic|unknown
#   =open:P:M               opens like open(): path at P (- for none), mode at M or mode=
#   =osopen =exec =import =getattr =getenv =tempfile =sqlite =chdir =logfile =fileinput
#                           calls with their own handler (see _Py._apply)
#   =path =pathnew =file =environ
#                           values: a pathlib path, Path.home()/cwd(), a file object we know
#                           about, os.environ; no effect of their own
#   ""                      pure
#
# _MODULES: module -> (effect of importing it, rule of an attribute it does not list,
# {attribute: rule}). A module absent here is "unknown" on import. The pure standard
# library modules are listed with no effect and "" as default: everything they hold only
# computes, or reads files through objects that open() already accounted for.

def _words(text: str) -> list[str]:
    return text.split()


_PURE_MODULES = _words(
    "__future__ abc array ast base64 binascii bisect calendar cmath collections collections.abc colorsys "
    "contextvars copy csv dataclasses datetime decimal difflib dis email encodings enum errno fnmatch "
    "fractions functools getopt getpass gettext graphlib hashlib heapq hmac html html.entities html.parser "
    "ipaddress itertools json json.decoder json.encoder keyword locale math mimetypes numbers opcode optparse "
    "platform pprint pwd grp queue quopri random re reprlib sched secrets select selectors shlex stat "
    "statistics string stringprep struct sysconfig textwrap this threading time token tomllib traceback "
    "typing unicodedata urllib.error urllib.parse urllib.response uuid warnings weakref zlib zoneinfo xml "
    "xml.etree xml.dom xml.parsers xml.parsers.expat importlib.metadata plistlib"
)
# email is a package of pure submodules; these prefixes cover theirs.
_PURE_PACKAGES = ("email.", "encodings.", "importlib.metadata.")

_OS_PURE = _words(
    "name sep altsep extsep pathsep linesep defpath devnull curdir pardir getcwd getcwdb getpid getppid "
    "getuid geteuid getgid getegid getgroups getlogin getpgid getpgrp getsid getpriority getresuid getresgid "
    "getgrouplist uname cpu_count process_cpu_count urandom getrandom fsencode fsdecode fspath "
    "get_terminal_size terminal_size getloadavg strerror sched_getaffinity umask isatty times get_exec_path "
    "error PathLike DirEntry stat_result statvfs_result uname_result times_result sysconf sysconf_names "
    "confstr confstr_names pathconf_names get_blocking get_inheritable device_encoding waitstatus_to_exitcode "
    "major minor makedev close closerange read readv pread preadv lseek fstat fstatvfs pipe pipe2 dup wait "
    "wait3 wait4 waitid waitpid _exit abort ctermid ttyname supports_bytes_environ supports_dir_fd "
    "supports_effective_ids supports_fd supports_follow_symlinks putenv unsetenv sched_yield set_blocking "
    "set_inheritable fsync fdatasync sync"
)
_OS_RULES: dict[str, str] = {n: "" for n in _OS_PURE}
_OS_RULES.update({
    "environ": "=environ", "environb": "=environ", "getenv": "=getenv", "getenvb": "=getenv",
    "open": "=osopen", "fdopen": "=open:0:1", "chdir": "=chdir", "fchdir": "=chdir",
    "listdir": "read:0.", "scandir": "read:0.", "walk": "read:0", "fwalk": "read:0", "stat": "read:0",
    "lstat": "read:0", "access": "read:0", "readlink": "read:0", "statvfs": "read:0", "getxattr": "read:0",
    "listxattr": "read:0", "pathconf": "read:0",
    "mkdir": "write:0", "makedirs": "write:0", "chmod": "write:0", "lchmod": "write:0", "chown": "write:0",
    "lchown": "write:0", "chflags": "write:0", "lchflags": "write:0", "utime": "write:0",
    "truncate": "write:0", "mkfifo": "write:0", "mknod": "write:0", "setxattr": "write:0",
    "removexattr": "write:0", "link": "read:0 write:1", "symlink": "write:1",
    "remove": "delete:0", "unlink": "delete:0", "rmdir": "delete:0", "removedirs": "delete:0",
    "rename": "delete:0 write:1", "renames": "delete:0 write:1", "replace": "delete:0 write:1",
    # on descriptors: the file behind them was opened elsewhere, but not always by open()
    "write": "write", "writev": "write", "pwrite": "write", "pwritev": "write", "sendfile": "write",
    "ftruncate": "write", "fchmod": "write", "fchown": "write", "copy_file_range": "write",
    "splice": "write", "posix_fallocate": "write", "memfd_create": "write", "dup2": "write",
    "lockf": "write", "posix_fadvise": "",
    "system": "exec", "popen": "exec", "fork": "exec", "forkpty": "exec", "kill": "exec", "killpg": "exec",
    "posix_spawn": "exec", "posix_spawnp": "exec", "startfile": "exec", "pidfd_open": "exec",
    "register_at_fork": "dynamic",
})
for _n in ("execl", "execle", "execlp", "execlpe", "execv", "execve", "execvp", "execvpe", "spawnl", "spawnle",
           "spawnlp", "spawnlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe"):
    _OS_RULES[_n] = "exec"

_OS_PATH = {n: "read:0" for n in ("exists", "lexists", "isfile", "isdir", "islink", "ismount", "isjunction",
                                   "getsize", "getmtime", "getatime", "getctime", "samefile", "realpath")}
_PATH_CLASSES = ("Path", "PosixPath", "WindowsPath", "PurePath", "PurePosixPath", "PureWindowsPath")
_OPEN = "=open:0:1"

_MODULES: dict[str, tuple[str, str, dict[str, str]]] = {
    **{m: ("", "", {}) for m in _PURE_MODULES},
    "os": ("", "unknown", _OS_RULES),
    "os.path": ("", "", _OS_PATH), "posixpath": ("", "", _OS_PATH), "ntpath": ("", "", _OS_PATH),
    "sys": ("", "", {"modules": "dynamic", "_getframe": "dynamic", "_current_frames": "dynamic",
                     "settrace": "dynamic", "setprofile": "dynamic", "meta_path": "dynamic",
                     "path_hooks": "dynamic", "path_importer_cache": "dynamic", "breakpointhook": "dynamic",
                     "remote_exec": "exec", "monitoring": "dynamic"}),
    "pathlib": ("", "", {n: "=path" for n in _PATH_CLASSES}),
    "io": ("", "", {"open": _OPEN, "open_code": "read:0", "FileIO": _OPEN, "StringIO": "=file",
                    "BytesIO": "=file", "TextIOWrapper": "=file", "BufferedWriter": "=file"}),
    "codecs": ("", "", {"open": _OPEN}),
    "gzip": ("", "", {"open": _OPEN, "GzipFile": _OPEN}), "bz2": ("", "", {"open": _OPEN, "BZ2File": _OPEN}),
    "lzma": ("", "", {"open": _OPEN, "LZMAFile": _OPEN}),
    "tokenize": ("", "", {"open": "read:0"}),
    "linecache": ("", "", {"getline": "read:0", "getlines": "read:0", "updatecache": "read:0"}),
    "filecmp": ("", "", {"cmp": "read:0 read:1", "cmpfiles": "read:0 read:1", "dircmp": "read:0 read:1"}),
    "fileinput": ("", "", {"input": "=fileinput", "FileInput": "=fileinput"}),
    "glob": ("", "", {"glob": "read:0", "iglob": "read:0"}),
    "configparser": ("", "", {"ConfigParser": "read", "RawConfigParser": "read", "SafeConfigParser": "read"}),
    "netrc": ("", "", {"netrc": "read"}),
    "argparse": ("", "", {"FileType": "=open:-:0"}),
    "shutil": ("", "unknown", {"rmtree": "delete:0", "move": "delete:0 write:1", "copy": "read:0 write:1",
                               "copy2": "read:0 write:1", "copyfile": "read:0 write:1",
                               "copytree": "read:0 write:1", "copymode": "read:0 write:1",
                               "copystat": "read:0 write:1", "copyfileobj": "", "chown": "write:0",
                               "make_archive": "write", "unpack_archive": "read:0 write:1",
                               "disk_usage": "read:0", "which": "", "get_terminal_size": "",
                               "ignore_patterns": "", "get_archive_formats": "",
                               "get_unpack_formats": "", "Error": "", "SameFileError": ""}),
    "tempfile": ("", "", {n: "=tempfile" for n in ("mkstemp", "mkdtemp", "NamedTemporaryFile", "TemporaryFile",
                                                    "SpooledTemporaryFile", "TemporaryDirectory")}),
    "zipfile": ("", "", {"ZipFile": _OPEN, "PyZipFile": _OPEN, "is_zipfile": "read:0"}),
    "tarfile": ("", "", {"open": _OPEN, "TarFile": _OPEN, "is_tarfile": "read:0"}),
    "sqlite3": ("", "", {"connect": "=sqlite"}),
    "dbm": ("", "", {"open": "write:0"}), "dbm.dumb": ("", "", {"open": "write:0"}),
    "shelve": ("", "", {"open": "write:0 dynamic", "Shelf": "dynamic", "DbfilenameShelf": "write:0 dynamic"}),
    "pickle": ("", "", {"load": "dynamic", "loads": "dynamic", "Unpickler": "dynamic"}),
    "marshal": ("", "", {"load": "dynamic", "loads": "dynamic"}),
    "copyreg": ("", "dynamic", {}),
    "types": ("", "", {"FunctionType": "dynamic", "CodeType": "dynamic", "LambdaType": "dynamic",
                       "ModuleType": "dynamic", "FrameType": "dynamic"}),
    "operator": ("", "", {"attrgetter": "dynamic", "methodcaller": "dynamic"}),
    "contextlib": ("", "", {"chdir": "=chdir"}),
    "logging": ("", "", {"basicConfig": "=logfile", "FileHandler": "write:0"}),
    "logging.handlers": ("", "unknown", {n: "write:0" for n in ("RotatingFileHandler", "WatchedFileHandler",
                                                                "TimedRotatingFileHandler")}),
    "logging.config": ("", "dynamic", {}),
    "xml.etree.ElementTree": ("", "", {"parse": "read:0", "iterparse": "read:0", "ElementTree": "write"}),
    "xml.etree.cElementTree": ("", "", {"parse": "read:0", "iterparse": "read:0", "ElementTree": "write"}),
    "xml.dom.minidom": ("", "", {"parse": "read:0"}),
    "xml.sax": ("", "", {"parse": "read:0"}),
    "readline": ("", "", {"write_history_file": "write:0", "append_history_file": "write:1",
                          "read_history_file": "read:0", "read_init_file": "read:0"}),
    "signal": ("", "", {"pthread_kill": "exec", "pidfd_send_signal": "exec", "raise_signal": "exec"}),
    "resource": ("", "", {"prlimit": "exec"}),
    "importlib": ("", "dynamic", {}),
    "importlib.resources": ("", "", {"read_text": "read", "read_binary": "read", "open_text": "read",
                                     "open_binary": "read", "path": "read"}),
    "pkgutil": ("", "dynamic", {"iter_modules": "", "get_data": "read"}),
    "concurrent": ("", "", {}),
    "concurrent.futures": ("", "", {"ProcessPoolExecutor": "exec", "process": "exec"}),
    "asyncio": ("", "", {"create_subprocess_exec": "exec", "create_subprocess_shell": "exec",
                         "subprocess": "exec", "open_connection": "network", "start_server": "network",
                         "open_unix_connection": "network", "start_unix_server": "network"}),
    "urllib": ("", "", {}), "http": ("", "", {}),
    # whole modules whose purpose is the effect: importing them is the finding
    **{m: ("exec", "", {}) for m in ("subprocess", "pty", "multiprocessing", "ctypes", "runpy", "site",
                                       "_posixsubprocess", "ensurepip", "venv")},
    **{m: ("dynamic", "", {}) for m in ("inspect", "gc", "code", "codeop", "timeit", "pdb", "bdb",
                                          "cProfile", "profile", "trace", "doctest", "zipimport", "imp",
                                          "importlib.util", "importlib.machinery", "importlib.abc")},
    **{m: ("network", "", {}) for m in ("socket", "ssl", "socketserver", "http.client", "http.server",
                                          "http.cookiejar", "urllib.request", "urllib.robotparser", "ftplib",
                                          "smtplib", "poplib", "imaplib", "nntplib", "telnetlib",
                                          "xmlrpc", "xmlrpc.client", "xmlrpc.server", "asynchat",
                                          "asyncore", "requests", "httpx", "urllib3", "aiohttp")},
    "webbrowser": ("network exec", "", {}),
    "mmap": ("write", "", {}),
    "compileall": ("write", "", {}), "py_compile": ("write", "", {}),
}

# builtins: names not listed are pure. `__builtins__` is not a name of the builtins module,
# so it is unbound here, and an unbound name is "dynamic" (only a namespace trick binds it).
_BUILTINS = {
    "open": _OPEN, "exec": "=exec", "eval": "=exec", "compile": "=exec", "__import__": "=import",
    "getattr": "=getattr", "setattr": "dynamic", "delattr": "dynamic", "vars": "dynamic",
    "globals": "dynamic", "locals": "dynamic", "breakpoint": "dynamic", "__build_class__": "dynamic",
    "__loader__": "dynamic", "__spec__": "dynamic", "help": "exec",
}
_MODULES["builtins"] = ("dynamic", "", _BUILTINS)
# names a module has that the builtins module does not (its __name__, __doc__ stand in for the rest)
_MODULE_GLOBALS = frozenset({"__file__", "__cached__", "__path__"})

# methods of a pathlib path: what each does to the path it is called on
_PATH_METHODS = {
    "unlink": "delete", "rmdir": "delete",
    "write_text": "write", "write_bytes": "write", "touch": "write", "mkdir": "write", "chmod": "write",
    "lchmod": "write", "symlink_to": "write", "hardlink_to": "write", "link_to": "write",
    "rename": "move", "replace": "move", "open": "open",
    "read_text": "read", "read_bytes": "read", "iterdir": "read", "glob": "read", "rglob": "read",
    "walk": "read", "exists": "read", "is_file": "read", "is_dir": "read", "is_symlink": "read",
    "is_mount": "read", "stat": "read", "lstat": "read", "owner": "read", "group": "read",
    "readlink": "read", "samefile": "read",
}
_PATH_RETURNING = frozenset({"with_name", "with_suffix", "with_stem", "joinpath", "resolve", "absolute",
                             "expanduser", "relative_to"})
# a method of these names does the thing whatever it is called on: the receiver may be a
# path or a module that reached here without a name we could follow
_ANY_METHODS = {
    **{n: "delete" for n in ("unlink", "rmdir", "rmtree")},
    **{n: "write" for n in ("write_text", "write_bytes", "touch", "mkdir", "makedirs", "chmod", "lchmod",
                            "symlink_to", "hardlink_to", "link_to", "extractall", "extract", "write",
                            "writelines")},
    **{n: "read" for n in ("read_text", "read_bytes", "iterdir", "rglob", "glob")},
    **{n: "exec" for n in ("system", "popen", "execv", "execve", "execvp", "execl", "spawnv", "posix_spawn",
                           "startfile", "check_output", "check_call", "subprocess_exec", "subprocess_shell")},
    **{n: "network" for n in ("create_connection", "create_server", "create_unix_connection", "urlopen",
                              "create_datagram_endpoint")},
    "rename": "move", "replace": "move", "open": "open",
}
# dunder attributes that only read names and protocols; every other one reaches into
# objects (__dict__, __class__, __globals__, __subclasses__, ...)
_SAFE_DUNDERS = frozenset({
    "__name__", "__qualname__", "__doc__", "__version__", "__file__", "__module__", "__all__", "__author__",
    "__init__", "__len__", "__str__", "__repr__", "__enter__", "__exit__", "__aenter__", "__aexit__",
    "__iter__", "__next__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__",
    "__bool__", "__contains__", "__getitem__", "__setitem__", "__add__", "__sub__", "__mul__",
    "__version_info__", "__annotations__", "__post_init__", "__slots__",
})
_FRAME_ATTRS = frozenset({"f_globals", "f_locals", "f_builtins", "f_back", "f_code", "gi_frame", "gi_code",
                          "cr_frame", "cr_code", "ag_frame", "ag_code", "tb_frame", "tb_next", "co_code",
                          "func_globals", "func_code", "_Printer__filenames"})
_READ_FLAGS = frozenset({"O_RDONLY", "O_CLOEXEC", "O_NOFOLLOW", "O_DIRECTORY", "O_NONBLOCK", "O_BINARY",
                         "O_NOCTTY", "O_NOATIME", "O_PATH", "O_NDELAY", "O_LARGEFILE", "O_TEXT"})
_NOLIT = "\x00"   # a path value whose text is known only at run time


def _module_of(qual: str) -> tuple[str, str]:
    """(the longest known module that `qual` starts with, the rest) or ("", qual)."""
    parts = qual.split(".")
    for cut in range(len(parts), 0, -1):
        mod = ".".join(parts[:cut])
        if mod in _MODULES:
            return mod, ".".join(parts[cut:])
    return "", qual


def _known_module(mod: str) -> bool:
    return mod in _MODULES or mod.startswith(_PURE_PACKAGES)


def _rule(qual: str) -> str:
    """The rule of a qualified name: "os.remove" -> "delete:0"."""
    mod, rest = _module_of(qual)
    if not mod:
        return "" if qual.startswith(_PURE_PACKAGES) else "unknown"
    if not rest:
        return ""
    _imp, default, attrs = _MODULES[mod]
    if rest in attrs:
        return attrs[rest]
    first, _, member = rest.partition(".")
    if first in attrs:
        rule = attrs[first]
        if rule == "=path":   # Path.home(), Path.unlink(p), Path.write_text(p, s)
            what = _PATH_METHODS.get(member, "")
            if member in ("home", "cwd"):
                return "=pathnew"
            return {"delete": "delete:0", "write": "write:0", "read": "read:0", "move": "delete:0 write:1",
                    "open": "=open:0:1"}.get(what, "")
        return "" if rule.startswith("=") else rule
    if rest.startswith("_") and not rest.startswith("__") and _dangerous_module(mod):
        return "unknown"
    if rest.isupper():   # constants: os.O_RDONLY, os.P_WAIT
        return ""
    return default


def _dangerous_module(mod: str) -> bool:
    if mod not in _MODULES:
        return not mod.startswith(_PURE_PACKAGES)
    imp, default, attrs = _MODULES[mod]
    return bool(imp or default or any(_ref_effects(r) for r in attrs.values()))


def _ref_effects(rule: str) -> set[str]:
    """What a reference to a thing with this rule may do, when we cannot see the call."""
    out: set[str] = set()
    for tok in rule.split():
        head = tok.split(":", 1)[0]
        if head in EFFECTS:
            out.add(head)
        elif head in ("=open", "=osopen", "=fileinput"):
            out |= {"read", "write"}
        elif head in ("=exec", "=import", "=getattr"):
            out.add("dynamic")
        elif head in ("=tempfile", "=sqlite", "=logfile"):
            out.add("write")
        elif head == "=getenv":
            out.add("env")
    return out


def _builtin(name: str) -> bool:
    import builtins
    return hasattr(builtins, name)


# --------------------------------------------------------------------------- Python


def python_effects(code: str) -> CodeEffects:
    """What this Python source would do if run; never raises."""
    try:
        return _python(code, 0, None)
    except Exception:  # noqa: BLE001 - a bug here must not let code through
        return _unknown("python code that handrail could not analyse")


def _python(code: str, depth: int, outer: _Py | None) -> CodeEffects:
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


class _Py:
    """One analysis: bindings first (flow-insensitive), then every node checked."""

    def __init__(self, depth: int, outer: _Py | None) -> None:
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


# --------------------------------------------------------------------------- other languages

_LANGS = {"node": "node", "js": "node", "javascript": "node", "bun": "node", "deno": "node",
          "perl": "perl", "ruby": "ruby", "php": "php", "lua": "lua", "r": "r", "rscript": "r",
          "julia": "julia", "awk": "awk", "gawk": "awk", "mawk": "awk", "nawk": "awk"}

# The words print-only code may use. A word not here makes the code "unknown": these
# languages reach files and programs through names (require, open, system, `...`), and
# naming is all a tokenizer can see.
_SCRIPT_WORDS: dict[str, frozenset[str]] = {lang: frozenset(words.split()) for lang, words in {
    "node": "console log error info warn debug JSON stringify parse process version versions platform arch "
            "argv exit pid node v8 uv openssl release name Math max min floor ceil round abs sqrt pow "
            "random PI E trunc sign Number String Boolean parseInt parseFloat isNaN Date now toISOString "
            "getTime getFullYear toString toFixed length toUpperCase toLowerCase trim split join slice "
            "padStart padEnd repeat includes startsWith endsWith indexOf concat reverse sort map filter "
            "reduce Object keys values entries Buffer from byteLength let const var null undefined true "
            "false new typeof NaN Infinity MAX_SAFE_INTEGER",
    "perl": "print say printf sprintf join length uc lc ucfirst lcfirst reverse sort scalar abs int sqrt my "
            "STDOUT STDERR x eq ne lt gt le ge and or not cmp time localtime gmtime",
    "ruby": "puts print p pp printf format RUBY_VERSION RUBY_PLATFORM RUBY_RELEASE_DATE RUBY_PATCHLEVEL to_s "
            "to_i to_f upcase downcase capitalize length size sum max min sort reverse join map inspect "
            "round abs times ARGV fetch nil true false do end Time now Integer Float String Math sqrt PI",
    "php": "echo print printf sprintf print_r var_dump var_export json_encode PHP_VERSION PHP_OS PHP_EOL "
           "PHP_INT_MAX PHP_OS_FAMILY PHP_MAJOR_VERSION PHP_MINOR_VERSION phpversion strtoupper strtolower "
           "strlen str_repeat implode explode count array date time round floor ceil abs max min sqrt pow "
           "intval floatval number_format ucfirst trim str_pad substr true false null",
    "lua": "print string format rep upper lower len sub tostring tonumber math floor ceil max min sqrt abs "
           "pi huge random _VERSION os date time clock io write stdout table concat unpack select type "
           "local nil true false and or not",
    "r": "print cat paste paste0 sprintf format sum mean median max min length nchar toupper tolower c seq "
         "rep round sqrt abs R version string Sys time Date TRUE FALSE NULL NA Inf",
    "julia": "println print VERSION string sum length uppercase lowercase join repeat sqrt abs round max min "
             "collect Int Float64 typeof nothing true false Sys KERNEL ARCH",
}.items()}

# names that hold the environment, and the continuations that read only one variable
# ("[" literal "]", "." name, "(" literal ")", "{" name "}")
_ENV_NAMES: dict[str, dict[tuple[str, ...], str]] = {
    "node": {("process", ".", "env"): "[."}, "ruby": {("ENV",): "["}, "perl": {("$ENV",): "{"},
    "php": {("getenv",): "(", ("$_ENV",): "[", ("$_SERVER",): "["}, "lua": {("os", ".", "getenv"): "("},
    "r": {("Sys", ".", "getenv"): "("}, "julia": {("ENV",): "["},
}
_COMMENTS = {"perl": "#", "ruby": "#", "r": "#", "julia": "#", "lua": "--"}
_QUOTES = {"node": "'\"", "perl": "'\"", "ruby": "'\"", "php": "'\"", "lua": "'\"", "r": "'\"",
           "julia": "'\""}
# what inside a double-quoted string runs code: "@{[ system(...) ]}", "#{...}", "{$x->f()}"
_INTERPOLATION = {"perl": ("@", "${", "{", "["), "ruby": ("#{", "#@", "#$"), "php": ("{", "${", "->", "["),
                  "julia": ("$(",)}
_PUNCT = set("()[]{},;.+-*=!<>&|:^~")


class _Tok(NamedTuple):
    kind: str      # word, var, num, str, op
    text: str
    joined: bool   # no space before it: `a[0]` is a subscript, `a [0]` an argument


# names a script may not give to its own variables: they would stand for the real thing
_RESERVED = frozenset({"require", "process", "module", "exports", "globalThis", "global", "eval", "Function",
                       "import", "Deno", "Bun", "system", "exec", "open", "ENV", "os", "io", "Sys"})
_DECLARERS = frozenset({"let", "const", "var", "local"})


def script_effects(lang: str, code: str) -> CodeEffects:
    """What code for another interpreter would do: pure only when trivially print-only."""
    name = _LANGS.get(lang.lower())
    if name is None:
        return _unknown(f"{lang} code, which handrail does not read")
    if len(code) > MAX_CODE:
        return _unknown(f"{name} code longer than 64 KiB")
    if name == "awk":
        return _awk(code)
    toks = _tokens(name, code)
    if isinstance(toks, str):
        return _unknown(f"{name} code {toks}; only print-only code is read")
    return _print_only(name, toks)


def _tokens(lang: str, code: str) -> list[_Tok] | str:
    """The tokens of `code`, or why it cannot be read as print-only."""
    out: list[_Tok] = []
    i, n = 0, len(code)
    comment = _COMMENTS.get(lang)
    quotes = _QUOTES[lang]
    sigils = "$@" if lang == "perl" else "$" if lang in ("php", "ruby") else ""

    def emit(kind: str, start: int, end: int) -> None:
        out.append(_Tok(kind, code[start:end], start > 0 and not code[start - 1].isspace()))
    while i < n:
        c = code[i]
        if c.isspace():
            i += 1
        elif comment and code.startswith(comment, i) and not (lang == "perl" and code[i - 1 : i] == "$"):
            j = code.find("\n", i)
            i = n if j < 0 else j
        elif c in quotes:
            if i > 0 and (code[i - 1].isalnum() or code[i - 1] in "_)]"):
                return f"has a quote right after {code[i - 1]!r}"
            j = i + 1
            while j < n and code[j] != c:
                j += 2 if code[j] == "\\" else 1
            if j >= n:
                return "has an unterminated string"
            if c == '"' and any(x in code[i + 1 : j] for x in _INTERPOLATION.get(lang, ())):
                return "runs code inside a string"
            emit("str", i + 1, j)
            i = j + 1
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (code[j].isalnum() or code[j] == "_"):
                j += 1
            emit("word", i, j)
            i = j
        elif c.isdigit():
            j = i
            while j < n and (code[j].isalnum() or code[j] in "._"):
                j += 1
            emit("num", i, j)
            i = j
        elif c in sigils:
            j = i + 1
            special = code[i + 1 : i + 3] if code[i + 1 : i + 2] == "^" else code[i + 1 : i + 2]
            if lang == "perl" and special in ("]", "0", "^V", "^O"):
                emit("var", i, i + 1 + len(special))
                i += 1 + len(special)
                continue
            while j < n and (code[j].isalnum() or code[j] == "_"):
                j += 1
            if j == i + 1:
                return f"uses {code[i : i + 2]!r}"
            if lang == "php" and code[j : j + 1] == "(":
                return "calls a function named by a variable"
            emit("var", i, j)
            i = j
        elif c == "/":
            if not out or not (out[-1].kind == "num" or out[-1].text == ")") or code[i + 1 : i + 2] in ("/", "*"):
                return "has a '/' that may start a pattern or comment"
            emit("op", i, i + 1)
            i += 1
        elif c == "%":
            if code[i + 1 : i + 2] not in (" ", "\t") and not code[i + 1 : i + 2].isdigit():
                return f"uses {code[i : i + 2]!r}"
            emit("op", i, i + 1)
            i += 1
        elif c in _PUNCT or (c == "?" and lang in ("node", "julia")):
            if code.startswith("<<", i):
                return "has '<<'"
            if lang == "perl" and c == "<" and code[i + 1 : i + 2] not in (" ", "="):
                return "reads with '<...>'"
            if lang == "perl" and c == "&" and code[i + 1 : i + 2] != "&" and code[i - 1 : i] != "&":
                return "calls a sub with '&'"
            if c == "(" and out and (out[-1].kind == "str" or out[-1].text in (")", "]")):
                return "calls the result of an expression"
            emit("op", i, i + 1)
            i += 1
        else:
            return f"uses {c!r}"
    return out


def _declared(lang: str, toks: list[_Tok]) -> set[str] | str:
    """Names the code gives to its own values (`let x =`, `x => ...`, `|x|`), or why not."""
    names: set[str] = set()
    texts = [t.text for t in toks]
    for i, t in enumerate(toks):
        nxt = texts[i + 1 : i + 3]
        if t.kind != "word":
            if t.text == ")" and nxt == ["=", ">"]:      # (a, b) => ...
                j = i
                while j > 0 and texts[j] != "(":
                    j -= 1
                names |= {x.text for x in toks[j:i] if x.kind == "word"}
            continue
        prev = texts[i - 1] if i else ""
        if prev in _DECLARERS or nxt[:1] == ["="] or nxt == ["<", "-"] or \
                (lang == "ruby" and prev in ("|", ",") and "|" in texts[i + 1 : i + 2] + texts[i + 1 : i + 4]):
            names.add(t.text)
    bad = names & _RESERVED
    return f"gives its own value to {min(bad)!r}" if bad else names


def _print_only(lang: str, toks: list[_Tok]) -> CodeEffects:
    words = _SCRIPT_WORDS[lang]
    own = _declared(lang, toks)
    if isinstance(own, str):
        return _unknown(f"{lang} code {own}; only print-only code is read")
    env_names = _ENV_NAMES.get(lang, {})
    env = False
    i, n = 0, len(toks)
    while i < n:
        t = toks[i]
        hit = next((seq for seq in env_names if tuple(x.text for x in toks[i : i + len(seq)]) == seq), None)
        if hit is not None:
            j = i + len(hit)
            nxt = [x.text for x in toks[j : j + 3]]
            kinds = [x.kind for x in toks[j : j + 3]]
            allowed = env_names[hit]
            closers = {"[": "]", "(": ")", "{": "}"}
            if nxt[:1] == ["."] and "." in allowed and kinds[1:2] == ["word"]:
                i = j + 2
                continue
            if nxt[:1] and nxt[0] in allowed and nxt[0] in closers and len(nxt) == 3 and \
                    kinds[1] in ("str", "word") and nxt[2] == closers[nxt[0]]:
                i = j + 3
                continue
            env = True
            i = j
            continue
        prev = toks[i - 1].text if i else ""
        nxt_text = toks[i + 1].text if i + 1 < n else ""
        if t.kind == "word" and t.text not in words:
            key = nxt_text == ":" and prev in ("{", ",")        # {a: 1}
            if not key and (t.text not in own or nxt_text == "("):
                return _unknown(f"{lang} code uses {t.text!r}; only print-only code is read")
        if t.kind == "var" and lang == "php" and t.text in ("$GLOBALS", "$this"):
            return _unknown(f"{lang} code uses {t.text!r}; only print-only code is read")
        subscript = t.text == "[" and t.joined and i > 0 and \
            (toks[i - 1].kind in ("word", "var") or toks[i - 1].text in (")", "]"))
        if subscript and not (i + 2 < n and toks[i + 1].kind == "num" and toks[i + 2].text == "]"):
            return _unknown(f"{lang} code looks a member up by a computed name; only print-only code is read")
        i += 1
    if env:
        return CodeEffects(frozenset({"env"}), (), (), ("reads the whole environment",))
    return PURE


# --------------------------------------------------------------------------- awk

_AWK_KEYWORDS = frozenset({"print", "printf", "return", "in", "case"})


def _awk(code: str) -> CodeEffects:
    """awk is small enough to read whole: system(), pipes, redirections, getline < file."""
    found: dict[str, None] = {}
    reasons: dict[str, None] = {}
    reads: dict[str, None] = {}
    writes: dict[str, None] = {}
    unknown_target = {"read": False, "write": False}

    def add(effect: str, reason: str, path: str | None = None, target: bool = False) -> None:
        if target and path is not None and path.startswith("/inet"):
            effect, reason = "network", "opens a network connection"
        found[effect] = None
        reasons[reason] = None
        if target and effect in ("read", "write"):
            if path is None:
                unknown_target[effect] = True
            else:
                (reads if effect == "read" else writes)[path] = None

    toks = _awk_tokens(code)
    if isinstance(toks, str):
        return _unknown(f"awk program {toks}")
    in_print, depth = False, 0
    for k, (kind, text) in enumerate(toks):
        nxt = toks[k + 1] if k + 1 < len(toks) else ("", "")
        after = toks[k + 2] if k + 2 < len(toks) else ("", "")
        lone = nxt[0] == "str" and after[1] in ("", ";", "}", "\n", ")")
        if kind == "word":
            if text == "system":
                add("exec", "calls system()")
            elif text == "getline":
                at = k + 2 if nxt[0] == "word" else k + 1     # getline [var] < file
                if at < len(toks) and toks[at][1] == "<":
                    src = toks[at + 1] if at + 1 < len(toks) else ("", "")
                    end = toks[at + 2][1] if at + 2 < len(toks) else ""
                    add("read", "reads a file with getline",
                        src[1] if src[0] == "str" and end in ("", ";", "}", "\n", ")") else None, True)
            elif text == "ENVIRON" and not (nxt[1] == "[" and after[0] == "str" and
                                            (toks[k + 3][1] if k + 3 < len(toks) else "") == "]"):
                add("env", "reads the whole environment")
            elif text in ("ARGV", "ARGC"):
                add("read", "changes which files awk reads", None, True)
            elif text in ("print", "printf"):
                in_print, depth = True, 0
        elif kind == "op":
            if text in ("|", "|&"):
                add("exec", "pipes to or from a command")
                if nxt[0] == "str" and nxt[1].startswith("/inet"):
                    add("network", "opens a network connection")
            elif text in (">", ">>") and in_print and depth == 0:
                add("write", "print writes to a file", nxt[1] if lone else None, True)
            elif text == "(":
                depth += 1
            elif text == ")":
                depth -= 1
            elif text in (";", "}", "{", "\n"):
                in_print = False
    return CodeEffects(frozenset(found), () if unknown_target["read"] else tuple(reads),
                       () if unknown_target["write"] else tuple(writes), tuple(reasons))


def _awk_tokens(code: str) -> list[tuple[str, str]] | str:
    out: list[tuple[str, str]] = []
    i, n = 0, len(code)

    def operand() -> bool:
        if not out:
            return False
        kind, text = out[-1]
        return kind in ("num", "str") or (kind == "word" and text not in _AWK_KEYWORDS) or text in (")", "]", "$")
    while i < n:
        c = code[i]
        if c == "\n":
            out.append(("op", "\n"))
            i += 1
        elif c.isspace():
            i += 1
        elif c == "\\" and code[i + 1 : i + 2] == "\n":
            i += 2
        elif c == "#":
            j = code.find("\n", i)
            i = n if j < 0 else j
        elif c == '"' or (c == "/" and not operand()):
            j = i + 1
            in_class = False
            while j < n and (code[j] != c or in_class):
                if code[j] == "\\":
                    j += 1
                elif c == "/" and code[j] == "[":
                    in_class = True
                elif c == "/" and code[j] == "]":
                    in_class = False
                elif code[j] == "\n":
                    return "has a string or pattern that does not end on its line"
                j += 1
            if j >= n:
                return "has a string or pattern that does not end"
            out.append(("str" if c == '"' else "re", code[i + 1 : j]))
            i = j + 1
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (code[j].isalnum() or code[j] == "_"):
                j += 1
            out.append(("word", code[i:j]))
            i = j
        elif c.isdigit() or (c == "." and code[i + 1 : i + 2].isdigit()):
            j = i
            while j < n and (code[j].isalnum() or code[j] == "."):
                j += 1
            out.append(("num", code[i:j]))
            i = j
        elif c == "@":
            return "uses a gawk @ directive"
        else:
            two = code[i : i + 2]
            if two in (">>", "|&", "||", "&&", ">=", "<=", "==", "!=", "++", "--", "+=", "-=", "*=", "/=",
                       "%=", "^=", "!~"):
                out.append(("op", two))
                i += 2
            else:
                out.append(("op", c))
                i += 1
    return out
