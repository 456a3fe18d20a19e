"""The loop runner's decisions: failure signatures, the circuit, the budget, redaction.

Pure: strings, numbers and mappings in, decisions out. Nothing here touches git,
click, files or processes; `handrail/loop/` does, and asks here what they mean.

The circuit (one per task, kept across runs):

    closed --(a guard trips)--> open --(a human: loop reset)--> half-open
    half-open --(the loop ends done)--> closed
    half-open --(any failure)--> open        (every limit is 1 there)

A guard trips on the same failure signature twice in one run (`repeated_failure`),
a second scope or size violation in one run (`scope_violation_repeat`),
`error_streak_limit` agent failures in a row, or the run's last step ending
without success (`max_steps_reached`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from handrail.policy.secretscan import SECRET_PATTERNS

# ----------------------------------------------------------------------------- outcomes

CLOSED, OPEN, HALF_OPEN = "closed", "open", "half-open"
CIRCUIT_STATES = (CLOSED, OPEN, HALF_OPEN)

REPEATED_FAILURE = "repeated_failure"
SCOPE_VIOLATION_REPEAT = "scope_violation_repeat"
ERROR_STREAK_LIMIT = "error_streak_limit"
MAX_STEPS_REACHED = "max_steps_reached"
CIRCUIT_REASONS = (SCOPE_VIOLATION_REPEAT, REPEATED_FAILURE, ERROR_STREAK_LIMIT, MAX_STEPS_REACHED)

# Pauses wait for a human and resume (exit 3); stops end the run (exit 1).
HUMAN_GATE = "human_gate"
POLICY_CHANGED = "policy_changed"
BUDGET_EXCEEDED = "budget_exceeded"
RUNTIME_EXCEEDED = "runtime_exceeded"
PAUSES = (HUMAN_GATE, POLICY_CHANGED, BUDGET_EXCEEDED, RUNTIME_EXCEEDED)
GATE_REJECTED = "gate_rejected"
CRITERIA_UNVERIFIED = "criteria_unverified"
CONTRACT_SCHEMA_INVALID = "contract_schema_invalid"
DONE = "done"

RUNNING, PAUSED, STOPPED, FINISHED = "running", "paused", "stopped", "done"
STATES = (RUNNING, PAUSED, STOPPED, FINISHED)

EXIT_DONE, EXIT_STOPPED, EXIT_USAGE, EXIT_PAUSED = 0, 1, 2, 3

# Limits of one run. Twice is a pattern, once is an accident: the first violation
# or failure is fed back to the agent, the second opens the circuit.
REPEAT_LIMIT = 2
VIOLATION_LIMIT = 2
ERROR_STREAK = 3
DEFAULT_TIMEOUT_MS = 300_000
WARN_RATIO = 0.8


class Limits(NamedTuple):
    repeat: int
    violations: int
    error_streak: int


def limits(circuit: str) -> Limits:
    """A half-open circuit re-opens at the first failure of any kind."""
    if circuit == HALF_OPEN:
        return Limits(1, 1, 1)
    return Limits(REPEAT_LIMIT, VIOLATION_LIMIT, ERROR_STREAK)


def trip(circuit: str, *, signature_counts: Iterable[int], violations: int, error_streak: int) -> str | None:
    """Why the circuit opens after this attempt, or None. Counts are the run's so far.

    The strongest reason wins: an agent leaving its scope outranks one failing tests.
    """
    lim = limits(circuit)
    if violations >= lim.violations:
        return SCOPE_VIOLATION_REPEAT
    if any(c >= lim.repeat for c in signature_counts):
        return REPEATED_FAILURE
    if error_streak >= lim.error_streak:
        return ERROR_STREAK_LIMIT
    return None


def effective_max_steps(governor: int | None, requested: int | None) -> int | None:
    """`--max-steps` may lower the contract's limit, never raise it: the contract is the
    operator's word, the command line may be an agent's."""
    if requested is None:
        return governor
    return requested if governor is None else min(governor, requested)


# ----------------------------------------------------------------------------- budget

OK, WARNING, EXCEEDED = "ok", "warning", "exceeded"


def estimate_tokens(chars: int) -> int:
    """Tokens an agent used when it reports none: a quarter of its output characters."""
    return math.ceil(chars / 4)


def budget_level(used: float, ceiling: float | None) -> str:
    if ceiling is None:
        return OK
    if used >= ceiling:
        return EXCEEDED
    if used >= WARN_RATIO * ceiling:
        return WARNING
    return OK


class UsageReader:
    """The agent's own token figures, read line by line from its JSON output.

    Claude (`--output-format json` or `stream-json`) ends with a `result` event whose
    `usage` covers the session; Codex (`exec --json`) reports `usage` on every
    `turn.completed`, and older releases a running `token_count`. Counted: input,
    cache writes and output. Not counted: cache reads (Claude's
    `cache_read_input_tokens`, Codex's `cached_input_tokens`), billed at a tenth and
    re-read on every turn, which would make any ceiling meaningless for a long session.
    """

    __slots__ = ("claude", "codex_total", "codex_turns")

    def __init__(self) -> None:
        self.claude: int | None = None
        self.codex_turns: int | None = None
        self.codex_total: int | None = None

    def feed(self, line: str) -> None:
        line = line.strip()
        if not line.startswith("{") or ("usage" not in line and "token_count" not in line):
            return
        try:
            obj = json.loads(line)
        except ValueError:
            return
        if not isinstance(obj, dict):
            return
        kind = obj.get("type")
        usage = obj.get("usage")
        if kind == "result" and isinstance(usage, dict):
            self.claude = _sum(usage, ("input_tokens", "cache_creation_input_tokens", "output_tokens"))
        elif kind == "turn.completed" and isinstance(usage, dict):
            turn = _sum(usage, ("input_tokens", "output_tokens")) - _num(usage.get("cached_input_tokens"))
            self.codex_turns = (self.codex_turns or 0) + max(turn, 0)
        else:
            msg = obj.get("msg") if isinstance(obj.get("msg"), dict) else obj.get("payload")
            if isinstance(msg, dict) and msg.get("type") == "token_count":
                info = msg.get("info")
                total = info.get("total_token_usage") if isinstance(info, dict) else None
                if isinstance(total, dict):
                    used = _sum(total, ("input_tokens", "output_tokens")) - _num(total.get("cached_input_tokens"))
                    self.codex_total = max(used, 0)

    def total(self) -> int | None:
        for value in (self.claude, self.codex_turns, self.codex_total):
            if value is not None:
                return value
        return None


def _num(value: object) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else 0


def _sum(usage: Mapping[str, object], keys: tuple[str, ...]) -> int:
    return sum(_num(usage.get(k)) for k in keys)


# ----------------------------------------------------------------------------- failure signatures

# Lines every run of a test runner prints alike: taking one of them as "the" line
# would give two different failures one signature.
_NOISE = re.compile(
    r"^(?:platform |rootdir:|configfile:|cachedir:|plugins:|collecting|collected \d|cwd:|"
    r"running \d+ tests?|test session starts|> |\$ |\+ )", re.I)
_PROGRESS = re.compile(r"^[.FEsxXp]+\s*(?:\[\s*\d+%\])?$")
_BANNER = re.compile(r"^[=\-*#~]{3,}.*[=\-*#~]{3,}$|^[\W_]*$")

_ABS_PATH = re.compile(r"(?<![\w.])(?:[A-Za-z]:\\|/)(?:[\w.@+~-]+[/\\])*[\w.@+~-]+")
_DURATION = re.compile(r"\b\d+(?:\.\d+)?\s*(?:ms|us|µs|ns|s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?)\b", re.I)
_HEX = re.compile(r"\b0x[0-9a-f]+\b", re.I)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_SPACE = re.compile(r"\s+")


def first_meaningful_line(output: str) -> str:
    """The first line that says something: not blank, not a banner, not a test
    runner's header or progress dots. Falls back to the first non-blank line."""
    first = ""
    for raw in output.splitlines():
        line = raw.strip()
        if not line:
            continue
        first = first or line
        if _BANNER.match(line) or _PROGRESS.match(line) or _NOISE.match(line):
            continue
        return line
    return first


def normalise(line: str) -> str:
    """A line with what differs between runs of the same failure masked: absolute
    paths, durations, addresses and numbers; whitespace folded, case ignored."""
    text = _ABS_PATH.sub("<path>", line)
    text = _DURATION.sub("<duration>", text)
    text = _HEX.sub("<n>", text)
    text = _NUMBER.sub("<n>", text)
    return _SPACE.sub(" ", text).strip().lower()


def signature(criterion: str, exit_code: int | None, timed_out: bool, output: str) -> str:
    """A short, stable hash of one failure: criterion, exit code or timeout, and its
    first meaningful line, normalised."""
    outcome = "timeout" if timed_out else f"exit {exit_code}"
    key = "\0".join((criterion, outcome, normalise(first_meaningful_line(output))))
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:16]


# ----------------------------------------------------------------------------- redaction

_PRIVATE_KEY_BLOCK = (r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----.*?"
                      r"(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|\Z)")
# The token formats the git hooks refuse (one source of truth), minus the private key,
# which a log loses whole, up to its END line.
_TOKENS = tuple((name, rx.decode("ascii")) for name, rx in SECRET_PATTERNS if name != "private key")
_REDACTIONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private key", re.compile(_PRIVATE_KEY_BLOCK, re.S)),
    *((name, re.compile(r"(?<![A-Za-z0-9_])" + rx)) for name, rx in _TOKENS),
    ("bearer token", re.compile(r"(?i)(?<=bearer )[A-Za-z0-9._~+/=-]{16,}")),
    # `password=…`, `API_KEY: …`, `"secret": "…"`: keep the name, drop the value.
    ("credential", re.compile(
        r"(?i)(?<![A-Za-z0-9])((?:[A-Za-z0-9_.-]*?(?:passw(?:or)?d|passphrase|secret|token|api[_-]?key|"
        r"access[_-]?key|private[_-]?key|pwd))[\"']?\s*[:=]\s*)(\"[^\"\n]*\"|'[^'\n]*'|[^\s,;&\"']+)")),
)


def redact(text: str) -> str:
    """`text` with credentials replaced by `[REDACTED <kind>]`."""
    for name, rx in _REDACTIONS:
        if name == "credential":
            text = rx.sub(lambda m: m.group(1) + "[REDACTED]", text)
        else:
            text = rx.sub(f"[REDACTED {name}]", text)
    return text


# ----------------------------------------------------------------------------- credentials in the environment

# Words anywhere in a name (`PGPASSWORD`, `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`) ...
_CREDENTIAL_PARTS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "APIKEY", "API_KEY",
                     "ACCESS_KEY", "PRIVATE_KEY", "SIGNING_KEY")
# ... and whole `_`-separated words (`SSH_AUTH_SOCK`, `NPM_KEY`), which as parts would
# catch `KEYBOARD` or `AUTHOR`.
_CREDENTIAL_WORDS = frozenset({"KEY", "KEYS", "AUTH", "PASS", "PAT", "PWD", "COOKIE", "CREDS", "DSN"})
_NOT_CREDENTIALS = frozenset({"PWD", "OLDPWD"})  # the shell's working directory


def credential_name(name: str) -> bool:
    """Whether an environment variable's name looks like it holds a credential."""
    upper = name.upper()
    if upper in _NOT_CREDENTIALS:
        return False
    if any(part in upper for part in _CREDENTIAL_PARTS):
        return True
    return any(word in _CREDENTIAL_WORDS for word in upper.split("_"))


def stripped_env(env: Mapping[str, str], keep: Iterable[str] = ()) -> tuple[dict[str, str], list[str]]:
    """`env` without credential-like variables, except those in `keep` (the contract's
    `criteria_env`); also the names removed, sorted."""
    allowed = set(keep)
    out, removed = {}, []
    for k, v in env.items():
        if credential_name(k) and k not in allowed:
            removed.append(k)
        else:
            out[k] = v
    return out, sorted(removed)


# ----------------------------------------------------------------------------- criteria


def todo(command: str | None) -> bool:
    """A criterion written down but not yet checkable: no command, or one starting `TODO`."""
    return not command or command.lstrip().upper().startswith("TODO")


def timeout_ms(verification: Mapping[str, object] | None, override: int | None = None) -> int:
    if override is not None:
        return override
    value = (verification or {}).get("timeout_ms")
    return value if isinstance(value, int) and value > 0 else DEFAULT_TIMEOUT_MS
