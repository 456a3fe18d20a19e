"""The wrappers rule 5 reads through: gzip members and tar members, each bounded."""

from __future__ import annotations

import zlib


def gunzip(data: bytes | memoryview, limit: int) -> tuple[bytes, int]:
    """The content of the gzip member `data` starts with (at most `limit` bytes), and
    how many bytes of `data` the member took (0 where it did not end within the limit,
    or is no gzip member)."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = d.decompress(data, max(limit, 1))
    except zlib.error:
        return b"", 0
    return out, (len(data) - len(d.unused_data) if d.eof else 0)


def is_tar(data: bytes) -> bool:
    """A POSIX or GNU tar: its first header's magic (`ustar`) where tar puts it."""
    return len(data) >= 512 and data[257:262] == b"ustar"


def tar_members(data: bytes, limit: int) -> list[bytes]:
    """The content of each regular file in the tar `data`, at most `limit` bytes in all;
    what a damaged or cut-off archive holds before the damage."""
    import io
    import tarfile

    out: list[bytes] = []
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
            for member in tar:
                if limit <= 0:
                    break
                if not member.isfile():
                    continue
                f = tar.extractfile(member)
                if f is None:
                    continue
                content = f.read(limit)
                limit -= len(content)
                out.append(content)
    except (tarfile.TarError, EOFError, OSError, ValueError):
        pass  # keep what was read: the rest cannot be read as a tar
    return out
