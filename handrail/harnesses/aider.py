"""aider: a harness without a pre-tool hook (and, below, the settings it is given)."""

from __future__ import annotations

import os
import re

from handrail.errors import HandrailError

# ---- hook protocol
# There is none: aider edits files itself and calls no hook before it does, so there is
# no `handrail hook aider`. Under `--yes-always` it applies every edit the model proposes
# and runs no shell command the model suggests (those need an explicit yes). handrail
# reaches aider where aider commits, and two of its settings decide whether that commit
# meets handrail:
# - aider commits with `git commit --no-verify` unless `git-commit-verify` is true, so by
#   default pre-commit never sees its commits (only pre-push does);
# - an edit aider commits carries a `Co-authored-by: aider (…)` trailer and, by default
#   (0.86), the user's own name as committer: only with `attribute-committer: true` does
#   it run git with `GIT_COMMITTER_NAME="<name> (aider)"`, the marker by which the git
#   hooks (handrail.policy.agents) know that an agent is committing.

# ---- native files
# `handrail init` merges both settings into the repository's `.aider.conf.yml` (aider
# reads it at the top of the git repository), keeping every other key, comment and line
# the user wrote; `handrail doctor` warns where one is missing or false.

NAME = "aider"
CONFIG = ".aider.conf.yml"
# Each setting handrail needs, and what goes wrong without it (doctor quotes it).
SETTINGS: tuple[tuple[str, str], ...] = (
    ("git-commit-verify", "aider commits with --no-verify, so the pre-commit hook never sees its commits"),
    ("attribute-committer", "aider commits under your name alone, so the git hooks take its commits for yours"),
)
HEADER = "# handrail: aider's commits meet the git hooks, as an agent's (see `handrail doctor`)\n"


def _load(text: str) -> dict[str, object]:
    from handrail.init import yaml_mapping

    return yaml_mapping(text, CONFIG, "handrail init")


def unmet(text: str | None) -> list[tuple[str, str]]:
    """The settings a config (None: no file) lacks or turns off, with why each matters."""
    data = _load(text) if text is not None else {}
    return [(key, why) for key, why in SETTINGS if data.get(key) is not True]


def merged(text: str | None) -> str:
    """The config with every setting true. Edited as text, so the user's comments and
    layout stay: a top-level `key: value` line gets `true` (its comment kept), a missing
    key is added at the end. Where the text edit cannot be read back as meant (a flow-style
    mapping, a key written twice), the parsed mapping is written out instead."""
    import yaml

    data = _load(text) if text is not None else {}
    out = text or ""
    added = []
    for key, _why in SETTINGS:
        if data.get(key) is True:
            continue
        line = re.compile(rf"^(?P<key>{re.escape(key)})[ \t]*:[ \t]*[^#\n]*?(?P<rest>[ \t]*(#.*)?)$", re.M)
        if line.search(out):
            out = line.sub(r"\g<key>: true\g<rest>", out, count=1)
        else:
            added.append(f"{key}: true\n")
    if added:
        if out and not out.endswith("\n"):
            out += "\n"
        out += HEADER + "".join(added)
    if not _all_met(out):  # a layout the text edit misread
        data.update({key: True for key, _why in SETTINGS})
        out = yaml.safe_dump(data, sort_keys=False)
    return out


def _all_met(text: str) -> bool:
    try:
        return not unmet(text)
    except HandrailError:
        return False


def merge_config(root: str) -> tuple[str, str | None]:
    """(what `handrail init` did, the new text or None when the file is already right)."""
    from handrail.fsio import read_text

    path = os.path.join(root, CONFIG)
    current = read_text(path) if os.path.exists(path) else None
    if current is not None and not unmet(current):
        return "kept (aider's commits already meet the git hooks)", None
    did = "created" if current is None else "updated (" + ", ".join(f"{k}: true" for k, _w in unmet(current)) + ")"
    return did, merged(current)
