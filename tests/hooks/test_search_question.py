"""The search question: a harness's own search tool over a folder that holds a secret file
is refused (with the exclusions that would narrow it), and searched freely elsewhere."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "harnesses"))

from hookkit import make_project

from handrail.hooks import search
from handrail.hooks.pretool import DENY, NONE, SEARCH, Question, decide


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = make_project(tmp_path / "project")
    (p / "src" / "settings.py").write_text("DATABASE_URL = 'from the environment'\n")
    (p / "config").mkdir()
    (p / "config" / "deploy.pem").write_text("-----BEGIN PRIVATE KEY-----\n")
    return p


def ask(project: Path, paths: list[str] | None = None, globs: list[str] | None = None,
        cwd: Path | None = None) -> tuple[str, str, list[str]]:
    q = Question(SEARCH, "Grep", paths=paths, globs=globs, cwd=str(cwd or project))
    a = decide(q, harness="claude", agent="claude", can_ask=True)
    return a.verdict, a.message, a.exclude


def test_a_search_of_the_whole_project_is_refused_with_the_way_to_narrow_it(project: Path) -> None:
    verdict, message, exclude = ask(project)
    assert verdict == DENY
    assert message.startswith("handrail: denied: Grep would search")
    assert "2 such files" in message and "!{.env,deploy.pem}" in message
    assert exclude == ["!.env", "!deploy.pem"]


def test_a_folder_without_secrets_is_searched_freely(project: Path) -> None:
    assert ask(project, [str(project / "src")])[0] == NONE
    assert ask(project, ["src"])[0] == NONE  # relative to the call's folder


def test_the_tools_own_globs_decide_what_it_reads(project: Path) -> None:
    assert ask(project, globs=["*.py"])[0] == NONE
    assert ask(project, globs=["!.env", "!*.pem"])[0] == NONE
    assert ask(project, globs=["*.{py,pem}"])[0] == DENY
    assert ask(project, globs=["config/*"])[0] == DENY
    verdict, message, exclude = ask(project, globs=["!.env"])
    assert verdict == DENY and "config/deploy.pem holds secrets" in message and exclude == ["!deploy.pem"]


def test_a_secret_file_searched_by_name_is_refused(project: Path) -> None:
    verdict, message, exclude = ask(project, [".env"])
    assert verdict == DENY and ".env, which holds secrets" in message and exclude == []


def test_a_tree_too_large_to_walk_is_refused(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from handrail.policy.shell import secrets

    monkeypatch.setattr(secrets, "WALK_LIMIT", 3)
    verdict, message, _ = ask(project)
    assert verdict == DENY and "too large to check" in message


def test_many_secrets_are_refused_without_exclusions_that_could_miss_one(project: Path) -> None:
    keys = project / "keys"
    keys.mkdir()
    for n in range(search.MOST):
        (keys / f"k{n}.pem").write_text("x")
    verdict, _message, exclude = ask(project)
    assert verdict == DENY and exclude == []


def test_a_search_without_a_path_searches_the_calls_folder(project: Path) -> None:
    assert ask(project, cwd=project / "src")[0] == NONE
    verdict, message, _ = ask(project, cwd=project / "config")
    assert verdict == DENY and "hunter2" not in message and "PRIVATE" not in message


def test_globs_handrail_cannot_read_exactly_are_no_exclusion(project: Path) -> None:
    # Character classes and escapes mean other things to rg, minimatch and fnmatch: an include
    # glob holding them may match a secret, an exclusion holding them keeps nothing out.
    for globs in ([".[^a]nv"], [".\\env"], ["!.[e]nv", "!*.pem"], ["*.PEM"], [".ENV"]):
        assert ask(project, globs=globs)[0] == DENY, globs
    # rg lets a later glob win: an exclusion taken back by an include excludes nothing.
    assert ask(project, globs=["!.env*", "!*.pem", ".env"])[0] == DENY
    assert ask(project, globs=["!{.env,deploy.pem}"])[0] == NONE


def test_a_link_to_a_secret_is_the_secret(project: Path) -> None:
    (project / "src" / "cfg.txt").symlink_to("../.env")
    verdict, message, _ = ask(project, ["src/cfg.txt"])
    assert verdict == DENY and "a link to .env" in message
    verdict, message, exclude = ask(project, ["src"])
    assert verdict == DENY and exclude == ["!cfg.txt"]


def test_a_link_to_a_folder_leads_the_search_there(project: Path) -> None:
    (project / "src" / "up").symlink_to("..")
    verdict, message, _ = ask(project, ["src"])
    assert verdict == DENY and ".env" in message


def test_a_secret_whose_name_a_glob_cannot_spell_is_refused_not_narrowed(project: Path) -> None:
    (project / "src" / "q\\r.pem").write_text("-----BEGIN PRIVATE KEY-----\n")
    verdict, _message, exclude = ask(project, ["src"])
    assert verdict == DENY and exclude == []
