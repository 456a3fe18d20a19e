"""`handrail memory commit`: a well-formed update is written whole; anything else is
refused, writes nothing, and names the rule that failed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from memkit import HOW, LATER, MANIFEST, NOW, STATE, WHAT_IS, Mem, bumped


def refused(mem: Mem, r, rule: str) -> None:  # type: ignore[no-untyped-def]
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{rule}: " in r.stderr and "nothing was written" in r.stderr
    assert "Traceback" not in r.stderr
    failed = mem.events("memory_reflect_failed")
    assert failed and failed[-1]["payload"]["rules"][0] == rule


def test_a_well_formed_update_is_written_and_the_manifest_removed(pending: Mem) -> None:
    before = pending.read(STATE)
    new = bumped(pending.read(HOW), add="Requests go \u200bthrough app/routes.py.\u202e\n")
    r = pending.update({HOW: new}, "--agent", "codex")
    assert r.returncode == 0, r.stderr
    assert f"wrote {HOW}" in r.stdout and "removed 2 invisible characters" in r.stdout
    assert pending.read(HOW) == new.replace("\u200b", "").replace("\u202e", "")
    assert pending.read(STATE) == before
    assert pending.manifest() is None
    [event] = pending.events("memory_reflect_committed")
    assert event["agent"] == "codex" and event["payload"]["files"] == [HOW]
    backups = list((pending.path / ".handrail" / "backups").rglob("how-it-works.md"))
    assert len(backups) == 1 and f"generated_at: {NOW}" in backups[0].read_text()
    status = json.loads(pending.hr("memory", "status", "--json").stdout)
    assert status["pending"] is False


def test_several_targets_at_once_from_stdin(pending: Mem) -> None:
    files = {HOW: bumped(pending.read(HOW)), STATE: bumped(pending.read(STATE), add="Users can be listed.\n")}
    r = pending.hr("memory", "commit", "-", "--json", input=json.dumps({"files": files}))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["ok"] and out["files"] == [HOW, STATE] and out["reason"] is None
    assert pending.read(STATE) == files[STATE]


def _no_front_matter(text: str) -> str:
    return "# How it works\nRoutes live in app/routes.py.\n"


def _dropped_key(text: str) -> str:
    return bumped(text).replace("title: How it works\n", "")


def _same_generated_at(text: str) -> str:
    return text + "Routes live in app/routes.py.\n"


def _only_generated_at(text: str) -> str:
    return bumped(text, add="")


@pytest.mark.parametrize(("change", "rule"), [
    (_no_front_matter, "must_have_frontmatter"),
    (_dropped_key, "must_have_frontmatter"),
    (_same_generated_at, "must_update_generated_at"),
    (_only_generated_at, "must_diff_content"),
])
def test_each_content_rule_refuses_on_its_own(pending: Mem, change, rule: str) -> None:  # type: ignore[no-untyped-def]
    before = pending.read(HOW)
    r = pending.update({HOW: change(before)}, "--json")
    out = json.loads(r.stdout.splitlines()[-1])
    assert r.returncode == 1 and out["reason"] == rule
    assert [f["rule"] for f in out["failures"]] == [rule]
    assert pending.read(HOW) == before and pending.manifest() is not None
    assert pending.events("memory_reflect_failed")[-1]["payload"]["rules"] == [rule]


def test_a_file_that_is_not_a_target_is_refused(pending: Mem) -> None:
    before = pending.read(WHAT_IS)
    refused(pending, pending.update({WHAT_IS: bumped(before)}), "allowed_paths")
    assert pending.read(WHAT_IS) == before


def test_nothing_is_written_when_one_file_of_several_fails(pending: Mem) -> None:
    how, state = pending.read(HOW), pending.read(STATE)
    r = pending.update({HOW: bumped(how), STATE: _no_front_matter(state)})
    refused(pending, r, "must_have_frontmatter")
    assert pending.read(HOW) == how and pending.read(STATE) == state


def test_a_concurrent_edit_between_prepare_and_commit_is_refused_by_the_hash(pending: Mem) -> None:
    update = bumped(pending.read(HOW))
    someone = pending.read(HOW) + "Edited by a person meanwhile.\n"
    pending.write(HOW, someone)
    r = pending.update({HOW: update})
    refused(pending, r, "snapshot_hash")
    assert HOW in r.stderr and "handrail memory prepare --force" in r.stderr
    assert pending.read(HOW) == someone
    # A fresh snapshot, and the same kind of update goes through.
    assert pending.prepare("--force")["written"]
    assert pending.update({HOW: bumped(someone)}).returncode == 0


@pytest.mark.parametrize("path", ["../outside.md", ".handrail/context/bootstrap/../../../outside.md",
                                  "ABSOLUTE", "/tmp/outside.md"])
def test_paths_with_dotdot_or_outside_the_folder_are_refused(pending: Mem, path: str) -> None:
    outside = pending.path.parent / "outside.md"
    if path == "ABSOLUTE":
        path = str(pending.path / HOW)  # even the target itself, written absolute
    r = pending.update({path: bumped(pending.read(HOW))})
    refused(pending, r, "allowed_paths")
    assert not outside.exists() and pending.manifest() is not None


def test_a_target_that_links_outside_the_folder_is_refused(mem: Mem, tmp_path: Path) -> None:
    victim = tmp_path / "victim.md"
    victim.write_text((mem.path / HOW).read_text())
    (mem.path / HOW).unlink()
    os.symlink(victim, mem.path / HOW)
    mem.commit({"app/routes.py": "GET /\n"})
    assert mem.prepare()["written"]
    r = mem.update({HOW: bumped(victim.read_text())})
    refused(mem, r, "allowed_paths")
    assert "resolves to" in r.stderr and f"generated_at: {NOW}" in victim.read_text()


def test_output_that_is_not_the_expected_shape_is_refused(pending: Mem) -> None:
    for text in ("not json", '{"files": {}}', '{"files": {"x": 1}}', "[]"):
        r = pending.hr("memory", "commit", "-", input=text)
        refused(pending, r, "invalid_output")
    r = pending.hr("memory", "commit", "--output", str(pending.path / "nowhere.json"))
    refused(pending, r, "invalid_output")


def test_without_a_manifest_the_commit_is_refused(mem: Mem) -> None:
    r = mem.update({HOW: bumped(mem.read(HOW))}, "--json")
    out = json.loads(r.stdout.splitlines()[-1])
    assert r.returncode == 1 and out["reason"] == "missing_manifest"
    assert mem.read(HOW).count(NOW) == 1


def test_an_edited_manifest_is_refused(pending: Mem) -> None:
    m = pending.manifest()
    assert m is not None
    m["validation_rules"]["allowed_paths"].append("src/app.py")
    (pending.path / MANIFEST).write_text(json.dumps(m))
    refused(pending, pending.update({"src/app.py": "x"}), "invalid_manifest")


def test_dry_run_checks_and_writes_nothing(pending: Mem) -> None:
    before = pending.read(HOW)
    r = pending.update({HOW: bumped(before)}, "--dry-run")
    assert r.returncode == 0 and f"would write {HOW}" in r.stdout
    assert pending.read(HOW) == before and pending.manifest() is not None
    assert pending.events("memory_reflect_committed") == []
    r = pending.update({HOW: before}, "--dry-run")
    assert r.returncode == 1 and "must_update_generated_at" in r.stderr


def test_the_update_is_given_one_way_only(pending: Mem) -> None:
    for args in ((), ("-", "--output", "x.json"), ("file.json",)):
        r = pending.hr("memory", "commit", *args)
        assert r.returncode == 2 and "--output FILE" in r.stderr


def test_a_generated_at_in_the_future_is_refused(pending: Mem) -> None:
    r = pending.update({HOW: bumped(pending.read(HOW), stamp="2030-01-01T00:00:00Z")})
    refused(pending, r, "must_update_generated_at")
    assert "in the future" in r.stderr and LATER not in r.stderr
