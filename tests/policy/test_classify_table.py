"""The classification table: hundreds of commands, destructive and benign, with the tier each must get.

Runs the Python API with a fixed work tree and home, so paths are judged the same on every machine.
The last test measures the rates the issue asks for: at least 95% of destructive commands in tier 3
(needing a human), at most 3% of benign ones.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from handrail.policy import protocol as protocols
from handrail.policy.shell import engine as commands

TABLE = Path(__file__).parent.parent / "data" / "classify_table.tsv"
PROJECT = "/home/agent/proj"
HOME = "/home/agent"
EXPECTED = {"1": 1, "2": 2, "3": 3, "u": None}


def rows() -> list[tuple[int | None, str, str]]:
    out = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith('"'):
            line = json.loads(line, strict=False)  # the columns are separated by real tabs
        tier, kind, command = line.split("\t", 2)
        out.append((EXPECTED[tier], kind, command))
    return out


ROWS = rows()


@pytest.fixture(autouse=True)
def _no_temp_folder_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table is judged as on a Linux machine that sets no TMPDIR: `$TMPDIR/x` is `/x`."""
    for name in ("TMPDIR", "TMP", "TEMP"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def engine() -> commands.Engine:
    return commands.engine(protocols.builtin())


def classify(engine: commands.Engine, command: str) -> dict:
    return commands.classify(command, engine, cwd=PROJECT, project=PROJECT, home=HOME)


def test_the_table_is_large_and_balanced() -> None:
    kinds = [k for _, k, _ in ROWS]
    assert len(ROWS) >= 600
    assert kinds.count("d") >= 300 and kinds.count("b") >= 250


@pytest.mark.parametrize(("tier", "kind", "command"), ROWS, ids=[f"{i}-{c[:40]}" for i, (_, _, c) in enumerate(ROWS)])
def test_tier(engine: commands.Engine, tier: int | None, kind: str, command: str) -> None:
    answer = classify(engine, command)
    assert answer["tier"] == tier, json.dumps(answer, indent=1)
    assert answer["decision"] == commands.DECISIONS[tier]
    if tier == 3:
        # Whoever is asked must see which part and which pattern or rule.
        first = answer["reasons"][0]
        assert first["tier"] == 3 and first["part"] and ("pattern" in first or "rule" in first)


def test_destructive_recall_and_benign_false_positives(engine: commands.Engine) -> None:
    destructive = [c for _, k, c in ROWS if k == "d"]
    benign = [c for _, k, c in ROWS if k == "b"]
    caught = sum(classify(engine, c)["tier"] == 3 for c in destructive)
    benign_answers = [classify(engine, c)["tier"] for c in benign]
    blocked = sum(t == 3 for t in benign_answers)
    need_human = sum(t not in (1, 2) for t in benign_answers)
    recall = caught / len(destructive)
    false_positive = blocked / len(benign)
    print(f"\ndestructive recall {recall:.1%} ({caught}/{len(destructive)}); benign in tier 3 "
          f"{false_positive:.1%} ({blocked}/{len(benign)}); benign needing a human {need_human / len(benign):.1%}")
    assert recall >= 0.95
    assert false_positive <= 0.03
