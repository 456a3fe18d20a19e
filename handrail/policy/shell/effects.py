"""What one simple command does to files, worked out once: the words it reads (or copies, or
sends), the ones it writes and the ones it removes.

Every judgement of paths asks `of_part`: the secret-read rule (secrets.py), the write rules
(protected and system paths, redirections: targets.py) and the pre-tool hooks' edits
(`writes.touched_paths`), so that `cp`'s operands, say, are read one way for all of them. The
knowledge per program lives in two halves of one table: `sources` (what a program takes in)
and `targets` (what it puts out). `PROGRAMS` joins them with the other families (code it runs,
data it sends, options that change it) so that one lookup says what handrail knows of a
program; a program in none of them is one handrail knows nothing of.
"""

from __future__ import annotations

from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from handrail.policy.shell.parts import Part


class Effects:
    """reads: (word, how: "reads", "copies", "sends", "reads through <"); writes; removes."""

    __slots__ = ("reads", "removes", "writes")

    def __init__(self, reads: list[tuple[Word, str]], writes: list[Word], removes: list[Word]) -> None:
        self.reads = reads
        self.writes = writes
        self.removes = removes


def of_part(part: Part) -> Effects:
    """The files `part` reads, writes and removes, as words (resolve them against the part's cwd)."""
    known = part.effects
    if not isinstance(known, Effects):
        from handrail.policy.shell.sources import secret_sources
        from handrail.policy.shell.targets import write_targets

        reads = secret_sources(part)
        if part.name in ("sed", "gsed"):
            from handrail.policy.shell.sedscript import script_files

            reads += [(w, "reads") for w in script_files(part.words, "read", part.cwd)]  # `sed 'r .env'`
        written, removed = write_targets(part)
        known = part.effects = Effects(reads, written, removed)
    return known


_PROGRAMS: list[dict[str, frozenset[str]]] = []


def programs() -> Mapping[str, frozenset[str]]:
    """Each program handrail has a table entry for -> the kinds of effect the entry covers:
    `reads`, `writes`, `runs` (code of its own choosing), `sends` (data out), `options`
    (options that make it write or run)."""
    if not _PROGRAMS:
        from handrail.policy.shell import code, options, sends, sources, targets
        from handrail.policy.shell.parts import SHELLS

        kinds: dict[str, set[str]] = {}
        families = (("reads", sources.READERS), ("writes", targets.WRITERS),
                    ("runs", code.INTERPRETERS | SHELLS), ("sends", sends.NETWORK),
                    ("options", {k.split(" ", 1)[0] for k in options.DANGEROUS} | options.PAGERS))
        for kind, names in families:
            for name in names:
                kinds.setdefault(name, set()).add(kind)
        _PROGRAMS.append({name: frozenset(k) for name, k in kinds.items()})
    return _PROGRAMS[0]


def described(part: Part, home: str) -> dict[str, object]:
    """One part's effects for `classify --json`: each path as the judge resolves it, or as it is
    written when it is only known at run time."""
    from handrail.policy.shell.parts import resolve

    eff = of_part(part)

    def shown(w: Word) -> str:
        path = resolve(w, part.cwd, home)
        return path if path is not None else w.raw

    out: dict[str, object] = {"part": " ".join(w.raw for w in part.words)[:200]}
    for key, words in (("reads", [w for w, _ in eff.reads]), ("writes", list(eff.writes)),
                       ("removes", list(eff.removes))):
        if words:
            out[key] = list(dict.fromkeys(shown(w) for w in words))
    kinds = programs().get(part.name)
    if kinds:
        out["known_for"] = sorted(kinds)
    return out
