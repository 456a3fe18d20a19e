"""Rule 5's finder: private keys and well-known tokens in bytes, where they hide.

Read as is, and with NULs taken out (text saved as UTF-16 or UTF-32); unwrapped where
the bytes carry a wrapper that hides them from a plain search: every gzip member (the
second and later of a multi-member file, and one after leading bytes too), the members
of a tar (plain or gzipped), base64 of a PEM or of a gzip member. All unwrapping of one
blob shares one budget of UNWRAP_LIMIT bytes, so a large or hostile archive costs at
most that much; what lies beyond it is out of reach, as are other encodings (zip, bz2,
base64 of a bare token, escapes) and a token split by concatenation.

A private key's body without its BEGIN line is found by its DER structure (derkeys.py):
PKCS#1 RSA and SEC1 EC by their fixed starts, PKCS#8 (OpenSSL 3's default form, for
every algorithm) by the shape of a PrivateKeyInfo.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from handrail.policy import derkeys, wrappers

# A private key's header followed by key material, however the lines around it are
# dressed: indented (a YAML block scalar), commented (`# `, `// `, `; `), quoted line by
# line (`'-----BEGIN … KEY-----'` as string literals), on a new line or after a literal
# `\n` (a key flattened into a JSON or .env string), with any spacing in `PRIVATE  KEY`.
# The material is required, and looks like base64 of a key, so that code and docs that
# merely name the header (or build a PEM from a variable) are not taken for keys.
_JUNK = rb"(?:[ \t'\"`#;/,()\[\]]|\r?\n|\\r|\\n)"
_MATERIAL = rb"(?=[A-Za-z]*[0-9+/]|MI|b3Bl)[A-Za-z0-9+/=]{16,}"  # a digit, `+`, `/`, or DER's or OpenSSH's start
# A key's body without its BEGIN line: base64 of the DER a private key starts with (a
# SEQUENCE holding version 0 or 1: PKCS#1 RSA, SEC1 EC, Ed25519) or OpenSSH's
# `openssh-key-v1` magic. A certificate (SEQUENCE of SEQUENCE, `MII…CCA`), a PNG
# (`iVBORw0KGgo`) or an integrity hash has none of these starts. PKCS#8 is told by
# its structure instead (derkeys.py), which holds for every algorithm it names.
_KEY_BODY = (rb"(?:b3BlbnNzaC1rZXktdjE|MII[A-Za-z0-9+/]{3}IBAA|MI[GH][A-Za-z0-9+/]AgEBB|"
             rb"M[A-Za-z0-9+/]{2}CAQEE|MC4CAQAwBQYDK2Vw|MFECAQEwBQYDK2Vw)[A-Za-z0-9+/]{24,}")
SECRET_PATTERNS: tuple[tuple[str, bytes], ...] = (
    ("private key", rb"-----BEGIN[ A-Z0-9]*PRIVATE +KEY(?: BLOCK)?-----" + _JUNK + rb"{1,40}"
     + rb"(?:[A-Za-z0-9-]+: [^\r\n\\]*" + _JUNK + rb"{1,40})*" + _MATERIAL),
    ("private key body", _KEY_BODY),
    ("Anthropic API key", rb"sk-ant-[A-Za-z0-9_-]{20,}"),
    ("OpenAI project key", rb"sk-proj-[A-Za-z0-9_-]{20,}"),
    ("GitHub token", rb"gh[pousr]_[A-Za-z0-9]{36,}"),
    ("GitHub fine-grained token", rb"github_pat_[A-Za-z0-9_]{22,}"),
    ("AWS access key id", rb"(?:AKIA|ASIA)[0-9A-Z]{16}"),
    ("Slack token", rb"xox[bpa]-[A-Za-z0-9-]{10,}"),
)
KEY_BODY = "private key body"
_SECRETS = re.compile(b"|".join(b"(?P<s%d>(?<![A-Za-z0-9_])%s)" % (i, rx)
                                for i, (_n, rx) in enumerate(SECRET_PATTERNS)))

# Every pattern's fixed start, in one regex: most blobs hold none of them, and this
# search is far cheaper than the full one with its look-behind at every position.
_SECRET_HINT = re.compile(rb"PRIVATE|sk-(?:ant|proj)-|gh[pousr]_|github_pat_|A[KS]IA|xox[bpa]-|b3BlbnNzaC1rZXkt"
                          rb"|M(?:II[A-Za-z0-9+/]{3}IBAA|I[GH][A-Za-z0-9+/]AgEBB|[A-Za-z0-9+/]{2}CAQEE|C4CAQAw|FECAQEw)"
                          rb"|" + derkeys.PKCS8_HINT)

# Base64 of a PEM (`-----BEGIN` at its start) or of a gzip member (`H4sI`).
_WRAPPED_HINT = re.compile(rb"LS0tLS1CRUdJT|H4sI")
_BASE64_RUN = re.compile(rb"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40,}(?:(?:\r?\n|\\n)?[A-Za-z0-9+/]{4,})*={0,2}")
GZIP = b"\x1f\x8b\x08"
_ANY_HINT = re.compile(_SECRET_HINT.pattern + b"|" + _WRAPPED_HINT.pattern)
UNWRAP_LIMIT = 1 << 20
_DEPTH = 4                 # wrappers inside wrappers (base64 of a gzip of a tar of a gzip)
_GZIP_TRIES = 64           # gzip magics tried in one blob: random bytes hold one per 16 MB


class SecretHit(NamedTuple):
    kind: str
    line: int
    preview: str


class _Found(NamedTuple):
    kind: str
    line: int
    preview: str
    via: tuple[str, ...]   # the wrappers it was found inside, outermost first


class _Budget:
    """Bytes of unwrapped content left for one blob, across every wrapper in it."""

    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = UNWRAP_LIMIT


def find_secrets(data: bytes) -> list[SecretHit]:
    """Every secret in `data`, with its line and a preview that does not reveal it."""
    return [SecretHit(f"{f.kind} ({', '.join(f.via)})" if f.via else f.kind, f.line, f.preview)
            for f in _scan(data, _Budget(), 0)]


def _scan(data: bytes, budget: _Budget, depth: int) -> list[_Found]:
    if b"\0" not in data and _ANY_HINT.search(data) is None and GZIP not in data:
        return []  # one scan for most blobs
    hits = _direct(data)
    if depth >= _DEPTH:
        return hits
    if GZIP in data:
        hits += _from_gzip(data, budget, depth)
    if not hits and wrappers.is_tar(data):  # a tar holds its members as they are: read as is, most are found
        hits = _from_tar(data, budget, depth)
    if not hits:
        hits = _from_base64(data, budget, depth)
    return hits


def _direct(data: bytes) -> list[_Found]:
    if b"\0" in data:
        return _find(data) or _find(data.replace(b"\0", b""))
    hint = _ANY_HINT.search(data)
    return [] if hint is None else _find(data, hint.start())


def _from_gzip(data: bytes, budget: _Budget, depth: int) -> list[_Found]:
    """Each gzip member in `data`, wherever it starts, read through the same finder."""
    hits: list[_Found] = []
    at = data.find(GZIP)
    tries = 0
    while at >= 0 and budget.left > 0 and tries < _GZIP_TRIES:
        tries += 1
        inner, used = wrappers.gunzip(memoryview(data)[at:], budget.left)
        budget.left -= len(inner)
        line = data.count(b"\n", 0, at) + 1
        for f in _scan(inner, budget, depth + 1):
            # A file that is one gzip member shows its content's lines; one inside other bytes, where it starts.
            hits.append(f._replace(line=f.line if at == 0 and depth == 0 else line, via=("gzip", *f.via)))
        at = data.find(GZIP, at + max(used, 1))
    return hits


def _from_tar(data: bytes, budget: _Budget, depth: int) -> list[_Found]:
    hits: list[_Found] = []
    # A member's name is in the tar's own bytes, which _direct reads.
    for content in wrappers.tar_members(data, budget.left):
        budget.left -= len(content)
        hits += [f._replace(line=1, via=("tar", *f.via)) for f in _scan(content, budget, depth + 1)]
    return hits


def _from_base64(data: bytes, budget: _Budget, depth: int) -> list[_Found]:
    if _WRAPPED_HINT.search(data) is None:
        return []
    import binascii

    hits: list[_Found] = []
    for m in _BASE64_RUN.finditer(data):
        if budget.left <= 0:
            break
        run = m.group(0)
        if _WRAPPED_HINT.search(run, 0, 24) is None:
            continue
        budget.left -= len(run)
        try:
            text = run.replace(b"\\n", b"").replace(b"\r", b"").replace(b"\n", b"")
            decoded = binascii.a2b_base64(text[:UNWRAP_LIMIT])
        except (binascii.Error, ValueError):
            continue
        line = data.count(b"\n", 0, m.start()) + 1
        for f in _scan(decoded, budget, depth + 1):
            hits.append(f._replace(line=line, via=("base64", *f.via)))
    return hits


def _find(data: bytes, start: int = 0) -> list[_Found]:
    hint = _SECRET_HINT.search(data, start)
    if hint is None:
        return []
    hits = []
    spans = []
    # No match starts before the first hint's line: the hint is every pattern's start or
    # lies on a private key's header line.
    first = data.rfind(b"\n", 0, hint.start()) + 1
    for m in _SECRETS.finditer(data, first):
        index = int(m.lastgroup[1:])  # type: ignore[index]
        text = m.group(0).decode("ascii", "replace")
        hits.append(_Found(SECRET_PATTERNS[index][0], data.count(b"\n", 0, m.start()) + 1, preview(text), ()))
        spans.append(m.span())
    for at in derkeys.pkcs8_bodies(data, first):
        if not any(a <= at < b for a, b in spans):  # a PEM's first line of material, or a body matched above
            hits.append(_Found(KEY_BODY, data.count(b"\n", 0, at) + 1,
                               preview(data[at:at + 8].decode("ascii", "replace")), ()))
    return hits


def preview(text: str) -> str:
    """Enough of a secret to find it, not enough to use it."""
    return " ".join(text.split("-----")[1].split())[:40] if text.startswith("-----") else text[:8] + "…"


def in_name(name: str) -> tuple[list[SecretHit], str]:
    """The tokens in a name (a path, an author's name or address), and the name with each
    one cut down to its preview, fit to print where the name itself would leak it."""
    data = name.encode("utf-8", "surrogateescape")
    if _SECRET_HINT.search(data) is None:
        return [], name
    hits: list[SecretHit] = []
    shown = name
    for m in _SECRETS.finditer(data):
        text = m.group(0).decode("utf-8", "surrogateescape")
        hits.append(SecretHit(SECRET_PATTERNS[int(m.lastgroup[1:])][0], 1, preview(text)))  # type: ignore[index]
        shown = shown.replace(text, preview(text))
    return hits, shown
