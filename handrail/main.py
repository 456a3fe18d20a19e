"""Entry point. The commands that run before every agent action are routed here to
lean modules, so that they never pay for click, jsonschema or pygit2."""

from __future__ import annotations

import sys

# Command name -> module with `main(argv) -> int`: the hot path.
FAST = {
    "can-edit": "handrail.hooks.can_edit",
    "classify": "handrail.hooks.classify",
}
# `hook NAME` -> module: git runs these on every commit and push; they need no click.
FAST_HOOKS = {
    "pre-commit": "handrail.hooks.pre_commit",
    "pre-push": "handrail.hooks.pre_push",
    "prepare-commit-msg": "handrail.hooks.prepare_commit_msg",
    "post-commit": "handrail.hooks.post_commit",
    "session-start": "handrail.hooks.session_start",
    # Pre-tool hooks: each harness runs one before every tool call.
    "claude": "handrail.harnesses.claude",
    "codex": "handrail.harnesses.codex",
    "gemini": "handrail.harnesses.gemini",
    "cursor": "handrail.harnesses.cursor",
    "copilot": "handrail.harnesses.copilot",
    "cline": "handrail.harnesses.cline",
    "opencode": "handrail.harnesses.opencode",
    "qwen": "handrail.harnesses.qwen",
}


# What asks a hot-path command for its help (`handrail hook claude --help`), alone.
HELP_FLAGS = ("--help", "-h")


def main(argv: list[str] | None = None) -> int:
    try:
        return _dispatch(list(sys.argv[1:] if argv is None else argv))
    except BrokenPipeError:
        # The reader went away (`handrail classify --help | head`): no traceback, and exit 2,
        # since a hook whose answer could not be written must not look like a pass.
        _silence_stdout()
        return 2
    finally:
        _remember_validated()


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's own flush at exit cannot raise again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _remember_validated() -> None:
    """Files that passed schema validation in this command are remembered as it ends, so the
    next command skips jsonschema; a command that validated nothing imports nothing more."""
    validate = sys.modules.get("handrail.policy.validate")
    if validate is not None and validate.PASSED:
        from handrail.records import validated

        validated.save_passed()


def _dispatch(args: list[str]) -> int:
    import importlib

    if args and args[0] in FAST:
        module = importlib.import_module(FAST[args[0]])
        if _help(module, args[1:]):
            return 0
        code: int = module.main(args[1:])
        return code
    if args[:1] == ["hook"] and args[1:2] in (["--help"], ["-h"]):
        from handrail.hooks.usage import hooks_index

        print(hooks_index(FAST_HOOKS))
        return 0
    if len(args) > 1 and args[0] == "hook" and args[1] in FAST_HOOKS:
        try:
            module = importlib.import_module(FAST_HOOKS[args[1]])
        except BaseException as e:  # noqa: BLE001 - a hook that cannot load refuses; it never crashes open
            print(f"handrail: denied: hook {args[1]} cannot load: {type(e).__name__}: {e}", file=sys.stderr)
            return 2
        if _help(module, args[2:]):
            return 0
        code = module.main(args[2:])
        return code
    from handrail.cli import run

    return run(args)


def _help(module: object, argv: list[str]) -> bool:
    """Print the command's help when it is asked for alone (`handrail can-edit --help`). Beside
    other arguments a help flag is no answer: `can-edit --file .env --help` must not exit 0,
    and git hands pre-push a remote's name, which may be `--help`; there the command's own
    parser reads the flag (and refuses it as an unknown option, failing closed). The usage
    module is loaded only then: a hook's every other call pays nothing for it."""
    if len(argv) != 1 or argv[0] not in HELP_FLAGS:
        return False
    from handrail.hooks import usage

    print(usage.help_text(module))  # type: ignore[arg-type]
    return True


if __name__ == "__main__":
    raise SystemExit(main())
