"""`tiers.tier2_notified.write_paths` in the protocol: what `handrail policy check`
accepts, and the one-line error naming file and key for what it does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_handrail

from handrail.policy import protocol as protocols

KEY = "tiers.tier2_notified.write_paths"


def check(tmp_path: Path, write_paths: object, tier: str = "tier2_notified") -> tuple[int, str]:
    data = json.loads(Path(protocols.DEFAULT_PROTOCOL).read_text())
    data["tiers"][tier]["write_paths"] = write_paths
    path = tmp_path / "protocol.json"
    path.write_text(json.dumps(data))
    r = run_handrail("policy", "check", "--protocol", str(path), cwd=tmp_path)
    assert "Traceback" not in r.stderr
    return r.returncode, r.stdout + r.stderr


def test_the_default_policy_opens_the_bootstrap_and_feature_folders() -> None:
    proto = protocols.builtin()
    assert proto.data["tiers"]["tier2_notified"]["write_paths"] == [
        ".handrail/context/bootstrap/**", ".handrail/context/features/**"]
    assert "memory commit" in proto.data["tiers"]["tier2_notified"]["handrail_commands"]
    assert "memory commit" not in proto.data["tiers"]["tier3_blocking"]["handrail_commands"]


def test_folders_and_negations_are_accepted(tmp_path: Path) -> None:
    code, out = check(tmp_path, [".handrail/context/features/**", "!.handrail/context/features/private/**"])
    assert code == 0, out


@pytest.mark.parametrize("value, words", [
    ([".handrail/**"], [f"{KEY}[0]: '.handrail/**' would let agents write .handrail/autonomy-protocol.json"]),
    (["docs/**", ".handrail/tasks/**"], [f"{KEY}[1]: '.handrail/tasks/**' would let agents write"]),
    ([".claude/*.json"], ["would let agents write .claude/settings.json"]),
    # what runs the CI check, and what an agent's harness starts or grants, is the leash too
    ([".github/**"], ["would let agents write .github/workflows/ci.yml"]),
    (["docs/**", ".gitlab-ci.yml"], [f"{KEY}[1]: '.gitlab-ci.yml' would let agents write .gitlab-ci.yml"]),
    ([".mcp.json"], ["would let agents write .mcp.json"]),
    ([".vscode/**"], ["would let agents write .vscode/settings.json"]),
    ([".gitmodules"], ["would let agents write .gitmodules"]),
    (["../elsewhere/**"], [f"{KEY}[0]: '../elsewhere/**': write paths lie inside the project: no '..'"]),
    (["   "], [f"{KEY}[0]", "opens nothing"]),
    ([3], [f"{KEY}[0]", "not of type 'string'"]),
    (".handrail/context/**", [KEY, "not of type 'array'"]),
])
def test_a_bad_write_path_is_one_error_naming_file_and_key(tmp_path: Path, value: object,
                                                            words: list[str]) -> None:
    code, out = check(tmp_path, value)
    assert code != 0
    assert "protocol.json" in out
    for w in words:
        assert w in out, out


def test_only_tier_2_may_list_write_paths(tmp_path: Path) -> None:
    code, out = check(tmp_path, ["docs/**"], tier="tier1_silent")
    assert code != 0 and "tiers.tier1_silent.write_paths: only tier2_notified may list write_paths" in out
