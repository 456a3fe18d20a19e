"""The pre-commit framework's verbs that change which hooks run, or run hooks the project's
configuration does not name: a human's call in every spelling.

`uninstall` and `install` remove or rewrite the git hooks; `init-templatedir` puts hooks into
git's template folder, which every `git init` copies; `autoupdate` and `migrate-config` rewrite
`.pre-commit-config.yaml`, which names the hooks; `try-repo` runs the hooks of a repository of
the command's choosing (a path on this machine too) over the project; `hazmat` runs the command
it is given; `run --config OTHER.yaml` runs another configuration's hooks instead of the
project's. `clean` and `gc` only empty the framework's cache of hook environments, which its
next run builds again: the policy's patterns decide them. The verb is found as argparse finds
it: options before it (`pre-commit --color never uninstall`) and `--` (cliverbs.py) do not
hide it.
"""

from __future__ import annotations

from handrail.policy.shell.parts import resolve
from handrail.policy.shell.syntax import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx, Finding
    from handrail.policy.shell.parts import Part

RULE = "git-safety-net"
VERBS = {
    "uninstall": "removes the git hooks",
    "install": "rewrites the git hooks",
    "init-templatedir": "puts hooks into git's template folder, which every git init copies",
    "autoupdate": "rewrites the revisions of the hooks .pre-commit-config.yaml runs",
    "migrate-config": "rewrites .pre-commit-config.yaml, which names the hooks",
    "try-repo": "runs the hooks of a repository of its choosing over the project",
    "hazmat": "runs the command it is given",
}
COMMANDS = frozenset({*VERBS, "run", "clean", "gc", "install-hooks", "sample-config", "validate-config",
                      "validate-manifest", "help", "hook-impl"})
# The framework's options that take the next word as their value.
_VALUED = frozenset({"--color", "-c", "--config", "-t", "--hook-type", "--hook-stage", "--from-ref", "--to-ref",
                     "-s", "--source", "-o", "--origin", "--files", "--ref", "--rev", "--repo"})
_CONFIG = ("-c", "--config")


def check_framework(part: Part, ctx: Ctx) -> list[Finding]:
    if not ctx.enabled(RULE):
        return []
    words = part.words[1:]
    if any(w.text in ("-h", "--help", "-V", "--version") for w in words):
        return []  # argparse prints and exits
    i = 0
    while i < len(words) and words[i].text.startswith("-") and not words[i].dyn:
        i += 2 if words[i].text in _VALUED else 1
    if i >= len(words):
        return []
    verb = words[i]
    if verb.dyn:
        return [(3, "dynamic", f"pre-commit {verb.raw}: a subcommand only known at run time")]
    why = VERBS.get(verb.text)
    if why is not None:
        return [(3, RULE, f"pre-commit {verb.text} {why}")]
    if verb.text in ("run", "hook-impl"):
        other = _other_config(part, words[i + 1:], ctx)
        if other is not None:
            return [(3, RULE, f"pre-commit {verb.text} --config {other} runs the hooks another file names instead "
                              "of the project's .pre-commit-config.yaml")]
    return []


def _other_config(part: Part, words: list[Word], ctx: Ctx) -> str | None:
    """The configuration `-c`/`--config` names when it is not the project's own file."""
    own = f"{ctx.project}/.pre-commit-config.yaml"
    for j, w in enumerate(words):
        t = w.text
        if t in _CONFIG:
            given = words[j + 1] if j + 1 < len(words) else w
        elif t.startswith("--config="):
            given = Word(t[9:], w.raw[9:])
            given.dyn = w.dyn
        elif t.startswith("-c") and not t.startswith("--"):
            given = Word(t[2:], w.raw[2:])
            given.dyn = w.dyn
        else:
            continue
        if resolve(given, part.cwd, ctx.home) != own:
            return given.raw
    return None
