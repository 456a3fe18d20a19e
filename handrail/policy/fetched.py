"""Did a remote-tracking ref come from that remote? Read from the ref's reflog.

Pure: the hook hands in the newest reflog message of `refs/remotes/<remote>/<x>`
(or that there is none) and the remote's name and URLs.

Pre-push hides from its check the commits a remote already has, and for a branch
the remote does not have yet it can only learn that from tracking refs. Anyone who
can run git can write one (`git fetch . HEAD:refs/remotes/origin/x`, `git update-ref
refs/remotes/origin/main HEAD`), and a forged one would hide a commit from the check.
So a tracking ref counts only when its newest reflog entry is one git writes when it
talks to that remote:

=================================  ==================================================
message                            written by
=================================  ==================================================
`fetch [OPTIONS] [REMOTE …]: …`    `git fetch` (and `remote update`, `fetch --all`),
`pull [OPTIONS] [REMOTE …]: …`     `git pull`; REMOTE absent (the default remote), the
                                   remote's name or one of its URLs
`update by push`                   a successful `git push` to that remote
`clone: from URL`                  `git clone` (where the clone left no reflog of the
                                   ref, HEAD's first entry says so; see `cloned`)
=================================  ==================================================

Anything else (`fetch . …`, an empty message, `branch: …`) is doubt, and doubt means
the commits count as new: they are checked. The reflog is a file in `.git`: a process
that writes it by hand with a fetch's words is not told apart here (CI is what
sees the remote itself).
"""

from __future__ import annotations

from collections.abc import Sequence


def _same_url(word: str, urls: Sequence[str]) -> bool:
    def norm(u: str) -> str:
        return u.rstrip("/").removesuffix(".git").rstrip("/")

    return any(word == u or norm(word) == norm(u) for u in urls if u)


def fetched_from(message: str, remote: str, urls: Sequence[str]) -> bool:
    """Whether a reflog message says git wrote the ref while talking to `remote`."""
    text = message.strip()
    if text == "update by push":
        return True
    if text.startswith("clone: from "):
        return _same_url(text.removeprefix("clone: from ").strip(), urls)
    for verb in ("fetch", "pull"):
        if not text.startswith((verb + " ", verb + ":")):
            continue
        args, sep, _status = text[len(verb):].rpartition(": ")
        if not sep:
            return False
        words = [w for w in args.split() if not w.startswith("-")]
        # No repository named: the default remote, whose refspec is what writes refs/remotes/<remote>/.
        return not words or words[0] == remote or _same_url(words[0], urls)
    return False


def cloned(head_first_message: str | None, urls: Sequence[str]) -> bool:
    """Whether the repository was cloned from this remote (HEAD's oldest reflog entry)."""
    return head_first_message is not None and head_first_message.strip().startswith("clone: from ") \
        and fetched_from(head_first_message, "", urls)
