"""`helpers.prepared` hands tests a copy of a repository set up once: the copy must be what the
commands would have left in the test's own repository, so nothing they write names its path."""

from __future__ import annotations

from pathlib import Path

from helpers import git, prepared, run_handrail


def _files(root: Path) -> dict[str, bytes]:
    skip = (".git/objects/", ".git/logs/", ".git/index")
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.relative_to(root).as_posix().startswith(skip)}


def test_a_prepared_repository_holds_what_init_writes_and_no_path_of_its_own(tmp_path: Path) -> None:
    real, copied = tmp_path / "real", tmp_path / "copied"
    for path in (real, copied):
        path.mkdir()
        git(path, "init", "-q", "-b", "main")
    assert run_handrail("init", cwd=real).returncode == 0
    prepared(copied, ("init",))
    made, copy = _files(real), _files(copied)
    assert sorted(made) == sorted(copy)
    named = [name for name, data in made.items() if str(real).encode() in data]
    assert not named, f"handrail init wrote the repository's own path into {named}: a copy would be wrong"
    # the same bytes, but for what differs between any two runs: the event store (times) and
    # the locks (the pid of the process that held them)
    def lasting(files: dict[str, bytes]) -> dict[str, bytes]:
        return {n: d for n, d in files.items() if not n.endswith((".sqlite", ".lock"))}

    assert lasting(made) == lasting(copy)
