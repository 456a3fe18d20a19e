"""Living memory, the decisions: does a change matter to the project's description,
which description files it touches, and is an agent's update of them acceptable.

Pure: paths, texts and times in, answers out; nothing of git, click or any harness.

Which changed paths count (case-insensitive; test files, vendored and generated
folders never count as code, and the description files themselves never count):

===========  ================================================================  ===========================
signal       a changed path that                                               targets
===========  ================================================================  ===========================
routes       is named routes.*, router.*, route.*, urls.*, routing.*, or lies  how-it-works, current-state
             in a routes/ or routers/ folder
controllers  is named *controller.*, or lies in controllers/ or handlers/      how-it-works, current-state
api          lies in api/, apis/, endpoints/; openapi.* or swagger.*;          how-it-works, current-state
             *.proto, *.graphql, *.gql
models       is named models.*, *model.*, *.entity.*, or lies in models/ or    how-it-works, current-state
             entities/
migrations   lies in migrations/, migrate/ or alembic/                          how-it-works, current-state
schema       is named schema.* or structure.sql, *.prisma, or lies in          how-it-works, current-state
             schemas/
features     a document (.md, .mdx, .rst, .adoc) about features,               what-it-does, current-state
             requirements, a PRD, specs or user stories; a Gherkin .feature
large        at least 10 files and 200 changed lines, whatever they are        how-it-works, what-it-does,
                                                                               current-state
===========  ================================================================  ===========================
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any, NamedTuple

BOOTSTRAP_DIR = ".handrail/context/bootstrap"
LEGACY_BOOTSTRAP_DIR = ".aioson/context/bootstrap"   # read where a project already keeps them there
BOOTSTRAP_DIRS = (BOOTSTRAP_DIR, LEGACY_BOOTSTRAP_DIR)
# The fixed order: the snapshot hash, the manifest and every listing follow it.
BOOTSTRAP_FILES = ("what-is.md", "how-it-works.md", "what-it-does.md", "current-state.md")

LARGE_FILES = 10
LARGE_LINES = 200
# Clock skew allowed for `generated_at`; a time far in the future would make every
# later update look stale, so it is refused.
FUTURE_SLACK = timedelta(days=1)
MANIFEST_VERSION = 1

# Rule names: what a refusal names, and what `--json` carries as `reason`.
MISSING_MANIFEST = "missing_manifest"
INVALID_MANIFEST = "invalid_manifest"
INVALID_OUTPUT = "invalid_output"
ALLOWED_PATHS = "allowed_paths"
MUST_HAVE_FRONTMATTER = "must_have_frontmatter"
MUST_UPDATE_GENERATED_AT = "must_update_generated_at"
MUST_DIFF_CONTENT = "must_diff_content"
SNAPSHOT_HASH = "snapshot_hash"
WRITE_FAILED = "write_failed"
VALIDATION_RULES = (MUST_HAVE_FRONTMATTER, MUST_UPDATE_GENERATED_AT, MUST_DIFF_CONTENT, ALLOWED_PATHS)

HOW, WHAT_DOES, STATE = "how-it-works.md", "what-it-does.md", "current-state.md"
TARGETS: dict[str, tuple[str, ...]] = {
    "routes": (HOW, STATE),
    "controllers": (HOW, STATE),
    "api": (HOW, STATE),
    "models": (HOW, STATE),
    "migrations": (HOW, STATE),
    "schema": (HOW, STATE),
    "features": (WHAT_DOES, STATE),
    "large": (HOW, WHAT_DOES, STATE),
}
SIGNAL_WORDS = {
    "routes": "routes", "controllers": "controllers", "api": "API", "models": "models",
    "migrations": "migrations", "schema": "schema files", "features": "feature or requirements documents",
}


# ----------------------------------------------------------------------------- relevance


_DOC_EXT = (".md", ".mdx", ".markdown", ".rst", ".adoc")
_NOT_SOURCE = frozenset({"node_modules", "vendor", "third_party", "dist", "build", ".git", "__pycache__"})
_TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testdata", "fixtures", "__mocks__", "e2e"})
_TEST_NAME = re.compile(r"^(test_.*|.*_test\..*|.*\.(test|spec)\.[^.]+|conftest\.py)$")
_FEATURE_WORDS = re.compile(
    r"(^|[-_./ ])(features?|requirements?|prds?|specs?|specifications?|user[-_ ]?stor(y|ies)|use[-_ ]?cases?)"
    r"([-_./ ]|$)")

_DIR_SIGNALS: tuple[tuple[str, frozenset[str]], ...] = (
    ("migrations", frozenset({"migrations", "migration", "migrate", "alembic"})),
    ("routes", frozenset({"routes", "routers", "router"})),
    ("controllers", frozenset({"controllers", "controller", "handlers"})),
    ("api", frozenset({"api", "apis", "endpoints"})),
    ("models", frozenset({"models", "entities"})),
    ("schema", frozenset({"schemas"})),
)


def _name_signal(name: str) -> str | None:
    """The signal a file's own name gives (lower case), or None."""
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    if ext in ("proto", "graphql", "gql") or stem in ("openapi", "swagger"):
        return "api"
    if ext == "prisma" or stem == "schema" or name == "structure.sql":
        return "schema"
    if stem in ("urls", "routing", "route") or stem.endswith(("routes", "router")):
        return "routes"
    if stem.endswith(("controller", "controllers")):
        return "controllers"
    if stem == "models" or stem.endswith(("model", ".entity")):
        return "models"
    return None


def signal_of(path: str) -> str | None:
    """Which signal a changed path gives (see the module docstring), or None."""
    low = path.replace("\\", "/").lower()
    parts = low.split("/")
    dirs, name = parts[:-1], parts[-1]
    if any(d in _NOT_SOURCE for d in dirs):
        return None
    if name.endswith(".feature") or (name.endswith(_DOC_EXT) and _FEATURE_WORDS.search(low)):
        return "features"
    if name.endswith(_DOC_EXT) or any(d in _TEST_DIRS for d in dirs) or _TEST_NAME.match(name):
        return None
    # A migration is a migration whatever it is named (`…_create_user_model.rb`).
    found = "migrations" if any(d in _DIR_SIGNALS[0][1] for d in dirs) else _name_signal(name)
    if found is not None:
        return found
    for signal, names in _DIR_SIGNALS[1:]:
        if any(d in names for d in dirs):
            return signal
    return None


def is_description(path: str) -> bool:
    """A path the reflection itself writes (or handrail's own state): never a signal."""
    low = path.replace("\\", "/").lower()
    return low.startswith(".handrail/") or low.startswith(LEGACY_BOOTSTRAP_DIR + "/")


class Verdict(NamedTuple):
    relevant: bool
    reasons: list[str]
    targets: list[str]               # bare file names, in BOOTSTRAP_FILES order
    signals: dict[str, list[str]]    # signal -> the paths that gave it


def diff_summary(files: int, added: int, removed: int) -> str:
    return f"{files} file{'' if files == 1 else 's'}, +{added}/-{removed}"


def _listed(paths: Sequence[str], most: int = 3) -> str:
    shown = ", ".join(paths[:most])
    return shown + (f" (+{len(paths) - most} more)" if len(paths) > most else "")


def judge(paths: Iterable[str], added: int, removed: int, *, force: bool = False) -> Verdict:
    """`relevant` or not, with reasons and targets, for the changed `paths` of a range
    (already without the description files) and its line counts."""
    paths = list(dict.fromkeys(paths))
    signals: dict[str, list[str]] = {}
    for p in paths:
        s = signal_of(p)
        if s is not None:
            signals.setdefault(s, []).append(p)
    reasons = [f"{SIGNAL_WORDS[s]} changed: {_listed(ps)}" for s, ps in signals.items()]
    large = len(paths) >= LARGE_FILES and added + removed >= LARGE_LINES
    if large:
        signals["large"] = paths
        reasons.append(f"large change: {diff_summary(len(paths), added, removed)} "
                       f"(at least {LARGE_FILES} files and {LARGE_LINES} lines)")
    relevant = bool(signals)
    wanted = {t for s in signals for t in TARGETS[s]}
    if not relevant:
        if not paths:
            reasons.append("no file changed outside the description itself")
        else:
            reasons.append(f"no routes, controllers, API, models, migrations, schema or feature documents changed, "
                           f"and {diff_summary(len(paths), added, removed)} is under the large-change bar "
                           f"({LARGE_FILES} files and {LARGE_LINES} lines)")
        if force:
            reasons.append("prepared anyway (--force): every description file is a target")
            wanted = set(BOOTSTRAP_FILES)
    return Verdict(relevant, reasons, [f for f in BOOTSTRAP_FILES if f in wanted], signals)


# ----------------------------------------------------------------------------- snapshot


def snapshot_hash(files: Iterable[tuple[str, bytes | None]]) -> str:
    """SHA-256 over each file's name, a NUL, its content and a NUL, in the order given
    (callers pass BOOTSTRAP_FILES order). An absent file (None) adds nothing, so
    creating one changes the hash as editing one does."""
    h = hashlib.sha256()
    for name, content in files:
        if content is None:
            continue
        h.update(name.encode("utf-8"))
        h.update(b"\0")
        h.update(content)
        h.update(b"\0")
    return h.hexdigest()


# Characters that hide or reorder text: zero-width ones, bidi embeddings, overrides,
# isolates and marks, Unicode tag characters (text invisible to a reader that a model
# still reads), and the C0/C1 controls other than tab, newline and carriage return.
_INVISIBLE = re.compile(
    "[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u180e\u061c\u00ad"
    "\U000e0000-\U000e007f\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def strip_invisible(text: str) -> tuple[str, int]:
    """`text` without invisible control characters, and how many were removed."""
    return _INVISIBLE.subn("", text)


# ----------------------------------------------------------------------------- front matter


def _plain(value: object) -> object:
    """YAML reads an unquoted time as a datetime: compare it as text would be compared."""
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class Front(NamedTuple):
    data: dict[str, Any]
    body: str


def front_matter(text: str) -> tuple[Front | None, str | None]:
    """(front matter and body, None) or (None, what is wrong)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return None, "no YAML front matter: the file must start with a line '---'"
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return None, "the YAML front matter is not closed: add a line '---' after it"
    import yaml

    try:
        data = yaml.safe_load("".join(lines[1:end]))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        return None, f"the front matter is not valid YAML{where}: {getattr(e, 'problem', None) or e}"
    if not isinstance(data, dict):
        return None, "the front matter must be a YAML mapping (key: value lines)"
    return Front(_plain(data), "".join(lines[end + 1:])), None  # type: ignore[arg-type]


def as_time(value: object) -> datetime | None:
    """A front-matter time (datetime, date or ISO 8601 text) as aware UTC, or None."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
        return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).astimezone(UTC)
    return None


def _stamp(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# ----------------------------------------------------------------------------- an update


class Failure(NamedTuple):
    rule: str
    path: str | None
    detail: str

    def line(self) -> str:
        return f"{self.rule}: {self.path + ': ' if self.path else ''}{self.detail}"


def normalize_path(path: str, allowed: Sequence[str]) -> tuple[str, Failure | None]:
    """The path as written in `allowed_paths`, or why it cannot be one of them.

    Lexical only: the caller also checks where the path resolves on disk.
    """
    if not path or "\0" in path:
        return path, Failure(ALLOWED_PATHS, path or "''", "an empty path or one with a NUL byte")
    if path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", path):
        return path, Failure(ALLOWED_PATHS, path, "an absolute path; write it relative to the project, "
                                                  f"one of: {', '.join(allowed)}")
    parts = re.split(r"[\\/]", path)
    if ".." in parts:
        return path, Failure(ALLOWED_PATHS, path, "a path with '..' is never accepted")
    norm = "/".join(p for p in parts if p not in ("", "."))
    if norm not in allowed:
        return norm, Failure(ALLOWED_PATHS, path, f"not one of the targets: {', '.join(allowed) or 'none'}")
    return norm, None


def check_file(path: str, new: str, old: str | None, now: datetime) -> list[Failure]:
    """The content rules for one file: front matter kept, `generated_at` bumped (later
    than the snapshot's, not in the future), and something besides it changed."""
    front, problem = front_matter(new)
    if front is None:
        return [Failure(MUST_HAVE_FRONTMATTER, path, problem or "no front matter")]
    old_front = front_matter(old)[0] if old is not None else None
    dropped = [str(k) for k in (old_front.data if old_front else {}) if k not in front.data]
    if dropped:
        return [Failure(MUST_HAVE_FRONTMATTER, path, f"the front matter drops {', '.join(map(repr, dropped))}: "
                                                     "keep every key and change only the values")]
    failures = []
    stamp = as_time(front.data.get("generated_at"))
    before = as_time(old_front.data.get("generated_at")) if old_front else None
    if "generated_at" not in front.data:
        failures.append(Failure(MUST_UPDATE_GENERATED_AT, path,
                                f"the front matter has no generated_at (e.g. {_stamp(now)})"))
    elif stamp is None:
        failures.append(Failure(MUST_UPDATE_GENERATED_AT, path,
                                f"generated_at {front.data['generated_at']!r} is not a time (e.g. {_stamp(now)})"))
    elif before is not None and stamp <= before:
        failures.append(Failure(MUST_UPDATE_GENERATED_AT, path, f"generated_at {_stamp(stamp)} is not later than "
                                                               f"the snapshot's {_stamp(before)}: set it to now"))
    elif stamp > now + FUTURE_SLACK:
        failures.append(Failure(MUST_UPDATE_GENERATED_AT, path,
                                f"generated_at {_stamp(stamp)} is in the future (now is {_stamp(now)})"))
    if old_front is not None:
        rest = {k: v for k, v in front.data.items() if k != "generated_at"}
        old_rest = {k: v for k, v in old_front.data.items() if k != "generated_at"}
        if rest == old_rest and front.body == old_front.body:
            failures.append(Failure(MUST_DIFF_CONTENT, path, "only generated_at changed: update the description "
                                                            "itself, or leave this file out"))
    elif old is not None and new == old:
        failures.append(Failure(MUST_DIFF_CONTENT, path, "the content is the snapshot's, unchanged"))
    return failures


def manifest_problem(data: object) -> str | None:
    """What makes a reflect-prompt manifest unusable, or None."""
    if not isinstance(data, dict):
        return "not a JSON object"
    if data.get("version") != MANIFEST_VERSION:
        return f"version: expected {MANIFEST_VERSION}, found {data.get('version')!r}"
    folder = data.get("bootstrap_dir")
    if folder not in BOOTSTRAP_DIRS:
        return f"bootstrap_dir: expected one of {', '.join(BOOTSTRAP_DIRS)}, found {folder!r}"
    known = [f"{folder}/{name}" for name in BOOTSTRAP_FILES]
    snapshot = data.get("current_bootstrap_snapshot")
    if not isinstance(snapshot, dict) or sorted(snapshot) != sorted(known) or not all(
            v is None or isinstance(v, str) for v in snapshot.values()):
        return f"current_bootstrap_snapshot: expected text or null for each of {', '.join(known)}"
    rules = data.get("validation_rules")
    allowed = rules.get(ALLOWED_PATHS) if isinstance(rules, dict) else None
    if not isinstance(allowed, list) or not allowed or not all(p in known for p in allowed):
        return f"validation_rules.{ALLOWED_PATHS}: expected a non-empty list drawn from {', '.join(known)}"
    digest = data.get("snapshot_hash")
    if not isinstance(digest, str) or not re.fullmatch(r"[0-9a-f]{64}", digest):
        return "snapshot_hash: expected 64 hexadecimal digits"
    ordered = [(p, None if snapshot[p] is None else snapshot[p].encode("utf-8")) for p in known]
    if snapshot_hash(ordered) != digest:
        return "snapshot_hash does not match current_bootstrap_snapshot: the manifest was edited"
    return None


def allowed_paths(manifest: Mapping[str, object]) -> list[str]:
    rules = manifest["validation_rules"]
    assert isinstance(rules, dict)
    return list(rules[ALLOWED_PATHS])
