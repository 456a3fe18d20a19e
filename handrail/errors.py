"""The one error type for "the user must fix something"."""

from __future__ import annotations

EXIT_OK = 0
EXIT_DENIED = 1
EXIT_ERROR = 2


class HandrailError(Exception):
    """A problem a person can fix; the message is one line and names file and key.

    `reason` is the stable machine word (`invalid_policy`, `bad_arguments`, ...)
    that `--json` answers carry.
    """

    def __init__(self, message: str, *, reason: str = "error", exit_code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.reason = reason
        self.exit_code = exit_code


class PolicyError(HandrailError):
    """A protocol, contract or task file that cannot be used as it is."""

    def __init__(self, message: str) -> None:
        super().__init__(message, reason="invalid_policy")


class Said(HandrailError):
    """An error whose message is the whole line printed, with no `handrail: error:` before it."""


class Refused(Said):
    """A command that will not act here, and says so in one line:
    `handrail VERB: refused: WHY`. Nothing was written before it is raised."""

    def __init__(self, verb: str, why: str, *, reason: str = "refused", exit_code: int = EXIT_DENIED) -> None:
        super().__init__(f"handrail {verb}: refused: {why}", reason=reason, exit_code=exit_code)


EXIT_INTERRUPTED = 130  # what a shell reports for Ctrl-C


def outcome(e: BaseException) -> tuple[int, str | None]:
    """What a command that ended with `e` exits with, and the one line it prints on
    stderr (None: nothing more to print). The one mapping from errors to exit codes:
    every command goes through it, so a refusal, a usage error and a crash each exit
    the same way wherever they happen.

    Usage errors (click's, which are printed by click itself) carry their own code
    as `exit_code`; they are recognised by that attribute so that this module never
    imports click."""
    if isinstance(e, SystemExit):
        code = e.code
        return (code if isinstance(code, int) else 0 if code is None else EXIT_DENIED), None
    if isinstance(e, Said):
        return e.exit_code, str(e)
    if isinstance(e, HandrailError):
        return e.exit_code, f"handrail: error: {e}"
    if isinstance(e, KeyboardInterrupt):
        return EXIT_INTERRUPTED, None
    given = getattr(e, "exit_code", None)
    if isinstance(given, int):
        return given, None
    if not isinstance(e, Exception):
        raise e  # anything else that is no error (GeneratorExit, ...) is not ours to end
    return EXIT_ERROR, f"handrail: internal error: {type(e).__name__}: {e}"
