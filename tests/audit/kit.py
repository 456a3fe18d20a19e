"""A project and a home holding committed sessions, as each harness would have left them."""

from __future__ import annotations

import json
from pathlib import Path

from hookkit import make_project
from sessions import BASE, HOME, ROOT, fixture

from handrail.audit import claude as claude_reader
from handrail.policy.tasks import TASK_FILE, task_dir

EARLY = "2020-01-01T00:00:00Z"


def backdate(root: Path) -> None:
    """Move task 'login''s history back to 2020, so its edit phase covers the sessions' times."""
    path = Path(task_dir(str(root), "login")) / TASK_FILE
    data = json.loads(path.read_text())
    for entry in data["history"]:
        entry["at"] = EARLY
    data["created_at"] = data["updated_at"] = EARLY
    path.write_text(json.dumps(data))


def scene(tmp: Path) -> tuple[Path, Path]:
    """hookkit's project (task 'login' in implement since 2020, scoped to src/** and tests/**) and an empty home."""
    root = make_project(tmp / "project")
    backdate(root)
    home = tmp / "home"
    home.mkdir()
    return root, home


def text(harness: str, scenario: str, root: Path, home: Path) -> str:
    raw = fixture(harness, scenario).read_text()
    return raw.replace(HOME, str(home)).replace(ROOT, str(root)).replace(BASE, str(root.parent))


def install(harness: str, scenario: str, root: Path, home: Path, *, cwd: Path | None = None) -> Path:
    """The fixture where its harness keeps sessions, naming `root` as its project."""
    body = text(harness, scenario, root, home)
    if harness == "claude":
        folder = home / ".claude" / "projects" / claude_reader.slug(str(cwd or root))
        path = folder / f"{scenario}-{len(list(folder.glob('*'))) if folder.exists() else 0}.jsonl"
    else:
        path = home / ".codex" / "sessions" / "2026" / "12" / "02" / f"rollout-2026-12-02T07-00-00-{scenario}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    return path
