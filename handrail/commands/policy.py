"""`handrail policy ...`: validate the protocol and contracts, show what each tool may run."""

from __future__ import annotations

from handrail.commands.render import echo, emit_json
from handrail.errors import EXIT_DENIED, EXIT_OK, HandrailError


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


def show(*, tool: str | None, project: str, protocol: str | None, as_json: bool) -> int:
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
        for label, items in (("allow", r.allow), ("notify", r.notify), ("ask", r.ask), ("deny", r.deny),
                             ("removed from allow (tier 3)", r.dropped)):
            if items:
                echo(f"  {label}:")
                for p in items:
                    echo(f"    {p.text}")
    return EXIT_OK
