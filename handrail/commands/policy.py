"""`handrail policy ...`: validate the protocol and contracts, show what each tool may run."""

from __future__ import annotations

from handrail.commands.render import echo, emit_json
from handrail.errors import EXIT_DENIED, EXIT_OK, HandrailError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.protocol import ToolPolicy


def check(*, project: str, protocol: str | None, as_json: bool) -> int:
    from handrail.policy.checkall import check_all

    result = check_all(project, protocol)
    if as_json:
        emit_json(result)
    else:
        for line in result["notes"]:
            echo(line)
        for line in result["errors"]:
            echo(f"error: {line}")
        for line in result["warnings"]:
            echo(f"warning: {line}")
        n = len(result["files"])
        echo(f"{'valid' if result['valid'] else 'invalid'}: {n} file{'s' if n != 1 else ''} checked, "
             f"{len(result['errors'])} error(s), {len(result['warnings'])} warning(s)")
    return EXIT_OK if result["valid"] else EXIT_DENIED


SHOWN = 5  # patterns per tier in the summary: enough to recognise it, not a thousand lines
TIER_LABELS = {1: "tier 1, runs silently", 2: "tier 2, runs with a notice", 3: "tier 3, needs a human"}


def show(*, tool: str | None, tier: int | None, everything: bool, project: str, protocol: str | None,
         as_json: bool) -> int:
    """A summary per tool and tier by default; `tier` lists one tier whole, `everything`
    every set as resolved (allow, notify, ask, deny, removed from allow)."""
    from handrail.policy import protocol as protocols

    proto = protocols.load(project, protocol)
    names = protocols.tool_names(proto)
    if tool is not None and tool not in names:
        import difflib

        near = difflib.get_close_matches(tool, names, n=1)
        hint = f" (did you mean '{near[0]}'?)" if near else f" (tools: {', '.join(names) or 'none'})"
        raise HandrailError(f"{proto.source}: tools.{tool}: no such tool{hint}", reason="bad_arguments")
    resolved = [protocols.resolve_tool(proto, n) for n in ([tool] if tool else names)]
    if as_json:
        emit_json({"protocol": proto.source, "version": ".".join(map(str, proto.version)),
                   "global_mode": proto.global_mode, "warnings": proto.warnings,
                   "tools": {r.tool: r.as_dict() for r in resolved}})
        return EXIT_OK
    echo(f"protocol: {proto.source}")
    for w in proto.warnings:
        echo(f"warning: {w}")
    for r in resolved:
        echo(f"\n{r.tool} (mode {r.mode})")
        if everything:
            _sets(r)
        else:
            _tiers(r, tier)
    if not everything and tier is None:
        which = tool or "[TOOL]"
        echo(f"\nevery pattern: `handrail policy show {which} --all`; one tier: `--tier N`; as data: `--json`")
    return EXIT_OK


def _sets(r: ToolPolicy) -> None:
    """Every resolved set, whole, as the hooks and the permission files use them."""
    for label, items in (("allow", r.allow), ("notify", r.notify), ("ask", r.ask), ("deny", r.deny),
                         ("removed from allow (tier 3)", r.dropped)):
        if items:
            echo(f"  {label}:")
            for p in items:
                echo(f"    {p.text}")


def _tiers(r: ToolPolicy, only: int | None) -> None:
    """Per tier: how many patterns and the first SHOWN of them, or one tier whole."""
    for number, label, items in tier_sections(r):
        if only is not None and number != only:
            continue
        count = f"{len(items)} pattern{'s' if len(items) != 1 else ''}"
        echo(f"  {label}: {count}")
        shown = items if only is not None else items[:SHOWN]
        for text in shown:
            echo(f"    {text}")
        if len(items) > len(shown):
            echo(f"    ... and {len(items) - len(shown)} more: `handrail policy show {r.tool} --tier {number}`")


def tier_sections(r: ToolPolicy) -> list[tuple[int, str, list[str]]]:
    """(tier, label, patterns) for what one tool may run: tier 1 is the allow set less
    what it announces (tier 2); tier 3 is what needs a human, and the allow patterns
    taken out because a tier-3 pattern names them too."""
    notified = {p.text for p in r.notify}
    tier3 = "ask" if r.ask or not r.deny else "deny"
    sections = [
        (1, TIER_LABELS[1], [p.text for p in r.allow if p.text not in notified]),
        (2, TIER_LABELS[2], [p.text for p in r.notify]),
        (3, f"{TIER_LABELS[3]} ({tier3})", [p.text for p in r.ask + r.deny]),
    ]
    if r.dropped:
        sections.append((3, "removed from allow (tier 3)", [p.text for p in r.dropped]))
    return sections
