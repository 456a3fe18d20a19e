"""handrail's own gitignore matcher agrees with pathspec's GitIgnoreSpec.

pathspec is the reference; handrail does not import it at run time (too slow for a
pre-tool hook), so this is what keeps the two in step.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pathspec import GitIgnoreSpec

from handrail.policy.globs import PatternSet, pattern_regexes

# Pieces a segment is built from, and segments that only make sense whole.
# A negated class stands only as a whole segment: pathspec lets `x[!a]b` match
# `x/b` (its class crosses `/`), git and handrail do not.
TOKENS = ["a", "b", "B", ".", "*", "?", "[ab]", "[a-c]", "\\*"]
WHOLE = ["**", "*", "?", "[!a]", "a", "b", ".a", "a.b", "A"]
PATH_SEGMENTS = ["a", "b", "ab", "ba", "aa", "bb", "A", "aB", ".a", "a.b", "b.b", "a.", "..a", "x", "xa", "c", "*"]

segment = st.one_of(
    st.sampled_from(WHOLE),
    st.lists(st.sampled_from(TOKENS), min_size=1, max_size=3).map("".join),
)


@st.composite
def pattern(draw: st.DrawFn) -> str:
    body = "/".join(draw(st.lists(segment, min_size=1, max_size=3)))
    if draw(st.booleans()) and draw(st.booleans()):
        body = "/" + body
    if draw(st.booleans()) and draw(st.booleans()):
        body += "/"
    if draw(st.booleans()) and draw(st.booleans()):
        body = "!" + body
    return body


patterns = st.lists(pattern(), min_size=1, max_size=4)
paths = st.lists(st.sampled_from(PATH_SEGMENTS), min_size=1, max_size=4).map("/".join)


def reference(pats: list[str], path: str) -> bool:
    return GitIgnoreSpec.from_lines(pats).match_file(path)


@settings(max_examples=400, deadline=None)
@given(patterns, st.lists(paths, min_size=1, max_size=6))
def test_agrees_with_pathspec(pats: list[str], files: list[str]) -> None:
    ours = PatternSet(pats)
    for f in files:
        assert (ours.match(f) is not None) == reference(pats, f), (pats, f)


@settings(max_examples=200, deadline=None)
@given(patterns, st.lists(paths, min_size=1, max_size=6))
def test_ignore_case_agrees_with_pathspec_on_folded_text(pats: list[str], files: list[str]) -> None:
    ours = PatternSet(pats, ignore_case=True)
    folded = [p.lower() for p in pats]
    for f in files:
        assert (ours.match(f) is not None) == reference(folded, f.lower()), (pats, f)
        assert ours.match(f) == ours.match(f.upper()) == ours.match(f.lower())


@settings(max_examples=100, deadline=None)
@given(patterns, paths)
def test_the_answer_is_the_deciding_pattern(pats: list[str], path: str) -> None:
    """`match` names a pattern of the set that includes the path on its own."""
    hit = PatternSet(pats).match(path)
    if hit is not None:
        assert hit in pats and not hit.startswith("!")
        assert reference([hit], path)


@settings(max_examples=100, deadline=None)
@given(st.lists(pattern().filter(lambda p: not p.startswith("!")), min_size=1, max_size=4), paths)
def test_pattern_regexes_fold_into_one_prefilter(pats: list[str], path: str) -> None:
    """Callers fold many patterns into one regex (names: whole path; covers: a prefix)."""
    parts = []
    for p in pats:
        rx = pattern_regexes(p)
        if rx is None:
            continue
        _negated, names, covers = rx
        parts += [f"(?:{names})$"] if names is not None else []
        parts += [f"(?:{covers})"] if covers is not None else []
    folded = bool(parts) and re.compile("|".join(parts), re.DOTALL).match(path) is not None
    assert folded == (PatternSet(pats).match(path) is not None)


CASES = [
    # (patterns, path, matches)
    (["a"], "a", True),
    (["a"], "x/a", True),
    (["a"], "a/x", True),
    (["a"], "ab", False),
    (["/a"], "x/a", False),
    (["/a"], "a/x", True),
    (["a/b"], "x/a/b", False),
    (["a/b"], "a/b/c", True),
    (["a/"], "a", False),
    (["a/"], "a/x", True),
    (["a/"], "x/a/y", True),
    (["*.py"], "src/deep/m.py", True),
    (["*.py"], "m.pyc", False),
    (["*"], "anything/at/all", True),
    (["*/"], "top", False),
    (["*/"], "top/file", True),
    (["**"], "x", True),
    (["**/"], "x", False),
    (["**/"], "x/y", True),
    (["**/a"], "a", True),
    (["**/a"], "x/y/a", True),
    (["a/**"], "a", False),
    (["a/**"], "a/x/y", True),
    (["a/**/b"], "a/b", True),
    (["a/**/b"], "a/x/y/b", True),
    (["a/**/b"], "x/a/b", False),
    (["a/**/"], "a/x", True),
    (["src/*"], "src/a/b", True),
    (["src/*.js"], "src/a/b.js", False),
    (["?"], "a", True),
    (["?"], "ab", False),
    (["[ab]x"], "bx", True),
    (["[!a]x"], "ax", False),
    (["[!a]x"], "bx", True),
    (["a[b"], "a[b", False),  # an unclosed bracket: git discards the pattern
    (["\\*"], "*", True),
    (["\\*"], "a", False),
    (["\\#a"], "#a", True),
    (["#a"], "#a", False),  # a comment
    (["\\!a"], "!a", True),
    (["a "], "a", True),  # trailing blanks are dropped
    (["a\\ "], "a ", True),
    (["/"], "a", False),
    ([""], "a", False),
    # negation: the last pattern that names the path decides
    (["*.py", "!test_*.py"], "src/test_a.py", False),
    (["*.py", "!test_*.py"], "src/a.py", True),
    (["secrets/", "!secrets/README.md"], "secrets/README.md", False),
    (["secrets/", "!secrets/README.md"], "secrets/key", True),
    (["!secrets/README.md", "secrets/"], "secrets/README.md", False),
    # a pattern that only covers a parent folder cannot undo one that names the path
    (["*", "!docs/"], "docs/a.md", True),
    (["docs/", "!a.md"], "docs/a.md", False),
]


@pytest.mark.parametrize(("pats", "path", "expected"), CASES)
def test_table(pats: list[str], path: str, expected: bool) -> None:
    assert (PatternSet(pats).match(path) is not None) is expected
    assert reference(pats, path) is expected


@pytest.mark.parametrize(
    ("pats", "path", "expected"),
    [
        ([".env*"], ".ENV", True),
        ([".env*"], "config/.Env.local", True),
        (["secrets/**"], "SECRETS/x", True),
        (["*.pem"], "certs/SERVER.PEM", True),
        (["[ab]x"], "BX", True),
        (["src/"], "Source/x", False),
    ],
)
def test_ignore_case(pats: list[str], path: str, expected: bool) -> None:
    assert (PatternSet(pats, ignore_case=True).match(path) is not None) is expected
    # without ignore_case, case counts
    assert PatternSet(pats).match(path) is None


def test_match_returns_the_pattern_text() -> None:
    ps = PatternSet(["# comment", "build/", "*.log", "!keep.log"])
    assert ps.match("build/out.o") == "build/"
    assert ps.match("logs/a.log") == "*.log"
    assert ps.match("keep.log") is None
    assert ps.match("src/a.py") is None


def test_empty_set_is_false_and_matches_nothing() -> None:
    assert not PatternSet([])
    assert not PatternSet(["", "# only a comment"])
    assert PatternSet(["a"])
    assert PatternSet([]).match("a") is None
