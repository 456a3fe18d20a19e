"""Code handed to interpreters and databases, disks, and hook-skipping variables."""

from __future__ import annotations

from handrail.policy.shell.common import (
    _HOOKS_PATH,
    DISK_TOOLS,
    SHELL_WRITES_HOOKS,
    Ctx,
    rx,
)
from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.unwrap import Part

    Finding = tuple[int, str, str]


# --------------------------------------------------------------------------- code given to interpreters


def _inline_code(part: Part) -> tuple[str, list[tuple[str, bool]], bool]:
    """(language, [(code, built at run time)], reads code from stdin)."""
    name = part.name
    words = part.words
    codes: list[tuple[str, bool]] = []
    n = len(words)
    i = 1
    if name == "python":
        while i < n:
            t = words[i].text
            if t == "-":
                return "python", codes, True
            if t in ("-m",) or (not t.startswith("-")):
                return "python", codes, False
            if t in ("-W", "-X", "--check-hash-based-pycs"):
                i += 2
                continue
            if not t.startswith("--") and "c" in t[1:]:
                at = t.index("c", 1)
                if at + 1 < len(t):
                    codes.append((t[at + 1 :], words[i].dyn))
                elif i + 1 < n:
                    codes.append((words[i + 1].text, words[i + 1].dyn))
                return "python", codes, False
            if not t.startswith("--") and "m" in t[1:]:
                return "python", codes, False
            i += 1
        return "python", codes, True
    if name in ("node", "bun", "deno"):
        if name == "deno" and n > 1:
            if words[1].text == "eval" and n > 2:
                return "js", [(words[2].text, words[2].dyn)], False
            return "js", codes, False
        while i < n:
            t = words[i].text
            if t in ("-e", "--eval", "-p", "--print") and i + 1 < n:
                codes.append((words[i + 1].text, words[i + 1].dyn))
                i += 2
                continue
            if t.startswith(("--eval=", "--print=")):
                codes.append((t.split("=", 1)[1], words[i].dyn))
            elif t == "-":
                return "js", codes, True
            elif t in ("-r", "--require", "--import", "--loader"):
                i += 2
                continue
            elif not t.startswith("-"):
                return "js", codes, False
            i += 1
        return "js", codes, not codes and name == "node"
    if name in ("perl", "ruby", "php"):
        flag = {"perl": "eE", "ruby": "e", "php": "rR"}[name]
        while i < n:
            t = words[i].text
            if t.startswith("-") and not t.startswith("--") and len(t) > 1:
                hit = next((j for j in range(1, len(t)) if t[j] in flag), None)
                if hit is not None:
                    if hit + 1 < len(t):
                        codes.append((t[hit + 1 :], words[i].dyn))
                    elif i + 1 < n:
                        codes.append((words[i + 1].text, words[i + 1].dyn))
                        i += 1
                elif t[1] in "IMrdl" and len(t) == 2 and name != "php":
                    i += 1
                i += 1
                continue
            if t == "--":
                i += 1
            break
        return name, codes, not codes and i >= n
    if name in ("awk", "gawk", "mawk", "nawk"):
        while i < n:
            t = words[i].text
            if t in ("-f", "--file"):
                return "awk", codes, False
            if t in ("-v", "-F", "--assign", "--field-separator"):
                i += 2
                continue
            if t.startswith("-") and len(t) > 1:
                i += 1
                continue
            codes.append((t, words[i].dyn))
            break
        return "awk", codes, False
    return "", codes, False


_RISK = {"python": "_PY_RISK", "js": "_JS_RISK", "perl": "_PERL_RISK", "ruby": "_RUBY_RISK", "php": "_PHP_RISK",
         "awk": "_AWK_RISK"}
INTERPRETERS = frozenset({"python", "node", "bun", "deno", "perl", "ruby", "php", "awk", "gawk", "mawk", "nawk"})


def check_code(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    lang, codes, from_stdin = _inline_code(part)
    if not lang:
        return []
    label = part.name
    if from_stdin:
        if part.feed == "download":
            return [(3, "download-to-shell", f"{label} runs code downloaded from the network")] \
                if ctx.enabled("download-to-shell") else []
        if part.feed in ("pipe", "heredoc", "herestring"):
            if part.stdin_text is None:
                return [(3, "dynamic", f"{label} runs code only known at run time ({part.feed})")]
            codes.append((part.stdin_text, False))
    if part.script_text is not None:
        codes.append((part.script_text, False))
    if part.name == "deno" and len(part.words) > 2 and part.words[1].text == "run" and \
            any(w.text.startswith(("http://", "https://")) for w in part.words[2:]):
        return [(3, "download-to-shell", "deno run executes code from the network")]
    risk = rx(_RISK[lang])
    for code, dyn in codes:
        if dyn:
            return [(3, "dynamic", f"{label} runs code built at run time")]
        if risk.search(code):
            return [(3, "dynamic", f"{label} code runs shell commands or deletes files")]
    return []


def check_sql(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    texts: list[str] = []
    words = part.words
    name = part.name
    value_opts = {"psql": ("-c", "--command"), "mysql": ("-e", "--execute"), "mariadb": ("-e", "--execute"),
                  "clickhouse-client": ("-q", "--query"), "duckdb": ("-c",), "mongosh": ("--eval",),
                  "mongo": ("--eval",), "cockroach": ("-e", "--execute")}.get(name, ())
    for i, w in enumerate(words[1:], 1):
        t = w.text
        if t in value_opts and i + 1 < len(words):
            texts.append(words[i + 1].text)
        elif any(t.startswith(o + "=") for o in value_opts if o.startswith("--")):
            texts.append(t.split("=", 1)[1])
        elif len(t) > 2 and t[:2] in value_opts:
            texts.append(t[2:])
    if name == "sqlite3":
        ops = [w.text for w in words[1:] if not w.text.startswith("-")]
        texts += ops[1:]
    if name == "redis-cli":
        if any(w.text.lower() in ("flushall", "flushdb") for w in words[1:]):
            return [(3, "sql-destroy", "redis-cli FLUSHALL/FLUSHDB deletes every key")]
    if part.stdin_text:
        texts.append(part.stdin_text)
    risk = rx("_MONGO_RISK") if name in ("mongosh", "mongo") else rx("_SQL_RISK")
    for t in texts:
        m = risk.search(t)
        if m:
            return [(3, "sql-destroy", f"{name} runs '{' '.join(m.group().split())}', which destroys data")]
    return []


def check_disk(part: Part, toks: list[str], ctx: Ctx) -> list[Finding]:
    name = part.name
    if name.split(".", 1)[0] in DISK_TOOLS or name == "diskutil" and any(
            w.text.lower().startswith(("erase", "partition", "zero", "randomdisk", "secureerase"))
            for w in part.words[1:]):
        return [(3, "disk-write", f"{name} writes a disk or a file system")]
    return []


def check_assigns(part: Part, ctx: Ctx) -> list[Finding]:
    for name, w in _assignments(part):
        low = name.lower()
        if low not in SHELL_WRITES_HOOKS and not low.startswith("git_config_key_"):
            continue
        value = w.text.split("=", 1)[1] if "=" in w.text else ""
        if low == "skip" and value:
            return [(3, "git-safety-net", f"SKIP={value} makes the pre-commit framework skip hooks")]
        if low in ("husky", "lefthook") and value in ("0", "false"):
            return [(3, "git-safety-net", f"{name}=0 switches off the git hooks")]
        if low in ("husky_skip_hooks", "lefthook_exclude") and value:
            return [(3, "git-safety-net", f"{name} skips git hooks")]
        if (low == "git_config_parameters" or low.startswith("git_config_key_")) and _HOOKS_PATH in value.lower():
            return [(3, "git-safety-net", f"{name} sets core.hooksPath, which switches the git hooks")]
    return []


def _assignments(part: Part) -> list[tuple[str, Word]]:
    found = list(part.assigns)
    if part.name in ("export", "declare", "typeset", "local", "readonly"):
        for w in part.words[1:]:
            if "=" in w.text and not w.text.startswith("-"):
                found.append((w.text.split("=", 1)[0], w))
    return found
