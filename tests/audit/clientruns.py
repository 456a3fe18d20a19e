"""OpenCode and Gemini CLI sessions made by the real clients, offline, and the small copies of
them under tests/data/audit/ that the reader tests use where no client is installed.

A fixture keeps only what the readers read, with the scratch folders written as @PROJECT@ and
@HOME@: OpenCode's as an SQL dump of its session, message and part tables (its own schema),
rebuilt into a database by `opencode_home`; Gemini's as its chat file, laid where Gemini keeps
it by `gemini_home`. `python tests/audit/clientruns.py` makes them again with the clients."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
if __name__ == "__main__":  # run by hand: the paths pytest's conftest files give the tests
    sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parent / "harnesses")]

from helpers import HANDRAIL  # noqa: E402
from hookkit import client  # noqa: E402
from modelserver import Call, ModelServer  # noqa: E402
from sessions import project  # noqa: E402

from handrail.audit.calls import Record  # noqa: E402
from handrail.policy import agents  # noqa: E402

DATA = HERE.parent / "data" / "audit"
CASES = ("plain", "guarded")
TABLES = ("session", "message", "part")  # what the OpenCode reader reads; the rest is left out
# Part fields no reader looks at, dropped from the fixture to keep it small.
DROPPED = ("output", "metadata", "title", "snapshot", "tokens", "cost", "summary")


def opencode_script(root: Path) -> list[Call]:
    return [Call("bash", {"command": "git push --force origin main", "description": "push"}),
            Call("read", {"filePath": str(root / ".env")}),
            Call("write", {"filePath": str(root / "docs" / "notes.md"), "content": "notes\n"}),
            Call("grep", {"pattern": "DATABASE"}),
            Call("read", {"filePath": str(root / "src" / "app.py")})]


def gemini_script(root: Path) -> list[Call]:
    return [Call("run_shell_command", {"command": "git push --force origin main"}),
            Call("read_file", {"file_path": str(root / ".env")}),
            Call("run_shell_command", {"command": "cat .env"}),
            Call("write_file", {"file_path": str(root / "docs" / "notes.md"), "content": "notes\n"}),
            Call("grep_search", {"pattern": "DATABASE"}),
            Call("read_file", {"file_path": str(root / "src" / "app.py")})]


def env(home: Path) -> dict[str, str]:
    """The test's environment with handrail first on PATH, a scratch HOME and no agent marker
    of an outer process: the client sets its own."""
    assert HANDRAIL
    markers = {m.variable for m in agents.MARKERS}
    out = {k: v for k, v in os.environ.items() if k not in markers and not k.startswith(("HANDRAIL_", "XDG_"))
           and k not in ("OPENCODE_DB", "GEMINI_CLI_HOME")}
    out.update(HOME=str(home), PATH=os.path.dirname(HANDRAIL) + os.pathsep + out.get("PATH", ""),
               GIT_AUTHOR_NAME="Dev", GIT_AUTHOR_EMAIL="dev@example.com", GIT_COMMITTER_NAME="Dev",
               GIT_COMMITTER_EMAIL="dev@example.com", NO_COLOR="1", HANDRAIL_HOOK_DEADLINE_MS="20000")
    return out


def run_opencode(root: Path, home: Path) -> Path:
    """`opencode run` in `root` with `home` as HOME; the database it wrote."""
    from drivers import opencode as driver

    home.mkdir(parents=True, exist_ok=True)
    with ModelServer(opencode_script(root)) as srv:
        r = driver.run(root, home, srv.url, env(home))
    assert r.returncode == 0, r.stderr[-2000:]
    return home / ".local" / "share" / "opencode" / "opencode.db"


def run_gemini(root: Path, home: Path) -> list[Path]:
    """`gemini -p` in `root` with `home` as HOME, in YOLO mode; the chat files it wrote."""
    from drivers import gemini as driver

    home.mkdir(parents=True, exist_ok=True)
    with ModelServer(gemini_script(root)) as srv:
        r = driver.run(root, home, srv.url, env(home))
    assert r.returncode == 0, r.stderr[-2000:]
    return sorted((home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl"))


def made(tmp: Path, harness: str, case: str) -> tuple[Path, Path]:
    """(project, home) after a real run of `harness` in a `case` project."""
    root = project(tmp / case / "project", guarded=case == "guarded")
    home = tmp / case / "home"
    run_opencode(root, home) if harness == "opencode" else run_gemini(root, home)
    return root, home


# --------------------------------------------------------------------------- fixtures


def tokens(text: str, root: Path, home: Path) -> str:
    return text.replace(str(home), "@HOME@").replace(str(root), "@PROJECT@")


def untokens(text: str, root: Path, home: Path) -> str:
    return text.replace("@HOME@", str(home)).replace("@PROJECT@", str(root))


def opencode_dump(db: Path, root: Path, home: Path) -> str:
    """The session, message and part tables of `db` as SQL, the parts' unread fields dropped."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        out = ["PRAGMA journal_mode = WAL;"]  # as OpenCode keeps it
        for table in TABLES:
            out.append(con.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0] + ";")
            columns = [c[1] for c in con.execute(f"PRAGMA table_info({table})")]
            for row in con.execute(f"SELECT * FROM {table} ORDER BY rowid"):
                values = dict(zip(columns, row))
                if table in ("part", "message"):
                    values["data"] = json.dumps(_trimmed(json.loads(values["data"])), sort_keys=True)
                row_sql = ", ".join(_sql(v) for v in values.values())
                out.append(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({row_sql});")
    finally:
        con.close()
    return tokens("\n".join(out) + "\n", root, home)


def _trimmed(data: dict[str, Any]) -> dict[str, Any]:
    state = data.get("state")
    if isinstance(state, dict):
        data["state"] = {k: v for k, v in state.items() if k not in DROPPED}
    return {k: v for k, v in data.items() if k not in DROPPED}


def _sql(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int | float):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def opencode_home(sql: str, root: Path, home: Path) -> Path:
    """A home whose OpenCode database holds the fixture's sessions, moved to `root`."""
    data = home / ".local" / "share" / "opencode"
    data.mkdir(parents=True, exist_ok=True)
    db = data / "opencode.db"
    con = sqlite3.connect(db)
    try:
        con.executescript(untokens(sql, root, home))
    finally:
        con.close()
    return db


def gemini_trimmed(path: Path, root: Path, home: Path) -> str:
    """A Gemini chat file with the long texts no reader reads (prompts, descriptions) cut short."""
    out = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        for message in [record, *record.get("$set", {}).get("messages", [])]:
            if isinstance(message.get("content"), list):
                message["content"] = [{**c, "text": c["text"][:40]} if "text" in c else c for c in message["content"]]
            for call in message.get("toolCalls", []):
                call.pop("description", None)
                if isinstance(call.get("resultDisplay"), dict):
                    call["resultDisplay"] = {"fileName": call["resultDisplay"].get("fileName")}
        out.append(json.dumps(record))
    return tokens("\n".join(out) + "\n", root, home)


def gemini_home(text: str, root: Path, home: Path, name: str = "session-fixture.jsonl") -> Path:
    """A home where Gemini CLI 0.61 keeps the fixture's chat file, for a project at `root`."""
    folder = home / ".gemini" / "tmp" / "project"
    (folder / "chats").mkdir(parents=True, exist_ok=True)
    (folder / ".project_root").write_text(str(root))
    (home / ".gemini" / "projects.json").write_text(json.dumps({"projects": {str(root): "project"}}))
    chat = folder / "chats" / name
    chat.write_text(untokens(text, root, home))
    return chat


def fixture(harness: str, case: str) -> Path:
    return DATA / (f"{harness}-{case}.sql" if harness == "opencode" else f"{harness}-{case}.jsonl")


def laid(harness: str, case: str, root: Path, home: Path) -> None:
    """The committed fixture laid into `home`, its project at `root`."""
    text = fixture(harness, case).read_text()
    opencode_home(text, root, home) if harness == "opencode" else gemini_home(text, root, home)


def shown(records: list[Record], root: Path, home: Path, *, exact: bool) -> list[dict[str, Any]]:
    """Records as the tests compare them: paths as tokens; without `exact`, what a run of the
    client changes (ids, times, row and line numbers, the file's name) is left out."""
    out = []
    for r in records:
        item = {"record": type(r).__name__, **r._asdict()}
        if not exact:
            for key in ("session", "file", "line", "time"):
                item.pop(key, None)
        out.append(json.loads(tokens(json.dumps(item), root, home)))
    return out


def main() -> None:
    """Run each client in each case and write its fixture (and the calls it reads to)."""
    import tempfile

    from handrail.audit import READERS

    for harness in ("opencode", "gemini"):
        if client(harness) is None:
            print(f"{harness}: not installed, fixture left as it is")
            continue
        for case in CASES:
            with tempfile.TemporaryDirectory() as tmp:
                root, home = made(Path(tmp), harness, case)
                if harness == "opencode":
                    text = opencode_dump(home / ".local" / "share" / "opencode" / "opencode.db", root, home)
                else:
                    (chat,) = run_files = sorted((home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl"))
                    assert run_files
                    text = gemini_trimmed(chat, root, home)
                fixture(harness, case).write_text(text)
                fresh = Path(tmp) / "fresh"
                laid(harness, case, root, fresh)
                find, read = READERS[harness]
                records = [r for f in find(str(root), str(fresh), {}) for r in read(f)]
                (DATA / f"{harness}-{case}.calls.json").write_text(
                    json.dumps(shown(records, root, fresh, exact=True), indent=1) + "\n")
                print(f"{harness} {case}: {len(records)} records")


if __name__ == "__main__":
    main()
