"""The loop's layer of `handrail demo`: a scripted agent first leaves its scope, then succeeds."""

from __future__ import annotations

from pathlib import Path

import pytest

from handrail import demo


def test_the_demo_loop_refuses_then_finishes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "repo"
    demo.setup(str(project))
    demo.layer_loop(str(project))
    out = capsys.readouterr().out
    assert "scope: src/vendor/patch.js is forbidden" in out
    assert "✓ allowed  loop run greet (exit 0)" in out
    assert (project / "src" / "greet.py").exists() and not (project / "src" / "vendor" / "patch.js").exists()
