"""`handrail memory prepare`: relevant and skipped ranges, the manifest it writes,
the range it picks by default, and what it records."""

from __future__ import annotations

import hashlib

from helpers import git
from memkit import BOOT, DOES, HOW, STATE, WHAT_IS, Mem

FIELDS = {"version", "session_id", "trigger_agent", "git_range", "heuristic_verdict", "heuristic_reasons", "targets",
          "current_bootstrap_snapshot", "snapshot_hash", "diff_summary", "changed_files", "instructions",
          "validation_rules", "generated_at"}


def test_a_routes_change_is_relevant_and_writes_the_manifest(mem: Mem) -> None:
    base = mem.head()
    head = mem.commit({"config/routes.rb": "get '/users'\nget '/posts'\n", "src/util.py": "x = 1\n"}, "routes")
    out = mem.prepare("--range", f"{base}..HEAD", "--agent", "claude")
    assert out["verdict"] == "relevant" and out["written"]
    assert out["targets"] == [HOW, STATE]
    assert out["reasons"] == ["routes changed: config/routes.rb"]
    m = mem.manifest()
    assert m is not None and set(m) >= FIELDS
    assert m["git_range"] == f"{base}..{head}" and m["trigger_agent"] == "claude"
    assert m["diff_summary"] == "2 files, +3/-0"
    assert m["changed_files"] == ["config/routes.rb", "src/util.py"]
    assert m["validation_rules"] == {"must_have_frontmatter": True, "must_update_generated_at": True,
                                     "must_diff_content": True, "allowed_paths": [HOW, STATE]}
    assert m["current_bootstrap_snapshot"][HOW] == mem.read(HOW)
    digest = hashlib.sha256()
    for rel in (WHAT_IS, HOW, DOES, STATE):  # the fixed order
        digest.update(rel.encode() + b"\0" + (mem.path / rel).read_bytes() + b"\0")
    assert m["snapshot_hash"] == digest.hexdigest()
    assert any("generated_at" in line for line in m["instructions"])
    [event] = mem.events("memory_reflect_prepared")
    assert event["agent"] == "claude" and event["payload"]["targets"] == [HOW, STATE]


def test_an_ordinary_change_is_skipped_and_writes_nothing(mem: Mem) -> None:
    mem.commit({"src/util.py": "def f():\n    return 1\n", "README.md": "# demo\nmore\n"})
    out = mem.prepare("--range", "HEAD~1..HEAD")
    assert out["verdict"] == "skip" and not out["written"] and out["targets"] == []
    assert "under the large-change bar" in out["reasons"][0]
    assert mem.manifest() is None
    [event] = mem.events("memory_reflect_skipped")
    assert event["payload"]["verdict"] == "skip"


def test_feature_documents_and_large_changes_choose_their_targets(mem: Mem) -> None:
    mem.commit({"docs/features/export.md": "# Export\n"})
    assert mem.prepare("--range", "HEAD~1..HEAD")["targets"] == [DOES, STATE]
    mem.commit({f"src/m{i}.py": "x = 1\n" * 20 for i in range(10)})
    out = mem.prepare("--range", "HEAD~1..HEAD")
    assert out["targets"] == [HOW, DOES, STATE] and out["diff_summary"] == "10 files, +200/-0"


def test_force_prepares_a_skipped_range_for_every_file(mem: Mem) -> None:
    mem.commit({"src/util.py": "x = 2\n"})
    out = mem.prepare("--range", "HEAD~1..HEAD", "--force")
    assert out["verdict"] == "skip" and out["written"] and out["forced"]
    assert mem.manifest()["targets"] == [WHAT_IS, HOW, DOES, STATE]  # type: ignore[index]


def test_the_default_range_starts_at_the_last_reflection(mem: Mem) -> None:
    first = mem.commit({"src/util.py": "x = 2\n"})
    assert mem.prepare()["verdict"] == "skip"
    routes = mem.commit({"app/routes.py": "GET /\n"})
    out = mem.prepare()
    assert out["git_range"] == f"{first}..{routes}" and out["verdict"] == "relevant"
    # While the reflection is pending, later commits join its range.
    later = mem.commit({"src/util.py": "x = 3\n"})
    assert mem.prepare()["git_range"] == f"{first}..{later}"
    assert mem.manifest()["git_range"] == f"{first}..{later}"  # type: ignore[index]


def test_without_history_the_default_is_the_last_three_commits(mem: Mem) -> None:
    for i in range(4):
        mem.commit({f"src/f{i}.py": "x\n"})
    out = mem.prepare()
    assert out["git_range"] == f"{git(mem.path, 'rev-parse', 'HEAD~3').stdout.strip()}..{mem.head()}"


def test_a_change_to_the_description_alone_is_not_a_reason(mem: Mem) -> None:
    mem.commit({HOW: mem.read(HOW) + "more\n"})
    out = mem.prepare("--range", "HEAD~1..HEAD")
    assert out["verdict"] == "skip" and out["changed_files"] == []


def test_missing_bootstrap_files_are_reported_with_the_command_that_creates_them(bare: Mem) -> None:
    bare.commit({"app/models/user.rb": "class User; end\n"})
    r = bare.hr("memory", "prepare", "--range", "HEAD~1..HEAD")
    assert r.returncode == 0, r.stderr
    assert "relevant: models changed: app/models/user.rb" in r.stdout
    assert "handrail memory init" in r.stderr and f"{BOOT}/what-is.md" in r.stderr
    m = bare.manifest()
    assert m is not None and m["current_bootstrap_snapshot"][HOW] is None


def test_an_aioson_project_keeps_its_own_folder(bare: Mem) -> None:
    legacy = ".aioson/context/bootstrap/how-it-works.md"
    bare.write(legacy, "---\ngenerated_at: 2026-01-01T00:00:00Z\n---\nold\n")
    bare.commit({"app/routes.py": "GET /\n"})
    out = bare.prepare("--range", "HEAD~1..HEAD")
    assert out["targets"] == [legacy, ".aioson/context/bootstrap/current-state.md"]
    assert not (bare.path / ".handrail" / "context").exists()


def test_a_bad_range_is_refused_in_one_line(mem: Mem) -> None:
    for text in ("nonsense..HEAD", "HEAD", "HEAD...HEAD~1"):
        r = mem.hr("memory", "prepare", "--range", text)
        assert r.returncode == 2 and "--range" in r.stderr and "Traceback" not in r.stderr
    assert mem.manifest() is None
