"""The autonomy protocol: which shell commands run silently, with a notice, or need a human.

Schema v1.1 (`tiers`, tools `derived_from_tiers`) is the current form; v1.0 (per-tool
`shell_whitelist`, `aioson_whitelist`, `shell_blacklist`) is read as it is.
Resolution never lets a tier-3 pattern into an allow set, whatever the file says.
"""

from __future__ import annotations

import os

from handrail.errors import PolicyError
from handrail.fsio import parse_json, read_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from handrail.policy.scope import WritePaths

PROTOCOL_PATHS = (
    os.path.join(".handrail", "autonomy-protocol.json"),
    os.path.join(".aioson", "config", "autonomy-protocol.json"),
)
DEFAULT_PROTOCOL = os.path.join(os.path.dirname(os.path.dirname(__file__)), "template", "autonomy-protocol.json")
BUILTIN_SOURCE = "handrail built-in default policy"

TIER1, TIER2, TIER3 = "tier1_silent", "tier2_notified", "tier3_blocking"
TIERS = (TIER1, TIER2, TIER3)
TIER_NUMBER = {TIER1: 1, TIER2: 2, TIER3: 3}
# Least autonomy first: an agent's effective mode is the lowest of its caps.
MODES = ("guarded", "trusted", "headless")
SUPPORTED_VERSIONS = ((1, 0), (1, 1))
DEFAULT_PROTECTED_BRANCHES = ("main", "master")


def parse_version(text: object) -> tuple[int, ...] | None:
    """`"1.10"` is (1, 10), not (1, 1): versions compare as numbers, never as strings."""
    if not isinstance(text, str):
        return None
    try:
        return tuple(int(p) for p in text.split("."))
    except ValueError:
        return None


def normalize_pattern(pattern: str) -> str:
    return " ".join(pattern.split())


class Pattern:
    """A shell pattern with the tier and file it came from, for reasons people can follow."""

    __slots__ = ("key", "source", "text", "tier")

    def __init__(self, text: str, tier: str, source: str, key: str) -> None:
        self.text = normalize_pattern(text)
        self.tier = tier
        self.source = source
        self.key = key

    def as_dict(self) -> dict[str, object]:
        return {"pattern": self.text, "tier": self.tier, "source": self.source, "key": self.key}

    def __repr__(self) -> str:
        return f"Pattern({self.text!r}, {self.tier})"


class Protocol:
    __slots__ = ("data", "path", "source", "warnings")

    def __init__(self, data: dict[str, Any], path: str | None, warnings: list[str] | None = None) -> None:
        self.data = data
        self.path = path
        self.source = path or BUILTIN_SOURCE
        self.warnings = warnings or []

    @property
    def is_builtin(self) -> bool:
        return self.path is None

    @property
    def version(self) -> tuple[int, ...]:
        return parse_version(self.data.get("version")) or (1, 1)

    @property
    def global_mode(self) -> str:
        mode: str = self.data.get("global_mode", "guarded")
        return mode

    @property
    def tier3_decision(self) -> str:
        decision: str = self.data.get("tiers", {}).get(TIER3, {}).get("decision", "ask")
        return decision

    @property
    def protected_branches(self) -> list[str]:
        return list(self.data.get("protected_branches", DEFAULT_PROTECTED_BRANCHES))

    def write_paths(self, project: str | None = None) -> WritePaths | None:
        """`tiers.tier2_notified.write_paths`, named by the file they come from (relative
        to `project` when given); None where the protocol lists none."""
        from handrail.policy.scope import WritePaths

        patterns = self.data.get("tiers", {}).get(TIER2, {}).get("write_paths") or []
        if not patterns:
            return None
        shown = self.source if self.path is None or project is None else os.path.relpath(self.source, project)
        return WritePaths(list(patterns), shown)

    def rule_enabled(self, name: str, default: bool = True) -> bool:
        return bool(self.data.get("rules", {}).get(name, default))


# --------------------------------------------------------------------------- loading


def discover(project: str) -> str | None:
    for rel in PROTOCOL_PATHS:
        candidate = os.path.join(project, rel)
        if os.path.isfile(candidate):
            return candidate
    return None


def load(project: str, override: str | None = None) -> Protocol:
    """The protocol in force for `project`; the built-in default where none exists.

    `override` (the `--protocol` option) must exist. Invalid files raise PolicyError
    with the first problem on one line.
    """
    path = override if override is not None else discover(project)
    if path is None:
        return Protocol(_read_builtin(), None,
                        [f"no protocol at {PROTOCOL_PATHS[0]}: using the built-in default policy"])
    text = read_text(path)
    data = parse_json(text, path)
    from handrail.policy import validate

    if isinstance(data, dict) and validate.known_valid("protocol", text):
        return Protocol(data, path, semantic_warnings(data, path))
    errors, warnings = check(data, path)
    if errors:
        more = f" (and {len(errors) - 1} more: run `handrail policy check`)" if len(errors) > 1 else ""
        raise PolicyError(errors[0] + more)
    validate.passed("protocol", text)
    assert isinstance(data, dict)
    return Protocol(data, path, warnings)


_BUILTIN: dict[str, Any] | None = None


def _read_builtin() -> dict[str, Any]:
    global _BUILTIN
    if _BUILTIN is None:
        data = parse_json(read_text(DEFAULT_PROTOCOL), DEFAULT_PROTOCOL)
        assert isinstance(data, dict)
        _BUILTIN = data
    return _BUILTIN


def builtin() -> Protocol:
    return Protocol(_read_builtin(), None)


# --------------------------------------------------------------------------- checking


def check(data: object, path: str) -> tuple[list[str], list[str]]:
    """All errors and warnings of one protocol file, each one line naming file and key."""
    from handrail.policy.validate import schema_errors

    if not isinstance(data, dict):
        return [f"{path}: expected a JSON object at the top level"], []
    errors = schema_errors(data, "autonomy-protocol", path)
    if errors:
        return errors, []
    errors = semantic_errors(data, path)
    return errors, semantic_warnings(data, path)


def _write_path_errors(patterns: list[str], where: str) -> list[str]:
    """A write path opens protected files to agents: it must name files inside the
    project, and never handrail's policy, tasks, gates or a harness's settings."""
    from handrail.policy.globs import PatternSet
    from handrail.policy.scope import NEVER_WRITE_PATHS

    errors = []
    for i, pattern in enumerate(patterns):
        if not pattern.strip() or pattern.strip().startswith("#"):
            errors.append(f"{where}[{i}]: '{pattern}': an empty pattern or a comment opens nothing; remove it")
        elif ".." in pattern.strip().strip("/").split("/"):
            errors.append(f"{where}[{i}]: '{pattern}': write paths lie inside the project: no '..'")
    spec = PatternSet(patterns, ignore_case=True)
    for rel in NEVER_WRITE_PATHS:
        hit = spec.match(rel)
        if hit is not None:
            errors.append(f"{where}[{patterns.index(hit)}]: '{hit}' would let agents write {rel}, which loosens "
                          "their own leash; name only folders such as .handrail/context/bootstrap/**")
            break
    return errors


def semantic_errors(data: dict[str, Any], path: str) -> list[str]:
    errors: list[str] = []
    version = parse_version(data.get("version"))
    if version not in SUPPORTED_VERSIONS:
        supported = ", ".join(".".join(map(str, v)) for v in SUPPORTED_VERSIONS)
        errors.append(f"{path}: version: '{data.get('version')}' is not supported (supported: {supported})")
    errors += _rule_errors(data.get("rules", {}), path)
    tiers = data.get("tiers", {})
    for tier, body in tiers.items():
        if "write_paths" in body and tier != TIER2:
            errors.append(f"{path}: tiers.{tier}.write_paths: only tier2_notified may list write_paths")
        elif "write_paths" in body:
            errors += _write_path_errors(body["write_paths"], f"{path}: tiers.{tier}.write_paths")
        if "decision" in body and tier != TIER3:
            errors.append(f"{path}: tiers.{tier}.decision: only tier3_blocking may set a decision")
    seen: dict[str, str] = {}
    for p in _tier_patterns(data, path):
        where = f"tiers.{p.tier}.{p.key}"
        if p.text in seen and seen[p.text] != where.rsplit(".", 1)[0]:
            errors.append(f"{path}: {where}: pattern '{p.text}' also stands in {seen[p.text]}; "
                          "a pattern may stand in one tier only")
        seen.setdefault(p.text, f"tiers.{p.tier}")
    for name, tool in data.get("tools", {}).items():
        for i, tier in enumerate(tool.get("derived_from_tiers", [])):
            if tier not in TIERS:
                import difflib

                near = difflib.get_close_matches(tier, TIERS, n=1, cutoff=0.6)
                hint = f" (did you mean '{near[0]}'?)" if near else f" (tiers: {', '.join(TIERS)})"
                errors.append(f"{path}: tools.{name}.derived_from_tiers[{i}]: unknown tier '{tier}'{hint}")
            elif tier not in tiers and version != (1, 0):
                errors.append(f"{path}: tools.{name}.derived_from_tiers[{i}]: tier '{tier}' is not defined under tiers")
    return errors


def _rule_errors(rules: dict[str, Any], path: str) -> list[str]:
    """The `rules` map switches shipped rules by name: a misspelt name would silently
    leave the rule on (or the user believing it off), so it is an error."""
    import difflib

    from handrail.policy.shell.rules import ALWAYS_ON, RULES

    errors = []
    for name, on in rules.items():
        if name not in RULES:
            near = difflib.get_close_matches(name, list(RULES), n=1, cutoff=0.6)
            hint = f" (did you mean '{near[0]}'?)" if near else f" (rules: {', '.join(sorted(RULES))})"
            errors.append(f"{path}: rules.{name}: unknown rule{hint}")
        elif name in ALWAYS_ON and not on:
            errors.append(f"{path}: rules.{name}: this rule cannot be switched off")
    return errors


def semantic_warnings(data: dict[str, Any], path: str) -> list[str]:
    warnings = []
    for name, tool in data.get("tools", {}).items():
        if TIER3 in tool.get("derived_from_tiers", []):
            warnings.append(
                f"{path}: tools.{name}.derived_from_tiers: "
                "tier3_blocking is never allowed automatically; it is ignored here"
            )
    for name, tool in data.get("tools", {}).items():
        if "derived_from_tiers" in tool and any(k in tool for k in ("shell_whitelist", "aioson_whitelist")):
            warnings.append(f"{path}: tools.{name}: derived_from_tiers is set, so the legacy whitelists are ignored")
    return warnings


# --------------------------------------------------------------------------- resolution


def _expand(tier: str, body: dict[str, Any], source: str) -> list[Pattern]:
    out = [Pattern(p, tier, source, "shell_patterns") for p in body.get("shell_patterns", [])]
    out += [Pattern(f"aioson {c} *", tier, source, "aioson_commands") for c in body.get("aioson_commands", [])]
    out += [Pattern(f"handrail {c} *", tier, source, "handrail_commands") for c in body.get("handrail_commands", [])]
    return out


def _tier_patterns(data: dict[str, Any], source: str) -> list[Pattern]:
    out: list[Pattern] = []
    for tier in TIERS:
        out += _expand(tier, data.get("tiers", {}).get(tier, {}), source)
    return out


def _legacy_patterns(data: dict[str, Any], source: str) -> list[Pattern]:
    """v1.0: whitelists are tier 1 and blacklists tier 3, across every tool."""
    out: list[Pattern] = []
    for tool in data.get("tools", {}).values():
        out += [Pattern(p, TIER1, source, "shell_whitelist") for p in tool.get("shell_whitelist", [])]
        out += [Pattern(f"aioson {c} *", TIER1, source, "aioson_whitelist") for c in tool.get("aioson_whitelist", [])]
        out += [Pattern(p, TIER3, source, "shell_blacklist") for p in tool.get("shell_blacklist", [])]
    return out


def patterns(proto: Protocol) -> list[Pattern]:
    """Every shell pattern of the protocol, each in one tier, strictest tier first."""
    if "tiers" in proto.data:
        found = _tier_patterns(proto.data, proto.source)
    else:
        found = _legacy_patterns(proto.data, proto.source)
    blocking = {p.text for p in found if p.tier == TIER3}
    unique: dict[tuple[str, str], Pattern] = {}
    for p in found:
        if p.tier != TIER3 and p.text in blocking:
            continue
        unique.setdefault((p.text, p.tier), p)
    return sorted(unique.values(), key=lambda p: -TIER_NUMBER[p.tier])


class ToolPolicy:
    """What one harness may run without asking, what it must announce, and what needs a human."""

    __slots__ = ("allow", "ask", "deny", "dropped", "mode", "notify", "tool")

    def __init__(self, tool: str, mode: str) -> None:
        self.tool = tool
        self.mode = mode
        self.allow: list[Pattern] = []
        self.notify: list[Pattern] = []
        self.ask: list[Pattern] = []
        self.deny: list[Pattern] = []
        self.dropped: list[Pattern] = []

    def as_dict(self) -> dict[str, object]:
        return {
            "tool": self.tool,
            "mode": self.mode,
            "allow": [p.text for p in self.allow],
            "notify": [p.text for p in self.notify],
            "ask": [p.text for p in self.ask],
            "deny": [p.text for p in self.deny],
            "removed_from_allow": [p.text for p in self.dropped],
        }


def mode_rank(mode: str) -> int:
    return MODES.index(mode) if mode in MODES else 0


def effective_mode(proto: Protocol, tool: str | None = None, agent: str | None = None) -> str:
    """The lowest of the agent's `max_mode`, the tool's `mode` and `global_mode`."""
    caps = [proto.global_mode]
    if tool is not None:
        caps.append(proto.data.get("tools", {}).get(tool, {}).get("mode", proto.global_mode))
    if agent is not None:
        caps.append(proto.data.get("agents", {}).get(agent, {}).get("max_mode", proto.global_mode))
    return min(caps, key=mode_rank)


def resolve_tool(proto: Protocol, tool: str) -> ToolPolicy:
    data = proto.data
    spec = data.get("tools", {}).get(tool, {})
    policy = ToolPolicy(tool, effective_mode(proto, tool))
    every = _tier_patterns(data, proto.source) + _legacy_patterns(data, proto.source)
    blocking = [p for p in every if p.tier == TIER3]
    blocked_text = {p.text for p in blocking}
    if "derived_from_tiers" in spec:
        tiers = data.get("tiers", {})
        granted = [
            p
            for tier in dict.fromkeys(spec["derived_from_tiers"])
            if tier != TIER3
            for p in _expand(tier, tiers.get(tier, {}), proto.source)
        ]
    else:
        granted = [Pattern(p, TIER1, proto.source, "shell_whitelist") for p in spec.get("shell_whitelist", [])]
        granted += [Pattern(f"aioson {c} *", TIER1, proto.source, "aioson_whitelist")
                    for c in spec.get("aioson_whitelist", [])]
    seen: set[str] = set()
    for p in granted:
        if p.text in seen:
            continue
        seen.add(p.text)
        if p.text in blocked_text:
            policy.dropped.append(p)
            continue
        policy.allow.append(p)
        if p.tier == TIER2:
            policy.notify.append(p)
    target = policy.deny if proto.tier3_decision == "deny" else policy.ask
    seen = set()
    for p in blocking:
        if p.text not in seen:
            seen.add(p.text)
            target.append(p)
    return policy


def tool_names(proto: Protocol) -> list[str]:
    return list(proto.data.get("tools", {}))
