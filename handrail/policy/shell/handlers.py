"""The wrappers that run another command, and how each one is looked through.

`sudo`, `env`, `timeout`, `xargs`, `watch`, `bash -c`, `uv run`, `npx`, git's own global options…:
`step` takes one of them off a command line and says what runs inside. `HANDLERS` names the
handler of each wrapper program, one family to a module; every other program is no wrapper.
Shell text a wrapper hands to another shell goes back to the walk (`unwrap.Flat`), which
each handler is given, so no handler imports the walk.
"""

from __future__ import annotations

from handrail.policy.shell import cliverbs, gitwrap, ptys, remotewrap, runners, shells, wrappers
from handrail.policy.shell.parts import SHELLS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from handrail.policy.shell.parts import Part, State, Walker
    from handrail.policy.shell.syntax import Word

    # (walk, part, program name, words, state) -> what `step` answers
    Handler = Callable[[Walker, Part, str, list[Word], State], list[Word] | None]

HANDLERS: dict[str, Handler] = {
    **dict.fromkeys(wrappers.PLAIN, wrappers.plain),  # `sudo`, `nice`, `nohup`, `runuser`…
    "command": wrappers.command, "env": wrappers.env, "timeout": wrappers.timeout,
    "chrt": wrappers.scheduler, "taskset": wrappers.scheduler, "flock": wrappers.flock, "watch": wrappers.watch,
    "su": wrappers.su, "runuser": wrappers.runuser, "parallel": wrappers.parallel, "xargs": wrappers.xargs,
    **dict.fromkeys(runners.RUNNERS, runners.runner),  # `poetry run`, `bundle exec`, `pnpm exec|dlx`…
    **dict.fromkeys(("npx", "bunx", "pnpx", "uvx"), runners.npx),
    "bun": runners.bun, "uv": runners.uv, "python": runners.python_module, "npm": runners.npm, "pipx": runners.pipx,
    **dict.fromkeys(("mise", "rtx", "asdf", "nix", "corepack"), runners.tool_exec),
    "git": gitwrap.git,
    "handrail": cliverbs.handrail, "pre-commit": cliverbs.pre_commit,
    **dict.fromkeys(SHELLS, shells.shell),
    "eval": shells.eval_, "source": shells.source, ".": shells.source, "trap": shells.trap, "alias": shells.alias,
    "ssh": remotewrap.ssh, "script": ptys.script, "expect": ptys.expect,
    **dict.fromkeys(("docker", "podman", "kubectl", "oc"), remotewrap.container_exec),
    **dict.fromkeys(("powershell", "pwsh", "cmd"), remotewrap.windows_shell),
}


def step(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """One wrapper looked through: the words it runs; `words` itself when it is no wrapper
    (or runs nothing more); [] when it runs nothing at all; None when handled here."""
    handler = HANDLERS.get(name)
    if handler is None:
        if not name.startswith("git-"):
            return words
        handler = gitwrap.git  # `git-upload-pack`, `git-receive-pack`: git with its subcommand glued on
    return handler(flat, part, name, words, st)
