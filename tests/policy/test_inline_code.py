"""Inline interpreter code -> what it would do, however the agent dresses it up.

The lists of names below are written out here, apart from the module's tables, so that
a rule taken out of a table makes a row fail.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from handrail.policy.shell.inline import (
    EFFECTS,
    CodeEffects,
    python_effects,
    script_effects,
)


def words(text: str) -> list[str]:
    return text.split()


def effects(code: str) -> set[str]:
    return set(python_effects(code).effects)


# --------------------------------------------------------------------------- benign Python

BENIGN = [
    "pass",
    "import sys; print(sys.version)",
    "import sys; print(sys.version_info[:2])",
    "import sys; print(sys.path)",
    "import sys; print('\\n'.join(sys.path))",
    "import sys; print(sys.executable)",
    "import platform; print(platform.python_version())",
    "import json, sys; print(json.load(sys.stdin)['version'])",
    "import json,sys; d=json.load(sys.stdin); print(len(d['items']))",
    "import json, sys\nfor line in sys.stdin:\n    print(json.loads(line).get('name'))",
    "import sys; print(sum(int(x) for x in sys.stdin))",
    "print(sum(range(100)))",
    "print(2**64)",
    "print('%.2f' % (22/7))",
    "import math; print(math.sqrt(2))",
    "from math import *; print(sqrt(2) + pi)",
    "import datetime; print(datetime.datetime.now().isoformat())",
    "import time; time.sleep(0.1)",
    "import uuid; print(uuid.uuid4())",
    "import secrets; print(secrets.token_hex(16))",
    "import hashlib; print(hashlib.sha256(b'x').hexdigest())",
    "import base64, sys; print(base64.b64decode(sys.argv[1]).decode())",
    "import re, sys; print(re.findall(r'\\d+', sys.stdin.read()))",
    "import collections, sys; print(collections.Counter(sys.stdin.read().split()).most_common(5))",
    "import csv, sys; print(list(csv.reader(sys.stdin)))",
    "import sys, csv; w = csv.writer(sys.stdout); w.writerow(['a', 'b'])",
    "import sys; sys.stdout.write('hi\\n'); sys.stderr.write('x'); sys.stdout.flush()",
    "import sys; out = sys.stdout; out.write('x')",
    "import sys; print('x', file=sys.stderr); sys.exit(1)",
    "import os; print(os.getcwd(), os.sep, os.cpu_count())",
    "import os; print(os.path.join('a', 'b'), os.path.basename('/x/y'), os.path.splitext('a.py'))",
    "import os; print(os.environ.get('HOME'))",
    "import os; print(os.environ['PATH'])",
    "import os; print(os.getenv('VIRTUAL_ENV', ''))",
    "import os; print('CI' in os.environ)",
    "import os; os.environ['X'] = '1'; os.environ.setdefault('Y', '2'); del os.environ['X']",
    "import os; os.environ.update(A='1')",
    "import shutil; print(shutil.which('git'))",
    "import importlib.metadata; print(importlib.metadata.version('pip'))",
    "from importlib.metadata import version; print(version('pip'))",
    "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int = 0\nprint(P(1))",
    "from typing import NamedTuple\nclass P(NamedTuple):\n    x: int\nprint(P(1)._replace(x=2))",
    "def f(n):\n    return 1 if n < 2 else n * f(n - 1)\nprint(f(10))",
    "print([x * 2 for x in range(5) if x % 2])",
    "print((lambda x: x + 1)(2))",
    ("class A:\n    def __init__(self):\n        super().__init__()\n"
    "    def __repr__(self):\n        return 'A'\nprint(A())"),
    "print('a-b'.replace('-', '_').upper().split('_'))",
    "d = {'a': 1}; print(sorted(d.items()), d.get('a'))",
    "s = 'x'; print(s.replace('x', 'y', 1))",
    "import datetime; print(datetime.date.today().replace(day=1))",
    "import io; buf = io.StringIO(); buf.write('x'); print(buf.getvalue())",
    "import io; buf = io.BytesIO(); buf.write(b'x')",
    "import io, sys; out = io.TextIOWrapper(sys.stdout.buffer); out.write('x')",
    "import io, sys; io.BufferedReader(sys.stdin.buffer).read()",
    "import io, sys; io.BufferedWriter(sys.stdout.buffer).write(b'x')",
    "import textwrap; print(textwrap.dedent('  x'))",
    "print(eval('2 ** 10'))",
    "exec('print(1)')",
    "import json; print(json.dumps({'a': [1, 2]}, indent=2))",
    "import pprint; pprint.pprint([1, 2])",
    "import argparse; p = argparse.ArgumentParser(); p.add_argument('x'); print(p.parse_args(['1']))",
    "import sys; print(open(0).read().upper())",
    "open(1, 'w').write('x')",
    "import struct; print(struct.pack('<I', 1))",
    "import ipaddress; print(ipaddress.ip_address('127.0.0.1').is_loopback)",
    "import sqlite3; c = sqlite3.connect(':memory:'); print(c.execute('select 1').fetchone())",
    "import pickle; print(pickle.dumps([1]))",
    "import tempfile; print(tempfile.gettempdir())",
    "x = [1, 2]; x.remove(1); print(x)",
    "if __name__ == '__main__':\n    print(__doc__, __file__)",
    "print(__package__, __annotations__, __cached__, __path__, __debug__)",
    "import operator; print(sorted([(2, 1)], key=operator.itemgetter(0)))",
    "from pathlib import Path; print(Path('a') / 'b', Path('x.py').suffix, Path('a/b').name)",
    "from pathlib import Path; print(str(Path('a').with_suffix('.b')))",
    "import sys; help = 1; print(help)",
]


@pytest.mark.parametrize("code", BENIGN)
def test_benign_code_has_no_effect(code: str) -> None:
    assert python_effects(code) == CodeEffects(frozenset(), (), (), ())


# --------------------------------------------------------------------------- Python effects

# (code, effects, reads or None (do not care), writes or None)
ROWS = [
    # reads
    ("print(open('README.md').read())", "read", ("README.md",), ()),
    ("with open('a.txt') as f:\n    print(f.read())", "read", ("a.txt",), ()),
    ("open('a.txt', 'rb')", "read", ("a.txt",), ()),
    ("import json; print(json.load(open('package.json'))['version'])", "read", ("package.json",), ()),
    ("import tomllib\nwith open('pyproject.toml', 'rb') as f:\n    print(tomllib.load(f)['project']['name'])",
     "read", ("pyproject.toml",), ()),
    ("from pathlib import Path; print(Path('.env').read_text())", "read", (".env",), ()),
    ("import pathlib; print(pathlib.Path('k').read_bytes())", "read", ("k",), ()),
    ("from pathlib import Path; print(list(Path('src').iterdir()))", "read", ("src",), ()),
    ("from pathlib import Path; print(list(Path('.').rglob('*.py')))", "read", (".",), ()),
    ("from pathlib import Path; (Path.home() / '.ssh/id_rsa').read_text()", "read", ("~/.ssh/id_rsa",), ()),
    ("from pathlib import Path; Path('~/.aws/credentials').expanduser().read_text()", "read",
     ("~/.aws/credentials",), ()),
    ("from pathlib import Path; Path('a').joinpath('b').read_text()", "read", ("a/b",), ()),
    ("from pathlib import Path; Path('a').resolve().read_text()", "read", ("a",), ()),
    ("from pathlib import Path; Path('a').absolute().read_text()", "read", ("a",), ()),
    ("from pathlib import Path; Path('a').parent.exists()", "read", (), ()),
    ("from pathlib import Path; Path('a').with_suffix('.b').exists()", "read", (), ()),
    ("from pathlib import Path; Path('a').with_name('b').exists()", "read", (), ()),
    ("from pathlib import Path; Path('a').with_stem('b').exists()", "read", (), ()),
    ("from pathlib import Path; Path('/a/b').relative_to('/a').exists()", "read", (), ()),
    ("from pathlib import Path; Path('a', 'b').open().read()", "read", ("a/b",), ()),
    ("from pathlib import Path; Path().iterdir()", "read", (".",), ()),
    ("import os; print(os.listdir())", "read", (".",), ()),
    ("import os; print(os.listdir('/etc'))", "read", ("/etc",), ()),
    ("import os; p = os.path.join('a', 'b.txt'); print(open(p).read())", "read", ("a/b.txt",), ()),
    ("import os; print(open(os.path.expanduser('~/.netrc')).read())", "read", ("~/.netrc",), ()),
    ("import os; p = 'secret.txt'; print(open(p).read())", "read", ("secret.txt",), ()),
    ("import sys; print(open(sys.argv[1]).read())", "read", (), ()),
    ("print(open(f'{1}.txt').read())", "read", (), ()),
    ("import glob; print(glob.glob('*.py'))", "read", ("*.py",), ()),
    ("import io; io.open('a').read()", "read", ("a",), ()),
    ("import codecs; codecs.open('a', encoding='utf8').read()", "read", ("a",), ()),
    ("import gzip; gzip.open('a.gz').read()", "read", ("a.gz",), ()),
    ("import os; fd = os.open('a', os.O_RDONLY)", "read", ("a",), ()),
    ("import os; fd = os.open('a', 0)", "read", ("a",), ()),
    # writes, creates, moves, deletes
    ("open('out.txt', 'w').write('x')", "write", (), ("out.txt",)),
    ("open('out.txt', 'a')", "write", (), ("out.txt",)),
    ("open('out.txt', 'x')", "write", (), ("out.txt",)),
    ("open('out.txt', 'r+')", "write", (), ("out.txt",)),
    ("open('out.txt', mode='w')", "write", (), ("out.txt",)),
    ("open(file='out.txt', mode='w')", "write", (), ("out.txt",)),
    ("import sys; open('out.txt', sys.argv[1])", "read write", ("out.txt",), ("out.txt",)),
    ("m = 'r' if 1 else 'w'; open('o', m)", "read write", ("o",), ("o",)),
    ("with open('o.json', 'w') as f:\n    import json; json.dump({}, f); f.write('x')", "write", (), ("o.json",)),
    ("import io; io.open('o', 'w')", "write", (), ("o",)),
    ("import os; os.remove('x')", "delete", (), ("x",)),
    ("import os; os.unlink('x'); os.rmdir('d')", "delete", (), ("x", "d")),
    ("import os; os.rename('a', 'b')", "delete write", (), ("a", "b")),
    ("import os; os.makedirs('build/out', exist_ok=True)", "write", (), ("build/out",)),
    ("import os; os.mkdir('d')", "write", (), ("d",)),
    ("import os; os.chmod('run.sh', 0o755)", "write", (), ("run.sh",)),
    ("import os; os.symlink('a', 'link')", "read write", ("a",), ("link",)),  # a link is a second name to read by
    ("import os; os.link('a', 'b')", "read write", ("a",), ("b",)),
    ("import os; os.truncate('f', 0)", "write", (), ("f",)),
    ("import os; os.open('f', os.O_WRONLY | os.O_CREAT)", "write", (), ("f",)),
    ("import os; os.open('f', os.O_RDONLY | os.O_TRUNC)", "write", (), ("f",)),
    ("import os; os.open('f', flags)", "write dynamic", (), ("f",)),
    ("import os; os.open('f')", "write", (), ("f",)),
    ("import os; os.write(1, b'x')", "write", (), ()),
    ("import shutil; shutil.rmtree('build')", "delete", (), ("build",)),
    ("import shutil; shutil.copy('a', 'b')", "read write", ("a",), ("b",)),
    ("import shutil; shutil.move('a', 'b')", "delete write", (), ("a", "b")),
    ("import shutil; shutil.copytree('a', 'b')", "read write", ("a",), ("b",)),
    ("import shutil; shutil.make_archive('out', 'zip', 'src')", "write", (), ()),
    ("import shutil; shutil.unpack_archive('a.zip', 'dst')", "read write", ("a.zip",), ("dst",)),
    ("import shutil; shutil.chown('a', 'me')", "write", (), ("a",)),
    ("from pathlib import Path; Path('a').write_text('x')", "write", (), ("a",)),
    ("from pathlib import Path; Path('a').write_bytes(b'x')", "write", (), ("a",)),
    ("from pathlib import Path; Path('a').touch()", "write", (), ("a",)),
    ("from pathlib import Path; Path('d').mkdir(parents=True)", "write", (), ("d",)),
    ("from pathlib import Path; Path('a').chmod(0o600)", "write", (), ("a",)),
    ("from pathlib import Path; Path('l').symlink_to('t')", "read write", ("t",), ("l",)),
    ("from pathlib import Path; Path('l').hardlink_to('t')", "read write", ("t",), ("l",)),
    ("from pathlib import Path; Path('a').link_to('t')", "write", (), ("t",)),
    ("from pathlib import Path; Path('a').unlink()", "delete", (), ("a",)),
    ("from pathlib import Path; Path('d').rmdir()", "delete", (), ("d",)),
    ("from pathlib import Path; Path('a').rename('b')", "delete write", (), ("a", "b")),
    ("from pathlib import Path; Path('a').replace('b')", "delete write", (), ("a", "b")),
    ("from pathlib import Path; Path('a').open('w')", "write", (), ("a",)),
    ("from pathlib import Path; Path('a').open(mode='a')", "write", (), ("a",)),
    ("from pathlib import Path; p = Path('a'); p.unlink()", "delete", (), ("a",)),
    ("import pathlib; pathlib.PosixPath('a').unlink()", "delete", (), ("a",)),
    ("import pathlib; pathlib.WindowsPath('a').unlink()", "delete", (), ("a",)),
    ("import pathlib; pathlib.PurePath('a').exists()", "read", ("a",), ()),
    ("import pathlib; pathlib.PurePosixPath('a').exists()", "read", ("a",), ()),
    ("import pathlib; pathlib.PureWindowsPath('a').exists()", "read", ("a",), ()),
    ("from pathlib import Path; (Path('a') / 'b').unlink()", "delete", (), ("a/b",)),
    ("from pathlib import Path; Path.unlink(Path('a'))", "delete", (), ("a",)),
    ("from pathlib import Path; Path.write_text(Path('a'), 'x')", "write", (), ("a",)),
    ("from pathlib import Path; Path.home().joinpath('x').unlink()", "delete", (), ("~/x",)),
    ("from pathlib import Path; Path.cwd().joinpath('x').unlink()", "delete", (), ()),
    ("import os; os.remove(os.path.join('a', 'b'))", "delete", (), ("a/b",)),
    ("import os, sys; os.remove(sys.argv[1])", "delete", (), ()),
    ("import os; [os.remove(p) for p in ['a', 'b']]", "delete", (), ()),
    ("import os; os.remove('a'); os.remove(input())", "delete", (), ()),
    ("import os; os.chdir('/'); os.remove('etc/passwd')", "delete", (), ()),
    ("import os; os.chdir('/'); os.remove('/abs')", "delete", (), ("/abs",)),
    ("import contextlib, os\nwith contextlib.chdir('/'):\n    open('x', 'w')", "write", (), ()),
    ("import tempfile; tempfile.mkstemp()", "write", (), ()),
    ("import tempfile; tempfile.TemporaryDirectory(dir='build')", "write", (), ("build",)),
    ("import tempfile\nwith tempfile.NamedTemporaryFile('w') as f:\n    f.write('x')", "write", (), ()),
    ("import sqlite3; sqlite3.connect('app.db')", "write", (), ("app.db",)),
    ("import dbm; dbm.open('cache', 'c')", "write", (), ("cache",)),
    ("import zipfile; zipfile.ZipFile('a.zip').extractall('out')", "read write", ("a.zip",), ()),
    ("import zipfile; zipfile.ZipFile('a.zip', 'w').write('f')", "write", (), ("a.zip",)),
    ("import zipfile; print(zipfile.ZipFile('a.zip').namelist())", "read", ("a.zip",), ()),
    ("import tarfile; tarfile.open('a.tgz', 'w:gz')", "write", (), ("a.tgz",)),
    ("import tarfile; tarfile.open('a.tgz').extractall()", "read write", ("a.tgz",), ()),
    ("import logging; logging.basicConfig(filename='app.log')", "write", (), ("app.log",)),
    ("import logging; logging.FileHandler('x.log')", "write", (), ("x.log",)),
    ("import logging.handlers; logging.handlers.RotatingFileHandler('x.log')", "write", (), ("x.log",)),
    ("import fileinput\nfor l in fileinput.input('a', inplace=True): print(l)", "read write", ("a",), ()),
    ("import xml.etree.ElementTree as ET; ET.parse('a.xml')", "read", ("a.xml",), ()),
    ("import xml.etree.ElementTree as ET; ET.ElementTree(ET.Element('a')).write('o.xml')", "write", (), ()),
    ("import argparse; argparse.FileType('w')", "write", (), ()),
    ("import readline; readline.write_history_file('h')", "write", (), ("h",)),
    ("import mmap", "write", (), ()),
    ("import py_compile", "write", (), ()),
    # programs, signals, network
    ("import os; os.system('ls')", "exec", (), ()),
    ("import os; os.popen('ls').read()", "exec", (), ()),
    ("import os; os.execvp('ls', ['ls'])", "exec", (), ()),
    ("import os; os.spawnlp(os.P_WAIT, 'ls', 'ls')", "exec", (), ()),
    ("import os; os.posix_spawn('/bin/ls', ['ls'], {})", "exec", (), ()),
    ("import os; os.fork()", "exec", (), ()),
    ("import os; os.kill(1, 9)", "exec", (), ()),
    ("import signal; signal.pthread_kill(1, 9)", "exec", (), ()),
    ("import subprocess; subprocess.run(['ls'])", "exec", (), ()),
    ("from subprocess import run as r; r(['ls'])", "exec", (), ()),
    ("import asyncio; asyncio.run(asyncio.create_subprocess_exec('ls'))", "exec", (), ()),
    ("import asyncio; asyncio.open_connection('h', 80)", "network", (), ()),
    ("from concurrent.futures import ProcessPoolExecutor", "", (), ()),
    ("from concurrent.futures import ProcessPoolExecutor; ProcessPoolExecutor()", "exec", (), ()),
    ("import pty; pty.spawn('sh')", "exec", (), ()),
    ("import multiprocessing", "exec", (), ()),
    ("import ctypes; ctypes.CDLL(None).system(b'ls')", "exec", (), ()),
    ("import runpy; runpy.run_path('x.py')", "exec", (), ()),
    ("import site", "exec", (), ()),
    ("import socket; socket.create_connection(('h', 80))", "network", (), ()),
    ("import urllib.request; urllib.request.urlopen('http://h')", "network", (), ()),
    ("import urllib.parse\nurllib.request.urlopen('http://h')", "network", (), ()),
    ("from urllib import request", "network", (), ()),
    ("import http.client", "network", (), ()),
    ("import requests; requests.get('http://h')", "network", (), ()),
    ("import httpx", "network", (), ()),
    ("import smtplib", "network", (), ()),
    ("import webbrowser; webbrowser.open('http://h')", "network exec", (), ()),
    ("help(print)", "exec", (), ()),
    # the environment
    ("import os; print(dict(os.environ))", "env", (), ()),
    ("import os; print(os.environ)", "env", (), ()),
    ("import os; print(os.environ.items())", "env", (), ()),
    ("import os; print(os.environ.copy())", "env", (), ()),
    ("import os; print([k for k in os.environ])", "env", (), ()),
    ("import os; k = 'A'; print(os.environ[k + input()])", "env", (), ()),
    ("import os; print(os.environ.get(input()))", "env", (), ()),
    ("import os; print(os.getenv(input()))", "env", (), ()),
    ("from os import environ; print(environ)", "env", (), ()),
    ("import os; print(os.environb)", "env", (), ()),
    ("import os; print(os.environb[b'HOME'])", "", (), ()),
    # dynamic code
    ("import pickle, sys; pickle.loads(sys.stdin.buffer.read())", "dynamic", (), ()),
    ("import marshal; marshal.loads(b'')", "dynamic", (), ()),
    ("import shelve; shelve.open('db')", "write dynamic", (), ("db",)),
    ("import importlib; importlib.import_module('os')", "dynamic", (), ()),
    ("import sys; sys.modules['os']", "dynamic", (), ()),
    ("import sys; sys._getframe()", "dynamic", (), ()),
    ("import sys; sys.settrace(None)", "dynamic", (), ()),
    ("import inspect", "dynamic", (), ()),
    ("import gc", "dynamic", (), ()),
    ("import code; code.interact()", "dynamic", (), ()),
    ("import timeit; timeit.timeit('1')", "dynamic", (), ()),
    ("import types; types.FunctionType(c, {})", "dynamic", (), ()),
    ("import operator; operator.methodcaller('unlink')", "dynamic", (), ()),
    ("import operator; operator.attrgetter('system')", "dynamic", (), ()),
    ("import copyreg; copyreg.pickle(int, int)", "dynamic", (), ()),
    ("import logging.config; logging.config.dictConfig({})", "dynamic", (), ()),
    ("import pkgutil; pkgutil.resolve_name('os:system')", "dynamic", (), ()),
    ("breakpoint()", "dynamic", (), ()),
    ("print(__builtins__)", "dynamic", (), ()),
    ("print(__loader__)", "dynamic", (), ()),
    ("print(__spec__)", "dynamic", (), ()),
    ("globals()['x'] = 1", "dynamic", (), ()),
    ("print(locals())", "dynamic", (), ()),
    ("print(vars())", "dynamic", (), ()),
    ("setattr(o, 'x', 1)", "dynamic", (), ()),
    ("delattr(o, 'x')", "dynamic", (), ()),
    ("import sys; exec(sys.stdin.read())", "dynamic", (), ()),
    ("import sys; eval(sys.argv[1])", "dynamic", (), ()),
    ("import sys; compile(sys.argv[1], 'x', 'exec')", "dynamic", (), ()),
    # unknown
    ("import numpy", "unknown", (), ()),
    ("import numpy.linalg", "unknown", (), ()),
    ("import unittest; unittest.main()", "unknown", (), ()),
    ("from . import x", "unknown", (), ()),
    ("import os; os.chroot('/x')", "unknown", (), ()),
    ("import os; os.some_future_call()", "unknown", (), ()),
    ("import shutil; shutil._rmtree_unsafe('x')", "unknown", (), ()),
    ("import tempfile; tempfile._get_default_tempdir()", "unknown", (), ()),
    ("import shutil; shutil.whatever()", "unknown", (), ()),
    ("def f(:", "unknown", (), ()),
    ("x = '\0'", "unknown", (), ()),
]


@pytest.mark.parametrize(("code", "expected", "reads", "writes"), ROWS)
def test_effects(code: str, expected: str, reads: tuple[str, ...] | None, writes: tuple[str, ...] | None) -> None:
    got = python_effects(code)
    assert set(got.effects) == set(expected.split()), got
    if reads is not None:
        assert set(got.reads) == set(reads), got
    if writes is not None:
        assert set(got.writes) == set(writes), got
    assert bool(got.reasons) == bool(got.effects)


# --------------------------------------------------------------------------- evasions

# Each technique an agent could use to hide an effect; (code, an effect that must be found)
HOSTILE = [
    ("import os as o; o.remove('x')", "delete"),
    ("import os.path as p; p.exists('x')", "read"),
    ("import shutil as json; json.rmtree('x')", "delete"),
    ("from os import remove as print; print('x')", "delete"),
    ("from os import system as r; r('ls')", "exec"),
    ("from os import *; system('ls')", "exec"),
    ("from os import *; remove('x')", "delete"),
    ("from os import *; open('x', 0)", "read"),
    ("from shutil import *", "delete"),
    ("from subprocess import *", "exec"),
    ("from os import *; brand_new_call()", "unknown"),
    ("import os; f = os.remove; f('x')", "delete"),
    ("import os; f = os.remove; g = f; g('x')", "delete"),
    ("import os; o = os; o.system('ls')", "exec"),
    ("import os; list(map(os.remove, ['a']))", "delete"),
    ("import os, atexit; atexit.register(os.remove, 'x')", "delete"),
    ("import os, functools; functools.partial(os.system, 'ls')()", "exec"),
    ("import os; fs = [os.remove]; fs[0]('x')", "delete"),
    ("import os; fs = [os.remove]; fs[0]('x')", "dynamic"),
    ("import os; d = {'f': os.system}; d['f']('ls')", "exec"),
    ("import os\nclass A:\n    r = os.remove\nA.r('x')", "delete"),
    ("import os\nclass A:\n    if 1:\n        r = os.remove\nA().r('x')", "delete"),
    ("import os\nclass A:\n    def __del__(self):\n        os.system('ls')\nA()", "exec"),
    ("import os\ndef f(x=os.remove):\n    x('a')\nf()", "delete"),
    ("import os\ndef f(g):\n    g('a')\nf(os.remove)", "delete"),
    ("def f(g):\n    g('a')", "dynamic"),
    ("import os\n@os.system\ndef f(): pass", "exec"),
    ("import os\ndeco = lambda fn: os.system('ls')\n@deco\ndef f(): pass", "exec"),
    ("import os; [os.remove(p) for p in ['a']]", "delete"),
    ("import os; {p: os.unlink(p) for p in 'ab'}", "delete"),
    ("import os; (r := os.remove)('x')", "delete"),
    ("import os; (r := os.remove); r('x')", "delete"),
    ("import os; print(os)", "dynamic"),
    ("import shutil; fns = [shutil]; fns[0].rmtree('x')", "delete"),
    ("import os\ndef f(m):\n    m.system('ls')\nf(os)", "exec"),
    ("import os; getattr(os, 'system')('ls')", "exec"),
    ("import os; getattr(os, 'rem' + 'ove')('x')", "dynamic"),
    ("import os; getattr(os, 'rem' + 'ove')('x')", "delete"),
    ("import os; getattr(os, input())('x')", "dynamic"),
    ("getattr(print, '__self__')", "dynamic"),
    ("__import__('os').system('ls')", "exec"),
    ("__import__('o' + 's').system('ls')", "dynamic"),
    ("__import__('subprocess')", "exec"),
    ("__builtins__.__dict__['ex' + 'ec']('1')", "dynamic"),
    ("print.__self__.open('x', 'w')", "dynamic"),
    ("().__class__.__base__.__subclasses__()", "dynamic"),
    ("f = lambda: 0; f.__globals__['os']", "dynamic"),
    ("import sys; sys.exc_info()[2].tb_frame.f_globals", "dynamic"),
    ("g = (x for x in []); g.gi_frame", "dynamic"),
    ("'{0.__class__.__init__.__globals__}'.format(1)", "dynamic"),
    ("import os; os.__dict__['system']('ls')", "dynamic"),
    ("object.__getattribute__(o, 'x')", "dynamic"),
    ("exec('import os; os.remove(\"x\")')", "delete"),
    ("exec('im' + 'port subprocess')", "exec"),
    ("code = 'import os; os.system(\"ls\")'; exec(code)", "exec"),
    ("import os; exec('os.remove(\"x\")')", "delete"),
    ("exec('import os'); os.remove('x')", "dynamic"),
    ("eval(compile('__import__(\"os\").system(\"ls\")', 'x', 'eval'))", "exec"),
    ("exec('exec(\"exec(\\'exec(1)\\')\")')", "dynamic"),
    ("exec(bytes.fromhex('00').decode())", "dynamic"),
    ("f = lambda: print; f()('x')", "dynamic"),
    ("make()('x')", "dynamic"),
    ("for f in fs: f()", "dynamic"),
    ("(a or b)()", "dynamic"),
    ("import json; json.loads = print", "dynamic"),
    ("license._Printer__filenames = ['/etc/shadow']; license()", "dynamic"),
    ("open(p, mode='w')", "write"),
    ("import builtins; builtins.open('x', 'w')", "write"),
    ("import builtins", "dynamic"),
    ("f = open; f('x', 'w')", "write"),
    ("list(map(open, ['a']))", "read"),
    ("with open('x', 'w') as f: pass", "write"),
    ("import subprocess as sp\nimport json", "exec"),
    ("import os, sys; os.remove(sys.argv[1])", "delete"),
    ("def f(p):\n    p.unlink()", "delete"),
    ("def f(p):\n    p.write_text('x')", "write"),
    ("def f(p):\n    p.rename('b')", "delete"),
    ("def f(p):\n    p.open('w')", "write"),
    ("def f(o):\n    o.system('ls')", "exec"),
    ("def f(o):\n    o.urlopen('http://h')", "network"),
    ("def f(p):\n    cb = p.unlink\n    cb()", "delete"),
    ("import atexit\ndef f(p):\n    atexit.register(p.unlink)", "delete"),
    ("async def f():\n    import asyncio\n    await asyncio.create_subprocess_shell('ls')", "exec"),
    ("match x:\n    case {'a': y}:\n        y()", "dynamic"),
    ("try:\n    pass\nexcept Exception as e:\n    e()", "dynamic"),
    ("import os\nif False:\n    os.remove('x')", "delete"),
    ("import os\nx = [1]\nx.remove(1)\nos.remove('y')", "delete"),
    ("undefined_name('x')", "dynamic"),
    ("import os; os.system = print", "dynamic"),
]


@pytest.mark.parametrize(("code", "effect"), HOSTILE)
def test_evasions_are_found(code: str, effect: str) -> None:
    assert effect in python_effects(code).effects, python_effects(code)


# --------------------------------------------------------------------------- one row per table rule

OS_PURE = words(
    "name sep altsep extsep pathsep linesep defpath devnull curdir pardir getcwd getcwdb getpid getppid "
    "getuid geteuid getgid getegid getgroups getlogin getpgid getpgrp getsid getpriority getresuid "
    "getresgid getgrouplist uname cpu_count process_cpu_count urandom getrandom fsencode fsdecode "
    "fspath get_terminal_size terminal_size getloadavg strerror sched_getaffinity umask isatty times "
    "get_exec_path error PathLike DirEntry stat_result statvfs_result uname_result times_result sysconf "
    "sysconf_names confstr confstr_names pathconf_names get_blocking get_inheritable device_encoding "
    "waitstatus_to_exitcode major minor makedev close closerange read readv pread preadv lseek fstat "
    "fstatvfs pipe pipe2 dup wait wait3 wait4 waitid waitpid WEXITSTATUS WIFEXITED WIFSIGNALED WTERMSIG "
    "WIFSTOPPED WSTOPSIG _exit abort ctermid ttyname supports_bytes_environ supports_dir_fd "
    "supports_effective_ids supports_fd supports_follow_symlinks putenv unsetenv sched_yield "
    "set_blocking set_inheritable fsync fdatasync sync posix_fadvise O_RDONLY P_WAIT SEEK_SET"
)


@pytest.mark.parametrize("name", OS_PURE)
def test_pure_os_names(name: str) -> None:
    assert effects(f"import os; x = [os.{name}]; os.{name}(1)") == set()


# qualified name -> what calling it with literal arguments does
CALLS = """
os.getenv= os.getenvb= os.fdopen=read os.chdir= os.fchdir=
os.listdir=read os.scandir=read os.walk=read os.fwalk=read os.stat=read os.lstat=read os.access=read
os.readlink=read os.statvfs=read os.getxattr=read os.listxattr=read os.pathconf=read
os.mkdir=write os.makedirs=write os.chmod=write os.lchmod=write os.chown=write os.lchown=write
os.chflags=write os.lchflags=write os.utime=write os.truncate=write os.mkfifo=write os.mknod=write
os.setxattr=write os.removexattr=write os.link=read,write os.symlink=read,write
os.remove=delete os.unlink=delete os.rmdir=delete os.removedirs=delete
os.rename=delete,write os.renames=delete,write os.replace=delete,write
os.write=write os.writev=write os.pwrite=write os.pwritev=write os.sendfile=write os.ftruncate=write
os.fchmod=write os.fchown=write os.copy_file_range=write os.splice=write os.posix_fallocate=write
os.memfd_create=write os.dup2=write os.lockf=write
os.system=exec os.popen=exec os.fork=exec os.forkpty=exec os.kill=exec os.killpg=exec os.posix_spawn=exec
os.posix_spawnp=exec os.startfile=exec os.pidfd_open=exec os.register_at_fork=dynamic os.chroot=unknown
os.execl=exec os.execle=exec os.execlp=exec os.execlpe=exec os.execv=exec os.execve=exec os.execvp=exec
os.execvpe=exec os.spawnl=exec os.spawnle=exec os.spawnlp=exec os.spawnlpe=exec os.spawnv=exec
os.spawnve=exec os.spawnvp=exec os.spawnvpe=exec
os.path.exists=read os.path.lexists=read os.path.isfile=read os.path.isdir=read os.path.islink=read
os.path.ismount=read os.path.isjunction=read os.path.getsize=read os.path.getmtime=read
os.path.getatime=read os.path.getctime=read os.path.samefile=read os.path.realpath=read
posixpath.exists=read ntpath.exists=read os.path.join= os.path.abspath=
sys.modules=dynamic sys._getframe=dynamic sys._current_frames=dynamic sys.settrace=dynamic
sys.setprofile=dynamic sys.meta_path=dynamic sys.path_hooks=dynamic sys.path_importer_cache=dynamic
sys.breakpointhook=dynamic sys.remote_exec=exec sys.monitoring=dynamic sys.exit= sys.getsizeof=
pathlib.Path= pathlib.PosixPath= pathlib.WindowsPath= pathlib.PurePath= pathlib.PurePosixPath=
pathlib.PureWindowsPath= pathlib.Path.home= pathlib.Path.cwd=
io.open=read io.open_code=read io.FileIO=read io.StringIO= io.BytesIO= io.TextIOWrapper=
io.BufferedReader= io.BufferedWriter=
codecs.open=read gzip.open=read gzip.GzipFile=read bz2.open=read bz2.BZ2File=read lzma.open=read
lzma.LZMAFile=read tokenize.open=read linecache.getline=read linecache.getlines=read
linecache.updatecache=read filecmp.cmp=read filecmp.cmpfiles=read filecmp.dircmp=read
fileinput.input=read fileinput.FileInput=read glob.glob=read glob.iglob=read
configparser.ConfigParser=read configparser.RawConfigParser=read configparser.SafeConfigParser=read
netrc.netrc=read argparse.FileType=read
shutil.rmtree=delete shutil.move=delete,write shutil.copy=read,write shutil.copy2=read,write
shutil.copyfile=read,write shutil.copytree=read,write shutil.copymode=read,write
shutil.copystat=read,write shutil.copyfileobj= shutil.chown=write shutil.make_archive=write
shutil.unpack_archive=read,write shutil.disk_usage=read shutil.which= shutil.get_terminal_size=
shutil.ignore_patterns= shutil.get_archive_formats= shutil.get_unpack_formats= shutil.Error=
shutil.SameFileError=
tempfile.mkstemp=write tempfile.mkdtemp=write tempfile.NamedTemporaryFile=write tempfile.TemporaryFile=write
tempfile.SpooledTemporaryFile=write tempfile.TemporaryDirectory=write tempfile.mktemp=
zipfile.ZipFile=read zipfile.PyZipFile=read zipfile.is_zipfile=read tarfile.open=read tarfile.TarFile=read
tarfile.is_tarfile=read sqlite3.connect=write dbm.open=write dbm.dumb.open=write
shelve.open=write,dynamic shelve.Shelf=dynamic shelve.DbfilenameShelf=write,dynamic
pickle.load=dynamic pickle.loads=dynamic pickle.Unpickler=dynamic pickle.dump= marshal.load=dynamic
marshal.loads=dynamic copyreg.pickle=dynamic
types.FunctionType=dynamic types.CodeType=dynamic types.LambdaType=dynamic types.ModuleType=dynamic
types.FrameType=dynamic types.SimpleNamespace= operator.attrgetter=dynamic operator.methodcaller=dynamic
contextlib.chdir= logging.basicConfig= logging.FileHandler=write logging.getLogger=
logging.handlers.RotatingFileHandler=write logging.handlers.WatchedFileHandler=write
logging.handlers.TimedRotatingFileHandler=write logging.handlers.SocketHandler=unknown
logging.config.fileConfig=dynamic
xml.etree.ElementTree.parse=read xml.etree.ElementTree.iterparse=read xml.etree.ElementTree.ElementTree=write
xml.etree.cElementTree.parse=read xml.etree.cElementTree.iterparse=read
xml.etree.cElementTree.ElementTree=write xml.dom.minidom.parse=read xml.sax.parse=read
readline.write_history_file=write readline.append_history_file=write readline.read_history_file=read
readline.read_init_file=read signal.pthread_kill=exec signal.pidfd_send_signal=exec
signal.raise_signal=exec signal.signal= resource.prlimit=exec resource.setrlimit=
importlib.import_module=dynamic importlib.resources.read_text=read importlib.resources.read_binary=read
importlib.resources.open_text=read importlib.resources.open_binary=read importlib.resources.path=read
pkgutil.iter_modules= pkgutil.get_data=read pkgutil.walk_packages=dynamic
concurrent.futures.ProcessPoolExecutor=exec concurrent.futures.process=exec
concurrent.futures.ThreadPoolExecutor=
asyncio.create_subprocess_exec=exec asyncio.create_subprocess_shell=exec asyncio.subprocess=exec
asyncio.open_connection=network asyncio.start_server=network asyncio.open_unix_connection=network
asyncio.start_unix_server=network asyncio.run=
builtins.open=read builtins.setattr=dynamic builtins.delattr=dynamic builtins.vars=dynamic
builtins.globals=dynamic builtins.locals=dynamic builtins.breakpoint=dynamic
builtins.__build_class__=dynamic builtins.help=exec builtins.print=
"""
CALL_ROWS = [(q, set(e.split(",")) - {""}) for q, _, e in (t.partition("=") for t in CALLS.split())]


@pytest.mark.parametrize(("qual", "expected"), CALL_ROWS)
def test_each_call_rule(qual: str, expected: set[str]) -> None:
    mod, _, attr = qual.rpartition(".")
    if mod.startswith("pathlib.Path"):
        code = f"import pathlib; {qual}()"
    else:
        code = f"import {mod}\n{qual}('p')" if mod != "builtins" else f"{attr}('p')"
    assert effects(code) == expected, (code, python_effects(code))


@pytest.mark.parametrize("qual", ["os.remove", "shutil.rmtree", "os.system", "builtins.exec", "tempfile.mkstemp",
                                  "sqlite3.connect", "builtins.__import__", "builtins.getattr", "os.getenv",
                                  "logging.basicConfig", "fileinput.input", "os.open"])
def test_a_rule_counts_when_only_referred_to(qual: str) -> None:
    mod, _, attr = qual.rpartition(".")
    ref = attr if mod == "builtins" else qual
    code = (f"import {mod}\n" if mod != "builtins" else "") + f"callbacks = [{ref}]"
    assert effects(code), code


def test_builtins_module_import_is_dynamic() -> None:
    assert effects("import builtins") == {"dynamic"}


PURE_MODULES = words(
    "__future__ abc array ast base64 binascii bisect calendar cmath collections collections.abc "
    "colorsys contextvars copy csv dataclasses datetime decimal difflib dis email encodings enum "
    "errno fnmatch fractions functools getopt getpass gettext graphlib hashlib heapq hmac html "
    "html.entities html.parser ipaddress itertools json json.decoder json.encoder keyword locale "
    "math mimetypes numbers opcode optparse platform pprint pwd grp queue quopri random re reprlib "
    "sched secrets select selectors shlex stat statistics string stringprep struct sysconfig "
    "textwrap this threading time token tomllib traceback typing unicodedata urllib.error "
    "urllib.parse urllib.response uuid warnings weakref zlib zoneinfo xml xml.etree xml.dom "
    "xml.parsers xml.parsers.expat importlib.metadata plistlib email.utils email.mime.text "
    "encodings.idna importlib.metadata.x os os.path posixpath ntpath sys pathlib io codecs gzip "
    "bz2 lzma tokenize linecache filecmp fileinput glob configparser netrc argparse shutil "
    "tempfile zipfile tarfile sqlite3 dbm dbm.dumb shelve pickle marshal copyreg types operator "
    "contextlib logging logging.handlers logging.config xml.etree.ElementTree "
    "xml.etree.cElementTree xml.dom.minidom xml.sax readline signal resource importlib "
    "importlib.resources pkgutil concurrent concurrent.futures asyncio urllib http"
)


@pytest.mark.parametrize("mod", PURE_MODULES)
def test_importing_a_known_module_is_pure(mod: str) -> None:
    assert effects(f"import {mod}") == set()


IMPORT_EFFECTS = """
subprocess=exec pty=exec multiprocessing=exec ctypes=exec runpy=exec site=exec _posixsubprocess=exec
ensurepip=exec venv=exec inspect=dynamic gc=dynamic code=dynamic codeop=dynamic timeit=dynamic pdb=dynamic
bdb=dynamic cProfile=dynamic profile=dynamic trace=dynamic doctest=dynamic zipimport=dynamic imp=dynamic
importlib.util=dynamic importlib.machinery=dynamic importlib.abc=dynamic socket=network ssl=network
socketserver=network http.client=network http.server=network http.cookiejar=network urllib.request=network
urllib.robotparser=network ftplib=network smtplib=network poplib=network imaplib=network nntplib=network
telnetlib=network xmlrpc=network xmlrpc.client=network xmlrpc.server=network asynchat=network
asyncore=network requests=network httpx=network urllib3=network aiohttp=network webbrowser=network,exec
mmap=write compileall=write py_compile=write builtins=dynamic
"""


@pytest.mark.parametrize(("mod", "expected"), [(m, set(e.split(","))) for m, _, e in
                                               (t.partition("=") for t in IMPORT_EFFECTS.split())])
def test_importing_a_module_that_acts(mod: str, expected: set[str]) -> None:
    assert effects(f"import {mod}") == expected


PATH_METHODS = """
unlink=delete rmdir=delete write_text=write write_bytes=write touch=write mkdir=write chmod=write
lchmod=write symlink_to=read,write hardlink_to=read,write link_to=write rename=delete,write replace=delete,write
open=read read_text=read read_bytes=read iterdir=read glob=read rglob=read walk=read exists=read
is_file=read is_dir=read is_symlink=read is_mount=read stat=read lstat=read owner=read group=read
readlink=read samefile=read as_posix= is_absolute=
"""


@pytest.mark.parametrize(("name", "expected"), [(m, set(e.split(",")) - {""}) for m, _, e in
                                                (t.partition("=") for t in PATH_METHODS.split())])
def test_each_path_method(name: str, expected: set[str]) -> None:
    got = python_effects(f"from pathlib import Path; Path('p').{name}('q')")
    assert set(got.effects) == expected
    if expected and name != "link_to":
        assert "p" in (*got.reads, *got.writes)


ANY_METHODS = """
unlink=delete rmdir=delete rmtree=delete write_text=write write_bytes=write touch=write mkdir=write
makedirs=write chmod=write lchmod=write symlink_to=write hardlink_to=write link_to=write extractall=write
extract=write write=write writelines=write read_text=read read_bytes=read iterdir=read rglob=read glob=read
system=exec popen=exec execv=exec execve=exec execvp=exec execl=exec spawnv=exec posix_spawn=exec
startfile=exec check_output=exec check_call=exec subprocess_exec=exec subprocess_shell=exec
create_connection=network create_server=network create_unix_connection=network urlopen=network
create_datagram_endpoint=network rename=delete,write replace=delete,write open=read
upper= items= remove= append=
"""


@pytest.mark.parametrize(("name", "expected"), [(m, set(e.split(",")) - {""}) for m, _, e in
                                                (t.partition("=") for t in ANY_METHODS.split())])
def test_each_method_on_an_unknown_object(name: str, expected: set[str]) -> None:
    assert effects(f"def f(o):\n    o.{name}('t')") == expected


def test_replace_with_two_arguments_is_the_string_method() -> None:
    assert effects("def f(o):\n    o.replace('a', 'b')") == set()
    assert effects("def f(o):\n    o.open('a', 'w')") == {"write"}


SAFE_DUNDERS = words(
    "__name__ __qualname__ __doc__ __version__ __file__ __module__ __all__ __author__ __init__ "
    "__len__ __str__ __repr__ __enter__ __exit__ __aenter__ __aexit__ __iter__ __next__ __eq__ "
    "__ne__ __lt__ __le__ __gt__ __ge__ __hash__ __bool__ __contains__ __getitem__ __setitem__ "
    "__add__ __sub__ __mul__ __version_info__ __annotations__ __post_init__ __slots__"
)


@pytest.mark.parametrize("attr", SAFE_DUNDERS)
def test_harmless_dunders(attr: str) -> None:
    assert effects(f"def f(o):\n    return o.{attr}") == set()


FRAME_ATTRS = words(
    "f_globals f_locals f_builtins f_back f_code gi_frame gi_code cr_frame cr_code ag_frame ag_code "
    "tb_frame tb_next co_code func_globals func_code _Printer__filenames __dict__ __class__ "
    "__subclasses__ __globals__ __builtins__ __code__ __closure__ __mro__ __base__ __bases__ "
    "__self__ __func__ __reduce__ __getattribute__ __loader__ __spec__ __traceback__"
)


@pytest.mark.parametrize("attr", FRAME_ATTRS)
def test_attributes_that_reach_into_objects(attr: str) -> None:
    assert effects(f"def f(o):\n    return o.{attr}") == {"dynamic"}
    assert "dynamic" in effects(f"getattr(x, '{attr}')")


@pytest.mark.parametrize("flag", words(
    "O_RDONLY O_CLOEXEC O_NOFOLLOW O_DIRECTORY O_NONBLOCK O_BINARY O_NOCTTY "
    "O_NOATIME O_PATH O_NDELAY O_LARGEFILE O_TEXT"
))
def test_read_only_open_flags(flag: str) -> None:
    assert python_effects(f"import os; os.open('p', os.O_RDONLY | os.{flag})").effects == {"read"}


@pytest.mark.parametrize("name", words(
    "__file__ __name__ __doc__ __package__ __annotations__ __cached__ __path__ "
    "__debug__"
))
def test_module_globals_are_known(name: str) -> None:
    assert effects(f"print({name})") == set()


@pytest.mark.parametrize("name", ["exec", "eval", "compile"])
def test_code_in_a_literal_string_is_read(name: str) -> None:
    assert effects(f"{name}('1 + 1')") == set()
    assert effects(f"{name}('import os; os.system(1)')") == {"exec"}


# --------------------------------------------------------------------------- bounds

@pytest.mark.parametrize("code", [
    "(" * 10000, "[" * 10000 + "]" * 10000, "-" * 50000 + "1", "a" + ".b" * 5000, "x = " + "1 + " * 20000 + "1",
    "f" + "(" * 300 + ")" * 300, "x" * (64 * 1024 + 1), "a = b\nb = a\na()",
])
def test_pathological_code_is_bounded(code: str) -> None:
    got = python_effects(code)
    assert got.effects <= EFFECTS
    assert "could not analyse" not in " ".join(got.reasons)


def test_deep_attribute_chain_past_the_limit_is_not_trusted() -> None:
    assert effects("import os\n" + "os" + ".path" * 60 + ".x()") == {"dynamic"}


def test_too_many_nodes_is_unknown() -> None:
    assert effects("x = [" + "1, " * 25000 + "]") == {"unknown"}


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_never_raises_on_any_text(code: str) -> None:
    got = python_effects(code)
    assert got.effects <= EFFECTS
    assert "could not analyse" not in " ".join(got.reasons)


_names = st.sampled_from(["os", "x", "open", "exec", "getattr", "remove", "system", "Path", "f", "sys", "environ"])
_leaves = st.one_of(_names.map(lambda n: ast.Name(n, ast.Load())),
                    st.sampled_from(["w", "x", "os", "", "a/b"]).map(ast.Constant))
_exprs = st.recursive(_leaves, lambda inner: st.one_of(
    st.tuples(inner, _names).map(lambda t: ast.Attribute(t[0], t[1], ast.Load())),
    st.tuples(inner, st.lists(inner, max_size=3)).map(lambda t: ast.Call(t[0], t[1], [])),
    st.tuples(inner, inner).map(lambda t: ast.Subscript(t[0], t[1], ast.Load())),
    st.tuples(inner, inner).map(lambda t: ast.BinOp(t[0], ast.Add(), t[1])),
    st.tuples(inner, inner).map(lambda t: ast.BinOp(t[0], ast.Div(), t[1])),
    st.tuples(_names, inner).map(lambda t: ast.NamedExpr(ast.Name(t[0], ast.Store()), t[1])),
    inner.map(lambda e: ast.Lambda(ast.arguments([], [], None, [], [], None, []), e)),
), max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), _names), _exprs), min_size=1, max_size=6))
def test_never_raises_on_generated_programs(stmts: list[tuple[str | None, ast.expr]]) -> None:
    body: list[ast.stmt] = [ast.Import([ast.alias("os")])]
    for name, e in stmts:
        body.append(ast.Expr(e) if name is None else ast.Assign([ast.Name(name, ast.Store())], e))
    code = ast.unparse(ast.fix_missing_locations(ast.Module(body, [])))
    got = python_effects(code)
    assert got.effects <= EFFECTS
    assert "could not analyse" not in " ".join(got.reasons), code


# --------------------------------------------------------------------------- other languages

SCRIPTS = [
    # (lang, code, effects)
    ("node", "console.log(process.version)", ""),
    ("node", "console.log(JSON.stringify({a: 1, b: [1, 2]}))", ""),
    ("node", "console.log(process.versions.node, process.platform, process.arch)", ""),
    ("node", "console.log(process.env.HOME)", ""),
    ("node", "console.log(process.env['HOME'])", ""),
    ("node", "console.log(Math.max(1, 2) / 2, 10 % 3)", ""),
    ("node", "console.log(new Date().toISOString())", ""),
    ("node", "console.log('a b'.split(' ').map(x => x.toUpperCase()).join(','))", ""),
    ("node", "console.log(process.argv[2])", ""),
    ("node", "console.log(Buffer.from('x').toString('base64'))", ""),
    ("node", "console.log(process.env)", "env"),
    ("node", "console.log(JSON.stringify(process.env))", "env"),
    ("node", "console.log(Object.keys(process.env))", "env"),
    ("node", "require('child_process').execSync('id')", "unknown"),
    ("node", "require('fs').rmSync('x', {recursive: true})", "unknown"),
    ("node", "console.log(`${1}`)", "unknown"),
    ("node", "x = /\"/; require('child_process'); y = /\"/", "unknown"),
    ("node", "Math['constructor']['constructor']('return process')()", "unknown"),
    ("node", "console.log(Math[x])", "unknown"),
    ("node", "Function('return 1')()", "unknown"),
    ("node", "console.log(1) // require", "unknown"),
    ("node", "globalThis.process", "unknown"),
    ("node", "\\u0065val('1')", "unknown"),
    ("node", "process.mainModule.require('fs')", "unknown"),
    ("node", "console.log('x)", "unknown"),
    ("node", "const xs = [1, 2]; console.log(xs.map((a, b) => a + b))", ""),
    ("node", "let require = 1", "unknown"),
    ("node", "const f = x => x; f(1)", "unknown"),
    ("node", "console.log({system: 1})", ""),
    ("node", "console.log(1 ? system : 2)", "unknown"),
    ("node", "console.log(1 ? 2 : 3)", ""),
    ("js", "console.log(1)", ""), ("bun", "console.log(1)", ""), ("deno", "console.log(1)", ""),
    ("javascript", "console.log(1)", ""),
    ("perl", "print \"hello\\n\"", ""),
    ("perl", "print $]", ""),
    ("perl", "print $^V", ""),
    ("perl", "print $0", ""),
    ("perl", "printf('%d', 2 * 3); print '-' x 20", ""),
    ("perl", "print $ENV{HOME}", ""),
    ("perl", "print 1; # system('id')", ""),
    ("perl", "print 'system(1)'", ""),
    ("perl", "print scalar(@ARGV)", ""),
    ("perl", "print %ENV", "unknown"),
    ("perl", "print $ENV", "env"),
    ("perl", "system('rm -rf x')", "unknown"),
    ("perl", "print `id`", "unknown"),
    ("perl", "print qx(id)", "unknown"),
    ("perl", "print \"@{[ system('id') ]}\"", "unknown"),
    ("perl", "print \"${\\ system('id')}\"", "unknown"),
    ("perl", "print \"$h{x}\"", "unknown"),
    ("perl", "print \"$a[0]\"", "unknown"),
    ("perl", "print $main'x; system('id'); '", "unknown"),
    ("perl", "print $#ARGV; system('id')", "unknown"),
    ("perl", "print <STDIN>", "unknown"),
    ("perl", "print &{'sys'}", "unknown"),
    ("perl", "print <<EOF", "unknown"),
    ("perl", "unlink 'x'", "unknown"),
    ("perl", "open(F, '>x')", "unknown"),
    ("perl", "print ?x?", "unknown"),
    ("perl", "print 6 / 2", ""),
    ("perl", "print 1 /x/", "unknown"),
    ("ruby", "puts RUBY_VERSION", ""),
    ("ruby", "puts [1, 2, 3].sum", ""),
    ("ruby", "puts ENV['HOME']", ""),
    ("ruby", "puts ENV.fetch('HOME')", "env"),
    ("ruby", "puts [1, 2].map { |x| x * 2 }", ""),
    ("ruby", "puts [1, 2][0]", ""),
    ("ruby", "puts [1, 2][x]", "unknown"),
    ("lua", "local x = 2; print(x * 3)", ""),
    ("r", "x <- c(1, 2); print(sum(x))", ""),
    ("ruby", "puts ENV", "env"),
    ("ruby", "puts ENV.to_h", "unknown"),
    ("ruby", "puts 'a' # system('id')", ""),
    ("ruby", "puts \"#{`id`}\"", "unknown"),
    ("ruby", "puts \"#@x\"", "unknown"),
    ("ruby", "puts \"#$x\"", "unknown"),
    ("ruby", "puts %x(id)", "unknown"),
    ("ruby", "x = ?'; system('id'); y = ?'", "unknown"),
    ("ruby", "system('id')", "unknown"),
    ("ruby", "File.delete('x')", "unknown"),
    ("ruby", "puts $stdout", ""),
    ("ruby", "puts 10 % 3", ""),
    ("php", "echo PHP_VERSION;", ""),
    ("php", "echo json_encode([1, 2]);", ""),
    ("php", "echo getenv('HOME');", ""),
    ("php", "echo getenv();", "env"),
    ("php", "print_r($_ENV);", "env"),
    ("php", "echo $_SERVER['HOME'];", ""),
    ("php", "echo \"{$x}\";", "unknown"),
    ("php", "echo \"${x}\";", "unknown"),
    ("php", "echo \"$x->y\";", "unknown"),
    ("php", "echo \"$x[0]\";", "unknown"),
    ("php", "$f = 'system'; $f('id');", "unknown"),
    ("php", "('sys' . 'tem')('id');", "unknown"),
    ("php", "'system'('id');", "unknown"),
    ("php", "$a[0]('id');", "unknown"),
    ("php", "echo $GLOBALS;", "unknown"),
    ("php", "#[A] system('id');", "unknown"),
    ("php", "echo 1 ?> <?php system('id');", "unknown"),
    ("php", "system('id');", "unknown"),
    ("lua", "print(_VERSION)", ""),
    ("lua", "print(string.format('%d', 1 + 2))", ""),
    ("lua", "print(os.getenv('HOME'))", ""),
    ("lua", "print(os.time())", ""),
    ("lua", "io.write('x')", ""),
    ("lua", "print(1) -- os.execute('id')", ""),
    ("lua", "os.execute('id')", "unknown"),
    ("lua", "print(os.getenv)", "env"),
    ("r", "print(R.version.string)", ""),
    ("r", "cat(sum(1:10))", ""),
    ("r", "print(Sys.getenv('HOME'))", ""),
    ("r", "print(Sys.getenv())", "env"),
    ("r", "cat(1) # system('id')", ""),
    ("r", "system('id')", "unknown"),
    ("r", "`system`('id')", "unknown"),
    ("r", "print(R.version$major)", "unknown"),
    ("r", "?print", "unknown"),
    ("Rscript", "cat(1)", ""),
    ("julia", "println(VERSION)", ""),
    ("julia", "println(\"$x\")", ""),
    ("julia", "println(ENV[\"HOME\"])", ""),
    ("julia", "println(ENV)", "env"),
    ("julia", "println(\"$(run(`id`))\")", "unknown"),
    ("julia", "run(`id`)", "unknown"),
    ("julia", "x = [1 2]'; run(Cmd([\"id\"])); y = [3]'", "unknown"),
    ("julia", "println(1 > 0 ? 1 : 2)", ""),
    ("julia", "println(1) # run(x)", ""),
    ("node", "let x; console.log(x)", ""),
    ("node", "const x; console.log(x)", ""),
    ("node", "var x; console.log(x)", ""),
    ("lua", "local x; print(x)", ""),
    ("cobol", "DISPLAY 'x'", "unknown"),
    ("node", "x" * (64 * 1024 + 1), "unknown"),
]


@pytest.mark.parametrize(("lang", "code", "expected"), SCRIPTS)
def test_scripts(lang: str, code: str, expected: str) -> None:
    got = script_effects(lang, code)
    assert set(got.effects) == set(expected.split()), got
    assert bool(got.reasons) == bool(got.effects)


@pytest.mark.parametrize(("lang", "names"), [
    ("node", ("console log error info warn debug JSON stringify parse process version versions platform arch "
             "argv exit pid node v8 uv openssl release name Math max min floor ceil round abs sqrt pow "
             "random PI E trunc sign Number String Boolean parseInt parseFloat isNaN Date now toISOString "
             "getTime getFullYear toString toFixed length toUpperCase toLowerCase trim split join slice "
             "padStart padEnd repeat includes startsWith endsWith indexOf concat reverse sort map filter "
             "reduce Object keys values entries Buffer from byteLength let const var null undefined true "
             "false new typeof NaN Infinity MAX_SAFE_INTEGER")),
    ("perl", ("print say printf sprintf join length uc lc ucfirst lcfirst reverse sort scalar abs int sqrt my "
             "STDOUT STDERR x eq ne lt gt le ge and or not cmp time localtime gmtime")),
    ("ruby", ("puts print p pp printf format RUBY_VERSION RUBY_PLATFORM RUBY_RELEASE_DATE RUBY_PATCHLEVEL to_s "
             "to_i to_f upcase downcase capitalize length size sum max min sort reverse join map inspect "
             "round abs times ARGV fetch nil true false do end Time now Integer Float String Math sqrt PI")),
    ("php", ("echo print printf sprintf print_r var_dump var_export json_encode PHP_VERSION PHP_OS PHP_EOL "
            "PHP_INT_MAX PHP_OS_FAMILY PHP_MAJOR_VERSION PHP_MINOR_VERSION phpversion strtoupper strtolower "
            "strlen str_repeat implode explode count array date time round floor ceil abs max min sqrt pow "
            "intval floatval number_format ucfirst trim str_pad substr true false null")),
    ("lua", ("print string format rep upper lower len sub tostring tonumber math floor ceil max min sqrt abs "
            "pi huge random _VERSION os date time clock io write stdout table concat unpack select type "
            "local nil true false and or not")),
    ("r", ("print cat paste paste0 sprintf format sum mean median max min length nchar toupper tolower c seq "
          "rep round sqrt abs R version string Sys time Date TRUE FALSE NULL NA Inf")),
    ("julia", ("println print VERSION string sum length uppercase lowercase join repeat sqrt abs round max min "
              "collect Int Float64 typeof nothing true false Sys KERNEL ARCH")),
])
def test_each_print_only_word(lang: str, names: str) -> None:
    for word in names.split():
        if lang == "ruby" and word == "fetch":
            continue   # fetch is read only after ENV, where it is tested
        assert script_effects(lang, f"{word} ( {word} , 1 )").effects == set(), word


AWK = [
    ("{print $1}", "", (), ()),
    ("{ print $1, $NF }", "", (), ()),
    ("{sum+=$3} END {print sum}", "", (), ()),
    ("NR==2", "", (), ()),
    ("/error|warn/ {print}", "", (), ()),
    ("$1 ~ /a|b/ { n++ } END { printf \"%d\\n\", n }", "", (), ()),
    ("length($0) > 80", "", (), ()),
    ("{ if ($3 > 5) print $1 }", "", (), ()),
    ("{ print ($1 > 2) }", "", (), ()),
    ("{ x = $1 / 2; print x }", "", (), ()),
    ("{ print \"a|b > c\" }", "", (), ()),
    ("# print > \"x\"\n{print}", "", (), ()),
    ("{ print $1 || $2 }", "", (), ()),
    ("{ print /a|b/ }", "", (), ()),
    ("{ printf /a|b/ }", "", (), ()),
    ("function f() { return /a|b/ }", "", (), ()),
    ("BEGIN { x = 1 in /a|b/ }", "", (), ()),
    ("{ switch ($1) { case /a|b/: print } }", "", (), ()),
    ("{ getline; print }", "", (), ()),
    ("BEGIN { print ENVIRON[\"HOME\"] }", "", (), ()),
    ("{print > \"out.txt\"}", "write", (), ("out.txt",)),
    ("{print >> \"out.txt\"}", "write", (), ("out.txt",)),
    ("{printf \"%s\", $1 > \"o\"}", "write", (), ("o",)),
    ("{print > $1}", "write", (), ()),
    ("{print > \"out\" NR \".txt\"}", "write", (), ()),
    ("{print > \"/dev/stderr\"}", "write", (), ("/dev/stderr",)),
    ("BEGIN{system(\"rm -rf x\")}", "exec", (), ()),
    ("{print | \"sh\"}", "exec", (), ()),
    ("BEGIN { \"date\" | getline d; print d }", "exec", (), ()),
    ("BEGIN { print |& \"cat\" }", "exec", (), ()),
    ("BEGIN { print |& \"/inet/tcp/0/h/80\" }", "exec network", (), ()),
    ("BEGIN { print > \"/inet/tcp/0/h/80\" }", "network", (), ()),
    ("BEGIN { getline l < \"/etc/passwd\"; print l }", "read", ("/etc/passwd",), ()),
    ("BEGIN { getline l < f }", "read", (), ()),
    ("BEGIN { for (k in ENVIRON) print k, ENVIRON[k] }", "env", (), ()),
    ("BEGIN { ARGV[1] = \"/etc/shadow\"; ARGC = 2 }", "read", (), ()),
    ("@load \"x\"", "unknown", (), ()),
    ("{ print \"x }", "unknown", (), ()),
    ("{ print /x }", "unknown", (), ()),
]


@pytest.mark.parametrize(("code", "expected", "reads", "writes"), AWK)
def test_awk(code: str, expected: str, reads: tuple[str, ...], writes: tuple[str, ...]) -> None:
    for name in ("awk", "gawk", "mawk", "nawk"):
        got = script_effects(name, code)
        assert set(got.effects) == set(expected.split()), got
        assert got.reads == reads and got.writes == writes, got


# --------------------------------------------------------------------------- the module itself

def test_importing_the_reader_loads_no_parser_and_nothing_else_of_handrail() -> None:
    # the shell package comes first (the reader lives in it); then only the reader's own modules
    out = subprocess.run([sys.executable, "-c", ("import sys, handrail.policy.shell; before = set(sys.modules)\n"
                          "from handrail.policy.shell import inline\n"
                          "new = set(sys.modules) - before\n"
                          "print('ast' in sys.modules, sorted(m for m in new if m.startswith('handrail.')))\n"
                          "inline.script_effects('awk', '{ print }'); print('ast' in sys.modules)\n"
                          "inline.python_effects('pass'); print('ast' in sys.modules)")],
                         capture_output=True, text=True, check=True)
    own = sorted(f"handrail.policy.shell.{m}" for m in
                 ("inline", "codefx", "pycode", "pytables", "pyvalues", "scriptcode", "awkcode"))
    assert out.stdout.split("\n")[:3] == [f"False {own}", "False", "True"]


@pytest.mark.parametrize("name", words("require process module exports globalThis global eval Function import Deno "
                                       "Bun system exec open ENV os io Sys"))
def test_a_script_cannot_rename_the_real_thing(name: str) -> None:
    assert script_effects("node", f"let {name} = 1; console.log({name})").effects == {"unknown"}
