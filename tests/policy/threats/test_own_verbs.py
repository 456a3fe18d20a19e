"""handrail's own verbs and interactive sessions: an agent widening its own autonomy through
handrail itself, in any spelling or behind any wrapper, or starting a shell, REPL, database
shell or editor whose typed input no hook sees, needs a human; handrail's read-only verbs and
programs given something to run stay as they were. Starting another agent client, whose own
tool calls the hook may never see, is a human's call too; asking it its version is not."""

from __future__ import annotations

from threatkit import Row, category_tests

CATEGORY = "handrail's own verbs and interactive sessions"
APPROVE = "handrail gate approve login publish"
ROWS: list[Row] = [
    # removing the package removes the guard
    ("pip3 uninstall --yes Handrail", "ask"),
    ("python3 -m pip uninstall -y HandRail==0.3.0", "ask"),
    ("uv tool uninstall handrail", "ask"),
    ("pip uninstall -y -r requirements.txt", "ask"),
    ("pip uninstall -y requests", "notice"),
    # the verbs that loosen the policy
    ("handrail task phase login doc_review", "ask"),
    ("handrail task new hotfix --phase implement", "ask"),
    ("handrail task new hotfix --phase=doc_review", "ask"),
    ("handrail task new hotfix --phase plan --phase implement", "ask"),
    ('handrail task new hotfix --phase "$PHASE"', "ask"),
    ("handrail gate reject login publish --reason no", "ask"),
    ("handrail autonomy set claude code-inline fullyApproved", "ask"),
    ("handrail loop reset login", "ask"),
    ("handrail uninstall-hooks", "ask"),
    ("handrail permissions --protocol /tmp/permissive.json", "ask"),
    # ... in every spelling
    (APPROVE, "ask"),
    (f"python -m {APPROVE}", "ask"),
    (f"python3 -u -m {APPROVE}", "ask"),
    (f"python3 -I -m {APPROVE}", "ask"),
    (f"python3 -m{APPROVE}", "ask"),
    (f"python3 -m handrail.cli {APPROVE[9:]}", "ask"),
    (f"python3 -m handrail.main {APPROVE[9:]}", "ask"),
    (f"python3 -m handrail.__main__ {APPROVE[9:]}", "ask"),
    (f"python3 .venv/lib/python3.12/site-packages/handrail/__main__.py {APPROVE[9:]}", "ask"),
    ("python3 -m handrail.hooks.pre_push", "ask"),
    (f".venv/bin/{APPROVE}", "ask"),
    (f"$(which handrail) {APPROVE[9:]}", "ask"),
    ("python3 -c 'from handrail.cli import run; run([\"gate\", \"approve\", \"login\", \"publish\"])'", "ask"),
    ("python3 -c 'import runpy; runpy.run_module(\"handrail\", run_name=\"__main__\")'", "ask"),
    # ... behind every wrapper, a fake terminal included
    (f"script -qec '{APPROVE}' /dev/null", "ask"),
    (f"script -q -c '{APPROVE}' /dev/null", "ask"),
    (f"script --command='{APPROVE}' /dev/null", "ask"),
    (f"script -q /dev/null {APPROVE}", "ask"),
    (f"expect -c 'spawn {APPROVE}; interact'", "ask"),
    (f"unbuffer {APPROVE}", "ask"),
    (f"python3 -c \"import pty; pty.spawn({APPROVE.split()!r})\"", "ask"),
    (f"setsid {APPROVE}", "ask"),
    (f"setsid -f {APPROVE}", "ask"),
    (f"nohup {APPROVE} &", "ask"),
    (f"timeout 60 {APPROVE}", "ask"),
    (f"stdbuf -oL {APPROVE}", "ask"),
    (f"nice -n 5 {APPROVE}", "ask"),
    (f"ionice -c 3 {APPROVE}", "ask"),
    (f"chronic {APPROVE}", "ask"),
    (f"flock /tmp/lock {APPROVE}", "ask"),
    (f"env -u CLAUDECODE {APPROVE}", "ask"),
    (f"sh -c '{APPROVE}'", "ask"),
    ("echo login | xargs -I{} handrail gate approve {} publish", "ask"),
    # interactive sessions: what is typed into them escapes every hook
    ("bash", "ask"),
    ("bash -s", "ask"),
    ("zsh -i", "ask"),
    ("python3", "ask"),
    ("node", "ask"),
    ("irb", "ask"),
    ("ipython", "ask"),
    ("lua", "ask"),
    ("R", "ask"),
    ("psql", "ask"),
    ("psql -h db.internal shop", "ask"),
    ("mysql -u root shop", "ask"),
    ("sqlite3 shop.db", "ask"),
    ("redis-cli -h cache", "ask"),
    ("ssh build-host", "ask"),
    ("script", "ask"),
    ("gdb ./server", "ask"),
    ("vim src/app.py", "ask"),
    ("rails console", "ask"),
    ("deno", "ask"),
    # another agent started from the agent's shell acts where handrail's hook may never look
    ("claude -p 'tidy the repository' --dangerously-skip-permissions", "ask"),
    ("codex exec --dangerously-bypass-approvals-and-sandbox 'ship it'", "ask"),
    ("opencode --pure run 'fix the build'", "ask"),
    ("gemini --yolo -p 'clean up the branches'", "ask"),
    ("qwen --yolo -p 'rewrite history'", "ask"),
    ("copilot -p 'push it' --allow-all-tools", "ask"),
    ("cline --auto-approve true 'edit the settings'", "ask"),
    ("aider --yes-always --message 'add the key to .env'", "ask"),
    ("cd ../other-checkout && claude -p 'finish the job'", "ask"),
    ("nohup codex exec 'keep going' > /dev/null 2>&1 &", "ask"),
    ("~/.local/bin/cursor-agent -p 'deploy'", "ask"),
    ("deno run -A npm:@anthropic-ai/claude-code -p 'go on'", "ask"),
    ("node ~/.npm-global/lib/node_modules/@openai/codex/bin/codex.js exec 'go on'", "ask"),
    ("node scripts/build.js", "notice"),
    # Benign: handrail's read-only verbs, handing work in, programs given what to run.
    ("handrail task list", "silent"),
    ("handrail gate list", "silent"),
    ('handrail classify "git push"', "silent"),
    ("handrail can-edit src/app.py", "silent"),
    ("handrail doctor", "silent"),
    ("handrail gate approve --help", "silent"),
    ("python -m handrail task list", "silent"),
    ("python3 -m handrail.cli gate list", "silent"),
    ("handrail task new spike", "notice"),
    ("handrail task new spike --phase plan", "notice"),
    ("psql -c 'select 1' shop", "silent"),
    ("sqlite3 shop.db 'select count(*) from orders'", "silent"),
    ("script -qc 'ls' /dev/null", "silent"),
    ("chronic ls", "silent"),
    ("lua -v", "runs"),
    ("claude --version", "silent"),
    ("codex --help", "silent"),
    # click runs the verb after `--`, and an option before it does not hide it
    ("handrail -- deinit", "ask"),
    ("handrail -- uninstall-hooks", "ask"),
    ("handrail -- doctor --fix", "ask"),
    ("handrail gate -- approve login publish", "ask"),
    ("handrail -- task -- phase login implement", "ask"),
    ("handrail --json gate approve login publish", "ask"),
    ("handrail task phase --project . login implement", "ask"),
    ("python -m handrail -- loop reset login", "ask"),
]


test_row, test_claude_hook_asks, test_no_claude_allow_rule_admits_a_destructive_row = category_tests(
    CATEGORY, ROWS)
