"""Who made a commit, read from the commit; which tracking refs a fetch wrote; the capped list."""

from __future__ import annotations

import pytest

from handrail.policy import gitrules
from handrail.policy.authorship import made_by
from handrail.policy.fetched import cloned, fetched_from

HUMAN = "Ada Lovelace <ada@example.com>"

# message, author, committer, agent it names, words of the evidence
AGENT_COMMITS = [
    ("fix\n\nHandrail-Agent: claude (CLAUDECODE=1)\n", HUMAN, HUMAN, "claude", "CLAUDECODE=1"),
    ("fix\n\n🤖 Generated with [Claude Code](https://claude.com/claude-code)\n\n"
     "Co-Authored-By: Claude Opus 4.5 <noreply@anthropic.com>\n", HUMAN, HUMAN, "claude", "Claude Opus 4.5"),
    ("fix\n\nCo-authored-by: Codex <noreply@openai.com>\n", HUMAN, HUMAN, "codex", "Codex"),
    ("fix\n\nCo-authored-by: Copilot <223556219+Copilot@users.noreply.github.com>\n", HUMAN, HUMAN, "copilot", ""),
    ("fix", "Copilot <198982749+Copilot@users.noreply.github.com>", "GitHub <noreply@github.com>", "copilot",
     "author"),
    ("fix\n\nCo-authored-by: Cursor <cursoragent@cursor.com>\n", HUMAN, HUMAN, "cursor", ""),
    ("fix", "Cursor Agent <cursoragent@cursor.com>", "Cursor Agent <cursoragent@cursor.com>", "cursor", ""),
    ("fix\n\n🤖 Generated with opencode\n\nCo-Authored-By: opencode <noreply@opencode.ai>\n", HUMAN, HUMAN,
     "opencode", ""),
    ("fix\n\nCo-authored-by: gemini-code-assist[bot] "
     "<176961590+gemini-code-assist[bot]@users.noreply.github.com>\n", HUMAN, HUMAN, "gemini", ""),
    ("aider: fix", HUMAN, "Ada Lovelace (aider) <ada@example.com>", "aider", "committer"),
    ("fix", "Ada Lovelace (aider) <ada@example.com>", HUMAN, "aider", "author"),
    ("fix\n\nCo-authored-by: aider (claude-sonnet) <aider@aider.chat>\n", HUMAN, HUMAN, "aider", ""),
    # Buried mid-message, lower case: still found.
    ("fix\n\nhandrail-agent: opencode (OPENCODE=1)\n\nmore words\n", HUMAN, HUMAN, "opencode", ""),
]
HUMAN_COMMITS = [
    ("fix", HUMAN, HUMAN),
    ("pair work\n\nCo-authored-by: Grace Hopper <grace@example.com>\n", HUMAN, HUMAN),
    ("fix", "Claude Shannon <claude@example.com>", HUMAN),
    ("fix\n\nWe talked about Co-authored-by: Claude <noreply@anthropic.com> in review.\n", HUMAN, HUMAN),
    ("fix", "Ada (aider fan) <ada@example.com>", HUMAN),
]


@pytest.mark.parametrize(("msg", "author", "committer", "agent", "words"), AGENT_COMMITS)
def test_each_agents_commit_is_told(msg: str, author: str, committer: str, agent: str, words: str) -> None:
    found = made_by(msg, author, committer)
    assert found is not None and found.name == agent
    assert words in found.evidence
    assert found.as_agent().name == agent


@pytest.mark.parametrize(("msg", "author", "committer"), HUMAN_COMMITS)
def test_a_humans_commit_is_a_humans(msg: str, author: str, committer: str) -> None:
    assert made_by(msg, author, committer) is None


URLS = ["/srv/git/app.git", "git@example.com:team/app.git"]


@pytest.mark.parametrize("message", [
    "update by push",
    "fetch origin: fast-forward",
    "fetch -q origin: storing head",
    "fetch: fast-forward",                       # the default remote
    "fetch -q: forced-update",
    "pull --ff-only: fast-forward",
    "fetch --append --no-auto-gc origin: fast-forward",   # remote update, fetch --all
    "fetch /srv/git/app.git/ main:refs/remotes/origin/main: fast-forward",
    "fetch git@example.com:team/app main: storing head",
])
def test_what_a_fetch_from_the_remote_writes_is_trusted(message: str) -> None:
    assert fetched_from(message, "origin", URLS)


@pytest.mark.parametrize("message", [
    "",
    "fetch . HEAD:refs/remotes/origin/x: storing ref",
    "fetch upstream: fast-forward",
    "fetch /tmp/elsewhere.git main:refs/remotes/origin/main: storing head",
    "push",                                     # `git push . HEAD:refs/remotes/origin/x`
    "branch: Created from HEAD",
    "clone: from /tmp/elsewhere.git",
    "fetchy origin: fast-forward",
])
def test_anything_else_is_doubt(message: str) -> None:
    assert not fetched_from(message, "origin", URLS)


def test_a_clone_is_known_by_heads_first_entry() -> None:
    assert cloned("clone: from /srv/git/app.git", URLS)
    assert not cloned("commit (initial): start", URLS)
    assert not cloned(None, URLS)


def test_the_list_is_capped_with_the_count_of_the_rest() -> None:
    problems = [gitrules.Problem(gitrules.PATH, f"f{i}.key is forbidden", "src", "fix") for i in range(23)]
    text = gitrules.render(problems, "push")
    assert text.startswith("handrail: push refused: 23 problems")
    assert "f9.key" in text and "f10.key" not in text
    assert "… and 13 more" in text and "handrail events --type push_refused" in text
    assert "more" not in gitrules.render(problems[:10], "push")
