"""Who made a commit: an agent, or a human? Read from the commit itself.

Pure: takes a commit's message, author and committer (`Name <email>`), imports
nothing of git. The environment says who runs a hook *now* (policy/agents.py); a
commit carries who made it, so pre-push and CI judge commits, not the shell that
pushes them.

What marks a commit as an agent's, as each tool really writes it (checked 2026 in
their shipped binaries, sources and issue trackers; tools change, so each row says
how sure we are):

=========  ===================================================================  ==========
agent      what the commit carries                                              sureness
=========  ===================================================================  ==========
any        `Handrail-Agent: <agent> (<marker>=<value>)`, written by handrail's   certain
           prepare-commit-msg hook when an agent's markers are in the
           environment
Claude     `Co-Authored-By: <model, default Claude> <noreply@anthropic.com>`     high
           (the claude binary's attribution default); Claude Code on the web
           commits as `Claude Code <noreply@anthropic.com>`
Codex      `Co-authored-by: Codex <noreply@openai.com>` (the codex binary's      high
           git_attribution instruction); `codex@openai.com` in older setups
Copilot    `Co-authored-by: Copilot <NNN+Copilot@users.noreply.github.com>`      high
           (CLI and VS Code agent); the coding agent authors as
           `Copilot <198982749+Copilot@users.noreply.github.com>`
Cursor     `Co-authored-by: Cursor <cursoragent@cursor.com>`; background agents  high
           author as `Cursor Agent <cursoragent@cursor.com>`
OpenCode   `Co-Authored-By: opencode <noreply@opencode.ai>` (its bash tool's     medium
           prompt in 2025 releases); its GitHub agent commits as
           `opencode-agent[bot]`
Gemini     Gemini CLI writes no trailer of its own; its GitHub app co-authors    medium
           as `gemini-code-assist[bot]@users.noreply.github.com`
aider      author or committer name ending in `(aider)`; with                    high
           --attribute-co-authored-by, a co-author at `aider.chat`
=========  ===================================================================  ==========

A trailer counts wherever it stands in the message (a line `Key: value` at the start
of a line), not only in the final trailer block: an agent that buries it mid-message
is still found. A commit with none of these is a human's. None of this is proof: an
agent can write a commit without any of it (`--no-verify` does not skip
prepare-commit-msg, but markers stripped from the environment, `commit-tree` or a
hand-edited message do); the README says what that leaves.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from handrail.policy.agents import Agent

TRAILER = "Handrail-Agent"
CO_AUTHOR = "co-authored-by"

# (agent, regex over one identity `Name <email>`), lower-cased before matching.
IDENTITIES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(rx)) for name, rx in (
    ("claude", r".*<noreply@anthropic\.com>"),
    ("codex", r"codex\b.*<(?:noreply|codex)@openai\.com>"),
    ("copilot", r".*<\d+\+copilot@users\.noreply\.github\.com>"),
    ("copilot", r".*<copilot@github\.com>"),
    ("cursor", r".*<cursoragent@cursor\.com>"),
    ("opencode", r".*<noreply@opencode\.ai>"),
    ("opencode", r"opencode-agent\[bot\].*"),
    ("gemini", r".*<\d+\+gemini-code-assist(?:\[bot\])?@users\.noreply\.github\.com>"),
    ("aider", r".*<[^>]*@aider\.chat>"),
))
_LINE = re.compile(r"^([A-Za-z][A-Za-z0-9-]*)[ \t]*:[ \t]*(.+?)[ \t]*$", re.M)
_AIDER = re.compile(r"\(aider\)\s*$")


class Maker(NamedTuple):
    """The agent a commit names, and the words in the commit that say so."""

    name: str
    evidence: str       # `Handrail-Agent: claude (CLAUDECODE=1)`, `committer 'Ada (aider) <a@x>'`

    def as_agent(self) -> Agent:
        """The same shape the environment's answer has, so every rule reads one type."""
        return Agent(self.name, self.name, "commit", self.evidence, "recorded in the commit")


def trailer_value(agent: Agent) -> str:
    """What handrail's hook writes after `Handrail-Agent: `."""
    return f"{agent.name} ({agent.variable}={agent.value})"


def _identity(text: str) -> str | None:
    low = " ".join(text.lower().split())
    for name, rx in IDENTITIES:
        if rx.fullmatch(low):
            return name
    return None


def made_by(message: str, author: str, committer: str) -> Maker | None:
    """The agent that made this commit, or None for a human's.

    handrail's own trailer first (it names the agent and the marker that showed
    it), then the harnesses' co-author trailers, then the author and committer.
    """
    co_authors = []
    for m in _LINE.finditer(message):
        key, value = m.group(1), m.group(2)
        if key.lower() == TRAILER.lower():
            name = value.split()[0] if value.split() else "agent"
            return Maker(name, f"{TRAILER}: {value}")
        if key.lower() == CO_AUTHOR:
            co_authors.append((key, value))
    for key, value in co_authors:
        found = _identity(value)
        if found is not None:
            return Maker(found, f"{key}: {value}")
    for role, who in (("author", author), ("committer", committer)):
        name_part = who.split("<")[0]
        if _AIDER.search(name_part):
            return Maker("aider", f"{role} '{who}'")
        found = _identity(who)
        if found is not None:
            return Maker(found, f"{role} '{who}'")
    return None
