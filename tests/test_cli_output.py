"""What the `handrail` command prints, wherever it prints: refusals outside a git
repository, tables with headers, colour only for a terminal, any console encoding,
and `policy show` that summarises before it lists."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import HANDRAIL, git, read_terminal

# ----------------------------------------------------------------------------- outside a git repository

NEEDS_A_REPOSITORY = [
    ("task new", ("task", "new", "login")),
    ("task phase", ("task", "phase", "login", "review")),
    ("init", ("init",)),
    ("init", ("init", "--pre-commit")),
    ("permissions", ("permissions",)),
    ("permissions", ("permissions", "--tool", "claude")),
    ("gate approve", ("gate", "approve", "login", "publish")),
    ("gate reject", ("gate", "reject", "login", "publish", "--reason", "not yet")),
    ("install-hooks", ("install-hooks",)),
    ("uninstall-hooks", ("uninstall-hooks",)),
    ("memory init", ("memory", "init")),
    ("memory prepare", ("memory", "prepare")),
    ("memory commit", ("memory", "commit", "--output", "update.json")),
    ("loop run", ("loop", "run", "login", "--", "true")),
    ("loop reset", ("loop", "reset", "login")),
    ("doctor", ("doctor",)),
    ("doctor", ("doctor", "--fix")),
    ("autonomy init", ("autonomy", "init", "coder")),
    ("autonomy set", ("autonomy", "set", "coder", "code-inline", "needsFullSupervision")),
    ("memory status", ("memory", "status")),
]


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under `folder` with its bytes (None for a folder)."""
    found: dict[str, bytes | None] = {}
    for path in sorted(folder.rglob("*")):
        found[str(path.relative_to(folder))] = None if path.is_dir() else path.read_bytes()
    return found


@pytest.mark.parametrize(("verb", "args"), NEEDS_A_REPOSITORY, ids=[" ".join(a) for _, a in NEEDS_A_REPOSITORY])
def test_outside_a_git_repository_every_such_command_refuses_in_one_line_and_writes_nothing(
        tmp_path: Path, handrail, verb: str, args: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    plain = tmp_path / "plain"
    (plain / "src").mkdir(parents=True)
    (plain / "src" / "app.py").write_text("print('hi')\n")
    (plain / "update.json").write_text('{"files": {}}')
    before = snapshot(plain)

    r = handrail(*args, cwd=plain)

    assert r.returncode == 2, r
    assert r.stderr.splitlines() == [
        f"handrail {verb}: refused: {plain.resolve()} is not inside a git repository; run `git init` first "
        "(or pass --project REPO)"]
    assert r.stdout == ""
    assert snapshot(plain) == before


def test_the_same_commands_run_once_the_folder_is_a_repository(tmp_path: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    plain = tmp_path / "plain"
    plain.mkdir()
    git(plain, "init", "-q", "-b", "main")
    r = handrail("task", "new", "login", cwd=plain)
    assert r.returncode == 0, r.stderr
    assert (plain / ".handrail" / "tasks" / "login" / "task.json").is_file()


# ----------------------------------------------------------------------------- table headers


def test_task_list_and_gate_list_print_a_header_over_their_rows(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    assert handrail("task", "new", "login", "--title", "Login form", cwd=repo).returncode == 0
    tasks = handrail("task", "list", cwd=repo).stdout.splitlines()
    assert tasks[0].split() == ["TASK", "PHASE", "EDITS", "UPDATED", "TITLE"]
    assert tasks[1].split()[:3] == ["login", "plan", "-"] and tasks[1].endswith("Login form")
    gates = handrail("gate", "list", cwd=repo).stdout.splitlines()
    assert gates[0].split() == ["TASK", "GATE", "STATUS", "DECIDED", "NOTE"]
    assert gates[1].split() == ["login", "publish", "pending", "-", "-"]


# ----------------------------------------------------------------------------- colour


def on_a_terminal(cwd: Path, *args: str, env: dict[str, str]) -> str:
    """Everything `handrail ARGS` prints with stdout and stderr on a pseudo-terminal."""
    assert HANDRAIL
    master, slave = os.openpty()
    try:
        proc = subprocess.Popen([HANDRAIL, *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave,
                                env={**os.environ, **env})
    finally:
        os.close(slave)
    out = read_terminal(master)
    proc.wait(timeout=60)
    os.close(master)
    return out.decode("utf-8", "replace")


ESC = "\x1b["


def test_doctor_is_coloured_on_a_terminal_only(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    shown = on_a_terminal(repo, "doctor", env={"TERM": "xterm"})
    assert f"{ESC}31m✗{ESC}0m policy" in shown
    piped = handrail("doctor", cwd=repo, env={"TERM": "xterm"})
    assert "✗ policy" in piped.stdout and ESC not in piped.stdout + piped.stderr


@pytest.mark.parametrize("value", ["1", "0", "false"])
def test_no_color_set_to_anything_turns_colour_off_even_on_a_terminal(repo: Path, value: str) -> None:
    shown = on_a_terminal(repo, "doctor", env={"TERM": "xterm", "NO_COLOR": value})
    assert "✗ policy" in shown and ESC not in shown


# ----------------------------------------------------------------------------- console encoding


ASCII = {"PYTHONIOENCODING": "ascii"}


def test_doctor_prints_on_an_ascii_console(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    r = handrail("doctor", cwd=repo, env=ASCII)
    assert r.returncode == 1  # no protocol yet: not ok, but a report
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert "  x policy" in r.stdout.splitlines() and r.stdout.splitlines()[-1].startswith("not ok:")
    r.stdout.encode("ascii")


def test_notify_prints_on_an_ascii_console_and_its_json_keeps_every_character(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    r = handrail("notify", "--level", "warn", "--topic", "déploiement", "--message", "✓ prêt → 中", cwd=repo, env=ASCII)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "! [deploiement] ok pret -> ?\n"
    r = handrail("notify", "--level", "info", "--topic", "t", "--message", "prêt ✓", "--json", cwd=repo, env=ASCII)
    assert r.returncode == 0, r.stderr
    r.stdout.encode("ascii")
    assert json.loads(r.stdout)["message"] == "prêt ✓"


def test_the_c_locale_through_a_pipe_prints_the_symbols_or_their_stand_ins(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    r = handrail("notify", "--level", "block", "--topic", "t", "--message", "stop", cwd=repo,
                 env={"LC_ALL": "C", "LANG": "C"})
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stdout in ("⛔ [t] stop\n", "X [t] stop\n")


def test_help_prints_on_an_ascii_console(handrail) -> None:  # type: ignore[no-untyped-def]
    r = handrail("init", "--help", env=ASCII)
    assert r.returncode == 0 and "--tools T[,T" in r.stdout and "Traceback" not in r.stderr


# ----------------------------------------------------------------------------- policy show


def policy_json(repo: Path, handrail, tool: str) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    r = handrail("policy", "show", tool, "--json", cwd=repo)
    assert r.returncode == 0, r.stderr
    data: dict[str, list[str]] = json.loads(r.stdout.splitlines()[-1])["tools"][tool]
    return data


def sections(text: str) -> dict[str, list[str]]:
    """`  label:` lines (ending in a colon) and the patterns indented under them."""
    found: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("    ") and current is not None:
            found[current].append(line[4:])
        elif line.startswith("  ") and not line.startswith("   "):
            current = line.strip().split(":")[0]
            found[current] = []
        else:
            current = None
    return found


def test_policy_show_summarises_each_tier_with_its_count_and_first_patterns(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    data = policy_json(repo, handrail, "claude")
    r = handrail("policy", "show", "claude", cwd=repo)
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert len(lines) <= 40, len(lines)
    tier1 = [p for p in data["allow"] if p not in set(data["notify"])]
    counts = {"tier 1, runs silently": tier1, "tier 2, runs with a notice": data["notify"],
              "tier 3, needs a human (ask)": data["ask"] + data["deny"]}
    shown = sections(r.stdout)
    for label, patterns in counts.items():
        (head,) = [line for line in lines if line.startswith(f"  {label}: ")]
        assert head == f"  {label}: {len(patterns)} patterns"
        assert shown[label][:5] == patterns[:5]
    assert any("more: `handrail policy show claude --tier 1`" in line for line in lines)
    assert lines[-1].startswith("every pattern: `handrail policy show claude --all`")


def test_policy_show_all_prints_exactly_the_json_sets(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    data = policy_json(repo, handrail, "claude")
    r = handrail("policy", "show", "claude", "--all", cwd=repo)
    assert r.returncode == 0
    shown = sections(r.stdout)
    expected = {label: data[key] for label, key in (("allow", "allow"), ("notify", "notify"), ("ask", "ask"),
                                                     ("deny", "deny"), ("removed from allow (tier 3)",
                                                                         "removed_from_allow")) if data[key]}
    assert shown == expected


def test_policy_show_one_tier_lists_it_whole(repo: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    data = policy_json(repo, handrail, "claude")
    r = handrail("policy", "show", "claude", "--tier", "2", cwd=repo)
    assert r.returncode == 0
    assert sections(r.stdout) == {"tier 2, runs with a notice": data["notify"]}
    r = handrail("policy", "show", "claude", "--tier", "2", "--all", cwd=repo)
    assert r.returncode == 2 and "not both" in r.stderr


# ----------------------------------------------------------------------------- a reader that went away


@pytest.mark.parametrize("args", [("classify", "--help"), ("classify", "--batch", "-"), ("--help",)])
def test_a_closed_pipe_is_no_traceback_and_no_pass(args: tuple[str, ...], tmp_path: Path) -> None:
    """`handrail classify --help | head -1`: the reader closes its end; handrail says nothing more,
    prints no traceback, and does not exit 0 (a hook whose answer was lost must not pass)."""
    read, write = os.pipe()
    os.close(read)
    lines = "".join(json.dumps({"command": f"ls {i}"}) + "\n" for i in range(2000))
    try:
        proc = subprocess.run([HANDRAIL, *args], input=lines.encode(), stdout=write, stderr=subprocess.PIPE,
                              cwd=tmp_path, timeout=60, check=False)
    finally:
        os.close(write)
    assert "Traceback" not in proc.stderr.decode(), proc.stderr.decode()
    assert proc.returncode != 0
