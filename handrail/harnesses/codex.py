"""Codex CLI: its PreToolUse hook protocol (and, below, its native rules files)."""

from __future__ import annotations

# ---- hook protocol
# `handrail hook codex`, registered in .codex/hooks.json under hooks.PreToolUse (the user
# trusts it in /hooks). Shell calls arrive as `Bash`, edits as `apply_patch` with the
# raw patch in `tool_input.command`. Codex cannot ask a human from a hook (an `ask`
# counts as a failed hook and the call proceeds), so tier 3 is a deny with the way
# forward; a `prompt` rule in .codex/rules asks instead. Its output schema allows no
# unknown keys. This module is imported before every tool call: keep its imports light.
import sys

from handrail.hooks.pretool import (
    ASK,
    DENY,
    EDIT,
    NOTIFY,
    OTHER,
    SHELL,
    Answer,
    BadPayload,
    Question,
    event_of,
    need_dict,
    need_str,
    opt_str,
    reason_json,
)

NAME = "codex"
CAN_ASK = False
EVENT = "PreToolUse"
EVENTS = frozenset({"PreToolUse", "PostToolUse", "PermissionRequest", "SessionStart", "SessionEnd", "UserPromptSubmit",
                    "Stop", "SubagentStop", "PreCompact", "Notification"})
SHELL_TOOLS = frozenset({"Bash", "shell", "shell_command", "local_shell", "exec_command", "container.exec"})
PATCH_TOOLS = frozenset({"apply_patch", "ApplyPatch", "functions.apply_patch"})
# `apply_patch <<'EOF' …` run through the shell is applied by Codex itself: an edit.
PATCH_PROGRAMS = ("apply_patch", "applypatch")
HELP = """
Codex CLI's PreToolUse hook: allow or deny one tool call before it runs.
Registered in .codex/hooks.json (hooks.PreToolUse; trust it in Codex's /hooks).

Reads stdin: {"hook_event_name": "PreToolUse", "tool_name", "tool_input": {"command"}, "cwd"}.
  Bash, shell, shell_command, local_shell, exec_command, container.exec
                                  judged as a shell command
                                  (`command` a string, or an argv list from older builds)
  apply_patch (or `apply_patch <<EOF` through the shell)   judged as edits of the files
                                  the patch adds, changes, deletes or moves
  any other tool                  no opinion
"""


def question(payload: object) -> Question | None:
    data = need_dict(payload, "payload")
    event = event_of(data, EVENTS)
    if event is not None and event != EVENT:
        return None
    tool = need_str(data, "tool_name", "payload")
    cwd = opt_str(data, "cwd")
    if tool in PATCH_TOOLS:
        return Question(EDIT, tool, paths=_patch(_text(data)), cwd=cwd)
    if tool in SHELL_TOOLS:
        command = _text(data)
        if command.lstrip().split(None, 1)[0] in PATCH_PROGRAMS:
            return Question(EDIT, "apply_patch", paths=_patch(command), cwd=cwd)
        return Question(SHELL, tool, command=command, cwd=cwd)
    return Question(OTHER, tool)


def _text(data: dict[str, Any]) -> str:
    """`tool_input.command` as one string. Older Codex builds send argv
    (`["bash", "-lc", "git status"]`): the script of a shell's -c, else the words."""
    args = need_dict(data.get("tool_input"), "tool_input")
    command = next((args[k] for k in ("command", "cmd", "patch", "input") if k in args), None)
    if isinstance(command, list) and command and all(isinstance(w, str) for w in command):
        if len(command) == 3 and command[1] in ("-c", "-lc") and command[0].rsplit("/", 1)[-1] in (
                "bash", "sh", "zsh"):
            command = command[2]
        else:
            import shlex

            command = shlex.join(command)
    if not isinstance(command, str) or not command.strip() or "\0" in command:
        raise BadPayload("tool_input.command: expected the command or patch text")
    return command


def _patch(text: str) -> list[str]:
    from handrail.harnesses.patch import patch_paths

    try:
        return patch_paths(text)
    except ValueError as e:
        raise BadPayload(f"apply_patch: {e}") from None


def reply(answer: Answer) -> tuple[str, int]:
    """Deny is `permissionDecision: deny` with its reason; a notice is `systemMessage`;
    an allow says nothing (Codex supports no `allow`). A broken call exits 2."""
    if answer.verdict in (DENY, ASK):  # ASK never reaches here (CAN_ASK is False); refuse it if it does
        if answer.broken:
            return "", 2
        return reason_json({"hookSpecificOutput": {"hookEventName": EVENT, "permissionDecision": "deny",
                                                   "permissionDecisionReason": answer.message}}), 0
    if answer.verdict == NOTIFY:
        return reason_json({"systemMessage": answer.message}), 0
    return "", 0


def main(argv: list[str]) -> int:
    from handrail.hooks.pretool import run

    return run(sys.modules[__name__], argv)


# ---- native files
# `.codex/rules/handrail.rules` (handrail's own: Starlark `prefix_rule`s) and
# `.codex/hooks.json` (merged with the user's). Codex matches a command by its argv
# prefix and the strictest matching rule wins; handrail/prefixes.py says how a
# protocol pattern becomes a prefix. Tier 3 becomes `prompt` (`forbidden` where the
# protocol denies it). `allow` runs a command outside Codex's sandbox without asking,
# so allow rules are written only for a tool whose mode is trusted or headless.
# Imported only by `handrail permissions` and `doctor`.

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from handrail.native import JsonFile, TextFile
    from handrail.policy.allowrules import AllowRule
    from handrail.policy.protocol import Pattern, Protocol, ToolPolicy

TRUST = ("trust the project in Codex, then trust its hooks in /hooks "
         "(until then Codex skips them without a word)")


def trust_state(project: str, home: str) -> bool | None:
    """Whether Codex has trusted the project and handrail's PreToolUse hook in it. Codex
    keeps both in $CODEX_HOME/config.toml (default ~/.codex): `[projects."ROOT"]
    trust_level = "trusted"`, and per hook handler `[hooks.state."ROOT/.codex/hooks.json:
    pre_tool_use:G:H"] trusted_hash = "sha256:…"` (G, H: the group and the handler in
    hooks.json). The hash is of the handler as Codex last read it; handrail does not
    recompute it, so a hook edited since it was trusted still reads as trusted here, and
    Codex itself then skips it. None where Codex has no home on this machine."""
    import json
    import os
    import tomllib

    codex_home = os.environ.get("CODEX_HOME") or os.path.join(home, ".codex")
    config = os.path.join(codex_home, "config.toml")
    if not os.path.isdir(codex_home):
        return None
    try:
        with open(config, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        return False
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{config}: {e}") from None
    projects = data.get("projects")
    entry = projects.get(project) if isinstance(projects, dict) else None
    if not isinstance(entry, dict) or entry.get("trust_level") != "trusted":
        return False
    hook_file = os.path.join(project, HOOK_FILE)
    with open(hook_file, encoding="utf-8") as f:
        hooks = json.load(f).get("hooks", {}).get("PreToolUse", [])
    state = data.get("hooks", {}).get("state", {}) if isinstance(data.get("hooks"), dict) else {}
    for g, group in enumerate(hooks if isinstance(hooks, list) else []):
        for h, handler in enumerate(group.get("hooks", []) if isinstance(group, dict) else []):
            if isinstance(handler, dict) and HOOK_MARK in str(handler.get("command", "")):
                seen = state.get(f"{hook_file}:pre_tool_use:{g}:{h}") if isinstance(state, dict) else None
                return isinstance(seen, dict) and bool(seen.get("trusted_hash"))
    return False


HOOK_FILE = ".codex/hooks.json"
HOOK_MARK = "handrail hook codex"
RULES_FILE = ".codex/rules/handrail.rules"


def _rule(prefix: list[str] | list[list[str]], decision: str, why: str) -> str:
    """One prefix_rule; a position with alternatives is a list (one word stays a word)."""
    import json

    words = ", ".join(json.dumps(w[0] if isinstance(w, list) and len(w) == 1 else w, ensure_ascii=False)
                      for w in prefix)
    return (f"prefix_rule(\n    pattern = [{words}],\n    decision = \"{decision}\",\n"
            f"    justification = {json.dumps(why, ensure_ascii=False)},\n)\n")


def _spellings(out: list[str], blocking: list[tuple[list[str], list[Pattern]]], policy: ToolPolicy) -> list[str]:
    """Append the rules that hold each tier-3 pattern's flags however they are written
    (`git clean -fd`, `-d -f`, `--force` for `git clean -f *`); return the patterns whose
    flags stay written as the pattern has them. A pattern under a shorter rule (`git push`
    covers `git push --force *`) needs none."""
    from handrail import flaggroups

    heads = {tuple(prefix) for prefix, _ in blocking}
    kept_whole: list[str] = []
    written: set[str] = set()
    for _prefix, patterns in blocking:
        for p in patterns:
            parts = flaggroups.split(p.text)
            if parts is None or any(tuple(parts[0][:n]) in heads for n in range(1, len(parts[0]) + 1)):
                continue
            rules = flaggroups.rules(p.text)
            if not rules:
                kept_whole.append(p.text)
                continue
            decision = "forbidden" if p in policy.deny else "prompt"
            why = f"handrail tier 3: `{p.text}` needs a human"
            new = [r for r in (_rule(rule, decision, why) for rule in rules) if r not in written]
            if new:
                written.update(new)
                out.append(f"# `{p.text}` however its flags are written: grouped, long, after other options.")
                out += new
    return kept_whole


def rules_text(proto: Protocol) -> str:
    from handrail import prefixes
    from handrail.policy import protocol as protocols

    policy = protocols.resolve_tool(proto, NAME)
    trusted = policy.mode in ("trusted", "headless")
    blocking, left_out = prefixes.blocking_prefixes(proto, policy)
    out = [
        "# handrail-managed Codex rules, generated from the autonomy protocol by `handrail permissions`.",
        "# Edit the protocol, not this file: a hand edit is drift, and regenerating replaces it.",
        "#",
        "# Tier 3 (needs a human) is `prompt`, or `forbidden` where the protocol denies tier 3.",
        "# Codex matches argv prefixes, so a pattern with a wildcard before its end is widened",
        "# to the words before it; `handrail hook codex` judges every command by the full rules.",
        "#",
        "# WARNING: an `allow` rule runs its command OUTSIDE Codex's sandbox, without asking.",
        "# handrail writes allow rules only for a tool whose mode is trusted or headless",
        f"# (codex here: {policy.mode}, so {'tier 1 and 2 prefixes are allowed below' if trusted else 'none'}).",
        "",
    ]
    for prefix, patterns in blocking:
        decision = "forbidden" if any(p in policy.deny for p in patterns) else "prompt"
        named = ", ".join(f"`{p.text}`" for p in patterns)
        why = f"handrail tier 3: {named} needs a human"
        if any(prefixes.widened(prefix, p.text) for p in patterns):
            why += f" (as a prefix rule this covers every `{' '.join(prefix)}` command)"
        out.append(_rule(prefix, decision, why))
    if trusted:
        for prefix, p in prefixes.allow_prefixes(proto, policy):
            tier = protocols.TIER_NUMBER[p.tier]
            out.append(_rule(prefix, "allow", f"handrail tier {tier}: `{p.text}` (runs outside the sandbox)"))
    kept_whole = _spellings(out, blocking, policy)
    if left_out:
        out.append("# Tier-3 patterns no prefix rule can hold without also catching a tier-1 command;")
        out.append("# `handrail hook codex` refuses them:")
        out += [f"#   {p.text}" for p in left_out]
        out.append("")
    out += _hook_only()
    out += [f"#       {p}" for p in kept_whole] + [""]
    return "\n".join(out)


def _hook_only() -> list[str]:
    """What these rules cannot hold, said in the file itself: Codex compares argv word for
    word from the first word, and a position may only list words."""
    from handrail.flaggroups import MAX_BEFORE, MAX_GROUP

    return [
        "# What only `handrail hook codex` catches, because an argv prefix cannot say it:",
        "#   - a tier-3 flag after an operand or an option's value (`git commit -m msg -n`, `git clean . -f`),",
        f"#     after more than {MAX_BEFORE} other options, or in a group of more than {MAX_GROUP} letters"
        " (`git clean -fdxq`);",
        "#   - a value glued to an option before the flag (`git commit -mmsg -n`);",
        "#   - a command behind a wrapper, a path or a global option (`env git clean -f`, `sudo rm -rf /`,",
        "#     `/usr/bin/git push`, `git -C src clean -f`, `git -c core.x=y push`);",
        "#   - handrail's own rules, which read what a command does rather than its first words",
        "#     (`rm -rf src`, reading a secret such as `cat .env`, `curl … | sh`, text built at run time);",
        "#   - the other spellings of these patterns' flags, written here only as the pattern has them",
        "#     (the flag takes a value, the command does not group short flags, or no other spelling is known):",
    ]


def native_files(proto: Protocol) -> list[JsonFile | TextFile]:
    import re

    from handrail import native

    ours = native.runs_handrail_hook
    matcher = "|".join(re.escape(t) for t in sorted(SHELL_TOOLS | PATCH_TOOLS))
    pre_tool = {"matcher": matcher, "hooks": [
        {"type": "command", "command": native.hook_command(NAME, block_on_failure=True), "timeout": 30}]}
    session = {"matcher": "startup|resume", "hooks": [
        {"type": "command", "command": f"handrail hook session-start --harness {NAME}", "timeout": 10}]}
    return [
        native.TextFile(RULES_FILE, rules_text(proto)),
        native.JsonFile(HOOK_FILE, [native.ListSlot(("hooks", "PreToolUse"), [pre_tool], ours),
                                    native.ListSlot(("hooks", "SessionStart"), [session], ours)]),
    ]


RULES_DIR = ".codex/rules"


def hand_allow_rules(project: str, owned: dict[str, dict[str, list[object]]]) -> list[AllowRule]:
    """The `prefix_rule(…, decision = "allow")` rules in `.codex/rules/*.rules` other than
    handrail's own file. Starlark's call syntax is Python's, so the file is read with `ast`; a
    position that lists words is each of them; anything not written as literals is unverifiable."""
    import ast
    import itertools
    import os

    from handrail.policy.allowrules import PREFIX, UNKNOWN
    from handrail.policy.allowrules import AllowRule as Rule

    del owned  # handrail's rules live in a file of its own
    folder = os.path.join(project, RULES_DIR)
    names = sorted(n for n in os.listdir(folder) if n.endswith(".rules")) if os.path.isdir(folder) else []
    out = []
    for name in names:
        rel = f"{RULES_DIR}/{name}"
        if rel == RULES_FILE:
            continue
        fix = f"remove the rule from {rel}, or make it `prompt`: an allow rule runs outside Codex's sandbox"
        with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
            text = f.read()
        try:
            tree = ast.parse(text)
        except SyntaxError as e:
            out.append(Rule(rel, f"the file (line {e.lineno}: not read)", UNKNOWN, fix=fix))
            continue
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
            if getattr(call.func, "id", None) != "prefix_rule":
                continue
            shown = " ".join(ast.get_source_segment(text, call).split())  # type: ignore[union-attr]
            try:
                args = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
            except ValueError:
                out.append(Rule(rel, shown, UNKNOWN, fix=fix))
                continue
            if args.get("decision", "allow") != "allow":
                continue
            pattern = args.get("pattern")
            if not isinstance(pattern, list) or not pattern or not all(
                    isinstance(w, str) or (isinstance(w, list) and w and all(isinstance(x, str) for x in w))
                    for w in pattern):
                out.append(Rule(rel, shown, UNKNOWN, fix=fix))
                continue
            choices = [w if isinstance(w, list) else [w] for w in pattern]
            for words in itertools.islice(itertools.product(*choices), 64):
                out.append(Rule(rel, shown, PREFIX, " ".join(words), fix))
    return out
