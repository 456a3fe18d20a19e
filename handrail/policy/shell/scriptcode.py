"""Code for other interpreters (node, perl, ruby, php, lua, R, julia): pure only when print-only.

awk is read in full (awkcode.py).
"""

from __future__ import annotations

from typing import NamedTuple

from handrail.policy.shell.awkcode import _awk
from handrail.policy.shell.codefx import MAX_CODE, PURE, CodeEffects, _unknown

_LANGS = {"node": "node", "js": "node", "javascript": "node", "bun": "node", "deno": "node",
          "perl": "perl", "ruby": "ruby", "php": "php", "lua": "lua", "r": "r", "rscript": "r",
          "julia": "julia", "awk": "awk", "gawk": "awk", "mawk": "awk", "nawk": "awk"}

# The words print-only code may use. A word not here makes the code "unknown": these
# languages reach files and programs through names (require, open, system, `...`), and
# naming is all a tokenizer can see.
_SCRIPT_WORDS: dict[str, frozenset[str]] = {lang: frozenset(words.split()) for lang, words in {
    "node": "console log error info warn debug JSON stringify parse process version versions platform arch "
            "argv exit pid node v8 uv openssl release name Math max min floor ceil round abs sqrt pow "
            "random PI E trunc sign Number String Boolean parseInt parseFloat isNaN Date now toISOString "
            "getTime getFullYear toString toFixed length toUpperCase toLowerCase trim split join slice "
            "padStart padEnd repeat includes startsWith endsWith indexOf concat reverse sort map filter "
            "reduce Object keys values entries Buffer from byteLength let const var null undefined true "
            "false new typeof NaN Infinity MAX_SAFE_INTEGER",
    "perl": "print say printf sprintf join length uc lc ucfirst lcfirst reverse sort scalar abs int sqrt my "
            "STDOUT STDERR x eq ne lt gt le ge and or not cmp time localtime gmtime",
    "ruby": "puts print p pp printf format RUBY_VERSION RUBY_PLATFORM RUBY_RELEASE_DATE RUBY_PATCHLEVEL to_s "
            "to_i to_f upcase downcase capitalize length size sum max min sort reverse join map inspect "
            "round abs times ARGV fetch nil true false do end Time now Integer Float String Math sqrt PI",
    "php": "echo print printf sprintf print_r var_dump var_export json_encode PHP_VERSION PHP_OS PHP_EOL "
           "PHP_INT_MAX PHP_OS_FAMILY PHP_MAJOR_VERSION PHP_MINOR_VERSION phpversion strtoupper strtolower "
           "strlen str_repeat implode explode count array date time round floor ceil abs max min sqrt pow "
           "intval floatval number_format ucfirst trim str_pad substr true false null",
    "lua": "print string format rep upper lower len sub tostring tonumber math floor ceil max min sqrt abs "
           "pi huge random _VERSION os date time clock io write stdout table concat unpack select type "
           "local nil true false and or not",
    "r": "print cat paste paste0 sprintf format sum mean median max min length nchar toupper tolower c seq "
         "rep round sqrt abs R version string Sys time Date TRUE FALSE NULL NA Inf",
    "julia": "println print VERSION string sum length uppercase lowercase join repeat sqrt abs round max min "
             "collect Int Float64 typeof nothing true false Sys KERNEL ARCH",
}.items()}

# names that hold the environment, and the continuations that read only one variable
# ("[" literal "]", "." name, "(" literal ")", "{" name "}")
_ENV_NAMES: dict[str, dict[tuple[str, ...], str]] = {
    "node": {("process", ".", "env"): "[."}, "ruby": {("ENV",): "["}, "perl": {("$ENV",): "{"},
    "php": {("getenv",): "(", ("$_ENV",): "[", ("$_SERVER",): "["}, "lua": {("os", ".", "getenv"): "("},
    "r": {("Sys", ".", "getenv"): "("}, "julia": {("ENV",): "["},
}
_COMMENTS = {"perl": "#", "ruby": "#", "r": "#", "julia": "#", "lua": "--"}
_QUOTES = {"node": "'\"", "perl": "'\"", "ruby": "'\"", "php": "'\"", "lua": "'\"", "r": "'\"",
           "julia": "'\""}
# what inside a double-quoted string runs code: "@{[ system(...) ]}", "#{...}", "{$x->f()}"
_INTERPOLATION = {"perl": ("@", "${", "{", "["), "ruby": ("#{", "#@", "#$"), "php": ("{", "${", "->", "["),
                  "julia": ("$(",)}
_PUNCT = set("()[]{},;.+-*=!<>&|:^~")


class _Tok(NamedTuple):
    kind: str      # word, var, num, str, op
    text: str
    joined: bool   # no space before it: `a[0]` is a subscript, `a [0]` an argument


# names a script may not give to its own variables: they would stand for the real thing
_RESERVED = frozenset({"require", "process", "module", "exports", "globalThis", "global", "eval", "Function",
                       "import", "Deno", "Bun", "system", "exec", "open", "ENV", "os", "io", "Sys"})
_DECLARERS = frozenset({"let", "const", "var", "local"})


def script_effects(lang: str, code: str) -> CodeEffects:
    """What code for another interpreter would do: pure only when trivially print-only."""
    name = _LANGS.get(lang.lower())
    if name is None:
        return _unknown(f"{lang} code, which handrail does not read")
    if len(code) > MAX_CODE:
        return _unknown(f"{name} code longer than 64 KiB")
    if name == "awk":
        return _awk(code)
    toks = _tokens(name, code)
    if isinstance(toks, str):
        return _unknown(f"{name} code {toks}; only print-only code is read")
    return _print_only(name, toks)


def _tokens(lang: str, code: str) -> list[_Tok] | str:
    """The tokens of `code`, or why it cannot be read as print-only."""
    out: list[_Tok] = []
    i, n = 0, len(code)
    comment = _COMMENTS.get(lang)
    quotes = _QUOTES[lang]
    sigils = "$@" if lang == "perl" else "$" if lang in ("php", "ruby") else ""

    def emit(kind: str, start: int, end: int) -> None:
        out.append(_Tok(kind, code[start:end], start > 0 and not code[start - 1].isspace()))
    while i < n:
        c = code[i]
        if c.isspace():
            i += 1
        elif comment and code.startswith(comment, i) and not (lang == "perl" and code[i - 1 : i] == "$"):
            j = code.find("\n", i)
            i = n if j < 0 else j
        elif c in quotes:
            if i > 0 and (code[i - 1].isalnum() or code[i - 1] in "_)]"):
                return f"has a quote right after {code[i - 1]!r}"
            j = i + 1
            while j < n and code[j] != c:
                j += 2 if code[j] == "\\" else 1
            if j >= n:
                return "has an unterminated string"
            if c == '"' and any(x in code[i + 1 : j] for x in _INTERPOLATION.get(lang, ())):
                return "runs code inside a string"
            emit("str", i + 1, j)
            i = j + 1
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (code[j].isalnum() or code[j] == "_"):
                j += 1
            emit("word", i, j)
            i = j
        elif c.isdigit():
            j = i
            while j < n and (code[j].isalnum() or code[j] in "._"):
                j += 1
            emit("num", i, j)
            i = j
        elif c in sigils:
            j = i + 1
            special = code[i + 1 : i + 3] if code[i + 1 : i + 2] == "^" else code[i + 1 : i + 2]
            if lang == "perl" and special in ("]", "0", "^V", "^O"):
                emit("var", i, i + 1 + len(special))
                i += 1 + len(special)
                continue
            while j < n and (code[j].isalnum() or code[j] == "_"):
                j += 1
            if j == i + 1:
                return f"uses {code[i : i + 2]!r}"
            if lang == "php" and code[j : j + 1] == "(":
                return "calls a function named by a variable"
            emit("var", i, j)
            i = j
        elif c == "/":
            if not out or not (out[-1].kind == "num" or out[-1].text == ")") or code[i + 1 : i + 2] in ("/", "*"):
                return "has a '/' that may start a pattern or comment"
            emit("op", i, i + 1)
            i += 1
        elif c == "%":
            if code[i + 1 : i + 2] not in (" ", "\t") and not code[i + 1 : i + 2].isdigit():
                return f"uses {code[i : i + 2]!r}"
            emit("op", i, i + 1)
            i += 1
        elif c in _PUNCT or (c == "?" and lang in ("node", "julia")):
            if code.startswith("<<", i):
                return "has '<<'"
            if lang == "perl" and c == "<" and code[i + 1 : i + 2] not in (" ", "="):
                return "reads with '<...>'"
            if lang == "perl" and c == "&" and code[i + 1 : i + 2] != "&" and code[i - 1 : i] != "&":
                return "calls a sub with '&'"
            if c == "(" and out and (out[-1].kind == "str" or out[-1].text in (")", "]")):
                return "calls the result of an expression"
            emit("op", i, i + 1)
            i += 1
        else:
            return f"uses {c!r}"
    return out


def _declared(lang: str, toks: list[_Tok]) -> set[str] | str:
    """Names the code gives to its own values (`let x =`, `x => ...`, `|x|`), or why not."""
    names: set[str] = set()
    texts = [t.text for t in toks]
    for i, t in enumerate(toks):
        nxt = texts[i + 1 : i + 3]
        if t.kind != "word":
            if t.text == ")" and nxt == ["=", ">"]:      # (a, b) => ...
                j = i
                while j > 0 and texts[j] != "(":
                    j -= 1
                names |= {x.text for x in toks[j:i] if x.kind == "word"}
            continue
        prev = texts[i - 1] if i else ""
        if prev in _DECLARERS or nxt[:1] == ["="] or nxt == ["<", "-"] or \
                (lang == "ruby" and prev in ("|", ",") and "|" in texts[i + 1 : i + 2] + texts[i + 1 : i + 4]):
            names.add(t.text)
    bad = names & _RESERVED
    return f"gives its own value to {min(bad)!r}" if bad else names


def _print_only(lang: str, toks: list[_Tok]) -> CodeEffects:
    words = _SCRIPT_WORDS[lang]
    own = _declared(lang, toks)
    if isinstance(own, str):
        return _unknown(f"{lang} code {own}; only print-only code is read")
    env_names = _ENV_NAMES.get(lang, {})
    env = False
    i, n = 0, len(toks)
    while i < n:
        t = toks[i]
        hit = next((seq for seq in env_names if tuple(x.text for x in toks[i : i + len(seq)]) == seq), None)
        if hit is not None:
            j = i + len(hit)
            nxt = [x.text for x in toks[j : j + 3]]
            kinds = [x.kind for x in toks[j : j + 3]]
            allowed = env_names[hit]
            closers = {"[": "]", "(": ")", "{": "}"}
            if nxt[:1] == ["."] and "." in allowed and kinds[1:2] == ["word"]:
                i = j + 2
                continue
            if nxt[:1] and nxt[0] in allowed and nxt[0] in closers and len(nxt) == 3 and \
                    kinds[1] in ("str", "word") and nxt[2] == closers[nxt[0]]:
                i = j + 3
                continue
            env = True
            i = j
            continue
        prev = toks[i - 1].text if i else ""
        nxt_text = toks[i + 1].text if i + 1 < n else ""
        if t.kind == "word" and t.text not in words:
            key = nxt_text == ":" and prev in ("{", ",")        # {a: 1}
            if not key and (t.text not in own or nxt_text == "("):
                return _unknown(f"{lang} code uses {t.text!r}; only print-only code is read")
        if t.kind == "var" and lang == "php" and t.text in ("$GLOBALS", "$this"):
            return _unknown(f"{lang} code uses {t.text!r}; only print-only code is read")
        subscript = t.text == "[" and t.joined and i > 0 and \
            (toks[i - 1].kind in ("word", "var") or toks[i - 1].text in (")", "]"))
        if subscript and not (i + 2 < n and toks[i + 1].kind == "num" and toks[i + 2].text == "]"):
            return _unknown(f"{lang} code looks a member up by a computed name; only print-only code is read")
        i += 1
    if env:
        return CodeEffects(frozenset({"env"}), (), (), ("reads the whole environment",))
    return PURE
