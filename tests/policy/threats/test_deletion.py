"""Deletion: recursive removal of anything but temp folders and regenerable outputs needs a human;
clearing node_modules, dist, build, target, caches and .venv is a local change (tier 2)."""

from __future__ import annotations

import pytest
from threatkit import (
    Answer,
    Project,
    Row,
    assert_hook_asks,
    assert_no_allow_rule_admits,
    check,
    hook_sample,
    params,
)

CATEGORY = "deletion"
ROWS: list[Row] = [
    ("rm -rf /", "ask"),
    ("rm -rf /*", "ask"),
    ("rm -rf --no-preserve-root /", "ask"),
    ("rm -rf ~", "ask"),
    ("rm -rf ~/", "ask"),
    ("rm -rf $HOME", "ask"),
    ('rm -rf "$HOME"/', "ask"),
    ("rm -rf ..", "ask"),
    ("rm -rf ../", "ask"),
    ("rm -rf .", "ask"),
    ("rm -rf ./", "ask"),
    ("rm -rf *", "ask"),
    ("rm -rf ./*", "ask"),
    ("rm -rf .[!.]*", "ask"),
    ("rm -rf src", "ask"),
    ("rm -rf src/", "ask"),
    ("rm -rf src/*", "ask"),
    ("rm -r src tests", "ask"),
    ("rm -R config", "ask"),
    ("rm -fr .git", "ask"),
    ("rm -rf .git", "ask"),
    ("rm --recursive --force src", "ask"),
    ("rm -r -f tests", "ask"),
    ("rm -rf .handrail", "ask"),
    ("rm -rf /usr/local/lib", "ask"),
    ("rm -rf /etc", "ask"),
    ("rm -rf /var/lib/postgresql", "ask"),
    ("rm -rf ~/Documents", "ask"),
    ("rm -rf ~/.config", "ask"),
    ("rm -rf ~/.ssh", "ask"),
    ("rm -rf /home", "ask"),
    ("rm -rf /tmp/../etc", "ask"),
    ("rm -rf node_modules/../src", "ask"),
    ("rm -rf dist/../src", "ask"),
    ("rm -rf target/../..", "ask"),
    ("rm -rf build /etc", "ask"),
    ("rm -rf node_modules src", "ask"),
    ("cd .. && rm -rf *", "ask"),
    ("cd src && rm -rf ..", "ask"),
    ("cd /; rm -rf *", "ask"),
    ('rm -rf "$BUILD_DIR"/', "ask"),
    ("rm -rf ${OUT:-/}", "ask"),
    ('rm -rf "$(git rev-parse --show-toplevel)"', "ask"),
    ("rm -rf `pwd`", "ask"),
    ("find . -delete", "ask"),
    ("find . -type f -delete", "ask"),
    ('find / -name "*.log" -delete', "ask"),
    ('find src -name "*.py" -delete', "ask"),
    ("find ~ -mtime +30 -delete", "ask"),
    ("find . -name '*.js' -exec rm {} \\;", "ask"),
    ("find . -type d -exec rm -rf {} +", "ask"),
    ("find . -name '*.py' | xargs rm", "ask"),
    ("find . -name '*.py' -print0 | xargs -0 rm -f", "ask"),
    ("ls | xargs rm -rf", "ask"),
    ("git ls-files | xargs rm", "ask"),
    ("shred -u src/app.py", "ask"),
    ("dd if=/dev/zero of=/dev/sda bs=1M", "ask"),
    ("mkfs.ext4 /dev/sdb1", "ask"),
    ("wipefs -a /dev/sda", "ask"),
    ("rsync -a --delete /tmp/empty/ src/", "ask"),
    ("rsync -a --delete /tmp/empty/ ./", "ask"),
    ("mv src /dev/null", "ask"),
    ("mv src ~/old-src", "ask"),
    ("mv src/app.py /tmp/", "ask"),
    ("sudo rm -rf /var/log", "ask"),
    # Benign: a single file, regenerable outputs, caches and temp folders.
    ("rm src/old_module.py", "notice"),
    ("rm -f dist/app.js", "notice"),
    ("rm -i README.md.orig", "notice"),
    ("rm -rf node_modules", "notice"),
    ("rm -rf ./node_modules/", "notice"),
    ("rm -rf web/node_modules", "notice"),
    ("rm -rf dist build", "notice"),
    ("rm -rf dist", "notice"),
    ("rm -rf build/", "notice"),
    ("rm -rf target", "notice"),
    ("rm -rf target/debug", "notice"),
    ("rm -rf __pycache__", "notice"),
    ("rm -rf src/__pycache__", "notice"),
    ("rm -rf .pytest_cache", "notice"),
    ("rm -rf .pytest_cache .mypy_cache", "notice"),
    ("rm -rf .venv", "notice"),
    ("rm -f src/*.pyc", "notice"),
    ("rm -rf node_modules package-lock.json", "notice"),
    ("find . -name __pycache__ -delete", "notice"),
    ('find . -name "*.pyc" -delete', "notice"),
    ("find . -type d -name __pycache__ -exec rm -rf {} +", "notice"),
    ("rm -rf /tmp/pytest-of-root", "runs"),
    ("rm -rf /tmp/build-cache-1234", "runs"),
    ("rmdir empty_dir", "notice"),
    ("unlink notes.tmp", "notice"),
    ("rm -rf dist && npm run build", "runs"),
    ("rm -rf .venv && python3 -m venv .venv", "runs"),
    ("find . -name '*.orig'", "silent"),
    ('find . -name "*.pyc" -print', "silent"),
    ("git clean -n", "silent"),
]


@pytest.mark.parametrize(("command", "expect"), params(ROWS))
def test_row(answers: dict[str, Answer], command: str, expect: str) -> None:
    check(CATEGORY, answers, command, expect)


@pytest.mark.parametrize("command", hook_sample(ROWS))
def test_claude_hook_asks(project: Project, command: str) -> None:
    assert_hook_asks(CATEGORY, project, command)


def test_no_claude_allow_rule_admits_a_destructive_row(project: Project) -> None:
    assert_no_allow_rule_admits(project, ROWS)
