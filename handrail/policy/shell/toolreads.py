"""Which operands jq, yq and openssl read, as their own manuals describe their command lines.

jq's first operand is the filter, not a file (jq(1): `jq [options] filter [files...]`), unless
`-f/--from-file` names a filter file; `--arg`/`--argjson` take a name and a value, `--slurpfile`
and `--rawfile` a name and a FILE they read; after `--args`/`--jsonargs` the operands are
values. yq (mikefarah's `yq [eval|e|eval-all|ea] [expression] [files...]`, and the Python yq that
wraps jq) reads the same way, except that a lone operand naming an existing file is read as the
file (mikefarah yq then evaluates `.`). A filter that loads files (`import`, `include`, yq's
`load*`) reads the paths it spells.

openssl is read by subcommand: `x509`, `req`, `crl` print certificates, requests and revocation
lists, and `verify` prints OK or an error (openssl-x509(1), -req, -crl, -verify): their inputs
(`-in`, the certificates to verify, `-CAfile`, `-untrusted`, `-CRLfile`) are public material.
Their other file options (`-key`, `-signkey`, `-CAkey`, `-passin file:…`) and every other
subcommand (`rsa`, `pkey`, `asn1parse`, `enc`, `dgst`, …, which print or process the file's
bytes) are left to the generic rule: every word that looks like a path may be read.

`reads` answers None when a word could not be placed (an option these manuals do not name):
the caller then counts every path-like word, as for a program it has no table for.
"""

from __future__ import annotations

import re

from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# Options that take no value / one value / a name and a value / a name and a FILE read.
_JQ_FLAGS = frozenset({"--null-input", "--raw-input", "--slurp", "--compact-output", "--raw-output",
                       "--raw-output0", "--join-output", "--ascii-output", "--sort-keys", "--color-output",
                       "--monochrome-output", "--tab", "--stream", "--stream-errors", "--seq", "--exit-status",
                       "--unbuffered", "--help", "--version", "--build-configuration", "--debug-dump-disasm",
                       "--debug-trace", "--debug-trace=all"})
_JQ_ONE = frozenset({"--indent", "--library-path"})
_JQ_PAIR = frozenset({"--arg", "--argjson"})
_JQ_PAIR_FILE = frozenset({"--slurpfile", "--rawfile"})
_JQ_SHORT_FLAGS = "nrjasSCMechV0"
_JQ_SHORT_ONE = "L"

# yq: mikefarah's flags and the extra ones of the Python yq. Where the two disagree (`-s` is
# slurp or split-exp, `-f` front-matter or from-file) the reading that counts more files is kept.
_YQ_FLAGS = _JQ_FLAGS | frozenset({
    "--colors", "--no-colors", "--inplace", "--in-place", "--no-doc", "--nul-output", "--prettyPrint",
    "--unwrapScalar", "--verbose", "--header-preprocess", "--csv-auto-parse", "--tsv-auto-parse", "--lua-globals",
    "--lua-unquoted", "--xml-keep-namespace", "--xml-raw-token", "--xml-skip-directives", "--xml-skip-proc-inst",
    "--xml-strict-mode", "--security-disable-env-ops", "--security-disable-file-ops",
    "--properties-array-brackets", "--string-interpolation", "--yaml-output", "--yml-output", "--yaml-roundtrip",
    "--indentless-lists", "--indentless", "--explicit-start", "--explicit-end", "--xml-output", "--toml-output"})
_YQ_ONE = _JQ_ONE | frozenset({
    "--csv-separator", "--front-matter", "--input-format", "--output-format", "--split-exp", "--lua-prefix",
    "--lua-suffix", "--properties-separator", "--xml-attribute-prefix", "--xml-content-name",
    "--xml-directive-name", "--xml-proc-inst-prefix", "--shell-key-separator", "--yaml-output-grammar-version",
    "--width", "--xml-root", "--xml-item-depth", "--xml-force-list", "--xml-dtd"})
_YQ_ONE_FILE = frozenset({"--from-file", "--split-exp-file"})
_YQ_SHORT_FLAGS = _JQ_SHORT_FLAGS + "iNPvyYxts"
_YQ_SHORT_ONE = "LIopw"
_YQ_COMMANDS = frozenset({"eval", "e", "eval-all", "ea"})
# Filter functions that open a file named in the filter text.
_LOADS = re.compile(r"\b(?:import|include|load(?:_[a-z0-9]+)?)\b")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')

# openssl subcommands whose output is public (certificates, requests, CRLs, a verdict), and the
# options through which they read that public input.
_PUBLIC_INPUT = {"x509": ("-in", "-CA", "-CAfile"), "req": ("-in",), "crl": ("-in", "-CAfile"),
                 "verify": ("-CAfile", "-untrusted", "-CRLfile", "-trusted")}


def _literal(w: Word, text: str) -> Word:
    v = Word(text, text)
    v.dyn = w.dyn
    return v


def _filter_files(w: Word, jq: bool) -> list[Word]:
    """The files a filter text opens: the strings it hands to import, include or load."""
    if not _LOADS.search(w.text):
        return []
    out = []
    for s in _STRING.findall(w.text):
        out.append(_literal(w, s))
        if jq:  # jq appends the suffix: `import "a" as $a;` opens a.json, `include "a";` a.jq
            out += [_literal(w, s + ".json"), _literal(w, s + ".jq")]
    return out


def _jq_like(name: str, words: list[Word], cwd: str | None) -> list[Word] | None:
    yq = name == "yq"
    flags, one = (_YQ_FLAGS, _YQ_ONE) if yq else (_JQ_FLAGS, _JQ_ONE)
    short_flags, short_one = (_YQ_SHORT_FLAGS, _YQ_SHORT_ONE) if yq else (_JQ_SHORT_FLAGS, _JQ_SHORT_ONE)
    read: list[Word] = []
    ops: list[Word] = []  # the filter, then the files (after --args only the filter)
    values = False
    from_file = expression_given = False
    i, n = 1, len(words)
    while i < n:
        w = words[i]
        t = w.text
        if (w.dyn and t.startswith("-")) or w.wild:
            return None  # an option, or several words, known only at run time
        if t == "--":
            ops += [x for x in words[i + 1:] if not values]
            break
        if t.startswith("--"):
            opt, eq, _val = t.partition("=")
            if opt in _JQ_PAIR or opt in _JQ_PAIR_FILE:
                if opt in _JQ_PAIR_FILE and i + 2 < n:
                    read.append(words[i + 2])
                i += 3
                continue
            if opt in ("--args", "--jsonargs"):
                values = True
            elif (opt in _YQ_ONE_FILE and yq) or opt == "--from-file":
                from_file = True
                if eq:
                    read.append(_literal(w, _val))
                elif yq and i + 1 < n:
                    read.append(words[i + 1])
                    i += 1
            elif opt == "--expression" and yq:
                expression_given = True
                if not eq and i + 1 < n:
                    read += _filter_files(words[i + 1], False)
                    i += 1
            elif opt in one and not eq:
                i += 1
            elif opt not in flags and opt not in one:
                return None
            i += 1
            continue
        if len(t) > 1 and t.startswith("-"):
            for j, c in enumerate(t[1:], 1):
                if c == "f":
                    from_file = True
                    if yq and j == len(t) - 1 and i + 1 < n:  # mikefarah's -f takes a value
                        read.append(words[i + 1])
                        i += 1
                    break
                if c in short_one:
                    if j == len(t) - 1:
                        i += 1
                    break
                if c not in short_flags:
                    return None
            i += 1
            continue
        if not values or not ops:
            ops.append(w)
        i += 1
    if yq and ops and ops[0].text in _YQ_COMMANDS and not ops[0].quoted:
        ops = ops[1:]
    if from_file or expression_given:
        return read + ops
    if not ops:
        return read
    expr, files = ops[0], ops[1:]
    if yq and not files and (expr.dyn or (cwd is not None and _exists(cwd, expr.text))):
        files = [expr]  # `yq file.yaml`: a lone operand that names a file is the file
    return read + _filter_files(expr, not yq) + files


def _exists(cwd: str, path: str) -> bool:
    import os

    return os.path.isfile(os.path.join(cwd, os.path.expanduser(path)))


def _openssl(words: list[Word], generic: Callable[[list[Word]], list[Word]]) -> list[Word]:
    sub = words[1].text.lstrip("-") if len(words) > 1 else ""
    # `-passin file:pw.txt`: a password read from a file (openssl-passphrase-options(1))
    passwords = [_literal(w, w.text[5:]) for w in words if w.text.startswith("file:")]
    public = _PUBLIC_INPUT.get(sub)
    if public is None:
        return passwords + generic(words)
    if sub == "verify":
        return passwords  # it prints OK or why not: what it checks are certificates
    kept: list[Word] = []
    skip = False
    for w in words:
        if skip:
            skip = False
        elif w.text.startswith("-") and "-" + w.text.lstrip("-") in public and not w.dyn:
            skip = True  # the option and its value: a certificate, a request, a CRL
        else:
            kept.append(w)
    return passwords + generic(kept)


KNOWN = frozenset({"jq", "yq", "openssl"})


def reads(name: str, words: list[Word], cwd: str | None,
          generic: Callable[[list[Word]], list[Word]]) -> list[Word]:
    """The words of `words` (argv) that name a file jq, yq or openssl reads. `generic`: the
    path-like words of an argv, for what these manuals leave open."""
    if name == "openssl":
        return _openssl(words, generic)
    found = _jq_like(name, words, cwd)
    return generic(words) if found is None else found
