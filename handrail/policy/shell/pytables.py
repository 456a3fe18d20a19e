"""What each Python module, builtin and method does, for the Python reader (pycode.py)."""

from __future__ import annotations

from handrail.policy.shell.codefx import EFFECTS

# --------------------------------------------------------------------------- the tables
#
# A rule is a space-separated list of tokens:
#   read|write|delete[:N]   that effect; the path is positional argument N (N. = "." when
#                           absent, * = every positional argument); no :N = target unknown
#   exec|network|env|dynamic|unknown
#   =open:P:M               opens like open(): path at P (- for none), mode at M or mode=
#   =osopen =exec =import =getattr =getenv =tempfile =sqlite =chdir =logfile =fileinput
#                           calls with their own handler (see _Py.apply in pycode.py)
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
    "removexattr": "write:0", "link": "read:0 write:1", "symlink": "read:0 write:1",
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
