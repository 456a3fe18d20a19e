"""Is this process an agent's, and which harness runs it? Read from the environment.

Pure: takes a mapping (normally `os.environ`), imports nothing of git or click.

What each harness puts into the environment of the commands it runs, as found in
their sources, changelogs and issue trackers (checked 2026; harnesses change, so each
row says how sure we are):

=============  =====================================  ==============================================  ==========
harness        variable (value)                       where it comes from                             sureness
=============  =====================================  ==============================================  ==========
any            HANDRAIL_AGENT (agent name)            handrail's own marker, set by its adapters       certain
Claude Code    CLAUDECODE=1                           exported to the Bash tool since v0.2.47          high
                                                      (anthropics/claude-code#531)
Claude Code    CLAUDE_CODE_ENTRYPOINT (cli, sdk-…)    set by the claude process for its children       medium
Codex CLI      CODEX_SANDBOX=seatbelt                 macOS Seatbelt sandbox (codex-rs spawn.rs)        high
Codex CLI      CODEX_SANDBOX_NETWORK_DISABLED=1       shell tool whenever the sandbox cuts the         high
                                                      network (openai/codex AGENTS.md, spawn.rs)
Codex CLI      CODEX_THREAD_ID (thread id)            exported into every shell of a session in        medium
                                                      recent releases (several detectors rely on it)
Codex CLI      CODEX_CI=1                             exported into every shell of a session, a local   medium
                                                      `codex exec` too (seen in 0.171)
OpenCode       OPENCODE=1                             `process.env.OPENCODE = "1"` at start-up          high
                                                      (packages/opencode/src/index.ts), inherited
OpenCode       OPENCODE_CLIENT (cli, desktop, …)      client marker read by agent detectors             medium
Gemini CLI     GEMINI_CLI=1                           added to the env of run_shell_command             high
                                                      (shellExecutionService)
Cursor         CURSOR_AGENT=1                         the `cursor-agent` CLI                            medium
Cursor         CURSOR_EXTENSION_HOST_ROLE=agent-exec  the in-editor Agent's terminals                   medium
Copilot        COPILOT_AGENT=1                        VS Code agent terminals (microsoft/vscode#316267) medium
Copilot        COPILOT_CLI=1                          Copilot CLI's bash tool (seen in 1.0.102; its     high
                                                      SDK sets it in VS Code agent mode too)
Copilot        COPILOT_AGENT_SESSION_ID               Copilot CLI's bash tool (the session id, seen     high
                                                      in 1.0.102) and coding agent (cloud) sessions
Cline          CLINE_ACTIVE=true                      the VS Code extension's terminals                medium
                                                      (cline/cline#7858); Cline CLI 3 sets none
Cline CLI 3    CLINE_CONNECTOR_CLI_LAUNCH (JSON)      exported by the cline process (3.0.65) to its    high
                                                      run_commands shells and hooks: seen there
Qwen Code      QWEN_CODE=1                            set by the qwen process at start, inherited by    high
                                                      run_shell_command (seen with qwen 0.15)
aider          GIT_COMMITTER_NAME / GIT_AUTHOR_NAME   "NAME (aider)" (NAME: `git config user.name`)    high
               ending in "(aider)"                    while aider runs `git commit`, seen with 0.86.2;
                                                      for an edit only with `attribute-committer: true`
                                                      (by default it adds a Co-authored-by trailer
                                                      instead), which `handrail init` sets in
                                                      .aider.conf.yml with `git-commit-verify: true`
                                                      (aider passes --no-verify otherwise)
generic        AI_AGENT (agent name)                  emerging cross-tool convention                    low
=============  =====================================  ==============================================  ==========

Deliberately *not* markers: `CURSOR_TRACE_ID` and `TERM_PROGRAM=vscode` (set in every
Cursor / VS Code terminal, a human's included), `AGENT` (too generic a name), and
`AIDER_*` (user configuration a human's shell may export too).

Environment markers are a convention, not a proof: a process can unset them. They
decide whom a rule binds; they are not the security boundary.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

HANDRAIL_AGENT = "HANDRAIL_AGENT"
_FALSE = frozenset({"", "0", "false", "no", "off"})


def _truthy(value: str) -> bool:
    return value.strip().lower() not in _FALSE


def _equals(expected: str) -> Callable[[str], bool]:
    return lambda value: value.strip().lower() == expected


def _aider(value: str) -> bool:
    return value.rstrip().endswith("(aider)")


class Marker(NamedTuple):
    variable: str
    harness: str
    test: Callable[[str], bool]
    meaning: str


# Order matters only for naming the harness when several markers are present:
# handrail's own marker first, the generic convention last.
MARKERS: tuple[Marker, ...] = (
    Marker(HANDRAIL_AGENT, "", _truthy, "handrail's agent marker (its value names the agent)"),
    Marker("CLAUDECODE", "claude", _truthy, "Claude Code's Bash tool"),
    Marker("CLAUDE_CODE_ENTRYPOINT", "claude", _truthy, "a Claude Code process"),
    Marker("CODEX_SANDBOX", "codex", _truthy, "Codex CLI's sandbox"),
    Marker("CODEX_SANDBOX_NETWORK_DISABLED", "codex", _truthy, "Codex CLI's shell tool"),
    Marker("CODEX_THREAD_ID", "codex", _truthy, "a Codex session"),
    Marker("CODEX_CI", "codex", _truthy, "a Codex session"),
    Marker("OPENCODE", "opencode", _truthy, "an OpenCode process"),
    Marker("OPENCODE_CLIENT", "opencode", _truthy, "an OpenCode client"),
    Marker("GEMINI_CLI", "gemini", _truthy, "Gemini CLI's shell tool"),
    Marker("CURSOR_AGENT", "cursor", _truthy, "the Cursor agent CLI"),
    Marker("CURSOR_EXTENSION_HOST_ROLE", "cursor", _equals("agent-exec"), "Cursor's in-editor agent"),
    Marker("COPILOT_AGENT", "copilot", _truthy, "a Copilot agent terminal"),
    Marker("COPILOT_CLI", "copilot", _truthy, "GitHub Copilot CLI"),
    Marker("COPILOT_AGENT_SESSION_ID", "copilot", _truthy, "a Copilot CLI or coding agent session"),
    Marker("CLINE_ACTIVE", "cline", _truthy, "a terminal Cline opened"),
    Marker("CLINE_CONNECTOR_CLI_LAUNCH", "cline", _truthy, "a command Cline CLI runs"),
    Marker("QWEN_CODE", "qwen", _truthy, "Qwen Code's shell tool"),
    Marker("GIT_COMMITTER_NAME", "aider", _aider, "a commit aider makes"),
    Marker("GIT_AUTHOR_NAME", "aider", _aider, "a commit aider makes"),
    Marker("AI_AGENT", "", _truthy, "the generic AI_AGENT convention (its value names the agent)"),
)

# Every variable that can mark an agent: tests clear them, docs list them.
VARIABLES: tuple[str, ...] = tuple(dict.fromkeys(m.variable for m in MARKERS))


class Agent(NamedTuple):
    """Who the environment says is acting: the agent's name, its harness, and the evidence."""

    name: str
    harness: str
    variable: str
    value: str
    meaning: str

    def evidence(self) -> str:
        """`CLAUDECODE=1 (Claude Code's Bash tool)`: what a refusal message can quote."""
        return f"{self.variable}={self.value} ({self.meaning})"


def detect(env: Mapping[str, str]) -> Agent | None:
    """The agent whose harness set this environment, or None for a human's.

    The first marker found is the evidence; the harness is the first marker that
    names one; the agent's name is what HANDRAIL_AGENT (or AI_AGENT) says, else the
    harness.
    """
    found = [(m, env[m.variable].strip()) for m in MARKERS
             if m.variable in env and m.test(env[m.variable])]
    if not found:
        return None
    evidence, value = found[0]
    named = [v for m, v in found if not m.harness]
    harnesses = [m.harness for m, _v in found if m.harness]
    harness = harnesses[0] if harnesses else named[0]
    return Agent(named[0] if named else harness, harness, evidence.variable, value, evidence.meaning)


def is_agent(env: Mapping[str, str]) -> bool:
    return detect(env) is not None


def acting(env: Mapping[str, str], *, given: str | None = None, harness: str | None = None) -> str | None:
    """The name of the agent whose autonomy envelope binds this call, or None for a person.

    The one answer every entry point gives (`classify`, `can-edit`, `hook NAME`, the git
    hooks, events and histories): `--agent` when given; else the name the environment
    gives (HANDRAIL_AGENT, AI_AGENT); else `harness`, the harness whose hook is asking
    (it is the one acting, whatever else the environment holds); else the harness the
    environment's markers show (`CLAUDECODE=1`: claude).
    """
    if given is not None and given.strip():
        return given.strip()
    named = [env[m.variable].strip() for m in MARKERS
             if not m.harness and m.variable in env and m.test(env[m.variable])]
    if named:
        return named[0]
    if harness:
        return harness
    agent = detect(env)
    return agent.name if agent is not None else None
