"""`handrail ci` counts every line a pull request adds and finds secrets where they hide: behind a
NUL byte or bare `\\r` line ends, as a key body without its BEGIN line, in archives, in names."""

from __future__ import annotations

import base64
import gzip
import io
import json
import random
import shutil
import struct
import subprocess
import sys
import tarfile
import zlib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from cikit import CONTRACT, TRAILER, Repo

TOKEN = "ghp_" + "Q7w" * 12  # a GitHub token's shape, made up
SEEDED = random.Random(17)   # the same bytes on every run


def capped(project: Repo, limit: int) -> None:
    project.git("switch", "-q", "main")
    project.commit("cap the login task", files={
        ".handrail/tasks/login/harness-contract.json": json.dumps({**CONTRACT, "governor": {"max_diff_lines": limit}})})
    project.git("push", "-q", "origin", "main")
    project.git("switch", "-q", "-C", "feature", "main")


def add(project: Repo, files: dict[str, bytes], message: str = "add", *trailers: str,
        env: dict[str, str] | None = None) -> str:
    for rel, data in files.items():
        (project.path / rel).parent.mkdir(parents=True, exist_ok=True)
        (project.path / rel).write_bytes(data)
    project.git("add", "-f", "--", *files)
    project.git("commit", "-q", "-m", "\n\n".join([message, *trailers]), env=env)
    return project.head()


def governed(data: dict[str, object], commit: str) -> list[str]:
    return [f["message"] for f in data["findings"]  # type: ignore[attr-defined]
            if f["rule"] == "governor" and f["commit"] == commit]


def code_lines(n: int, end: str = "\n") -> bytes:
    return end.join(f"x{i} = {i}" for i in range(n)).encode() + end.encode()


# ----------------------------------------------------------------------------- the budget


@pytest.mark.parametrize("shape", ["nul in front", "bare cr line ends"])
def test_a_nul_byte_or_bare_cr_line_ends_count_every_line(project: Repo, shape: str) -> None:
    capped(project, 50)
    data = b"\0" + code_lines(300) if shape == "nul in front" else code_lines(300, "\r")
    oid = add(project, {"src/big.py": data}, "big", TRAILER)
    report = project.report("--base", "main", code=1)
    assert governed(report, oid) == ["the commit changes 300 lines (+300 -0), more than task 'login' allows (50)"]


def test_packed_binary_content_counts_by_its_size(project: Repo) -> None:
    capped(project, 400)
    packed = SEEDED.randbytes(40_000).translate(bytes.maketrans(b"\n\r", b"xx"))  # no line ends at all
    oid = add(project, {"src/blob.bin": b"\0" + packed}, "a blob", TRAILER)
    [message] = governed(project.report("--base", "main", code=1), oid)
    assert "changes 501 lines (+501 -0)" in message  # 40,001 bytes on one line, 80 to a line


def test_small_commits_of_binary_lines_add_up_over_the_pull_request(project: Repo) -> None:
    capped(project, 100)
    for i in range(4):
        add(project, {f"src/part{i}.py": b"\0" + code_lines(40)}, f"part {i}", TRAILER)
    report = project.report("--base", "main", code=1)
    assert [f["message"].split(") ", 1)[1] for f in report["findings"]] == [
        "changes 160 lines (+160 -0), more than task 'login' allows (100)"]


def test_a_line_added_to_a_binary_file_counts_as_that_line(project: Repo) -> None:
    project.git("switch", "-q", "main")
    add(project, {"src/table.dat": b"\0" + code_lines(200)}, "the table")
    capped(project, 5)
    add(project, {"src/table.dat": b"\0" + code_lines(201)}, "one more row", TRAILER)
    assert project.report("--base", "main", code=0)["findings"] == []


# ----------------------------------------------------------------------------- secrets


def openssl(*args: str) -> bytes:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: it makes the keys these tests hide")
    return subprocess.run(["openssl", *args], check=True, capture_output=True).stdout


def headless(pem: bytes) -> bytes:
    return b"".join(line for line in pem.splitlines(keepends=True) if b"BEGIN" not in line)


def tar_gz(name: str, data: bytes) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def test_hidden_keys_and_tokens_are_found(project: Repo) -> None:
    token = f"{TOKEN}\n".encode()
    shapes = {
        "tests/rsa2048.txt": headless(openssl("genrsa", "2048")),
        "tests/rsa4096.txt": headless(openssl("genrsa", "4096")),
        "tests/ec.txt": headless(openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256")),
        "tests/ed25519.txt": headless(openssl("genpkey", "-algorithm", "ed25519")),
        "tests/key.yml": b"key: |\n" + b"".join(b"  " + line for line in
                                               headless(openssl("genrsa", "2048")).splitlines(keepends=True)),
        "tests/t.tgz": tar_gz("t.txt", token),
        "tests/utf16.tgz": tar_gz("t.txt", TOKEN.encode("utf-16-le")),
        "tests/second.gz": gzip.compress(b"hi\n") + gzip.compress(token),
        "tests/junk.gz": b"JUNK" + gzip.compress(token),
        "tests/nested.tgz": tar_gz("inner.gz", gzip.compress(token)),
    }
    add(project, shapes, "test data", TRAILER)
    report = project.report("--base", "main", code=1)
    assert {f["path"] for f in report["findings"] if f["rule"] == "secret"} == set(shapes)
    assert TOKEN not in json.dumps(report)


def png(rng: random.Random) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    rows = b"".join(b"\0" + rng.randbytes(3 * 64) for _ in range(64))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 64, 64, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def woff(rng: random.Random) -> bytes:
    table = zlib.compress(rng.randbytes(20_000))
    head = struct.pack(">4sIIHHIHHIIIII", b"wOFF", 0x00010000, 44 + 20 + len(table), 1, 0, 20_044, 1, 0,
                       0, 0, 0, 0, 0)
    entry = struct.pack(">4sIIII", b"glyf", 64, len(table), 20_000, 0)
    return head + entry + table


def test_images_fonts_and_random_base64_stay_clean(project: Repo) -> None:
    rng = random.Random(5)
    cert = openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "/dev/null", "-subj", "/CN=x",
                   "-days", "1")
    public = subprocess.run(["openssl", "pkey", "-pubout"], input=openssl("genrsa", "2048"), check=True,
                            capture_output=True).stdout
    files = {
        "src/logo.png": png(rng),
        "src/font.woff": woff(rng),
        "src/noise.bin": rng.randbytes(300_000),
        "src/noise.b64": base64.encodebytes(rng.randbytes(300_000)),
        "src/noise.txt": b"\n".join(base64.b64encode(rng.randbytes(rng.randrange(30, 3000))) for _ in range(300)),
        "src/cert.txt": b"".join(line for line in cert.splitlines(keepends=True) if b"-----" not in line),
        "src/public.txt": b"".join(line for line in public.splitlines(keepends=True) if b"-----" not in line),
        "src/assets.tgz": tar_gz("logo.png", png(rng)),
    }
    add(project, files, "assets")
    assert project.report("--base", "main", code=0)["findings"] == []


# ----------------------------------------------------------------------------- names


def test_a_token_in_a_file_name_is_a_secret_and_is_not_printed(project: Repo) -> None:
    oid = add(project, {f"tests/{TOKEN}": b"x\n"}, "fixture", TRAILER)
    report = project.report("--base", "main", code=1)
    [finding] = [f for f in report["findings"] if f["rule"] == "secret"]
    assert finding["commit"] == oid and "file name" in finding["message"] and "GitHub token" in finding["message"]
    assert TOKEN not in project.ci("--base", "main").stdout + json.dumps(report)


@pytest.mark.parametrize("role", ["AUTHOR_NAME", "AUTHOR_EMAIL", "COMMITTER_NAME", "COMMITTER_EMAIL"])
def test_a_token_in_who_made_a_commit_is_a_secret(project: Repo, role: str) -> None:
    value = TOKEN if role.endswith("NAME") else f"{TOKEN}@example.com"
    oid = add(project, {"src/a.py": b"a\n"}, "change", env={f"GIT_{role}": value})
    report = project.report("--base", "main", code=1)
    [finding] = report["findings"]
    assert (finding["rule"], finding["commit"]) == ("secret", oid)
    assert f"the {role.split('_')[0].lower()} of commit {oid[:7]} carries a GitHub token" in finding["message"]
    assert TOKEN not in json.dumps(report)
