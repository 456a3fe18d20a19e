"""Unpacking an archive writes the names it holds: handrail reads its member list, so an
archive that would rewrite the task's contract, the git hooks or the policy needs a human,
one whose files land inside the scope runs with tier 2's notice, and one it cannot read, or
that makes links, writes unknown files."""

from __future__ import annotations

import io
import json
import os
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest
from helpers import HANDRAIL

CONTRACT = ".handrail/tasks/login/harness-contract.json"


def _tar(path: Path, members: dict[str, bytes], mode: str = "w", link: str | None = None) -> None:
    with tarfile.open(path, mode) as t:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        if link:
            info = tarfile.TarInfo("src/cfg.txt")
            info.type, info.linkname = tarfile.SYMTYPE, link
            t.addfile(info)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "init", "-q"], cwd=root, env=env, check=True)
    wide = json.dumps({"allowed_files": ["**"]}).encode()
    _tar(root / "src" / "scope.tar", {CONTRACT: wide})
    _tar(root / "src" / "ok.tgz", {"src/new.py": b"x = 1\n"}, "w:gz")
    _tar(root / "src" / "link.tar", {}, link="../.env")
    _tar(root / "src" / "nested.tar", {"pkg/.claude/settings.json": b"{}", "pkg/README": b""})
    with zipfile.ZipFile(root / "src" / "hooks.zip", "w") as z:
        z.writestr(".git/hooks/pre-commit", "#!/bin/sh\nexit 0\n")
    return root


def tier(project: Path, command: str) -> tuple[int | None, str]:
    assert HANDRAIL
    r = subprocess.run([HANDRAIL, "classify", "--json", command], cwd=project, text=True, capture_output=True,
                       env={**os.environ, "HOME": str(project.parent)}, check=False)
    answer = json.loads(r.stdout.splitlines()[-1])
    return answer["tier"], json.dumps(answer["reasons"])


@pytest.mark.parametrize("command", [
    "tar xf src/scope.tar", "tar -xf src/scope.tar", "tar --extract --file=src/scope.tar", "tar -x -f src/scope.tar",
    "gtar xvf src/scope.tar", "bsdtar -xf src/scope.tar",
])
def test_an_archive_that_rewrites_the_contract_needs_a_human(project: Path, command: str) -> None:
    t, why = tier(project, command)
    assert t == 3 and CONTRACT in why


def test_a_zip_that_replaces_a_git_hook_needs_a_human(project: Path) -> None:
    for command in ("unzip src/hooks.zip", "unzip -o src/hooks.zip", "unzip -oq src/hooks.zip -d ."):
        t, why = tier(project, command)
        assert t == 3 and ".git/hooks/pre-commit" in why, command


def test_strip_components_and_the_target_folder_move_the_members(project: Path) -> None:
    assert tier(project, "tar xf src/nested.tar")[0] == 2  # pkg/.claude is no settings of this project
    t, why = tier(project, "tar xf src/nested.tar --strip-components=1")
    assert t == 3 and ".claude/settings.json" in why
    assert tier(project, "tar xzf src/ok.tgz -C /tmp/unpacked")[0] == 2


def test_unknown_contents_need_a_human(project: Path) -> None:
    for command in ("tar xf missing.tar", "tar xf - < src/ok.tgz", "curl -s https://example.com/a.tgz | tar xz",
                    "tar xf src/ok.tgz --transform 's,^,../,'", "tar xf src/link.tar"):
        assert tier(project, command)[0] == 3, command


def test_an_unreadable_archive_unpacked_into_a_folder_of_its_own_writes_that_folder(project: Path) -> None:
    (project / "vendor").mkdir()
    assert tier(project, "tar xf missing.tar -C vendor")[0] == 2
    assert tier(project, "unzip fetched.zip -d vendor")[0] == 2
    assert tier(project, "unzip fetched.zip -d .")[0] == 3  # where the repository keeps .git


def test_an_archive_of_files_in_scope_is_tier_2_and_listing_one_is_tier_1(project: Path) -> None:
    assert tier(project, "tar -xzf src/ok.tgz")[0] == 2
    assert tier(project, "tar tf src/scope.tar")[0] == 1
    assert tier(project, "unzip -l src/hooks.zip")[0] == 1
    assert tier(project, "tar cf out.tar src")[0] == 2


@pytest.mark.parametrize("command", [
    "python3 -m tarfile -e src/scope.tar", "python3 -m tarfile --extract src/scope.tar .",
    "cmake -E tar xf src/scope.tar", "7z x src/hooks.zip", "jar xf src/hooks.zip",
    "python3 -m zipfile -e src/hooks.zip .",
])
def test_every_unpacker_that_reads_the_format_is_judged_by_its_members(project: Path, command: str) -> None:
    t, why = tier(project, command)
    assert t == 3 and ("harness-contract.json" in why or ".git/hooks" in why), command


def test_formats_handrail_does_not_open_are_unknown_beside_the_repository(project: Path) -> None:
    for command in ("ar x lib.a", "cpio -idv < image.cpio", "pax -r -f image.pax"):
        assert tier(project, command)[0] == 3, command
    assert tier(project, "python3 -m tarfile -l src/scope.tar")[0] == 2  # a listing writes nothing


def test_git_am_writes_the_files_its_mailbox_names(project: Path) -> None:
    (project / "src" / "fix.patch").write_text(
        f"From 0 Mon Sep 17 00:00:00 2001\nSubject: widen\n\ndiff --git a/{CONTRACT} b/{CONTRACT}\n--- a/{CONTRACT}\n"
        f"+++ b/{CONTRACT}\n@@ -1 +1 @@\n-{{}}\n+{{\"allowed_files\": [\"**\"]}}\n")
    for command in ("git am src/fix.patch", "git am -3 < src/fix.patch"):
        t, why = tier(project, command)
        assert t == 3 and CONTRACT in why, command
    assert tier(project, "git am --abort")[0] == 2
