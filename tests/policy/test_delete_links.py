"""A regenerable output folder that is a link out of the work tree is judged by where it leads:
`rm -rf build/*` through `build -> /usr` deletes /usr's files, not a build's."""

from __future__ import annotations

import subprocess
from pathlib import Path

from handrail.policy import protocol as _protocols
from handrail.policy.shell import engine as _engine


def _tier(command: str, project: Path, home: Path) -> tuple[int | None, str]:
    answer = _engine.classify(command, _engine.engine(_protocols.builtin()), cwd=str(project),
                              project=str(project), home=str(home))
    return answer["tier"], " ".join(r.get("why", "") for r in answer["reasons"])


def test_removing_through_a_build_link_that_leads_out_needs_a_human(tmp_path: Path) -> None:
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "build").symlink_to("/usr")
    (project / "dist").mkdir()
    for command in ("rm -rf build/*", "rm -rf build/", "rm -r build/lib"):
        tier, why = _tier(command, project, home)
        assert tier == 3 and "through a link" in why, (command, why)
    # the link itself, and a real build folder, are still regenerable output
    assert _tier("rm -rf build", project, home)[0] == 2
    assert _tier("rm -rf dist/*", project, home)[0] == 2
