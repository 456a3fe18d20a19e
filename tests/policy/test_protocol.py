"""The autonomy protocol: discovery, v1.0 and v1.1, resolution, and errors a person can act on."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from handrail.errors import PolicyError
from handrail.policy import protocol as protocols
from handrail.policy.protocol import TIER1, TIER2, TIER3, TIERS, Protocol, effective_mode, resolve_tool

TEMPLATE = json.loads(Path(protocols.DEFAULT_PROTOCOL).read_text(encoding="utf-8"))
# One shell pattern of each tier of the shipped policy, whatever its lists hold today.
T1, T2, T3 = (TEMPLATE["tiers"][t]["shell_patterns"][0] for t in (TIER1, TIER2, TIER3))

V10 = {
    "version": "1.0",
    "global_mode": "trusted",
    "tools": {
        "claude": {
            "mode": "headless",
            "shell_whitelist": ["ls *", "git push *", "cat   *"],
            "aioson_whitelist": ["status"],
            "shell_blacklist": ["git push *", "rm -rf *"],
        },
        "codex": {"mode": "guarded", "shell_whitelist": ["rm -rf *", "pwd"]},
    },
}


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2), encoding="utf-8")
    return path


def show(handrail, project: Path, *args: str) -> dict:  # type: ignore[no-untyped-def]
    r = handrail("policy", "show", *args, "--json", "--project", str(project))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


def check(handrail, project: Path, *args: str) -> tuple[int, dict]:  # type: ignore[no-untyped-def]
    r = handrail("policy", "check", *args, "--json", "--project", str(project))
    return r.returncode, json.loads(r.stdout.splitlines()[-1])


# ----------------------------------------------------------------------------- discovery


def test_handrail_file_comes_first(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    write(repo / ".aioson/config/autonomy-protocol.json", V10)
    write(repo / ".handrail/autonomy-protocol.json", {**TEMPLATE, "global_mode": "headless"})
    answer = show(handrail, repo)
    assert answer["protocol"].endswith(".handrail/autonomy-protocol.json")
    assert answer["global_mode"] == "headless"


def test_aioson_file_is_read_where_handrail_has_none(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    write(repo / ".aioson/config/autonomy-protocol.json", V10)
    answer = show(handrail, repo)
    assert answer["protocol"].endswith(".aioson/config/autonomy-protocol.json")
    assert answer["version"] == "1.0"
    assert set(answer["tools"]) == {"claude", "codex"}


def test_protocol_option_overrides_discovery(handrail, repo: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(repo / ".handrail/autonomy-protocol.json", TEMPLATE)
    other = write(tmp_path / "elsewhere.json", V10)
    answer = show(handrail, repo, "--protocol", str(other))
    assert answer["protocol"] == str(other)
    assert set(answer["tools"]) == {"claude", "codex"}
    code, result = check(handrail, repo, "--protocol", str(other))
    assert code == 0 and result["files"][0] == str(other)


def test_protocol_option_pointing_nowhere_is_an_error(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    missing = str(repo / "nope.json")
    r = handrail("policy", "show", "--protocol", missing, "--project", str(repo))
    assert r.returncode == 2
    assert missing in r.stderr and "not found" in r.stderr
    code, result = check(handrail, repo, "--protocol", missing)
    assert code == 1 and any(missing in e for e in result["errors"])


def test_missing_protocol_falls_back_to_the_builtin_and_says_so(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    answer = show(handrail, repo)
    assert answer["protocol"] == protocols.BUILTIN_SOURCE
    assert any("built-in default" in w for w in answer["warnings"])
    r = handrail("policy", "show", "--project", str(repo))
    assert "built-in default" in r.stdout
    code, result = check(handrail, repo)
    assert code == 0 and any("built-in default" in n for n in result["notes"])
    proto = protocols.load(str(repo))
    assert proto.is_builtin and proto.warnings


# ----------------------------------------------------------------------------- v1.0


def test_v10_is_read_as_it_is(tmp_path: Path) -> None:
    path = write(tmp_path / "p.json", V10)
    proto = protocols.load(str(tmp_path), str(path))
    assert proto.version == (1, 0)
    claude = resolve_tool(proto, "claude")
    assert [p.text for p in claude.allow] == ["ls *", "cat *", "aioson status *"]
    assert [p.text for p in claude.dropped] == ["git push *"]
    assert {p.text for p in claude.ask} == {"git push *", "rm -rf *"}
    # A blacklist binds every tool, not only the one that wrote it.
    codex = resolve_tool(proto, "codex")
    assert [p.text for p in codex.allow] == ["pwd"]
    assert "rm -rf *" in {p.text for p in codex.ask}


def test_v10_passes_policy_check(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    write(repo / ".aioson/config/autonomy-protocol.json", V10)
    code, result = check(handrail, repo)
    assert (code, result["valid"], result["errors"]) == (0, True, [])


# ----------------------------------------------------------------------------- resolution


def test_template_resolution(tmp_path: Path) -> None:
    proto = Protocol(TEMPLATE, "t.json")
    claude = resolve_tool(proto, "claude")
    tier1 = set(TEMPLATE["tiers"][TIER1]["shell_patterns"])
    tier2 = set(TEMPLATE["tiers"][TIER2]["shell_patterns"])
    tier3 = set(TEMPLATE["tiers"][TIER3]["shell_patterns"])
    allow = {p.text for p in claude.allow}
    assert tier1 | tier2 <= allow
    assert tier2 <= {p.text for p in claude.notify}
    assert not tier1 & {p.text for p in claude.notify}
    assert tier3 <= {p.text for p in claude.ask}
    for command in TEMPLATE["tiers"][TIER3].get("handrail_commands", []):
        assert f"handrail {command} *" in {p.text for p in claude.ask}
    assert not claude.deny


def test_tier3_decision_deny_moves_tier3_to_deny() -> None:
    data = copy.deepcopy(TEMPLATE)
    data["tiers"][TIER3]["decision"] = "deny"
    tp = resolve_tool(Protocol(data, "t.json"), "claude")
    assert not tp.ask and T3 in {p.text for p in tp.deny}


def test_tier3_listed_in_derived_from_tiers_stays_out_of_allow() -> None:
    data = copy.deepcopy(TEMPLATE)
    data["tools"]["claude"]["derived_from_tiers"] = [TIER1, TIER3]
    tp = resolve_tool(Protocol(data, "t.json"), "claude")
    tier3 = set(TEMPLATE["tiers"][TIER3]["shell_patterns"])
    assert not tier3 & {p.text for p in tp.allow}
    assert tier3 <= {p.text for p in tp.ask}


def test_tier3_in_derived_from_tiers_shows_in_policy_show_as_ask(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(TEMPLATE)
    data["tools"]["claude"]["derived_from_tiers"] = [TIER3, TIER1]
    write(repo / ".handrail/autonomy-protocol.json", data)
    claude = show(handrail, repo, "claude")["tools"]["claude"]
    assert T3 not in claude["allow"] and T3 in claude["ask"]
    assert T1 in claude["allow"]


# -- the invariant: tier 3 is in no allow set, whatever the file says

PATTERNS = ["git push *", "git  push  *", "rm -rf *", "ls *", "git status *", "npm publish *", "cat *",
            "handrail gate approve *", "aioson deploy *", "make *"]
COMMANDS = ["deploy", "status", "gate approve", "task new"]
TOOLS = ["claude", "codex", "cursor"]

tier_body = st.fixed_dictionaries(
    {},
    optional={
        "shell_patterns": st.lists(st.sampled_from(PATTERNS), max_size=5),
        "aioson_commands": st.lists(st.sampled_from(COMMANDS), max_size=3),
        "handrail_commands": st.lists(st.sampled_from(COMMANDS), max_size=3),
    },
)
tool_spec = st.fixed_dictionaries(
    {},
    optional={
        "mode": st.sampled_from(protocols.MODES),
        "derived_from_tiers": st.lists(st.sampled_from(TIERS), max_size=4),
        "shell_whitelist": st.lists(st.sampled_from(PATTERNS), max_size=5),
        "aioson_whitelist": st.lists(st.sampled_from(COMMANDS), max_size=3),
        "shell_blacklist": st.lists(st.sampled_from(PATTERNS), max_size=3),
    },
)
v11 = st.fixed_dictionaries(
    {
        "version": st.just("1.1"),
        "tiers": st.dictionaries(st.sampled_from(TIERS), tier_body),
        "tools": st.dictionaries(st.sampled_from(TOOLS), tool_spec, min_size=1),
    }
)
v10 = st.fixed_dictionaries(
    {
        "version": st.just("1.0"),
        "tools": st.dictionaries(
            st.sampled_from(TOOLS),
            st.fixed_dictionaries(
                {},
                optional={
                    "shell_whitelist": st.lists(st.sampled_from(PATTERNS), max_size=6),
                    "aioson_whitelist": st.lists(st.sampled_from(COMMANDS), max_size=3),
                    "shell_blacklist": st.lists(st.sampled_from(PATTERNS), max_size=4),
                },
            ),
            min_size=1,
        ),
    }
)


def tier3_texts(data: dict) -> set[str]:
    """Every pattern the file puts in tier 3, worked out independently of handrail."""
    body = data.get("tiers", {}).get(TIER3, {})
    out = {" ".join(p.split()) for p in body.get("shell_patterns", [])}
    out |= {f"aioson {c} *" for c in body.get("aioson_commands", [])}
    out |= {f"handrail {c} *" for c in body.get("handrail_commands", [])}
    for tool in data.get("tools", {}).values():
        out |= {" ".join(p.split()) for p in tool.get("shell_blacklist", [])}
    return out


@settings(max_examples=300, deadline=None)
@given(st.one_of(v11, v10))
def test_tier3_never_in_any_allow_set(data: dict) -> None:
    proto = Protocol(data, "generated.json")
    blocking = tier3_texts(data)
    for tool in data["tools"]:
        tp = resolve_tool(proto, tool)
        allow = {p.text for p in tp.allow}
        assert not allow & blocking, (tool, allow & blocking)
        assert all(p.tier != TIER3 for p in tp.allow)
        assert {p.text for p in tp.notify} <= allow
        # tier 3 is always reported as what must ask or deny
        assert blocking <= {p.text for p in tp.ask} | {p.text for p in tp.deny}
        assert tp.as_dict()["allow"] == [p.text for p in tp.allow]


# ----------------------------------------------------------------------------- modes


@pytest.mark.parametrize(
    ("global_mode", "tool_mode", "agent_mode", "expected"),
    [
        ("headless", "headless", "headless", "headless"),
        ("headless", "trusted", "headless", "trusted"),
        ("headless", "headless", "guarded", "guarded"),
        ("trusted", "headless", "headless", "trusted"),  # never above global_mode
        ("guarded", "headless", "headless", "guarded"),
        ("trusted", "trusted", None, "trusted"),
        ("headless", None, None, "headless"),
        ("trusted", None, "headless", "trusted"),
    ],
)
def test_effective_mode_is_the_lowest(global_mode: str, tool_mode: str | None, agent_mode: str | None,
                                      expected: str) -> None:
    tool = {"mode": tool_mode} if tool_mode else {}
    agents = {"dev": {"max_mode": agent_mode}} if agent_mode else {}
    proto = Protocol({"version": "1.1", "global_mode": global_mode, "tools": {"claude": tool}, "agents": agents}, "p")
    assert effective_mode(proto, "claude", "dev") == expected
    assert resolve_tool(proto, "claude").mode == effective_mode(proto, "claude")


def test_policy_show_reports_the_effective_mode(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(TEMPLATE)
    data["global_mode"] = "trusted"
    data["tools"]["claude"]["mode"] = "headless"
    data["tools"]["codex"]["mode"] = "guarded"
    write(repo / ".handrail/autonomy-protocol.json", data)
    tools = show(handrail, repo)["tools"]
    assert tools["claude"]["mode"] == "trusted"
    assert tools["codex"]["mode"] == "guarded"


# ----------------------------------------------------------------------------- errors


def errors_of(data: object, path: str = "proto.json") -> tuple[list[str], list[str]]:
    return protocols.check(data, path)


def test_template_is_valid() -> None:
    assert errors_of(TEMPLATE) == ([], [])


@pytest.mark.parametrize(
    ("mutate", "where", "hint"),
    [
        (lambda d: d.__setitem__("global_mod", "guarded"), "global_mod", "global_mode"),
        (lambda d: d["tiers"][TIER1].__setitem__("shell_patern", []), f"tiers.{TIER1}.shell_patern", "shell_patterns"),
        (lambda d: d["tools"]["claude"].__setitem__("derived_from_tier", []), "tools.claude.derived_from_tier",
         "derived_from_tiers"),
        (lambda d: d["tiers"].__setitem__("tier4_custom", {}), "tiers.tier4_custom", None),
        (lambda d: d.__setitem__("agents", {"dev": {"max_mod": "guarded"}}), "agents.dev.max_mod", "max_mode"),
    ],
)
def test_unknown_key_names_file_path_and_nearest_key(mutate, where: str, hint: str | None) -> None:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(TEMPLATE)
    mutate(data)
    errors, _ = errors_of(data, "/p/.handrail/autonomy-protocol.json")
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"/p/.handrail/autonomy-protocol.json: {where}: unknown key")
    if hint:
        assert f"did you mean '{hint}'" in errors[0]


def test_unknown_key_through_the_cli(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(TEMPLATE)
    data["tools"]["claude"]["derived_from_tier"] = [TIER1]
    write(repo / ".handrail/autonomy-protocol.json", data)
    r = handrail("policy", "check", "--project", str(repo))
    assert r.returncode == 1
    assert ".handrail/autonomy-protocol.json: tools.claude.derived_from_tier: unknown key" in r.stdout
    assert "did you mean 'derived_from_tiers'" in r.stdout
    # A command that needs the protocol refuses to work with it.
    r = handrail("policy", "show", "--project", str(repo))
    assert r.returncode == 2 and "tools.claude.derived_from_tier" in r.stderr


def test_a_pattern_in_two_tiers_is_an_error() -> None:
    data = copy.deepcopy(TEMPLATE)
    data["tiers"][TIER1]["shell_patterns"].append(T3.replace(" ", "  "))  # the same pattern, spaced out
    errors, _ = errors_of(data)
    assert len(errors) == 1
    assert T3 in errors[0] and TIER1 in errors[0] and TIER3 in errors[0]
    assert errors[0].startswith("proto.json: tiers.")


def test_a_pattern_in_two_tiers_through_command_lists_is_an_error() -> None:
    data = copy.deepcopy(TEMPLATE)
    data["tiers"][TIER3]["handrail_commands"] = ["gate approve"]
    data["tiers"][TIER2]["shell_patterns"].append("handrail gate approve *")
    errors, _ = errors_of(data)
    assert any("handrail gate approve *" in e for e in errors)


def test_a_pattern_twice_in_one_tier_is_fine() -> None:
    data = copy.deepcopy(TEMPLATE)
    data["tiers"][TIER1]["shell_patterns"].append(T1)
    assert errors_of(data)[0] == []


def test_unknown_tier_in_derived_from_tiers_is_an_error() -> None:
    data = copy.deepcopy(TEMPLATE)
    data["tools"]["codex"]["derived_from_tiers"] = [TIER1, "tier2_notifed"]
    errors, _ = errors_of(data)
    assert errors == ["proto.json: tools.codex.derived_from_tiers[1]: unknown tier 'tier2_notifed' "
                      "(did you mean 'tier2_notified'?)"]


def test_tier3_in_derived_from_tiers_is_a_warning(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(TEMPLATE)
    data["tools"]["cursor"]["derived_from_tiers"] = [TIER1, TIER3]
    errors, warnings = errors_of(data)
    assert errors == []
    assert len(warnings) == 1 and "tools.cursor.derived_from_tiers" in warnings[0] and TIER3 in warnings[0]
    write(repo / ".handrail/autonomy-protocol.json", data)
    code, result = check(handrail, repo)
    assert code == 0 and result["valid"] and any("tools.cursor" in w for w in result["warnings"])


@pytest.mark.parametrize("version", ["1.10", "1.2", "2.0", "0.9", "1.01.1"])
def test_unsupported_versions(version: str) -> None:
    data = {**copy.deepcopy(TEMPLATE), "version": version}
    errors, _ = errors_of(data)
    assert len(errors) == 1 and errors[0].startswith("proto.json: version:")


def test_version_110_is_not_11(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    write(repo / ".handrail/autonomy-protocol.json", {**TEMPLATE, "version": "1.10"})
    code, result = check(handrail, repo)
    assert code == 1
    assert result["errors"] == [
        ".handrail/autonomy-protocol.json: version: '1.10' is not supported (supported: 1.0, 1.1)"]
    assert protocols.parse_version("1.10") > protocols.parse_version("1.9") > protocols.parse_version("1.1")


def test_broken_json_names_file_line_and_column(handrail, repo: Path) -> None:  # type: ignore[no-untyped-def]
    path = write(repo / ".handrail/autonomy-protocol.json", '{\n  "version": "1.1",\n  "tiers": {\n}\n')
    with pytest.raises(PolicyError) as e:
        protocols.load(str(repo))
    assert str(path) in str(e.value) and "line 5 column 1" in str(e.value)
    code, result = check(handrail, repo)
    assert code == 1
    assert result["errors"][0].startswith(".handrail/autonomy-protocol.json: invalid JSON at line 5 column 1")
    r = handrail("policy", "show", "--project", str(repo))
    assert r.returncode == 2 and "line 5 column 1" in r.stderr and "Traceback" not in r.stderr


def test_not_an_object(tmp_path: Path) -> None:
    path = write(tmp_path / "p.json", "[1, 2]")
    with pytest.raises(PolicyError, match="expected a JSON object"):
        protocols.load(str(tmp_path), str(path))


def test_invalid_file_stays_invalid_after_a_valid_one_was_cached(tmp_path: Path) -> None:
    path = write(tmp_path / "p.json", TEMPLATE)
    protocols.load(str(tmp_path), str(path))
    write(path, {**TEMPLATE, "version": "1.10"})
    with pytest.raises(PolicyError, match=r"1\.10"):
        protocols.load(str(tmp_path), str(path))
    write(path, TEMPLATE)
    assert protocols.load(str(tmp_path), str(path)).version == (1, 1)


def test_rules_map_names_known_rules_only(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json as _json

    from handrail.policy import protocol as protocols

    data = _json.loads(Path(protocols.DEFAULT_PROTOCOL).read_text(encoding="utf-8"))
    data["rules"] = {"rm-recursiv": False}
    errors, _ = protocols.check(data, "p.json")
    assert errors == ["p.json: rules.rm-recursiv: unknown rule (did you mean 'rm-recursive'?)"]
    data["rules"] = {"dynamic": False}
    errors, _ = protocols.check(data, "p.json")
    assert errors == ["p.json: rules.dynamic: this rule cannot be switched off"]


def test_the_default_policy_shows_every_switchable_rule() -> None:
    import json as _json

    from handrail.policy import protocol as protocols
    from handrail.policy.shell.rules import ALWAYS_ON, RULES

    data = _json.loads(Path(protocols.DEFAULT_PROTOCOL).read_text(encoding="utf-8"))
    assert set(data["rules"]) == set(RULES) - ALWAYS_ON
    assert all(data["rules"].values())
