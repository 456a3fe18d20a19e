"""Another agent started from an agent's shell: `claude -p …`, `codex exec …`, `opencode run`.

The agent started acts on its own tool calls, and handrail's pre-tool hook sees none
of them unless that client runs the project's hooks, which an agent can prevent
(`opencode --pure`, Codex's untrusted hooks, a bypass flag, another folder, aider
which has no hook at all). So starting one is a human's call; asking it its version
or its help is not, nor the few subcommands that only read (Codex's rule checker,
OpenCode's config dump).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx
    from handrail.policy.shell.parts import Part

    Finding = tuple[int, str, str]

CLIENTS = ("claude", "codex", "opencode", "gemini", "qwen", "copilot", "cline", "aider", "cursor-agent",
           "goose", "amp", "crush", "auggie", "droid", "kiro-cli")
# A client's package run by its runtime (`node …/claude-code/cli.js`, `deno run npm:@openai/codex`).
PACKAGES = ("@anthropic-ai/claude-code", "@openai/codex", "opencode-ai", "@google/gemini-cli", "@github/copilot",
            "@qwen-code/qwen-code", "aider-chat", "@sourcegraph/amp", "@augmentcode/auggie")
RUNTIMES = ("node", "deno", "bun", "python", "python3")
PROGRAMS = (*CLIENTS, *RUNTIMES)
_ASKS = frozenset({"--version", "-v", "-V", "--help", "-h", "help", "version"})
# Subcommands that only print: the first words after the program.
_READS = {"codex": (("execpolicy", "check"), ("login", "status")), "opencode": (("debug",), ("models",)),
          "claude": (("mcp", "list"), ("config", "get"), ("config", "list"))}


def check_agent_client(part: Part, ctx: Ctx) -> list[Finding]:
    words = [w.text for w in part.words[1:]]
    if part.name in RUNTIMES:
        package = next((p for w in words for p in PACKAGES if p in w), None)
        if package is None:
            return []
        return [(3, "agent-client", f"{part.name} runs {package}, another agent, whose own tool calls handrail's "
                                    "hook does not see unless that client runs the project's hooks; a human starts "
                                    "agents")]
    if words and all(w in _ASKS for w in words):
        return []
    if any(tuple(words[:len(r)]) == r for r in _READS.get(part.name, ())):
        return []
    return [(3, "agent-client", f"{part.name} starts another agent, whose own tool calls handrail's hook "
                                "does not see unless that client runs the project's hooks; a human starts agents")]
