"""The pure decisions: which paths matter, the snapshot hash, invisible characters,
and each content rule on its own."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import pytest

from handrail.policy import memory as rules

NOW = datetime(2026, 2, 1, tzinfo=UTC)
OLD = "---\ntitle: How it works\ngenerated_at: 2026-02-01T00:00:00Z\n---\n\n# How it works\n"


@pytest.mark.parametrize(("path", "signal"), [
    ("config/routes.rb", "routes"),
    ("src/app.routes.ts", "routes"),
    ("mysite/urls.py", "routes"),
    ("app/api/users/route.ts", "routes"),
    ("src/routes/index.js", "routes"),
    ("app/controllers/users_controller.rb", "controllers"),
    ("src/UserController.java", "controllers"),
    ("services/api/client.go", "api"),
    ("openapi.yaml", "api"),
    ("proto/user.proto", "api"),
    ("app/models/user.rb", "models"),
    ("src/user.entity.ts", "models"),
    ("blog/models.py", "models"),
    ("db/migrate/20260101_create_user_model.rb", "migrations"),
    ("alembic/versions/abc.py", "migrations"),
    ("prisma/schema.prisma", "schema"),
    ("db/structure.sql", "schema"),
    ("docs/features/login.md", "features"),
    ("REQUIREMENTS.md", "features"),
    (".aioson/context/prd.md", "features"),
    ("features/login.feature", "features"),
    ("README.md", None),
    ("requirements.txt", None),
    ("docs/api.md", None),
    ("tests/models/test_user.py", None),
    ("src/routes.test.ts", None),
    ("node_modules/x/routes.js", None),
    ("src/util.py", None),
])
def test_which_paths_give_a_signal(path: str, signal: str | None) -> None:
    assert rules.signal_of(path) == signal


def test_a_routes_change_targets_how_it_works_and_current_state() -> None:
    v = rules.judge(["config/routes.rb", "README.md"], 3, 1)
    assert v.relevant and v.targets == ["how-it-works.md", "current-state.md"]
    assert v.reasons == ["routes changed: config/routes.rb"]


def test_a_feature_document_targets_what_it_does() -> None:
    v = rules.judge(["docs/requirements/export.md"], 40, 0)
    assert v.relevant and v.targets == ["what-it-does.md", "current-state.md"]


@pytest.mark.parametrize(("files", "lines", "relevant"), [(10, 200, True), (9, 900, False), (30, 199, False)])
def test_a_large_change_needs_ten_files_and_two_hundred_lines(files: int, lines: int, relevant: bool) -> None:
    v = rules.judge([f"src/f{i}.py" for i in range(files)], lines, 0)
    assert v.relevant is relevant
    if relevant:
        assert v.targets == ["how-it-works.md", "what-it-does.md", "current-state.md"]
        assert "large change: 10 files, +200/-0" in v.reasons[0]


def test_skip_says_why_and_force_targets_everything() -> None:
    v = rules.judge(["src/util.py"], 2, 1)
    assert not v.relevant and v.targets == [] and "under the large-change bar" in v.reasons[0]
    forced = rules.judge(["src/util.py"], 2, 1, force=True)
    assert not forced.relevant and forced.targets == list(rules.BOOTSTRAP_FILES)


def test_the_description_itself_is_never_a_signal() -> None:
    assert rules.is_description(".handrail/context/bootstrap/how-it-works.md")
    assert rules.is_description(".aioson/context/bootstrap/what-is.md")
    assert not rules.is_description(".aioson/context/prd.md")


def test_snapshot_hash_is_sha256_over_name_nul_content_nul_in_order() -> None:
    files = [("a.md", b"one"), ("b.md", None), ("c.md", b"")]
    assert rules.snapshot_hash(files) == hashlib.sha256(b"a.md\0one\0c.md\0\0").hexdigest()
    assert rules.snapshot_hash(list(reversed(files))) != rules.snapshot_hash(files)
    assert rules.snapshot_hash([("b.md", b"")]) != rules.snapshot_hash([("b.md", None)])


def test_invisible_characters_are_stripped_and_counted() -> None:
    tags = "".join(chr(0xE0000 + ord(c)) for c in "run rm")  # invisible "run rm"
    hidden = "ok\u200b \u202eevil\u202c\u2066x\u2069\ufeff" + tags + "\x1b[2J"
    clean, n = rules.strip_invisible("line\ttab\n" + hidden + " é 日本\n")
    assert clean == "line\ttab\nok evilx[2J é 日本\n"
    assert n == 6 + 6 + 1


@pytest.mark.parametrize(("path", "why"), [
    ("../x.md", "'..'"),
    (".handrail/context/bootstrap/../../../x.md", "'..'"),
    ("/etc/passwd", "absolute"),
    ("C:\\x\\how-it-works.md", "absolute"),
    (".handrail/context/bootstrap/what-is.md", "not one of the targets"),
    ("", "empty"),
])
def test_paths_outside_the_targets_are_refused(path: str, why: str) -> None:
    _norm, failure = rules.normalize_path(path, [".handrail/context/bootstrap/how-it-works.md"])
    assert failure is not None and failure.rule == rules.ALLOWED_PATHS and why in failure.detail


def test_a_target_written_with_dot_segments_is_the_target() -> None:
    norm, failure = rules.normalize_path("./.handrail//context/bootstrap/how-it-works.md",
                                         [".handrail/context/bootstrap/how-it-works.md"])
    assert failure is None and norm == ".handrail/context/bootstrap/how-it-works.md"


def _rules_failing(new: str, old: str | None = OLD) -> list[str]:
    return [f.rule for f in rules.check_file("how-it-works.md", new, old, NOW)]


def test_a_well_formed_update_passes() -> None:
    assert _rules_failing(OLD.replace("00:00:00Z", "06:00:00Z") + "More.\n") == []
    assert _rules_failing("---\ngenerated_at: '2026-02-01T06:00:00+00:00'\n---\nnew\n", None) == []


@pytest.mark.parametrize(("new", "rule"), [
    ("# How it works\nno front matter\n", rules.MUST_HAVE_FRONTMATTER),
    ("---\ntitle: [unclosed\n---\nbody\n", rules.MUST_HAVE_FRONTMATTER),
    ("---\ngenerated_at: 2026-02-01T06:00:00Z\n---\n\n# How it works\nMore.\n", rules.MUST_HAVE_FRONTMATTER),
    (OLD + "More.\n", rules.MUST_UPDATE_GENERATED_AT),
    (OLD.replace("2026-02-01T00:00:00Z", "2026-01-01T00:00:00Z") + "More.\n", rules.MUST_UPDATE_GENERATED_AT),
    (OLD.replace("2026-02-01T00:00:00Z", "9999-01-01T00:00:00Z") + "More.\n", rules.MUST_UPDATE_GENERATED_AT),
    (OLD.replace("2026-02-01T00:00:00Z", "soon") + "More.\n", rules.MUST_UPDATE_GENERATED_AT),
    (OLD.replace("00:00:00Z", "06:00:00Z"), rules.MUST_DIFF_CONTENT),
])
def test_each_rule_fails_on_its_own(new: str, rule: str) -> None:
    assert _rules_failing(new) == [rule]


def test_an_edited_manifest_no_longer_matches_its_hash() -> None:
    folder = rules.BOOTSTRAP_DIR
    snapshot = {f"{folder}/{n}": None for n in rules.BOOTSTRAP_FILES}
    snapshot[f"{folder}/how-it-works.md"] = OLD
    manifest = {"version": 1, "bootstrap_dir": folder, "current_bootstrap_snapshot": snapshot,
                "validation_rules": {"allowed_paths": [f"{folder}/how-it-works.md"]},
                "snapshot_hash": rules.snapshot_hash([(p, None if t is None else t.encode())
                                                      for p, t in snapshot.items()])}
    assert rules.manifest_problem(manifest) is None
    manifest["current_bootstrap_snapshot"][f"{folder}/how-it-works.md"] = OLD.replace("2026", "2020")
    assert "was edited" in (rules.manifest_problem(manifest) or "")
    manifest["validation_rules"]["allowed_paths"] = ["src/app.py"]
    assert "allowed_paths" in (rules.manifest_problem(manifest) or "")
