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


def describe(e: BaseException) -> tuple[str, str]:
    """What went wrong, as (the machine word, one line a person reads): the one
    reading of an error that every entry point shares, whatever it then exits with.
    A HandrailError says its own; anything else is an internal error, named by type,
    so that a crash is never mistaken for a refusal the policy made."""
    if isinstance(e, HandrailError):
        return e.reason, _one_line(str(e))
    if isinstance(e, KeyboardInterrupt):
        return "interrupted", "interrupted"
    return "internal_error", _one_line(f"internal error: {type(e).__name__}: {e}")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def outcome(e: BaseException, verb: str | None = None) -> tuple[int, str | None]:
    """What a command that ended with `e` exits with, and the one line it prints on
    stderr (None: nothing more to print). The one mapping from errors to exit codes:
    every command goes through it (the hot-path ones name their `verb`), so a
    refusal, a usage error and a crash each exit the same way wherever they happen.
    Git and harness hooks read the same `describe`, but answer in their caller's
    protocol: git refuses on any non-zero code, a harness by its own deny answer.

    Usage errors (click's, which are printed by click itself) carry their own code
    as `exit_code`; they are recognised by that attribute so that this module never
    imports click."""
    who = f"handrail {verb}" if verb else "handrail"
    if isinstance(e, SystemExit):
        code = e.code
        return (code if isinstance(code, int) else 0 if code is None else EXIT_DENIED), None
    if isinstance(e, Said):
        return e.exit_code, str(e)
    if isinstance(e, HandrailError):
        return e.exit_code, f"{who}: error: {describe(e)[1]}"
    if isinstance(e, KeyboardInterrupt):
        return EXIT_INTERRUPTED, None
    given = getattr(e, "exit_code", None)
    if isinstance(given, int):
        return given, None
    if not isinstance(e, Exception):
        raise e  # anything else that is no error (GeneratorExit, ...) is not ours to end
    return EXIT_ERROR, f"{who}: {describe(e)[1]}"
