"""`handrail demo`: every enforcement layer that exists, firing in a throwaway repository.

Each layer runs the real `handrail` command as a harness would, in a fresh git
repository laid with the default policy, and prints what it decided and why.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable

from handrail.fsio import atomic_write, dump_json

ALLOWED, REFUSED, NOTICE = "✓ allowed", "✗ refused", "ℹ notice "
OPERATOR = "the operator (handrail demo)"


def operator_moves(project: str, slug: str, phase: str) -> None:
    """A person's step: opening an edit phase needs someone at a terminal, which the demo's
    own subprocesses are not, so the demo takes it through the task library."""
    from handrail.records import task_states

    task_states.set_phase(project, slug, phase, by=OPERATOR)


def handrail(project: str, *args: str, input: str | None = None,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "handrail", *args], cwd=project, input=input, text=True,
                          capture_output=True, env={**os.environ, **(env or {})})


def show(mark: str, what: str, why: str) -> None:
    print(f"  {mark}  {what:<34} {why}")


def setup(project: str) -> None:
    subprocess.run(["git", "init", "-q", project], check=True)
    r = handrail(project, "init", "--json")  # protocol, git hooks, every harness's permission files
    if r.returncode != 0:
        raise RuntimeError(f"handrail init failed: {r.stderr.strip()}")
    steps = json.loads(r.stdout.splitlines()[-1])["steps"]
    files = [s["what"] for s in steps if s["did"] == "created" and not s["what"].startswith(".handrail")]
    print(f"$ handrail init: the default policy, git hooks, and {len(files)} harness files "
          f"({', '.join(files[:3])}, …)\n")
    contract = {
        "feature": "login form",
        "contract_mode": "safe",
        "allowed_files": ["src/**", "tests/**"],
        "forbidden_files": ["src/vendor/**"],
    }
    handrail(project, "task", "new", "login", "--phase", "plan", "--title", "Login form")
    atomic_write(os.path.join(project, ".handrail", "tasks", "login", "harness-contract.json"), dump_json(contract))


def layer_can_edit(project: str) -> None:
    print("layer: can-edit — the pre-edit question every harness asks")
    r = handrail(project, "can-edit", "--file", "src/app.py", "--json")
    show(REFUSED if r.returncode else ALLOWED, "src/app.py (task in plan)", json.loads(r.stdout)["reason"])
    operator_moves(project, "login", "implement")
    for file in ("src/app.py", "README.md", ".env", "src/vendor/lib.js", ".handrail/autonomy-protocol.json",
                 "../elsewhere.txt"):
        r = handrail(project, "can-edit", "--file", file, "--json")
        answer = json.loads(r.stdout.splitlines()[-1])
        why = answer["reason"] + (f" ({answer['rule']}, {answer['source']})" if "rule" in answer else "")
        show(ALLOWED if r.returncode == 0 else REFUSED, file, why)


def layer_records(project: str) -> None:
    print("layer: records — an autonomy envelope shapes can-edit; the event log remembers every decision")
    handrail(project, "autonomy", "init", "demo-agent", "--owner", "operator")
    r = handrail(project, "autonomy", "set", "demo-agent", "code-inline", "needsFullSupervision",
                 "--note", "new to this repository")
    show(NOTICE, "envelope: code-inline", r.stdout.strip() or r.stderr.strip())
    for who, extra, env in (("as demo-agent", ["--agent", "demo-agent"], {}),
                            ("no agent named", [], {"HANDRAIL_AGENT": ""})):
        r = handrail(project, "can-edit", "--file", "src/app.py", "--json", *extra, env=env)
        answer = json.loads(r.stdout.splitlines()[-1])
        why = answer["reason"] + (f" ({answer['envelope']})" if "envelope" in answer else "")
        show(ALLOWED if r.returncode == 0 else REFUSED, f"src/app.py ({who})", why)
    handrail(project, "notify", "--level", "warn", "--topic", "demo", "--agent", "demo-agent",
             "--message", "asked a human to make the edit")
    print("  $ handrail events --limit 6")
    r = handrail(project, "events", "--limit", "6", env={"COLUMNS": "120"})
    for text in r.stdout.splitlines():
        print(f"    {text}")


def layer_git(project: str) -> None:
    print("layer: git — the pre-commit hook every harness shares, and pre-push behind it")
    from handrail.repo import no_git_env

    env = {**no_git_env(), "GIT_AUTHOR_NAME": "handrail demo", "GIT_AUTHOR_EMAIL": "demo@handrail.invalid",
           "GIT_COMMITTER_NAME": "handrail demo", "GIT_COMMITTER_EMAIL": "demo@handrail.invalid"}

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=project, text=True, capture_output=True, env=env)

    def first_problem(r: subprocess.CompletedProcess[str]) -> str:
        lines = [x.strip() for x in r.stderr.splitlines()]
        what = [x[3:] for x in lines if x.startswith("1. ")]
        rule = [x[6:] for x in lines if x.startswith("rule: ")]
        return f"{what[0]} (rule {rule[0]})" if what and rule else " ".join(lines)[:200]

    r = handrail(project, "install-hooks")
    show(NOTICE, "handrail install-hooks", r.stdout.splitlines()[-1] if r.stdout else r.stderr.strip())
    atomic_write(os.path.join(project, "src", "app.py"), "print('login')\n")
    git("add", "src/app.py")
    r = git("commit", "-q", "-m", "login form")
    show(ALLOWED if r.returncode == 0 else REFUSED, "commit src/app.py", "inside the task's allowed_files")
    atomic_write(os.path.join(project, ".env"), "DATABASE_PASSWORD=hunter2\n")
    git("add", "-f", ".env")
    r = git("commit", "-q", "-m", "add settings")
    show(REFUSED if r.returncode else ALLOWED, "commit .env", first_problem(r))
    r = git("commit", "-q", "--no-verify", "-m", "add settings, skipping the hooks")
    show(NOTICE, "commit .env --no-verify",
         "hooks skipped: the commit is made" if r.returncode == 0 else r.stderr.strip())
    remote = os.path.join(os.path.dirname(project), "remote.git")
    subprocess.run(["git", "init", "-q", "--bare", remote], check=True, env=env)
    r = git("push", "-q", remote, "HEAD:refs/heads/login")
    show(REFUSED if r.returncode else ALLOWED, "push to a bare remote", first_problem(r))


def layer_ci(project: str) -> None:
    print("layer: ci — the same git rules over a pull request's commits, where no agent holds the shell")
    from handrail.repo import no_git_env

    env = {**no_git_env(), "GIT_AUTHOR_NAME": "handrail demo", "GIT_AUTHOR_EMAIL": "demo@handrail.invalid",
           "GIT_COMMITTER_NAME": "handrail demo", "GIT_COMMITTER_EMAIL": "demo@handrail.invalid"}
    repo = os.path.join(os.path.dirname(project), "ci-repo")  # a clone as the CI job sees it: only commits

    def commit(message: str, files: dict[str, str]) -> None:
        for rel, text in files.items():
            atomic_write(os.path.join(repo, rel), text)
        subprocess.run(["git", "add", "-f", *files], cwd=repo, check=True, env=env)
        subprocess.run(["git", "commit", "-q", "-m", message], cwd=repo, check=True, env=env)

    subprocess.run(["git", "init", "-q", "-b", "main", repo], check=True, env=env)
    task = os.path.join(".handrail", "tasks", "login")
    commit("start the login task", {os.path.join(task, "task.json"): dump_json(
        {"slug": "login", "title": "Login form", "phase": "implement", "history": []}),
        os.path.join(task, "harness-contract.json"): dump_json({"allowed_files": ["src/**"]})})
    for branch, message, files in (
            ("agent", "client config\n\nCo-Authored-By: Claude <noreply@anthropic.com>",
             {"src/config.py": "KEY = 'sk-ant-" + "d3m0" * 6 + "'\n"}),
            ("human", "login form", {"src/login.py": "def login(): ...\n"})):
        subprocess.run(["git", "switch", "-q", "-c", branch, "main"], cwd=repo, check=True, env=env)
        commit(message, files)
        r = handrail(repo, "ci", "--base", "main", "--head", branch, "--format", "json", env=env)
        report = json.loads(r.stdout)
        first = report["findings"][0] if report["findings"] else None
        why = (f"{first['rule']}: {first['message']} ({first['made_by']}'s commit)" if first
               else f"clean: {report['counts']['commits']} commit, no findings")
        show(REFUSED if r.returncode else ALLOWED, f"handrail ci on the {branch}'s branch", why)


def layer_classify(project: str) -> None:
    print("layer: classify — which tier is a shell command in? (what every pre-tool hook asks)")
    for command in ("git status --short", "npm install", "sudo env X=1 git push --force"):
        r = handrail(project, "classify", "--json", command)
        answer = json.loads(r.stdout.splitlines()[-1])
        reasons = answer["reasons"]
        if answer["tier"] == 3:
            rule = next((x for x in reasons if "rule" in x), reasons[0])
            via = f" via {', '.join(rule['via'])}" if rule.get("via") else ""
            show(REFUSED, command,
                 f"tier 3: part '{rule['part']}'{via}, rule {rule.get('rule') or rule.get('pattern')}")
            continue
        first = reasons[0]
        show(ALLOWED if r.returncode == 0 else REFUSED, command, f"tier {answer['tier']}: pattern '{first['pattern']}'")
        if answer["tier"] == 2:
            show(NOTICE, "", "the operator is told: it changes the work tree")

def layer_pretool(project: str) -> None:
    print("layer: pre-tool — Claude Code asks `handrail hook claude` before every tool call")
    root = os.path.abspath(project)
    operator_moves(project, "login", "implement")  # edits are in scope: only the rules refuse
    calls = [("Bash", {"command": "git push --force origin main", "description": "push"}, "git push --force"),
             ("Edit", {"file_path": os.path.join(root, ".env"), "old_string": "hunter2", "new_string": "x"},
              ".env")]
    for tool, tool_input, what in calls:
        payload = {"session_id": "demo", "hook_event_name": "PreToolUse", "cwd": root, "tool_name": tool,
                   "tool_input": tool_input, "tool_use_id": "toolu_demo"}
        r = handrail(project, "hook", "claude", input=json.dumps(payload), env={"HANDRAIL_AGENT": ""})
        out = json.loads(r.stdout.splitlines()[-1])["hookSpecificOutput"] if r.stdout.strip() else {}
        decision, reason = out.get("permissionDecision", "deny"), out.get("permissionDecisionReason", r.stderr.strip())
        how = ("a human approves it or it does not run (under -p: denied)" if decision == "ask"
               else "the call does not run")
        show(REFUSED if decision in ("ask", "deny") else ALLOWED, f"{tool}: {what}", f"{decision}: {how}")
        print(f"      Claude Code {'asks the user' if decision == 'ask' else 'tells the agent'}: {reason}")


def layer_memory(project: str) -> None:
    print("layer: memory — a change that matters asks the next agent to update the project's description")
    from datetime import timedelta

    from handrail.records import clock
    from handrail.repo import no_git_env

    env = {**no_git_env(), "GIT_AUTHOR_NAME": "handrail demo", "GIT_AUTHOR_EMAIL": "demo@handrail.invalid",
           "GIT_COMMITTER_NAME": "handrail demo", "GIT_COMMITTER_EMAIL": "demo@handrail.invalid"}
    # Committed before `memory init`, so the post-commit hook has no description to
    # check yet and the prepare shown below is the only one.
    atomic_write(os.path.join(project, "src", "routes.py"), "ROUTES = {'/login': 'login_form'}\n")
    subprocess.run(["git", "add", "src/routes.py"], cwd=project, env=env, capture_output=True)
    subprocess.run(["git", "commit", "-q", "-m", "login route"], cwd=project, env=env, capture_output=True)
    r = handrail(project, "memory", "init")
    show(NOTICE, "handrail memory init", f"{len(r.stdout.splitlines())} bootstrap files laid")
    r = handrail(project, "memory", "prepare", "--range", "HEAD~1..HEAD", "--json")
    out = json.loads(r.stdout.splitlines()[-1])
    targets = ", ".join(os.path.basename(t) for t in out["targets"])
    show(NOTICE, "prepare (src/routes.py committed)", f"{out['verdict']}: {out['reasons'][0]} -> {targets}")
    r = handrail(project, "hook", "session-start", "--harness", "text")
    show(NOTICE, "the next agent's session start", r.stdout.strip()[:88] + "…")
    with open(os.path.join(project, out["manifest"]), encoding="utf-8") as f:
        manifest = json.load(f)
    target = out["targets"][0]
    old = manifest["current_bootstrap_snapshot"][target]
    r = handrail(project, "memory", "commit", "-", input=json.dumps({"files": {target: "Routes: /login\n"}}))
    show(REFUSED if r.returncode else ALLOWED, "an update without front matter", r.stderr.splitlines()[-1].strip())
    stamp = clock.iso(clock.parse_iso(manifest["generated_at"]) + timedelta(minutes=1))
    before = old.split("generated_at: ", 1)[1].split("\n", 1)[0]
    new = old.replace(f"generated_at: {before}", f"generated_at: {stamp}") + "Routes: /login shows the form.\n"
    r = handrail(project, "memory", "commit", "-", input=json.dumps({"files": {target: new}}))
    show(ALLOWED if r.returncode == 0 else REFUSED, "a well-formed update", r.stdout.strip() or r.stderr.strip())


_LOOP_AGENT = """\
import os, pathlib
if os.environ["HANDRAIL_ATTEMPT"] == "1":
    p = pathlib.Path("src/vendor/patch.js")
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("// the quickest fix: patch the vendored library\\n")
    print("agent: patched src/vendor/patch.js")
else:
    for line in pathlib.Path(os.environ["HANDRAIL_FEEDBACK"]).read_text().splitlines():
        if line.startswith("- revert: "):
            pathlib.Path(line[len("- revert: "):].split(" (")[0]).unlink(missing_ok=True)
    pathlib.Path("src/greet.py").write_text("def greet(name):\\n    return f'hello {name}'\\n")
    print("agent: reverted what the feedback named, wrote src/greet.py")
"""


def layer_loop(project: str) -> None:
    print("layer: loop — an agent iterates alone: its first attempt leaves its scope, the second succeeds")
    import shlex

    from handrail.repo import no_git_env

    env = {**no_git_env(), "GIT_AUTHOR_NAME": "handrail demo", "GIT_AUTHOR_EMAIL": "demo@handrail.invalid",
           "GIT_COMMITTER_NAME": "handrail demo", "GIT_COMMITTER_EMAIL": "demo@handrail.invalid"}
    if subprocess.run(["git", "rev-parse", "-q", "--verify", "HEAD"], cwd=project, capture_output=True,
                      env=env).returncode:
        # The loop compares the work tree with a commit.
        subprocess.run(["git", "commit", "-q", "--allow-empty", "--no-verify", "-m", "base"], cwd=project, env=env,
                       check=True)
    from handrail.records import task_states

    task_states.new_task(project, "greet", phase="implement", title="Greeting", by=OPERATOR)
    check = f"{shlex.quote(sys.executable)} -c \"from src.greet import greet; assert greet('x') == 'hello x'\""
    contract = {"allowed_files": ["src/**"], "forbidden_files": ["src/vendor/**"],
                "criteria": [{"id": "greets", "verification": {"command": check, "timeout_ms": 20_000}}]}
    atomic_write(os.path.join(project, ".handrail", "tasks", "greet", "harness-contract.json"), dump_json(contract))
    agent = os.path.join(os.path.dirname(project), "demo_agent.py")
    atomic_write(agent, _LOOP_AGENT)
    print("  $ handrail loop run greet -- python demo_agent.py")
    # One stream, so the agent's words and the loop's verdicts come in the order they happened.
    r = subprocess.run([sys.executable, "-m", "handrail", "loop", "run", "greet", "--", sys.executable, agent],
                       cwd=project, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       env={**os.environ, "PYTHONUNBUFFERED": "1"})
    for text in r.stdout.splitlines():
        if text.startswith(("agent:", "handrail loop: scope", "handrail loop: attempt", "handrail loop: task")):
            print(f"    {text}")
    last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    show(ALLOWED if r.returncode == 0 else REFUSED, f"loop run greet (exit {r.returncode})",
         "done: the violation went back as feedback, was reverted, the criterion passed" if r.returncode == 0 else last)


def _hook(project: str, harness: str, command: str, tool: str = "Bash") -> tuple[str, str]:
    """What `handrail hook HARNESS` answers an agent's shell call: (decision, reason)."""
    root = os.path.abspath(project)
    payload = {"session_id": "demo", "hook_event_name": "PreToolUse", "cwd": root, "tool_name": tool,
               "tool_input": {"command": command}, "tool_use_id": "toolu_demo"}
    r = handrail(project, "hook", harness, input=json.dumps(payload), env={"HANDRAIL_AGENT": ""})
    out = json.loads(r.stdout.splitlines()[-1]).get("hookSpecificOutput", {}) if r.stdout.strip() else {}
    return out.get("permissionDecision", "allow" if r.returncode == 0 else "deny"), \
        out.get("permissionDecisionReason", r.stderr.strip())


def layer_own_verbs(project: str) -> None:
    print("layer: handrail's own verbs — review froze the task; the agent tries to reopen its own phase")
    operator_moves(project, "login", "review")
    for harness, tool, command in (("claude", "Bash", "handrail task phase login implement"),
                                   ("codex", "Bash", "python -m handrail task phase login implement"),
                                   ("qwen", "run_shell_command", "uvx handrail task phase login implement")):
        decision, reason = _hook(project, harness, command, tool)
        how = "Claude Code asks its user" if decision == "ask" else "the call does not run"
        show(REFUSED if decision in ("ask", "deny") else ALLOWED, f"{harness}: reopen implement", f"{decision}: {how}")
        print(f"      $ {command}\n      {reason}")
    # Past the hook (a person approved the prompt, or no hook was installed), the CLI asks once more.
    r = handrail(project, "task", "phase", "login", "implement", env={"CLAUDECODE": "1"})
    show(REFUSED if r.returncode else ALLOWED, "the command itself, as the agent", f"exit {r.returncode}")
    print(f"      {r.stderr.strip()}")
    r = handrail(project, "task", "show", "login", "--json")
    last = json.loads(r.stdout.splitlines()[-1])
    show(NOTICE, f"task login: phase {last['phase']}", f"last change by {last['history'][-1].get('by')}")


def layer_doctor(project: str) -> None:
    print("layer: doctor — is every layer still in place? A hand edit is drift, judged by content")
    # The agents' shell finds handrail where this one runs from, as the harness hooks need.
    env = {"PATH": os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])}
    settings = os.path.join(project, ".claude", "settings.json")
    with open(settings, encoding="utf-8") as f:
        data = json.load(f)
    data["permissions"]["ask"].remove("Bash(git push --force *)")
    atomic_write(settings, dump_json(data))
    for args, what in ((["doctor"], "a tier-3 rule removed by hand"), (["doctor", "--fix"], "handrail doctor --fix")):
        r = handrail(project, *args, "--json", env=env)
        report = json.loads(r.stdout.splitlines()[-1])
        first = next((f["finding"] for f in report["findings"] if f["severity"] == "error"), None)
        show(ALLOWED if report["ok"] else REFUSED, what, first or f"ok: {report['errors']} errors, "
             f"{report['warnings']} warnings ({', '.join(report.get('fixed', [])) or 'nothing to fix'})")


LAYERS: list[Callable[[str], None]] = [layer_can_edit, layer_git, layer_ci, layer_records, layer_classify,
                                      layer_pretool, layer_memory, layer_loop, layer_own_verbs, layer_doctor]


def run_demo() -> int:
    folder = tempfile.mkdtemp(prefix="handrail-demo-")
    project = os.path.join(folder, "repo")
    try:
        print(f"handrail demo in a throwaway repository: {project}")
        print("policy: the default; task 'login' may change src/** and tests/**, never src/vendor/**")
        setup(project)
        for layer in LAYERS:
            layer(project)
            print()
        print("done: the repository is removed.")
        # The demo's repository is gone; the last line is the one to run in one's own.
        print("in your own repository, see what the agents did and what waits for you: handrail dashboard")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0
