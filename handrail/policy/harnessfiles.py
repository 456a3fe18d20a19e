"""Where each harness keeps the files handrail writes for it: the one registry.

Each row names the harness (its module in handrail/harnesses/), a gitignore pattern that
covers every file that module writes or whose change would loosen the leash, and why.
Protected paths (scope.PROTECTED) and the files whose change re-runs `handrail permissions
--check` (init.GENERATED) are both derived from it; tests check that every file a harness
module's `native_files` writes is covered by its rows.
"""

from __future__ import annotations

from typing import NamedTuple


class HarnessFile(NamedTuple):
    harness: str
    pattern: str      # gitignore syntax, project-relative
    why: str
    generated: bool   # handrail writes files here (`handrail permissions`), not only reads them


FILES: tuple[HarnessFile, ...] = (
    HarnessFile("claude", ".claude/settings*.json", "Claude Code permissions and hooks", True),
    # What Claude Code reads besides its settings that decides what runs without a person:
    # a command's or skill's `allowed-tools` grants tools while it runs, a subagent's
    # `permissionMode`, `tools`, `hooks` and `mcpServers` are its own permissions, the hook
    # scripts the settings name run as the guard, and `.mcp.json` lists servers it starts.
    HarnessFile("claude", ".claude/commands/**", "Claude Code commands (allowed-tools grants tools)", False),
    HarnessFile("claude", ".claude/skills/**", "Claude Code skills (allowed-tools grants tools)", False),
    HarnessFile("claude", ".claude/agents/**", "Claude Code subagents (their own tools, permissionMode and hooks)",
                False),
    HarnessFile("claude", ".claude/hooks/**", "Claude Code hook scripts", False),
    HarnessFile("claude", ".mcp.json", "MCP servers Claude Code starts", False),
    HarnessFile("codex", ".codex/**", "Codex rules and hooks", True),
    HarnessFile("opencode", "opencode.json*", "OpenCode permissions", True),
    HarnessFile("opencode", ".opencode/**", "OpenCode plugins", True),
    HarnessFile("cursor", ".cursor/hooks.json", "Cursor hooks", True),
    HarnessFile("cursor", ".cursor/cli.json", "Cursor permissions", False),
    HarnessFile("cursor", ".cursor/mcp.json", "MCP servers Cursor starts", False),
    HarnessFile("gemini", ".gemini/settings.json", "Gemini CLI settings and hooks", True),
    HarnessFile("gemini", ".gemini/policies/**", "Gemini CLI Policy Engine rules", True),
    # A custom command's `!{…}` runs a shell command when invoked; an extension brings its own
    # MCP servers, hooks and commands.
    HarnessFile("gemini", ".gemini/commands/**", "Gemini CLI custom commands (their !{…} runs shell commands)",
                False),
    HarnessFile("gemini", ".gemini/extensions/**", "Gemini CLI extensions (MCP servers, hooks, commands)", False),
    HarnessFile("copilot", ".github/hooks/**", "Copilot hooks", True),
    HarnessFile("copilot", ".vscode/settings.json",
                "VS Code settings (Copilot's auto-approved terminal commands and tools)", False),
    HarnessFile("copilot", ".vscode/mcp.json", "MCP servers VS Code's agent starts", False),
    HarnessFile("qwen", ".qwen/settings.json", "Qwen Code settings and hooks", True),
    HarnessFile("cline", ".clinerules/hooks/**", "Cline hooks", True),
    HarnessFile("aider", ".aider.conf.yml", "aider settings (its commits meet the git hooks)", False),
)


def regex(pattern: str) -> str:
    """A registry pattern as the regex a `.pre-commit-config.yaml` `files:` key takes (searched
    from the start): `dir/**` is the folder's prefix, `*` stays within one path part."""
    import re

    if pattern.endswith("/**"):
        return re.escape(pattern[:-2])
    return "".join("[^/]*" if c == "*" else re.escape(c) for c in pattern)
