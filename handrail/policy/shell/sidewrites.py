"""Files a command writes or removes beside its plain operands: where curl and wget save (`-sLo f`),
and what a compressor replaces (`gzip f` removes f and writes f.gz)."""

from __future__ import annotations

from handrail.policy.shell.common import operands
from handrail.policy.shell.syntax import Word

# Short options of curl and wget that take a value: in a cluster (`-sLo f`) they end it.
_DOWNLOAD_VALUES = frozenset("dHXuAebcFTKxwmrECDYyzaiUPQtkBe")


def download_files(words: list[Word], letter: str) -> list[Word]:
    """Where curl's `-o` or wget's `-O` saves: `-o f`, `-of`, `-sLo f`, `-sof`, `--output f`, `--output=f`."""
    out: list[Word] = []
    for i, w in enumerate(words[1:], 1):
        t = w.text
        value: Word | None = None
        if t in ("--output", "--output-document") and i + 1 < len(words):
            value = words[i + 1]
        elif t.startswith(("--output=", "--output-document=")):
            value = Word(t.split("=", 1)[1], w.raw)
        elif t[:1] == "-" and t[1:2] not in ("-", "") and not w.dyn:
            for j, c in enumerate(t[1:], 1):
                if c == letter:
                    value = Word(t[j + 1:], w.raw) if j + 1 < len(t) else words[i + 1] if i + 1 < len(words) else None
                    break
                if c in _DOWNLOAD_VALUES:
                    break
        if value is not None and value.text != "-":
            out.append(value)
    return out


# Compressors replace each FILE by FILE.gz (or the reverse): FILE is removed, FILE.gz written,
# unless they write to stdout or keep the original.
COMPRESSORS = {"gzip": ".gz", "gunzip": ".gz", "bzip2": ".bz2", "bunzip2": ".bz2", "xz": ".xz", "unxz": ".xz",
                "lzma": ".lzma", "zstd": ".zst", "unzstd": ".zst", "lz4": ".lz4", "pigz": ".gz", "compress": ".Z"}
_COMPRESS_VALUES = frozenset({"-S", "--suffix", "-T", "--threads", "-M", "--memlimit", "-o", "--format", "-F"})


_XXD_VALUES = frozenset({"-c", "-g", "-l", "-s", "-o", "-C", "-n", "-cols", "-groupsize", "-len", "-seek", "-name",
                         "-offset"})


def compressed(name: str, words: list[Word]) -> tuple[list[Word], list[Word]]:
    """(written, removed) by a compressor, or by `xxd IN OUT` (OUT is written)."""
    if name == "xxd":
        return operands(words, _XXD_VALUES, "cglsoCn")[1:2], []
    texts = [w.text for w in words[1:]]
    short = "".join(t[1:] for t in texts if t[:1] == "-" and t[1:2] != "-")
    if set(short) & set("ctl") or any(t in ("--stdout", "--to-stdout", "--test", "--list") for t in texts):
        return [], []
    # a name known only at run time is left to the other rules, as before compressors were read here
    # (`for f in *.log; do gzip "$f"; done`)
    ops = [w for w in operands(words, _COMPRESS_VALUES) if not w.dyn]
    if name == "zstd" or name == "lz4":
        out = next((words[i + 1] for i, w in enumerate(words[:-1]) if w.text == "-o"), None)
        if out is not None or (name == "lz4" and len(ops) == 2):  # `lz4 IN OUT`, `zstd IN -o OUT`
            return [out or ops[1]], []
    suffix = COMPRESSORS[name]
    unpack = name.startswith("un") or name == "gunzip" or "d" in short or "--decompress" in texts
    new = [(w.text[: -len(suffix)] if w.text.endswith(suffix) else w.text) if unpack else w.text + suffix
           for w in ops]
    written = [Word(t, t) for t in new]
    # zstd and lz4 keep the original unless told to remove it
    keeps = "k" in short or "--keep" in texts or (name in ("zstd", "unzstd", "lz4") and "--rm" not in texts)
    return written, [] if keeps else ops
