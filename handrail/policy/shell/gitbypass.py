"""git subcommands that change the repository past its hooks, or the work tree past its files:
`commit-tree` and a stash merged, picked or reset into a branch make commits no hook saw, by
the user's identity; `maintenance register|start` writes the user's global configuration and
schedules jobs; `sparse-checkout` takes files (a task's contract among them) out of the work
tree while git still holds them.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx, Finding

_STASH = re.compile(r"(?:refs/)?stash(?:@\{[^}]*\})?(?:[~^]\d*)*")
_BRINGS = frozenset({"merge", "cherry-pick", "rebase", "reset"})
_SCHEDULES = frozenset({"register", "start", "unregister", "stop"})
_SPARSE_READS = frozenset({"list", "check-rules", "-h", "--help"})


def check_bypass(sub: str, ops: list[str], ctx: Ctx, toks: list[str]) -> list[Finding]:
    if not ctx.enabled("git-safety-net"):
        return []
    if sub == "commit-tree":
        return [(3, "git-safety-net", "git commit-tree makes a commit that no git hook checks")]
    if sub in _BRINGS and any(_STASH.fullmatch(o) for o in ops):
        return [(3, "git-safety-net", f"git {sub} of a stash makes its commit part of a branch without any "
                                      "git hook seeing it")]
    if sub == "init" and any(o == "--template" or o.startswith("--template=") for o in toks):
        return [(3, "git-safety-net", "git init --template copies the hooks of a folder of its choosing into "
                                      "the repository")]
    action = ops[0] if ops else ""
    if sub == "maintenance" and action in _SCHEDULES:
        return [(3, "git-safety-net", f"git maintenance {action} changes the user's global git configuration and "
                                      "the jobs scheduled to run later")]
    if sub == "sparse-checkout" and action not in _SPARSE_READS:
        return [(3, "git-safety-net", f"git sparse-checkout {action or ''} takes files out of the work tree (or "
                                      "puts them back) while git still holds them".replace("  ", " "))]
    return []


# `pip uninstall handrail` in its spellings: the package name as PEP 503 compares it.
_UNINSTALLERS = {("pip", "uninstall"), ("pip3", "uninstall"), ("pipx", "uninstall"), ("uv", "pip"),
                 ("uv", "tool"), ("python", "-m"), ("python3", "-m")}


def check_uninstall(name: str, texts: list[str]) -> list[Finding]:
    """Removing handrail removes the guard that asks for a human."""
    if (name, texts[0] if texts else "") not in _UNINSTALLERS:
        return []
    rest = texts[texts.index("uninstall") + 1:] if "uninstall" in texts else []
    if name.startswith("python") and texts[1:2] not in (["pip"], ["pip3"]):
        return []
    shown = f"{name} {' '.join(t for t in texts[:3] if t != '-y')}"
    if any(re.sub(r"[-_.]+", "-", t).lower().split("==")[0] == "handrail" for t in rest):
        return [(3, "human-verbs", f"{shown} removes handrail, the guard that asks for a human")]
    if any(t in ("-r", "--requirement") or t.startswith("--requirement=") for t in rest):
        return [(3, "human-verbs", f"{shown} -r removes the packages a file names, handrail among them maybe")]
    return []
