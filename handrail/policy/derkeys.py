"""A PKCS#8 private key's body told by its structure, whatever algorithm it names.

A PrivateKeyInfo (RFC 5208; OneAsymmetricKey, RFC 5958) is
SEQUENCE { INTEGER 0 or 1, SEQUENCE { OBJECT IDENTIFIER, … }, OCTET STRING, … }, and
OpenSSL 3 writes every new key in it (`openssl genrsa`, `genpkey`), so a body whose
BEGIN line was cut off starts with RSA's `MIIE…`, EC's `MIGHAgEA…` or Ed25519's `MC4C…`
depending on algorithm and length. The fixed bytes a SEQUENCE, the version and the next
SEQUENCE put in the base64 at each of the three length forms are the hint; the DER they
start, decoded, must then hold that whole shape. A certificate (SEQUENCE of SEQUENCE),
a public key (SEQUENCE of SEQUENCE, then BIT STRING), PKCS#7 (an OID first) and PKCS#12
(version 3) have other shapes, and ordinary base64 does not decode to this one.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterator

# 30 82 LL LL 02 01 0v 30, 30 81 LL 02 01 0v 30 and 30 LL 02 01 0v 30 in base64.
PKCS8_HINT = rb"MI[IJKL][A-Za-z0-9+/]{2}[AQgw]IBA[DT]|MI[GH][A-Za-z0-9+/]AgE[AB]M|M[A-H][A-Za-z0-9+/]CAQ[AE]w"
_BODY = re.compile(rb"(?<![A-Za-z0-9+/])(?:" + PKCS8_HINT + rb")[A-Za-z0-9+/]{24,}"
                   rb"(?:(?:\r?\n|\\n)[ \t'\"#;/]*[A-Za-z0-9+/]{4,}){0,2}")
_JUNK = re.compile(rb"[^A-Za-z0-9+/]+")
_READ = 128                      # base64 characters decoded: the algorithm identifier lies well within


def pkcs8_bodies(data: bytes, start: int = 0) -> Iterator[int]:
    """Where each PKCS#8 body in `data` starts."""
    for m in _BODY.finditer(data, start):
        text = _JUNK.sub(b"", m.group(0))[:_READ]
        try:
            der = binascii.a2b_base64(text[: len(text) // 4 * 4])
        except (binascii.Error, ValueError):
            continue
        if is_private_key_info(der):
            yield m.start()


def _header(der: bytes, at: int, tag: int) -> tuple[int, int] | None:
    """(length, where the content starts) of the DER element at `at`, if it has `tag`."""
    if at + 2 > len(der) or der[at] != tag:
        return None
    first = der[at + 1]
    if first < 0x80:
        return first, at + 2
    n = first - 0x80
    if n not in (1, 2) or at + 2 + n > len(der):
        return None
    return int.from_bytes(der[at + 2:at + 2 + n], "big"), at + 2 + n


def is_private_key_info(der: bytes) -> bool:
    """`der` starts a PrivateKeyInfo; it may be cut off after the algorithm identifier."""
    outer = _header(der, 0, 0x30)
    if outer is None:
        return False
    size, at = outer
    if der[at:at + 3] not in (b"\x02\x01\x00", b"\x02\x01\x01"):
        return False
    alg = _header(der, at + 3, 0x30)
    if alg is None:
        return False
    alg_len, alg_at = alg
    oid = _header(der, alg_at, 0x06)
    if oid is None:
        return False
    oid_len, oid_at = oid
    oid_bytes = der[oid_at:oid_at + oid_len]
    if not 3 <= oid_len <= 32 or oid_at + oid_len > alg_at + alg_len or len(oid_bytes) < oid_len:
        return False
    if oid_bytes[-1] & 0x80:  # an identifier's last arc ends with a byte below 0x80
        return False
    after = alg_at + alg_len
    if after + 2 > at + size:
        return False  # no room left for the key itself
    return after >= len(der) or der[after] == 0x04
