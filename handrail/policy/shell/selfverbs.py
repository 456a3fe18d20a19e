"""handrail's own verbs that loosen what a human granted: tier 3 whatever the policy says.

A project's policy may list `handrail task phase` in tier 2 (older defaults did), or
leave `handrail gate approve` out: this rule holds anyway, so that an agent cannot widen
its own autonomy through handrail itself. Each row says which verb, when it loosens
(some do only with an option or a value), and why a human decides it. The CLI asks
the same question once more at run time (`gates.human_absent`); this is the layer
where the harness can ask the person.

`python -m handrail`, a path to the console script and the wrappers the classifier
looks through all arrive here as `handrail …` (runners.py, parts.prog_name). The same
reading of the verb says which files a verb writes (`WRITES`, `written`).
"""

from __future__ import annotations

from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from handrail.policy.shell.common import Ctx
    from handrail.policy.shell.parts import Part

    Finding = tuple[int, str, str]

RULE = "human-verbs"
EDIT_PHASES = ("implement", "doc_review")  # policy/tasks.py EDIT_PHASES (a test holds them equal)
LOWEST_STATE = "needsFullSupervision"  # an envelope set to it is never raised
# Options of these commands that take a value (click: `--opt V`, `--opt=V`, `-pV`).
_VALUED = frozenset({"--project", "-p", "--title", "--phase", "--note", "--reason", "--label", "--root",
                     "--protocol", "--tool", "--tools", "--owner", "--base", "--head", "--format", "--output"})


def _scan(words: list[Word]) -> tuple[list[Word], dict[str, list[Word]], bool]:
    """Click's reading of a command's arguments: positionals, each option's values
    (in order, so the last one is the one that counts), and whether a word is only
    known at run time."""
    positionals: list[Word] = []
    values: dict[str, list[Word]] = {}
    dynamic = False
    i = 0
    while i < len(words):
        w = words[i]
        t = w.text
        dynamic = dynamic or w.dyn
        if t == "--":
            positionals += words[i + 1:]
            dynamic = dynamic or any(x.dyn for x in words[i + 1:])
            break
        if t.startswith("--") and "=" in t:
            values.setdefault(t.split("=", 1)[0], []).append(w)
        elif t in _VALUED:
            if i + 1 < len(words):
                values.setdefault(t, []).append(words[i + 1])
                dynamic = dynamic or words[i + 1].dyn
            i += 1
        elif t.startswith("-") and len(t) > 1:
            values.setdefault(t if t.startswith("--") or len(t) == 2 else t[:2], []).append(w)
        else:
            positionals.append(w)
        i += 1
    return positionals, values, dynamic


def _value(w: Word) -> str:
    return w.text.split("=", 1)[1] if w.text.startswith("--") and "=" in w.text else w.text


def _phase_move(pos: list[Word], opts: dict[str, list[Word]], dyn: bool) -> str | None:
    phase = pos[1] if len(pos) > 1 else None
    if phase is None or phase.dyn or phase.text in EDIT_PHASES:
        shown = phase.raw if phase is not None else "a phase it does not name"
        return f"handrail task phase into {shown} opens an edit phase: a human decides when editing starts"
    return None


def _new_in_edit(pos: list[Word], opts: dict[str, list[Word]], dyn: bool) -> str | None:
    phases = opts.get("--phase", [])
    if phases and (any(w.dyn for w in phases) or _value(phases[-1]) in EDIT_PHASES):
        last = phases[-1]
        shown = (last.raw.split("=", 1)[-1] if last.text.startswith("--") else last.raw) if last.dyn else _value(last)
        return f"handrail task new --phase {shown} opens an edit phase: a human decides when editing starts"
    return None


def _raise_envelope(pos: list[Word], opts: dict[str, list[Word]], dyn: bool) -> str | None:
    state = pos[2] if len(pos) > 2 else None
    if state is not None and not state.dyn and state.text == LOWEST_STATE:
        return None
    return "handrail autonomy set can raise what an agent may do alone: a human decides it"


def _forced_init(pos: list[Word], opts: dict[str, list[Word]], dyn: bool) -> str | None:
    if "--force" in opts or dyn:
        return "handrail init --force replaces the protocol and the saved git hooks: a human decides it"
    return None


def _other_protocol(pos: list[Word], opts: dict[str, list[Word]], dyn: bool) -> str | None:
    if ("--protocol" in opts or dyn) and not ("--check" in opts or "--dry-run" in opts):
        return "handrail permissions --protocol writes every harness's permissions from another file: a human " \
               "decides it"
    return None


def _deinit(pos: list[Word], opts: dict[str, list[Word]], dyn: bool) -> str | None:
    if "--dry-run" in opts and not dyn:
        return None
    return "handrail deinit takes handrail's hooks and rules out: a human decides it"


def _always(why: str) -> Callable[[list[Word], dict[str, list[Word]], bool], str | None]:
    return lambda _pos, _opts, _dyn: why


# (subcommand words, when it loosens -> why, or None)
VERBS: dict[tuple[str, ...], Callable[[list[Word], dict[str, list[Word]], bool], str | None]] = {
    ("gate", "approve"): _always("handrail gate approve: a human decides gates"),
    ("gate", "reject"): _always("handrail gate reject: a human decides gates"),
    ("loop", "reset"): _always("handrail loop reset closes a circuit a guard opened: a human decides it"),
    ("uninstall-hooks",): _always("handrail uninstall-hooks removes the git hooks: a human decides it"),
    ("task", "phase"): _phase_move,
    ("task", "new"): _new_in_edit,
    ("autonomy", "set"): _raise_envelope,
    ("init",): _forced_init,
    ("deinit",): _deinit,
    ("permissions",): _other_protocol,
}

_GROUPS = frozenset(verb[0] for verb in VERBS if len(verb) == 2)

# Verbs that write a file the command line names, and the options that name it: the handrail
# row of the effect table (targets.write_targets), so the write rules and the hooks' edit
# scope judge `handrail ci --output .claude/settings.json` as they judge `sort -o`. Per verb:
# `handrail memory commit --output F` reads F (the agent's update), it writes nothing there.
WRITES: dict[tuple[str, ...], tuple[str, ...]] = {("ci",): ("--output",)}


def written(part: Part) -> list[Word]:
    """The files `handrail VERB …` writes, read as click reads the arguments. A verb only known
    at run time (`handrail "$v" --output F`) may be any verb: it writes what each verb its known
    words allow writes. A word only known at run time where no value goes may be `--output=F`
    itself: a write to a target only known at run time."""
    verbs, rest = _verbs(part.words[1:])
    out: list[Word] = []
    for verb, options in WRITES.items():
        head = verbs[:len(verb)]
        if len(head) == len(verb) and all(w.dyn or w.text == v for w, v in zip(head, verb)):
            pos, values, _dyn = _scan(verbs[len(verb):] + rest)
            out += [_valued(w) for o in options for w in values.get(o, [])] + [w for w in pos if w.dyn]
    return out


def _valued(w: Word) -> Word:
    """The value of `--opt=V` as a word of its own (what `--opt V` gives as it is)."""
    if not (w.text.startswith("--") and "=" in w.text):
        return w
    v = Word(_value(w), w.raw)
    v.dyn = w.dyn
    return v


def check_handrail(part: Part, ctx: Ctx) -> list[Finding]:
    """`handrail VERB …` that loosens the policy: one tier-3 finding naming why."""
    words = part.words[1:]
    if any(w.text in ("-h", "--help") for w in words):
        return []  # click prints the help and runs nothing
    verbs, rest = _verbs(words)
    for length in (2, 1):
        head = tuple(w.text for w in verbs[:length])
        test = VERBS.get(head)
        if test is not None and not any(w.dyn for w in verbs[:length]):
            pos, opts, dyn = _scan(verbs[length:] + rest)
            why = test(pos, opts, dyn)
            return [(3, RULE, why)] if why else []
    return []


def _verbs(words: list[Word]) -> tuple[list[Word], list[Word]]:
    """(the group and command words, the words after them). An option before a verb (`handrail
    --json gate approve x`) is one click refuses, but it must not hide the verb from this rule:
    it is skipped, with the value a known option takes."""
    verbs: list[Word] = []
    i = 0
    while i < len(words) and len(verbs) < 2:
        t = words[i].text
        if t.startswith("-") and not words[i].dyn:
            i += 2 if t in _VALUED else 1
            continue
        verbs.append(words[i])
        i += 1
        if verbs[0].text not in _GROUPS:
            break
    return verbs, words[i:]
