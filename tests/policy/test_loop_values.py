"""A loop over literal words and globs: its variable takes each value in turn, and nothing the
walk does not follow leaves a stale value behind."""

from __future__ import annotations

import pytest

from handrail.policy import protocol
from handrail.policy.shell import engine, shvars
from handrail.policy.shell.unwrap import split

HOME = "/home/agent"
CWD = "/home/agent/proj"


def words_of(text: str, name: str) -> list[list[str]]:
    return [[w.text for w in p.words[1:]] for p in split(text, CWD, HOME) if p.name == name]


def test_the_body_is_judged_once_per_value() -> None:
    assert words_of('for f in a.py "b c.py"; do sort "$f"; done', "sort") == [["a.py"], ["b c.py"]]


def test_a_glob_value_is_the_glob_and_may_be_an_option_unless_it_has_a_prefix() -> None:
    (only,), (prefixed,) = (
        [w for p in split(f'for f in {g}; do sort "$f"; done', CWD, HOME) for w in p.words[1:]]
        for g in ("*", "./*"))
    assert (only.text, only.glob, only.optlike) == ("*", True, True)
    assert (prefixed.text, prefixed.glob, prefixed.optlike) == ("./*", True, False)


@pytest.mark.parametrize("text", [
    'for f in $(ls); do sort "$f"; done',
    'for f; do sort "$f"; done',
    'for f in a; do read f; sort "$f"; done',
    'for f in src/*.py; do sort $f; done',
    "for f in " + " ".join(f"v{i}" for i in range(shvars.LOOP_VALUES + 1)) + '; do sort "$f"; done',
])
def test_a_value_handrail_cannot_see_stays_unknown(text: str) -> None:
    assert all(w.dyn for p in split(text, CWD, HOME) if p.name == "sort" for w in p.words[1:])


@pytest.mark.parametrize("text", [
    'f=a; read f; sort "$f"',
    'f=a; false && f=b; sort "$f"',
    'f=a; if x; then f=b; fi; sort "$f"',
    'f=a; for x in 1; do f=b; done; sort "$f"',
    'f=a; declare -n r=f; f=b; sort "$f"',
    'f=a; g() { f=b; }; g; sort "$f"',
])
def test_a_variable_changed_out_of_sight_is_unknown(text: str) -> None:
    assert all(w.dyn for p in split(text, CWD, HOME) if p.name == "sort" for w in p.words[1:])


def test_nested_loops_are_judged_a_bounded_number_of_times() -> None:
    values = " ".join(str(i) for i in range(shvars.LOOP_VALUES))
    text = f'for a in {values}; do for b in {values}; do for c in {values}; do sort "$c"; done; done; done'
    assert len(words_of(text, "sort")) <= shvars.LOOP_WALKS + shvars.LOOP_VALUES ** 2


@pytest.mark.parametrize(("text", "spelling"), [
    ('sort "$f"', '`-- "$f"` makes it an operand'),
    ('rg "$p" src', '`-e "$p"` makes it the pattern'),
    ('for f in *; do sort "$f"; done', '`-- "$f"` makes it an operand'),
])
def test_the_dynamic_finding_names_the_safe_spelling(text: str, spelling: str) -> None:
    answer = engine.classify(text, engine.engine(protocol.builtin()), cwd=CWD, project=CWD, home=HOME)
    found = [r["why"] for r in answer["reasons"] if r.get("rule") == "dynamic"]
    assert answer["tier"] == 3 and found and spelling in found[0], answer
    assert engine.classify(text.replace('"$', '-- "$').replace("rg --", "rg -e"),
                           engine.engine(protocol.builtin()), cwd=CWD, project=CWD, home=HOME)["tier"] != 3
