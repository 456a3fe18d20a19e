"""`--help` for the hot-path commands, served by handrail/main.py without click.

Each hot-path module says what it reads, answers and exits with in its `HELP`; its
options are its parser's `OPTIONS`, so tests/hooks/test_usage.py fails for an option
the help does not name. A harness's pre-tool hook gets its `HELP` (the payload it
reads, where it is registered) and a table of its answers that this module builds by
calling the adapter's own `reply()`: what is printed, and with which exit code, is
the code's, not a description of it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from types import ModuleType


def options_of(module: ModuleType) -> dict[str, bool]:
    """The options `module`'s command parses: its `OPTIONS`, a harness adapter's those of
    hooks/pretool.py, which parses for every adapter."""
    if is_adapter(module):
        from handrail.hooks.pretool import OPTIONS

        return dict(OPTIONS)
    return dict(getattr(module, "OPTIONS", {}))


def is_adapter(module: ModuleType) -> bool:
    return hasattr(module, "question") and hasattr(module, "reply")


def help_text(module: ModuleType) -> str:
    if is_adapter(module):
        return adapter_help(module)
    return str(module.HELP).strip("\n")


def summary(module: ModuleType) -> str:
    """The first line of a module's help after its usage line: what the command is for."""
    lines = [line for line in help_text(module).splitlines() if line.strip()]
    return lines[1].strip() if len(lines) > 1 else lines[0].strip()


def hooks_index(hooks: Mapping[str, str]) -> str:
    """`handrail hook --help`: every hook NAME main.py routes, with what it is for."""
    import importlib

    width = max(map(len, hooks)) + 2
    rows = [f"  {name:<{width}}{summary(importlib.import_module(module))}" for name, module in hooks.items()]
    return "\n".join([
        "usage: handrail hook NAME [ARGS]",
        "",
        "Entry points that git and the harnesses call: one event in, one answer out.",
        "`handrail hook NAME --help` says what NAME reads, answers and exits with.",
        "",
        "Hooks:",
        *rows,
    ])


# --------------------------------------------------------------------------- harness adapters

REASON = "<reason>"
COMMON_ENV = (
    ("HANDRAIL_AGENT", "the acting agent (or AI_AGENT), when --agent is not given (else the harness's name)"),
    ("HANDRAIL_HOOK_DEADLINE_MS", "the time to answer in (default 2000, at most 20000); past it: refused"),
)


def adapter_help(adapter: ModuleType) -> str:
    from handrail.hooks import pretool
    from handrail.projectroot import HARNESS_DIRS

    name = str(adapter.NAME)
    lines = [f"usage: handrail hook {name} [--agent NAME] < PAYLOAD", ""]
    lines += str(adapter.HELP).strip("\n").splitlines()
    lines += ["", "Options:",
              "  --agent NAME   the acting agent, whose autonomy envelope applies (else HANDRAIL_AGENT or AI_AGENT,",
              f"                 else {name})",
              "  -h, --help     this text", "",
              "Environment:"]
    env = list(COMMON_ENV) + [(var, f"the project folder, as {who} names it") for var, who in HARNESS_DIRS]
    env += list(getattr(adapter, "HELP_ENV", ()))
    width = max(len(var) for var, _ in env) + 2
    lines += [f"  {var:<{width}}{what}" for var, what in env]
    lines += ["", "Answers (stdout, then the exit code):"]
    rows = [("allow", pretool.ALLOW, False), ("notice", pretool.NOTIFY, False)]
    if getattr(adapter, "CAN_ASK", False) or hasattr(adapter, "can_ask_now"):
        rows.append(("ask", pretool.ASK, False))
    rows += [("deny", pretool.DENY, False), ("no opinion", pretool.NONE, False),
             ("broken", pretool.DENY, True)]
    for label, verdict, broken in rows:
        out, code = adapter.reply(pretool.Answer(verdict, REASON, broken=broken))
        lines.append(f"  {label:<11} {out.strip() or '(nothing)'}  exit {code}")
    lines += [
        "",
        "  A deny also writes its reason on stderr. `broken` is a payload the hook cannot read, an",
        "  unreadable policy, an internal error or an answer past the deadline: refused, never allowed.",
        f"  A reply that cannot be written: exit {pretool.BLOCKED}.",
        f"  {REASON} is one line naming the rule, its source and the way forward.",
    ]
    if not getattr(adapter, "CAN_ASK", False) and not hasattr(adapter, "can_ask_now"):
        lines.append(f"  {name} cannot ask a person from a hook: tier 3 is a deny, with the way forward.")
    return "\n".join(lines)
