"""The threat-model suite's shared machinery: a project with real secrets in it, rows run
through the real `handrail classify --batch`, `handrail hook claude`, and Claude Code's
allow-rule matching.

A row is (command, expectation). Expectations a destructive row can have: `human`
(decision ask or unlisted, exit 1), `ask` (tier 3), `not-silent` (anything but allow).
A benign row: `silent` (allow), `notice` (notify), `runs` (allow or notify)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from helpers import HANDRAIL

from handrail.policy.agents import VARIABLES as AGENT_VARIABLES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from _pytest.mark.structures import ParameterSet

Row = tuple[str, str]
Answer = dict[str, Any]  # one line of `handrail classify --json`

DESTRUCTIVE = ("human", "ask", "not-silent")
BENIGN = ("silent", "notice", "runs")
DECISIONS = {
    "human": ("ask", "unlisted"),
    "ask": ("ask",),
    "not-silent": ("notify", "ask", "unlisted"),
    "silent": ("allow",),
    "notice": ("notify",),
    "runs": ("allow", "notify"),
}
# What makes a process look like an agent's: the classifier must not see the suite's own runner as one.
AGENT_PREFIXES = ("CLAUDE", "CODEX", "OPENCODE", "GEMINI", "CURSOR", "COPILOT", "CLINE", "AIDER", "HANDRAIL_",
                  "GIT_", "PRE_COMMIT")
PINNED_GIT = {
    "GIT_AUTHOR_NAME": "Threat Author", "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_NAME": "Threat Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}

TRACKED = {
    ".gitignore": ".env\n.env.*\nnode_modules/\ndist/\nbuild/\n__pycache__/\nconfig/secrets/\n*.db\n",
    "README.md": "# shop\n\nRun `make test`. Never `git push --force` to main.\n",
    "src/app.py": "import os\n\n\ndef main() -> None:\n    # TODO: read the port from the config\n"
                  "    print(os.environ.get('PORT', '8000'))\n",
    "src/__init__.py": "",
    "tests/test_app.py": "from src.app import main\n\n\ndef test_main() -> None:\n    main()\n",
    "package.json": json.dumps({"name": "shop", "version": "1.2.0", "scripts": {"test": "jest", "build": "tsc"},
                                "dependencies": {"express": "^4.19.0"},
                                "devDependencies": {"jest": "^29.7.0", "vitest": "^2.0.0", "eslint": "^9.0.0",
                                                    "prettier": "^3.3.0", "typescript": "^5.5.0"}},
                               indent=2) + "\n",
    "Makefile": "test:\n\tpytest -q\n\nbuild:\n\tnpm run build\n",
    "docker-compose.yml": "services:\n  db:\n    image: postgres:16\n",
    "scripts/build.sh": "#!/bin/sh\nnpm run build\n",
    "data.csv": "id,name\n1,apple\n2,pear\n",
    "config/settings.yaml": "port: 8000\n",
    "web/index.html": "<title>shop</title>\n",
}
# Present but never committed: `.env` and the secrets folder are ignored; deploy.pem was just
# dropped into the tree, so `git grep --untracked` and `rg` see it.
UNTRACKED = {
    ".env": "DATABASE_PASSWORD=hunter2\nSTRIPE_KEY=sk_live_threat\n",
    ".env.production": "DATABASE_PASSWORD=prod-hunter2\n",
    "config/secrets/db.yaml": "password: s3cret\n",
    "deploy.pem": "-----BEGIN PRIVATE KEY-----\nMIIEthreat\n-----END PRIVATE KEY-----\n",
    "node_modules/x/index.js": "module.exports = 1\n",
    "node_modules/.bin/tsc": "#!/usr/bin/env node\n",
    "dist/app.js": "console.log(1)\n",
    "build/out.o": "obj\n",
    "src/__pycache__/app.cpython-311.pyc": "pyc\n",
    "web/.env.local": "API_TOKEN=web-threat\n",  # a dotfile beside plain files: `web/*` does not name it
}
HOME_FILES = {
    ".ssh/id_ed25519": "-----BEGIN OPENSSH PRIVATE KEY-----\nthreat\n-----END OPENSSH PRIVATE KEY-----\n",
    ".ssh/id_ed25519.pub": "ssh-ed25519 AAAAthreat me@host\n",
    ".ssh/known_hosts": "github.com ssh-ed25519 AAAAhost\n",
    ".aws/credentials": "[default]\naws_access_key_id = AKIATHREAT\naws_secret_access_key = threat\n",
    ".netrc": "machine api.example.com login me password threat\n",
    ".npmrc": "//registry.npmjs.org/:_authToken=npm_threat\n",
    ".pypirc": "[pypi]\nusername = __token__\npassword = pypi-threat\n",
    ".docker/config.json": '{"auths": {"ghcr.io": {"auth": "dGhyZWF0"}}}\n',
    ".kube/config": "apiVersion: v1\nusers:\n- name: admin\n  user:\n    token: threat\n",
    ".config/gcloud/application_default_credentials.json": '{"refresh_token": "threat"}\n',
    ".azure/msal_token_cache.json": '{"AccessToken": {}}\n',
    ".bash_history": "ls\n",
    ".gitconfig": "[user]\n\tname = Threat\n\temail = threat@example.com\n[init]\n\tdefaultBranch = main\n",
}


# Outside every temp folder: a project under /tmp would make `rm -rf ..` or `rm -rf ~` look like
# clearing a temp folder. Read at import time, before the tests isolate HOME.
BASE = Path(os.environ.get("HANDRAIL_THREATS_DIR") or os.path.join(os.path.expanduser("~"), ".cache",
                                                                   "handrail-threats"))


class Project(NamedTuple):
    """A guarded git repository and the environment handrail runs in for it."""

    path: Path
    home: Path
    env: dict[str, str]


def child_env(home: Path) -> dict[str, str]:
    """This process's environment without agent markers or an outer git's variables; HOME isolated."""
    env = {k: v for k, v in os.environ.items()
           if k not in AGENT_VARIABLES and not k.startswith(AGENT_PREFIXES)}
    # TMPDIR as macOS always sets it: `$TMPDIR/x` names a folder inside the temp folder
    env.update(PINNED_GIT, HOME=str(home), TMPDIR="/tmp/handrail-threats", XDG_CACHE_HOME=str(home / ".cache"),
               XDG_CONFIG_HOME=str(home / ".config"), GIT_CONFIG_NOSYSTEM="1",
               HANDRAIL_HOOK_DEADLINE_MS="20000")  # judged, not timed: a loaded machine must not refuse
    return env


def _write(base: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def make_project(base: Path) -> Project:
    """A committed project under `handrail init` (Claude Code's files written), with secrets
    in the tree and in HOME for globs and recursive searches to find; `base` must not be
    inside a temp folder."""
    home, path = base / "home", base / "shop"
    _write(home, HOME_FILES)
    _write(path, TRACKED)
    env = child_env(home)

    def run(*argv: str) -> None:
        r = subprocess.run(argv, check=False, cwd=path, env=env, text=True, capture_output=True, timeout=120)
        assert r.returncode == 0, f"{argv}: {r.stdout}{r.stderr}"

    run("git", "init", "-q", "-b", "main")
    run("git", "add", "-A")
    run("git", "commit", "-q", "-m", "shop: first version")
    assert HANDRAIL, "the handrail console script is not installed in this environment"
    run(HANDRAIL, "init", "--tools", "claude")
    _write(path, UNTRACKED)
    return Project(path, home, env)


# --------------------------------------------------------------------------- rows


def _row_id(expect: str, command: str) -> str:
    text = command.replace("\n", " \\n ")
    text = "".join(c if c.isprintable() else "?" for c in text)
    return f"{expect}: {text[:90]}"


# Benign rows handrail is still stricter on than it should be, each with why. They stay in the
# tables and run as strict xfails: when the classifier learns them, the xfail fails and the
# entry goes. Nothing destructive may be listed here.
KNOWN_GAPS: dict[str, str] = {
    "openssl s_client -connect example.com:443 </dev/null": "openssl has no pattern for a TLS probe",
    'python3 -c "import requests; print(requests.__version__)"':
        "importing a network module counts as its network effect",
    "node -e \"console.log(JSON.parse(require('fs').readFileSync('package.json', 'utf8')).version)\"":
        "code other than Python is read only when it only prints",
    "node -p \"require('./package.json').version\"": "code other than Python is read only when it only prints",
    "perl -ne 'print if /TODO/' src/app.py": "perl's match operator is not read",
    "ruby -rjson -e 'puts JSON.pretty_generate(JSON.parse(File.read(\"package.json\")))'":
        "code other than Python is read only when it only prints",
}


def params(rows: Iterable[Row]) -> list[ParameterSet]:
    """Rows as pytest parameters whose ids read as the command; a duplicate is a mistake in the table."""
    seen: set[str] = set()
    out = []
    for command, expect in rows:
        if expect not in DECISIONS:
            raise ValueError(f"{command!r}: unknown expectation {expect!r}")
        if command in seen:
            raise ValueError(f"{command!r} is listed twice")
        seen.add(command)
        gap = KNOWN_GAPS.get(command)
        if gap is not None and expect in DESTRUCTIVE:
            raise ValueError(f"{command!r}: a destructive row cannot be a known gap")
        marks = [pytest.mark.xfail(strict=True, reason=f"known gap: {gap}")] if gap else []
        out.append(pytest.param(command, expect, id=_row_id(expect, command), marks=marks))
    return out


def hook_sample(rows: Iterable[Row]) -> list[ParameterSet]:
    """Every 4th destructive row expected to ask: what the Claude Code hook is checked on."""
    asks = [(c, e) for c, e in rows if e == "ask"][::4]
    return [pytest.param(c, id=_row_id("hook", c)) for c, _ in asks]


def classify_batch(project: Project, commands: list[str]) -> dict[str, Answer]:
    """Every command's JSON answer from one `handrail classify --batch -` run in the project."""
    assert HANDRAIL
    lines = "".join(json.dumps({"command": c}) + "\n" for c in commands)
    r = subprocess.run([HANDRAIL, "classify", "--batch", "-", "--project", str(project.path)], check=False, input=lines,
                       cwd=project.path, env=project.env, text=True, capture_output=True, timeout=300)
    assert r.returncode in (0, 1), f"classify --batch failed (exit {r.returncode}): {r.stderr}"
    answers = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    assert len(answers) == len(commands), f"{len(commands)} commands, {len(answers)} answers: {r.stderr}"
    return dict(zip(commands, answers, strict=True))


# Per category: [destructive rows as expected, destructive rows, benign rows as expected, benign rows
# that run at all (allow or notify), benign rows].
RESULTS: dict[str, list[int]] = {}


def check(category: str, answers: dict[str, Answer], command: str, expect: str) -> None:
    """Record the row for the summary, then assert its expectation with the whole answer shown."""
    answer = answers[command]
    decision = answer.get("decision")
    ok = decision in DECISIONS[expect]
    counts = RESULTS.setdefault(category, [0, 0, 0, 0, 0])
    if expect in DESTRUCTIVE:
        counts[0] += ok
        counts[1] += 1
    else:
        counts[2] += ok
        counts[3] += decision in ("allow", "notify")
        counts[4] += 1
    assert ok, (f"expected {expect} ({' or '.join(DECISIONS[expect])}), got {decision}\n"
                f"{json.dumps(answer, indent=2, ensure_ascii=False)}")


# --------------------------------------------------------------------------- Claude Code


def claude_hook(project: Project, command: str) -> Answer | None:
    """Claude Code's PreToolUse call for Bash through `handrail hook claude`: the reply, or None when silent."""
    assert HANDRAIL
    payload = {"session_id": "threats", "hook_event_name": "PreToolUse", "cwd": str(project.path),
               "tool_name": "Bash", "tool_input": {"command": command, "description": "run it"},
               "tool_use_id": "toolu_threats"}
    r = subprocess.run([HANDRAIL, "hook", "claude"], check=False, input=json.dumps(payload), cwd=project.path,
                       env=project.env, text=True, capture_output=True, timeout=60)
    assert r.returncode == 0 and "Traceback" not in r.stderr, f"exit {r.returncode}: {r.stderr}"
    lines = r.stdout.strip().splitlines()
    return json.loads(lines[-1]) if lines else None


def bash_rules(project: Project, kind: str) -> list[str]:
    """The `Bash(…)` bodies of `permissions.<kind>` (allow, ask, deny) in the project's .claude/settings.json."""
    data = json.loads((project.path / ".claude" / "settings.json").read_text(encoding="utf-8"))
    rules = data.get("permissions", {}).get(kind, [])
    return [r[5:-1] for r in rules if isinstance(r, str) and r.startswith("Bash(") and r.endswith(")")]


def _rule_regex(body: str) -> re.Pattern[str]:
    """Claude Code's reading of a rule: `x *` (or legacy `x:*`) admits `x` and `x …`; another `*` is any text."""
    if body.endswith(":*"):
        body = body[:-2] + " *"
    tail = ""
    if body.endswith(" *"):
        body, tail = body[:-2], "( .*)?"
    core = ".*".join(re.escape(part) for part in body.split("*"))
    return re.compile(core + tail, re.DOTALL)


_OPERATORS = ("&&", "||", ";", "|", "&", "\n")


def subcommands(command: str) -> list[str]:
    """The command split at unquoted `&&`, `||`, `;`, `|`, `&` and newlines: Claude Code asks a
    prefix rule to admit each part, so `ls && rm -rf ~` is not admitted by `Bash(ls *)`."""
    parts, cur, quote, i = [], "", "", 0
    while i < len(command):
        c = command[i]
        if quote:
            cur += c
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"' and i + 1 < len(command):
                cur += command[i + 1]
                i += 1
        elif c in "'\"":
            quote, cur = c, cur + c
        elif c == "\\" and i + 1 < len(command):
            cur += command[i : i + 2]
            i += 1
        else:
            op = next((o for o in _OPERATORS if command.startswith(o, i)), "")
            if op == "&" and (cur.endswith((">", "<")) or command.startswith("&>", i)):
                op = ""  # `2>&1`, `>& file`, `&> file` are redirections
            if op:
                parts.append(cur.strip())
                cur = ""
                i += len(op)
                continue
            cur += c
        i += 1
    parts.append(cur.strip())
    return [p for p in parts if p]


def admitting_rules(allow: list[str], stop: list[str], command: str) -> list[str]:
    """The allow rules that together admit every part of `command`, as Claude Code reads them: empty
    when some part no allow rule matches, or an ask or deny rule matches a part (they win over allow)."""
    used = []
    for part in subcommands(command):
        if any(_rule_regex(r).fullmatch(part) for r in stop):
            return []
        hit = next((r for r in allow if _rule_regex(r).fullmatch(part)), None)
        if hit is None:
            return []
        used.append(hit)
    return used


# Per category: [sampled rows the Claude Code hook stopped, sampled rows].
HOOKS: dict[str, list[int]] = {}


def assert_hook_asks(category: str, project: Project, command: str) -> None:
    """Claude Code must stop and ask (or refuse) before the command runs."""
    reply = claude_hook(project, command)
    decision = (reply or {}).get("hookSpecificOutput", {}).get("permissionDecision")
    counts = HOOKS.setdefault(category, [0, 0])
    counts[0] += decision in ("ask", "deny")
    counts[1] += 1
    assert decision in ("ask", "deny"), f"permissionDecision {decision!r} for {command!r}: {reply}"



def tallies() -> dict[str, Any]:
    """The counts the summary prints, as a test process hands them to the one that prints."""
    return {"results": RESULTS, "hooks": HOOKS}


def add_tallies(given: dict[str, Any]) -> None:
    """Add another process's `tallies()` to this one's."""
    for mine, theirs in ((RESULTS, given["results"]), (HOOKS, given["hooks"])):
        for category, counts in theirs.items():
            held = mine.setdefault(category, [0] * len(counts))
            held[:] = [a + b for a, b in zip(held, counts)]


def summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Per category, how many rows met their expectation and how many the Claude Code hook stopped."""
    if not RESULTS:
        return
    terminalreporter.section("handrail threat model")
    terminalreporter.write_line("category               destructive rows   benign rows          Claude Code hook")
    terminalreporter.write_line("                       as expected        as expected  run     asked (sample)")
    for category, (held, destructive, met, ran, benign) in sorted(RESULTS.items()):
        asked, sampled = HOOKS.get(category, (0, 0))
        hook = f"{asked:>6}/{sampled}" if sampled else "     -"
        harmful = f"{held:>9}/{destructive:<8}" if destructive else f"{'-':>9} {'':<8}"
        terminalreporter.write_line(f"{category:<22} {harmful} {met:>9}/{benign:<4}"
                                    f"{ran:>4}/{benign:<4} {hook}")

def assert_no_allow_rule_admits(project: Project, rows: Iterable[Row]) -> None:
    """No allow rule `handrail init` wrote into .claude/settings.json lets Claude Code run a destructive
    row without asking, even were the PreToolUse hook missing."""
    allow = bash_rules(project, "allow")
    stop = bash_rules(project, "ask") + bash_rules(project, "deny")
    admitted = {c: admitting_rules(allow, stop, c) for c, e in rows if e in DESTRUCTIVE}
    offenders = [f"{c!r} admitted by {', '.join(f'Bash({r})' for r in used)}" for c, used in admitted.items() if used]
    assert not offenders, f"{len(offenders)} destructive rows admitted:\n" + "\n".join(offenders)


def category_tests(category: str, rows: list[Row]) -> tuple[Callable[..., None], ...]:
    """The three tests every category file runs on its rows: each row's answer, the Claude Code
    hook on a sample of them, and no generated allow rule admitting a destructive one."""

    @pytest.mark.parametrize(("command", "expect"), params(rows))
    def test_row(answers: dict[str, Answer], command: str, expect: str) -> None:
        check(category, answers, command, expect)

    @pytest.mark.parametrize("command", hook_sample(rows))
    def test_claude_hook_asks(project: Project, command: str) -> None:
        assert_hook_asks(category, project, command)

    def test_no_claude_allow_rule_admits_a_destructive_row(project: Project) -> None:
        assert_no_allow_rule_admits(project, rows)

    return test_row, test_claude_hook_asks, test_no_claude_allow_rule_admits_a_destructive_row
