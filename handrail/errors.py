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
