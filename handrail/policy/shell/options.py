"""Options that change what a reading program does: they write a file, run a program, or change
the system. A read-only pattern (`tar -tf *`, `git diff *`, `sort *`) admits whatever options
follow; this table, taken from each program's manual, is what keeps a `--to-command=` or an
`--output=` from riding along silently.

Each entry: option (a long option matches itself, `--opt=…` and git's unambiguous prefixes; a
short one matches alone or at the head of a cluster) -> (tier, what it does). Tier 2 marks a
local write (then judged as any write is), tier 3 running code or changing the system.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx, Finding
    from handrail.policy.shell.parts import Part

_W = (2, "writes files")
_X = (3, "runs a program of its choosing")
_S = (3, "changes the system")
_C = (3, "reads its options from a file of its choosing, and they can send files or run a program")
_M = (3, "deletes the files it packs")
# Go's flag package takes `-flag` and `--flag` alike.
_GO = {f: _X for o in ("exec", "toolexec", "vettool") for f in (f"-{o}", f"--{o}")}

# program (or "program subcommand") -> {option: (tier, effect)}
DANGEROUS: dict[str, dict[str, tuple[int, str]]] = {
    "tar": {"--to-command": _X, "--checkpoint-action": _X, "--use-compress-program": _X, "-I": _X,
            "--info-script": _X, "--new-volume-script": _X, "-F": _X, "--rsh-command": _X, "--rmt-command": _X,
            "--index-file": _W, "-x": _W, "--extract": _W, "--get": _W, "-c": _W, "--create": _W, "-r": _W,
            "--append": _W, "-u": _W, "--update": _W, "-A": _W, "--catenate": _W, "--delete": _W},
    "unzip": {"-d": _W, "-o": _W},
    "zip": {"-TT": _X, "--unzip-command": _X, "-m": _M, "--move": _M},
    "sort": {"-o": _W, "--output": _W, "--compress-program": _X},
    "rg": {"--pre": _X, "--hostname-bin": _X},
    "bat": {"--pager": _X}, "ack": {"--pager": _X}, "ag": {"--pager": _X},
    "curl": {"-K": _C, "--config": _C}, "wget": {"-e": _C, "--execute": _C},
    "npm": {"--script-shell": _X}, "go": _GO,
    "kubectl": {"--kubeconfig": (3, "runs the credential programs of a kubeconfig of its choosing")},
    "helm": {"--post-renderer": _X, "--kubeconfig": _X},
    "pylint": {"--init-hook": _X, "--load-plugins": _X, "--output": _W},
    "eslint": {"--fix": _W, "--output-file": _W, "-o": _W, "--rulesdir": _X, "--plugin": _X, "-c": _X,
               "--config": _X, "--resolve-plugins-relative-to": _X},
    "jest": {"-c": _X, "--config": _X}, "nox": {"-f": _X, "--noxfile": _X},
    "pytest": {"--basetemp": (3, "deletes and recreates the folder it is given"), "--junitxml": _W,
               "--junit-xml": _W, "--resultlog": _W, "--report-log": _W, "--html": _W},
    "flake8": {"--output-file": _W}, "bandit": {"-o": _W, "--output": _W},
    "mypy": {"--install-types": (2, "installs packages"), "--junit-xml": _W, "--html-report": _W, "--txt-report": _W,
             "--linecount-report": _W, "--xml-report": _W, "--cobertura-xml-report": _W},
    "cargo": {"--target-dir": _W},
    "fd": {"-x": _X, "--exec": _X, "-X": _X, "--exec-batch": _X},
    "find": {"-fprint": _W, "-fprint0": _W, "-fprintf": _W, "-fls": _W},
    "less": {"-o": _W, "-O": _W, "--log-file": _W, "--LOG-FILE": _W},
    "tree": {"-o": _W},
    "yq": {"-i": _W, "--inplace": _W},
    "date": {"-s": _S, "--set": _S},
    "hostname": {"-F": _S, "--file": _S, "-b": _S, "--boot": _S},
    "man": {"-P": _X, "--pager": _X, "-H": _X, "--html": _X},
    "file": {"-C": _W, "--compile": _W},
    "git diff": {"--output": _W, "--ext-diff": _X},
    "git log": {"--output": _W, "--ext-diff": _X},
    "git show": {"--output": _W, "--ext-diff": _X},
    "git grep": {"-O": _X, "--open-files-in-pager": _X},
    "git blame": {"--contents": (2, "reads another file")},
    "ruff check": {"--fix": _W, "--unsafe-fixes": _W, "--add-noqa": _W, "--output-file": _W, "-o": _W},
    "golangci-lint run": {"--fix": _W},
    "stylelint": {"--fix": _W, "--output-file": _W, "-o": _W},
    "cargo clippy": {"--fix": _W, "--target-dir": _W},
    "markdownlint": {"--fix": _W, "-f": _W},
    "rubocop": {"-a": _W, "-A": _W, "--autocorrect": _W, "--autocorrect-all": _W},
    "shellcheck": {},
    "helm template": {"--output-dir": _W, "--post-renderer": _X, "--kubeconfig": _X},
}
_SUBCOMMANDS = frozenset(k.split(" ", 1)[0] for k in DANGEROUS if " " in k)


def check_options(part: Part, ctx: Ctx) -> list[Finding]:
    words = part.words
    if not words:
        return []
    table = DANGEROUS.get(part.name)
    start = 1
    if part.name in _SUBCOMMANDS:
        sub = next((i for i, w in enumerate(words[1:], 1) if not w.text.startswith("-")), None)
        if sub is not None and f"{part.name} {words[sub].text}" in DANGEROUS:
            table, start = DANGEROUS[f"{part.name} {words[sub].text}"], sub + 1
    out: list[Finding] = _pager_commands(part)
    if not table:
        return out
    for w in words[start:]:
        t = w.text
        if t == "--":
            break
        hit = _lookup(table, t, prefixes=part.name == "git")
        if hit is not None:
            tier, what = hit
            rule = "option-effect"
            out.append((tier, rule, f"{part.name} {t.split('=', 1)[0]} {what}"))
    return out


# `less +CMD` runs CMD as if typed at start: `!` and `|` run a shell, `s` saves, `v` edits,
# `:e` opens another file. Only moving about and searching (`+G`, `+42`, `+/text`) are known.
_PAGER_MOVES = re.compile(r"\+\+?(?:\d*[gG%p]?|F|[/?&][^\n\r]*)")
PAGERS = frozenset({"less", "more", "most"})


def _pager_commands(part: Part) -> list[Finding]:
    if part.name not in PAGERS:
        return []
    for w in part.words[1:]:
        if w.text == "--":
            break
        if w.text.startswith("+") and (w.dyn or not _PAGER_MOVES.fullmatch(w.text)):
            return [(3, "option-effect", f"{part.name} {w.text[:20]!r} runs pager commands at start, "
                                         "and they can run a shell or write a file")]
    return []


def _lookup(table: dict[str, tuple[int, str]], t: str, *, prefixes: bool) -> tuple[int, str] | None:
    if not t.startswith("-") or t == "-":
        return None
    if t.startswith("--"):
        name = t.split("=", 1)[0]
        if name in table:
            return table[name]
        if prefixes and len(name) >= 4:
            return next((v for k, v in table.items() if k.startswith("--") and k.startswith(name)), None)
        return None
    if t in table:
        return table[t]
    if "=" in t and t.split("=", 1)[0] in table:
        return table[t.split("=", 1)[0]]  # Go's `-toolexec=prog`
    # a cluster of short options: `-xzf`, `-Ibzip2`
    for i, c in enumerate(t[1:], 1):
        if f"-{c}" in table:
            return table[f"-{c}"]
        if not c.isalpha():
            break
        if i > 8:
            break
    return None
