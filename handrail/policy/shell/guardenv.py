"""Settings that change how the git guards run, given on the command line: environment variables
(`GIT_DIR=/tmp/x git commit`, `PRE_COMMIT_ALLOW_NO_CONFIG=1 git commit`, `export PRE_COMMIT_HOME=…`)
and git's own `--git-dir`/`--work-tree`.

handrail's commit and push hooks are the project's git hooks, run by the project's repository
for its own index and work tree, through the pre-commit framework when the project uses it.
A command that points git at another repository, index or object store commits where those
hooks do not run, or runs them on other files than the ones committed (GIT_WORK_TREE,
GIT_INDEX_FILE); the framework's variables skip its checks or load its hooks from a store of
the command's choosing. Reading through another repository changes nothing, so git's read-only
subcommands keep their tier; any other program given the variable passes it on to every git it
starts (`GIT_DIR=/tmp/x make release`), so it needs a human too. A shell variable alone
(`GIT_DIR=/tmp/x; …`) is one `export GIT_DIR` or `set -a` away from every program after it, and
`export GIT_DIR` with no value exports whatever was set before: both are judged as the export.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx, Finding
    from handrail.policy.shell.parts import Part

RULE = "git-safety-net"
# Variables that move the repository git works on: (name, what it moves).
LOCATION = {
    "GIT_DIR": "the repository git commits to, whose hooks are not the project's",
    "GIT_WORK_TREE": "the work tree git reads and writes, other files than the ones the hooks judge",
    "GIT_INDEX_FILE": "the index git commits from, another one than the hooks judge",
    "GIT_OBJECT_DIRECTORY": "the object store git writes commits to",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES": "object stores git takes commits from",
    "GIT_COMMON_DIR": "the shared repository (its config and hooks) git uses",
}
_OPTIONS = {"--git-dir": "GIT_DIR", "--work-tree": "GIT_WORK_TREE"}
# The pre-commit framework reads PRE_COMMIT_* (PRE_COMMIT_ALLOW_NO_CONFIG skips every hook when the
# config is missing, PRE_COMMIT_HOME picks the store its hooks run from, PRE_COMMIT_FROM_REF and
# _TO_REF the range a push hook judges); only the colour is harmless.
_FRAMEWORK_HARMLESS = frozenset({"PRE_COMMIT_COLOR"})
# The store's other address: `$XDG_CACHE_HOME/pre-commit`, read by the framework and by git's hooks.
_STORE = "XDG_CACHE_HOME"
# git subcommands that only read the repository.
READS = frozenset({"status", "log", "diff", "show", "blame", "annotate", "rev-parse", "rev-list", "ls-files",
                   "ls-tree", "ls-remote", "grep", "describe", "shortlog", "cat-file", "show-ref", "for-each-ref",
                   "merge-base", "name-rev", "whatchanged", "count-objects", "fsck", "check-ignore", "check-attr",
                   "diff-tree", "diff-index", "diff-files", "cherry", "range-diff", "verify-commit", "verify-tag",
                   "var", "help", "version", "show-branch", "check-ref-format", "get-tar-commit-id"})
_EXPORTERS = frozenset({"export", "declare", "typeset", "readonly", "local"})


def _reads(part: Part) -> bool:
    """A git command that only reads, which a variable pointing elsewhere cannot turn into a commit."""
    words = part.words
    return part.name == "git" and len(words) > 1 and words[1].text in READS


def _given(part: Part) -> list[tuple[str, str]]:
    """(variable, how it is given) of every assignment the part makes or exports."""
    out = [(name, w.raw) for name, w in part.assigns]
    if part.name in _EXPORTERS:
        out += [(w.text.split("=", 1)[0], w.raw) for w in part.words[1:] if not w.text.startswith("-")]
    return out


def check_guard_env(part: Part, ctx: Ctx) -> list[Finding]:
    """The variables and git options of one part that change where or whether the guards run."""
    if not ctx.enabled(RULE):
        return []
    exporting = part.name in _EXPORTERS or not part.words  # a bare `X=1` is one `set -a` from exported
    for name, shown in _given(part):
        up = name.upper()
        if up.startswith("PRE_COMMIT") and up not in _FRAMEWORK_HARMLESS:
            return [(3, RULE, f"{shown} changes how the pre-commit framework runs the git hooks")]
        if up in LOCATION and (exporting or not _reads(part)):
            return [(3, RULE, f"{shown} moves {LOCATION[up]}")]
        if up == _STORE and (exporting or part.name in ("git", "pre-commit")) and not _reads(part):
            return [(3, RULE, f"{shown} moves the pre-commit framework's store, the hooks it runs with it")]
    if part.name == "git" and not _reads(part):
        for opt, w in part.git_paths:
            return [(3, RULE, f"git {opt} {w.raw} moves {LOCATION[_OPTIONS[opt]]}")]
    return []
