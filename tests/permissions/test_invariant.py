"""The one promise every native file keeps, over generated protocols: no tier-3 pattern
ever lands in a tool's allow list or allow rules, whatever `derived_from_tiers` says
(v1.0 whitelists, an empty list, tier 3 listed in it), and every tier-3 pattern lands
where the harness asks or denies."""

from __future__ import annotations

import itertools
import json
import re
import tomllib

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from handrail import permissions, prefixes
from handrail.native import JsonFile, merge
from handrail.policy import protocol as protocols
from handrail.policy.protocol import Protocol

# Few stems and words, so that patterns of different tiers often share a beginning.
STEMS = ["git", "git push", "rm", "sed", "ls", "x*"]
WORDS = ["push", "--force", "-f", "status", "-rf", "/", "*", "x*", "-i", "|", "sh", "a"]
pattern = st.tuples(st.sampled_from(STEMS), st.lists(st.sampled_from(WORDS), max_size=2),
                    st.sampled_from(["", " *"])).map(lambda t: " ".join([t[0], *t[1]]) + t[2])
patterns = st.lists(pattern, max_size=6)
tier_names = st.lists(st.sampled_from(protocols.TIERS), max_size=3)
modes = st.sampled_from(protocols.MODES)


@st.composite
def v11(draw: st.DrawFn) -> dict:
    tiers = {t: {"shell_patterns": draw(patterns)} for t in protocols.TIERS}
    tiers[protocols.TIER3]["decision"] = draw(st.sampled_from(["ask", "deny"]))
    tiers[protocols.TIER1]["handrail_commands"] = draw(st.lists(st.sampled_from(["doctor", "gate approve"]),
                                                                max_size=2))
    names = draw(st.lists(st.sampled_from(permissions.HARNESSES), min_size=1, max_size=3, unique=True))
    tools = {n: {"mode": draw(modes), "derived_from_tiers": draw(tier_names)} for n in names}
    return {"version": "1.1", "global_mode": draw(modes), "tiers": tiers, "tools": tools}


@st.composite
def v10(draw: st.DrawFn) -> dict:
    names = draw(st.lists(st.sampled_from(permissions.HARNESSES), min_size=1, max_size=3, unique=True))
    tools = {n: {"mode": draw(modes), "shell_whitelist": draw(patterns), "shell_blacklist": draw(patterns)}
             for n in names}
    return {"version": "1.0", "global_mode": draw(modes), "tools": tools}


def rendered(proto: Protocol, tool: str) -> dict[str, object]:
    """Each native file of `tool`, as written into an empty repository."""
    module = permissions.harness(tool)
    assert module is not None
    out: dict[str, object] = {}
    for spec in module.native_files(proto):
        out[spec.path] = merge({}, spec, None)[0] if isinstance(spec, JsonFile) else spec.text
    return out


def codex_rules(text: str, decision: str) -> list[list[str]]:
    """Every command prefix the file's rules of `decision` name: a position written as a
    list (Codex's alternatives, e.g. `["--for", "--force"]`) gives one prefix per choice."""
    found = re.findall(r'pattern = \[(.*?)\],\n    decision = "(\w+)"', text)
    out: list[list[str]] = []
    for words, d in found:
        if d == decision:
            positions = [w if isinstance(w, list) else [w] for w in json.loads(f"[{words}]")]
            out += [list(choice) for choice in itertools.product(*positions)]
    return out


def admits_no_blocked_command(prefix: list[str], blocked: set[str]) -> bool:
    return all(not prefixes.could_start(prefix, b, floating_flags=True) for b in blocked)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(v11(), v10()))
# Codex writes a grouped flag's spellings as alternatives at one position (`--force` as
# `["--for", "--forc", "--force"]`): a rule is every choice of them.
@example({"version": "1.1", "global_mode": "headless",
          "tiers": {"tier3_blocking": {"shell_patterns": ["git --force", "git x*"], "decision": "ask"}},
          "tools": {"codex": {"mode": "headless", "derived_from_tiers": []}}})
def test_no_tier_3_pattern_is_ever_allowed(data: dict) -> None:
    proto = Protocol(data, None)
    blocked = {p.text for p in protocols.patterns(proto) if p.tier == protocols.TIER3}
    for tool in protocols.tool_names(proto):
        files = rendered(proto, tool)
        policy = protocols.resolve_tool(proto, tool)
        assert {p.text for p in policy.ask + policy.deny} == blocked
        if tool == "claude":
            perms = files[".claude/settings.json"]["permissions"]  # type: ignore[index]
            assert perms["allow"] == []  # no Bash allow rules at all: the hook allows tier 1 and 2
            assert {f"Bash({b})" for b in blocked} <= set(perms["ask"]) | set(perms["deny"])
        elif tool == "opencode":
            bash = files["opencode.json"]["permission"]["bash"]  # type: ignore[index]
            assert not {k for k, v in bash.items() if v == "allow"} & blocked
            # an allow is an exact command line: `cat *` would admit `cat .env` without the plugin
            assert not [k for k, v in bash.items() if v == "allow" and ("*" in k or "?" in k)]
            assert all(bash[b] in ("ask", "deny") for b in blocked)
            assert not blocked or list(bash)[-len(blocked):] == [p.text for p in policy.ask + policy.deny]
        elif tool == "gemini":
            assert "tools" not in files[".gemini/settings.json"]  # type: ignore[operator]
            rules = tomllib.loads(str(files[".gemini/policies/handrail.toml"])).get("rule", [])
            for rule in rules:
                assert rule["decision"] == "allow" and rule["toolName"] == "run_shell_command"
                for prefix in rule["commandPrefix"]:
                    assert admits_no_blocked_command(prefix.split(), blocked), (prefix, blocked)
        elif tool == "codex":
            text = str(files[".codex/rules/handrail.rules"])
            allows = codex_rules(text, "allow")
            if policy.mode == "guarded":
                assert allows == []
            for words in allows:
                assert admits_no_blocked_command(words, blocked), (words, blocked)
            asked = codex_rules(text, "prompt") + codex_rules(text, "forbidden")
            for b in blocked:  # each one is a prefix rule that asks, or named as left to the hook
                assert any(prefixes.could_start(w, b, star_spans=False) for w in asked) or f"#   {b}\n" in text


def test_tier_3_listed_in_derived_from_tiers_is_still_never_allowed() -> None:
    data = {"version": "1.1", "global_mode": "headless",
            "tiers": {"tier1_silent": {"shell_patterns": ["git status *"]},
                      "tier3_blocking": {"shell_patterns": ["git push *"]}},
            "tools": {t: {"mode": "headless", "derived_from_tiers": ["tier3_blocking", "tier1_silent"]}
                      for t in permissions.HARNESSES}}
    proto = Protocol(data, None)
    claude = rendered(proto, "claude")[".claude/settings.json"]["permissions"]  # type: ignore[index]
    assert claude["allow"] == [] and claude["ask"] == ["Bash(git push *)"]
    codex = str(rendered(proto, "codex")[".codex/rules/handrail.rules"])
    assert codex_rules(codex, "allow") == [["git", "status"]] and codex_rules(codex, "prompt") == [["git", "push"]]
    assert "OUTSIDE Codex's sandbox" in codex
