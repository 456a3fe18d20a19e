"""handrail's and the pre-commit framework's command lines read as their own parsers read them,
so that a verb is one verb in every spelling.

click (handrail) takes `--` before a group's subcommand as the end of that group's options and
still runs the subcommand after it: `handrail -- deinit`, `handrail gate -- approve x` run
`deinit` and `gate approve`. The framework's argparse does the same for `pre-commit -- uninstall`
on the Pythons that accept it. The walk hands the rules and the patterns the command with
those `--` taken out, so `handrail deinit` and `pre-commit uninstall` are what they judge.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part, State, Walker
    from handrail.policy.shell.syntax import Word

# handrail's click groups (cli.py; tests/policy/test_routes.py holds the two equal).
HANDRAIL_GROUPS = frozenset({"task", "policy", "autonomy", "hook", "gate", "memory", "loop"})


def _without_dashes(words: list[Word], groups: frozenset[str]) -> list[Word]:
    """The words with each `--` that stands where a group expects its subcommand taken out."""
    out = [words[0]]
    i = 1
    expecting = True  # the program itself is a group: its subcommand comes next
    while i < len(words):
        w = words[i]
        if expecting and w.text == "--" and not w.dyn:
            i += 1
            continue
        out.append(w)
        expecting = expecting and not w.dyn and w.text in groups
        i += 1
    return out


def handrail(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    out = _without_dashes(words, HANDRAIL_GROUPS)
    return words if len(out) == len(words) else out


def pre_commit(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    out = _without_dashes(words, frozenset())
    return words if len(out) == len(words) else out
