"""What a hot-path hook may spend before it must answer: a deadline, and bounds on its input.

A harness lets a call through when its hook does not answer in time (Claude Code after
the hook's `timeout`, 30 s as handrail registers it), so a hook that is slow to judge
must refuse well before then. `handrail hook <harness>`, `handrail can-edit` and
`handrail classify COMMAND` answer within HANDRAIL_HOOK_DEADLINE_MS milliseconds
(default 2000, at most 20000); past it they give their refusal, "took too long to judge".

Two layers keep that promise:

- *soft*: an interval timer (SIGALRM) raises `TooSlow` inside the judging code, in the
  main thread, and the entry point answers its refusal as it answers any other. `TooSlow`
  is a BaseException, so no `except Exception` in the judging code swallows it, and the
  timer fires again every 50 ms in case something does.
- *hard*: a watchdog thread that writes the prepared refusal straight to the file
  descriptors and ends the process with its exit code, for a main thread blocked where
  no signal handler runs (a system call that restarts, sqlite waiting on a lock). Once
  the reply is out, it only ends the process with the reply's own code.

A thread cannot run while C code holds the interpreter lock, so work that never checks
for signals (decoding JSON, scanning a string) is kept short by bounding the input
before it starts: the payload, each path and each command, refused at once when too large.

`_signal` and `_thread` are the C modules behind `signal` and `threading`: importing
those wrappers would cost the hot path a millisecond before every tool call.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

ENV = "HANDRAIL_HOOK_DEADLINE_MS"
DEFAULT_MS = 2000
MAX_MS = 20_000  # the harnesses' timeouts start at 30 s
REPEAT_S = 0.05
SLOW = "took too long to judge"
MAX_PAYLOAD_BYTES = 64 * 1024 * 1024
MAX_PATH_BYTES = 4096  # PATH_MAX on Linux
MAX_COMMAND_BYTES = 128 * 1024


class TooSlow(BaseException):
    """Raised in the main thread when the soft deadline passes."""


def deadline_ms(environ: dict[str, str] | None = None) -> int:
    """The budget in milliseconds: HANDRAIL_HOOK_DEADLINE_MS when it is a whole number
    from 1 up (capped at MAX_MS), else DEFAULT_MS."""
    given = (os.environ if environ is None else environ).get(ENV, "").strip()
    if given.isdigit() and int(given) > 0:
        return min(int(given), MAX_MS)
    return DEFAULT_MS


def slow_reason(ms: int) -> str:
    return (f"{SLOW} (over {ms} ms; {ENV} sets the budget): the call is refused, "
            f"retry it in smaller parts or ask a human")


def too_large(what: str, text: str, limit: int) -> str | None:
    """Why `text` is over `limit` bytes of UTF-8, or None. Counted without decoding
    errors: a lone surrogate is as long as any other character."""
    if len(text) <= limit // 4:
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= limit:
        return None
    return f"{what} is {size} bytes, over the {limit}-byte limit: refused before judging"


class Deadline:
    """`start()` arms both layers; `stop()` ends the soft one once judging is over;
    `answered(code)` says the reply is out; `close()` ends the watchdog.

    `refusal` is what the watchdog writes when it fires before the reply is out:
    (stdout bytes, stderr bytes, exit code).
    """

    def __init__(self, ms: int, refusal: tuple[bytes, bytes, int]) -> None:
        self.ms = ms
        self.refusal = refusal
        self.active = False
        self.code: int | None = None
        self._lock: object = None
        self._previous: object = None
        self._timer = False

    def start(self) -> Deadline:
        import _signal  # type: ignore[import-not-found]
        import _thread

        self.active = True
        try:
            self._previous = _signal.signal(_signal.SIGALRM, self._fire)
            _signal.setitimer(_signal.ITIMER_REAL, self.ms / 1000, REPEAT_S)
            self._timer = True
        except (AttributeError, ValueError, OSError):
            pass  # no SIGALRM here (Windows), or not the main thread: the watchdog still holds
        lock = _thread.allocate_lock()
        lock.acquire()
        self._lock = lock
        _thread.start_new_thread(self._watch, (lock, self.ms / 1000 + max(0.25, self.ms / 4000)))
        return self

    def _fire(self, signum: int, frame: object) -> None:
        if self.active:
            raise TooSlow(slow_reason(self.ms))

    def stop(self) -> None:
        self.active = False
        if self._timer:
            import _signal

            self._timer = False
            _signal.setitimer(_signal.ITIMER_REAL, 0, 0)
            _signal.signal(_signal.SIGALRM, self._previous if self._previous is not None else _signal.SIG_DFL)

    def answered(self, code: int) -> None:
        self.code = code

    def close(self) -> None:
        self.stop()
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release()  # type: ignore[attr-defined]

    def _watch(self, lock: object, seconds: float) -> None:
        if lock.acquire(timeout=seconds):  # type: ignore[attr-defined]
            return
        if self.code is not None:
            os._exit(self.code)
        out, err, code = self.refusal
        try:
            if err:
                os.write(2, err)
            if out:
                os.write(1, out)
        finally:
            os._exit(code)


def ascii_bytes(text: str) -> bytes:
    """`text` as one ASCII line: what the terminal or harness cannot take is escaped."""
    line = text if text.isascii() else text.encode("ascii", "backslashreplace").decode("ascii")
    return (line if not line or line.endswith("\n") else line + "\n").encode("ascii")


def run(work: Callable[[], int], refusal: Callable[[str], tuple[str, str, int]], who: str) -> int:
    """`work()` (a hot-path command's main, printing its own answer) within the deadline.
    Past it, `refusal(reason)` gives (stdout, stderr, exit code) of the command's refusal,
    which is printed instead, and the event log records it."""
    import sys

    ms = deadline_ms()
    out, err, block = refusal(slow_reason(ms))
    code = block
    deadline = Deadline(ms, (ascii_bytes(out) if out else b"", ascii_bytes(err) if err else b"", block)).start()
    try:
        try:
            try:
                code = work()
            finally:
                deadline.stop()
        except TooSlow:
            code = block
            try:
                sys.stdout.flush()
            finally:
                if err:
                    sys.stderr.write(ascii_bytes(err).decode("ascii"))
                if out:
                    sys.stdout.write(ascii_bytes(out).decode("ascii"))
                sys.stdout.flush()
            deadline.answered(code)
            record_slow(os.getcwd(), who, ms)
        deadline.answered(code)
    except BaseException:  # noqa: BLE001 - a refusal that cannot be printed still refuses by its code
        return block
    finally:
        deadline.close()
    return code


def record_slow(cwd: str, who: str, ms: int) -> None:
    """Best effort: an event in the log of the project `cwd` lies in, when handrail guards it."""
    try:
        from handrail.projectroot import for_command

        project = for_command(None, os.environ, cwd=cwd).path
        if not os.path.isdir(os.path.join(project, ".handrail")):
            return
        from handrail.records.events import record

        record(project, "hook_too_slow", topic="deadline", message=f"handrail: {who}: {SLOW} (over {ms} ms)",
               payload={"hook": who, "deadline_ms": ms})
    except Exception:  # noqa: BLE001, S110 - recording never changes the answer
        pass
