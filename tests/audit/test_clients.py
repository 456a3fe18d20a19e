"""The committed sessions against today's clients: each scenario is run again with the real
Claude Code and Codex, offline, and must read to the same calls as its fixture, found where
the client put it. A client version that writes its sessions differently fails here, and
`python tests/audit/sessions.py` (with the clients installed) makes the fixtures anew."""

from __future__ import annotations

from pathlib import Path

import pytest
from hookkit import needs_client
from sessions import ROOT, SCENARIOS, fixture, make, trimmed

from handrail.audit import READERS
from handrail.audit.calls import Call, Problem, Unknown

pytestmark = pytest.mark.slow


def read(harness: str, path: Path, root: Path) -> list[tuple[str, str | None, tuple[str, ...], str]]:
    out = []
    for item in READERS[harness][1](str(path)):
        assert not isinstance(item, Problem), item
        assert not isinstance(item, Unknown), f"{harness} writes a record type the reader does not know: {item.kind}"
        assert isinstance(item, Call)
        named = str(root)
        out.append((item.kind, item.command and item.command.replace(named, ROOT),
                    tuple(p.replace(named, ROOT) for p in item.paths), item.outcome))
    return out


@pytest.mark.parametrize("harness", [pytest.param(h, marks=needs_client(h)) for h in ("claude", "codex")])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_client_writes_what_the_fixture_holds(harness: str, scenario: str, tmp_path: Path) -> None:
    root, home, files = make(harness, scenario, tmp_path)
    assert len(files) == 1, files
    # The finder finds it where the client put it (Claude's folder slug, Codex's state database).
    assert READERS[harness][0](str(root), str(home), {}) == [str(files[0])]
    fresh = read(harness, files[0], root)
    cut = tmp_path / "trimmed.jsonl"
    cut.write_text(trimmed(harness, files[0].read_text(), root, home))
    committed = tmp_path / "committed.jsonl"
    committed.write_text(fixture(harness, scenario).read_text())
    assert read(harness, cut, Path(ROOT)) == fresh  # trimming keeps every call and outcome
    assert read(harness, committed, Path(ROOT)) == fresh, (
        f"{harness} now writes {scenario} sessions that read differently from {fixture(harness, scenario)}: "
        "run `python tests/audit/sessions.py` and look at the difference")
