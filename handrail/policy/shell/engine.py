"""Simple commands + the protocol's patterns + the shipped rules -> tier, decision, reasons.

Each part of a command is classified on its own: a tier-3 pattern or a tier-3 rule
finding puts it in tier 3; otherwise the most specific tier-1 or tier-2 pattern that
matches decides (ties go to the stricter tier); shell builtins that only change the
shell's own state are tier 1; anything else is unlisted. The strictest part decides
the whole command: tier 3, then unlisted, then tier 2, then tier 1.
"""

from __future__ import annotations

from handrail.policy.protocol import TIER1, TIER2, TIER3, TIER_NUMBER
from handrail.policy.shell import patterns as cmdmatch
from handrail.policy.shell import rules as cmdrules
from handrail.policy.shell import unwrap
from handrail.policy.shell.code import INTERPRETERS
from handrail.policy.shell.syntax import ShellSyntaxError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from handrail.policy.protocol import Pattern, Protocol

DECISIONS = {1: "allow", 2: "notify", 3: "ask", None: "unlisted"}
# Builtins that change nothing but the shell's own state, and printing.
NEUTRAL = frozenset({"cd", "pushd", "popd", "dirs", "export", "set", "unset", "local", "declare", "typeset",
                     "readonly", "shift", ":", "true", "false", "test", "[", "[[", "exit", "return", "break",
                     "continue", "wait", "read", "shopt", "let", "type", "hash", "umask", "jobs", "alias", "unalias",
                     "trap", "getopts", "echo", "printf", "setopt", "unsetopt", "emulate", "ulimit", "times"})
_RANK = {3: 0, None: 1, 2: 2, 1: 3}
MEMO_SIZE = 50_000
DYNAMIC_RULES = frozenset({"dynamic", "download-to-shell"})


class Engine:
    """A protocol's patterns for one tool, compiled on first use, program by program."""

    __slots__ = ("index", "lazy", "memo", "proto", "rules", "source")

    def __init__(self, proto: Protocol, patterns: list[tuple[Pattern, str]]) -> None:
        self.proto = proto
        self.memo: dict[str, tuple[Any, ...]] = {}
        self.rules: dict[str, bool] = {}
        self.source = proto.source
        self.index = cmdmatch.Index()
        self.lazy: dict[str, list[tuple[Pattern, str]]] = {}
        lazy = self.lazy
        prog_name = unwrap.prog_name
        for pattern, tier in patterns:
            text = pattern.text
            first = text.partition(" ")[0]
            if "|" in text or not first or "*" in first or "?" in first or "[" in first:
                self._compile(pattern, tier)
            else:
                lazy.setdefault(prog_name(first), []).append((pattern, tier))

    def _compile(self, pattern: Pattern, tier: str) -> None:
        try:
            c = cmdmatch.compile_pattern(pattern.text, tier, pattern, tier == TIER3)
        except ValueError as e:
            from handrail.errors import PolicyError

            where = f"{pattern.source}: tiers.{pattern.tier}.{pattern.key}"
            raise PolicyError(f"{where}: pattern '{pattern.text}': {e}") from e
        self.index.add(c)

    def candidates(self, toks: list[str], wild: list[bool]) -> list[cmdmatch.Compiled]:
        pending = self.lazy.pop(toks[0], None)
        if pending:
            for pattern, tier in pending:
                self._compile(pattern, tier)
        return self.index.candidates(toks, wild)

    def enabled(self, rule: str) -> bool:
        on = self.rules.get(rule)
        if on is None:
            on = self.rules[rule] = rule in cmdrules.ALWAYS_ON or self.proto.rule_enabled(rule)
        return on


_ENGINES: dict[tuple[int, str | None], Engine] = {}


def engine(proto: Protocol, tool: str | None = None) -> Engine:
    """The compiled view of a protocol (for one tool: its allow set, tier 3 always kept)."""
    key = (id(proto.data), tool)
    eng = _ENGINES.get(key)
    if eng is None:
        eng = Engine(proto, _tool_patterns(proto, tool))
        _ENGINES[key] = eng
    return eng


def _tool_patterns(proto: Protocol, tool: str | None) -> list[tuple[Pattern, str]]:
    from handrail.policy import protocol as protocols

    if tool is None:
        return [(p, p.tier) for p in protocols.patterns(proto)]
    if tool not in proto.data.get("tools", {}):
        from handrail.errors import HandrailError

        known = ", ".join(protocols.tool_names(proto)) or "none"
        raise HandrailError(f"{proto.source}: tools.{tool}: no such tool (tools: {known})", reason="bad_arguments")
    policy = protocols.resolve_tool(proto, tool)
    out = [(p, TIER3) for p in policy.ask + policy.deny]
    out += [(p, p.tier if p.tier in (TIER1, TIER2) else TIER1) for p in policy.allow]
    return out


class _Verdict:
    __slots__ = ("hit", "part", "reasons", "shown", "tier", "toks", "wild")

    def __init__(self, part: unwrap.Part) -> None:
        self.part = part
        self.shown = ""  # the pipeline a pipeline pattern matched
        self.tier: int | None = None
        self.reasons: list[dict[str, Any]] = []
        self.hit: cmdmatch.Compiled | None = None
        self.toks: list[str] = []
        self.wild: list[bool] = []


def classify(text: str, eng: Engine, *, cwd: str, project: str, home: str,
             parts: list[unwrap.Part] | None = None, effects: bool = False) -> dict[str, Any]:
    """The answer for one command: command, tier, decision, reasons (strictest first), message.
    `parts`: the command already split (`unwrap.split`), so that a caller asking two questions
    of one command (what it writes, which tier) parses it once. With `effects`, the answer
    also says what each part reads, writes and removes (effects.py)."""
    answer = _classify(text, eng, cwd=cwd, project=project, home=home, parts=parts)
    if effects and parts is None:
        try:
            parts = unwrap.split(text, cwd, home)
        except ShellSyntaxError:
            parts = []
    if effects and parts:
        from handrail.policy.shell.effects import described

        shown = [described(p, home) for p in parts if p.words or p.redirs]
        answer["effects"] = [e for e in shown if len(e) > 1]
    return answer


def _classify(text: str, eng: Engine, *, cwd: str, project: str, home: str,
              parts: list[unwrap.Part] | None) -> dict[str, Any]:
    try:
        if parts is None:
            parts = unwrap.split(text, cwd, home)
    except ShellSyntaxError as e:
        reason = {"part": text.strip()[:200], "tier": 3, "reason": "unparseable", "rule": "unparseable",
                  "source": cmdrules.SOURCE, "why": f"cannot be parsed: {e}"}
        return _answer(text, 3, [reason])
    ctx = cmdrules.Ctx(project, home, eng.enabled)
    verdicts = [_Verdict(p) for p in parts]
    for v in verdicts:
        _match_part(v, eng)
    if eng.index.pipelines and len(verdicts) > 1:
        _match_pipelines(verdicts, eng)
    for v in verdicts:
        _decide(v, eng, ctx)
    if not verdicts:
        return _answer(text, 1, [])
    tiers = [v.tier for v in verdicts]
    tier: int | None
    if 3 in tiers:
        tier = 3
    elif None in tiers:
        tier = None
    else:
        tier = max(t for t in tiers if t is not None)
    if len(verdicts) == 1:
        return _answer(text, tier, verdicts[0].reasons)
    ordered = sorted(verdicts, key=lambda v: _RANK[v.tier])
    reasons: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for v in ordered:
        for r in v.reasons:
            key = (r.get("part"), r.get("pattern"), r.get("rule"), r.get("why"))
            if key not in seen:
                seen.add(key)
                reasons.append(r)
    return _answer(text, tier, reasons)


def _answer(text: str, tier: int | None, reasons: list[dict[str, Any]]) -> dict[str, Any]:
    return {"command": text, "tier": tier, "decision": DECISIONS[tier], "reasons": reasons}


def _match_part(v: _Verdict, eng: Engine) -> None:
    part = v.part
    if not part.words or not part.name:
        return
    # The same simple command recurs within and across commands: its match is a function of its words.
    words = part.words
    key = "\x1f".join([part.name, *[("\x1e" + w.text if w.wild else w.text) for w in words[1:]]])
    if part.extra:
        key += "\x1d"
    hit = eng.memo.get(key)
    if hit is not None:
        v.toks, v.wild, v.hit = hit
        return
    v.toks, v.wild = cmdmatch.command_tokens(words, part.extra)
    v.toks[0] = part.name
    any_wild = True in v.wild
    best: cmdmatch.Compiled | None = None
    match_one = cmdmatch.match_one
    for c in eng.candidates(v.toks, v.wild):
        if not match_one(c, v.toks, v.wild, any_wild):
            continue
        if c.deny:
            best = c
            break
        if best is None or (c.spec, TIER_NUMBER[c.tier]) > (best.spec, TIER_NUMBER[best.tier]):
            best = c
    v.hit = best
    if len(eng.memo) < MEMO_SIZE:
        eng.memo[key] = (v.toks, v.wild, best)


def _match_pipelines(verdicts: list[_Verdict], eng: Engine) -> None:
    pipes: dict[int, dict[int, _Verdict]] = {}
    for v in verdicts:
        if v.part.lead and v.toks:
            pipes.setdefault(v.part.pipe, {}).setdefault(v.part.index, v)
    for elems in pipes.values():
        if len(elems) < 2:
            continue
        seq = [elems.get(i) for i in range(max(elems) + 1)]
        for c in eng.index.pipelines:
            m = len(c.segs)
            for start in range(len(seq) - m + 1):
                window = seq[start : start + m]
                if any(w is None for w in window):
                    continue
                if all(cmdmatch.match(seg, w.toks, w.wild, c.deny) for seg, w in zip(c.segs, window)):  # type: ignore[union-attr]
                    shown = " | ".join(w.part.text for w in window)  # type: ignore[union-attr]
                    for w in window:
                        assert w is not None
                        if (c.deny or w.hit is None) and (w.hit is None or not w.hit.deny):
                            w.hit = c
                            w.shown = shown


def _pattern_reason(part: unwrap.Part, c: cmdmatch.Compiled, shown: str = "") -> dict[str, Any]:
    p = c.pattern
    r = {"part": shown or part.text, "tier": TIER_NUMBER[c.tier], "reason": "pattern", "pattern": p.text,  # type: ignore[attr-defined]
         "source": p.source, "key": f"tiers.{p.tier}.{p.key}" if p.key in (  # type: ignore[attr-defined]
             "shell_patterns", "aioson_commands", "handrail_commands") else f"tools.*.{p.key}"}  # type: ignore[attr-defined]
    if part.via:
        r["via"] = list(part.via)
    return r


def _rule_reason(part: unwrap.Part, tier: int, rule: str, why: str) -> dict[str, Any]:
    r = {"part": part.text, "tier": tier, "reason": "dynamic" if rule in DYNAMIC_RULES else rule
         if rule == "unparseable" else "rule", "rule": rule, "source": cmdrules.SOURCE, "why": why}
    if part.via:
        r["via"] = list(part.via)
    return r


def _neutral(part: unwrap.Part) -> bool:
    return part.func or part.side or not part.words or part.name in NEUTRAL


def _decide(v: _Verdict, eng: Engine, ctx: cmdrules.Ctx) -> None:
    part = v.part
    found = cmdrules.findings(part, v.toks, ctx)
    hit = v.hit
    f3 = [f for f in found if f[0] == 3]
    if _asks_for_help(part):
        v.tier = 1
        v.reasons.append({"part": part.text, "tier": 1, "reason": "rule", "rule": "help", "source": cmdrules.SOURCE,
                          "why": f"{part.name} --help (or --version) prints and exits"})
        return
    if hit is not None and hit.deny and not f3 and _dry_run(part, v.toks):
        v.tier = 2
        v.reasons.append({"part": part.text, "tier": 2, "reason": "rule", "rule": "dry-run", "source": cmdrules.SOURCE,
                          "why": f"{part.name} --dry-run only shows what it would do"})
        return
    if (hit is not None and hit.deny) or f3:
        v.tier = 3
        if hit is not None and hit.deny:
            r = _pattern_reason(part, hit, v.shown)
            dyn = [w.raw for w in part.words if w.wild] if cmdmatch.stands_in(hit, v.toks, v.wild) else []
            if dyn:  # the pattern was met only by what a run-time word may turn out to be
                r["why"] = f"{', '.join(dyn)} is only known at run time and may be what the pattern names"
            v.reasons.append(r)
        v.reasons += [_rule_reason(part, 3, rule, why) for _, rule, why in f3]
        return
    f2 = [f for f in found if f[0] == 2]
    f1 = [f for f in found if f[0] == 1]
    if f1 and not f2 and (hit is None or not hit.deny):
        # a rule read the whole program text (interpreter code, SQL) and found only reads: tier 1
        v.tier = 1
        v.reasons += [_rule_reason(part, 1, rule, why) for _, rule, why in f1]
        return
    if hit is not None:
        v.tier = max(TIER_NUMBER[hit.tier], 2 if f2 else 1)
        if v.tier == TIER_NUMBER[hit.tier]:
            v.reasons.append(_pattern_reason(part, hit, v.shown))
    elif _neutral(part):
        v.tier = 2 if f2 else 1
        if not f2:
            why = (f"the files {part.name} writes beside the command it runs, in no protected place" if part.side
                   else "a shell builtin that changes nothing outside the shell")
            r = {"part": part.text, "tier": 1, "reason": "builtin", "source": cmdrules.SOURCE, "why": why}
            v.reasons.append(r)
    else:
        v.tier = None
        r = {"part": part.text, "tier": None, "reason": "unlisted", "source": eng.source,
             "why": f"no pattern of {eng.source} matches it"}
        if part.via:
            r["via"] = list(part.via)
        v.reasons.append(r)
        return
    if v.tier == 2:
        v.reasons += [_rule_reason(part, 2, rule, why) for _, rule, why in f2]


# Commands whose `--dry-run` (or `--dry-run=client|server`) is documented to change nothing:
# the tier-3 pattern they match is then a notice. Only these: elsewhere a dry-run flag may
# mean something else, or nothing.
DRY_RUNS = frozenset({("npm", "publish"), ("pnpm", "publish"), ("yarn", "publish"), ("cargo", "publish"),
                      ("poetry", "publish"), ("uv", "publish"), ("helm", "install"), ("helm", "upgrade"),
                      ("helm", "uninstall"), ("kubectl", "apply"), ("kubectl", "delete"), ("kubectl", "create"),
                      ("kubectl", "replace"), ("kubectl", "patch"), ("kubectl", "scale"), ("kubectl", "drain"),
                      ("gh", "release"), ("lerna", "publish"), ("semantic-release", ""), ("aws", "s3")})


# Programs whose `--help` handrail does not take on trust: a script or a wrapper may run first.
_NO_HELP = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "eval", "source", ".", "exec", "xargs", "env",
                      "sudo", "doas", "su", "make", "npm", "npx", "yarn", "pnpm", "bun", "deno", "python", "node",
                      "perl", "ruby", "php", "java", "go", "cargo", "gradle", "mvn", "dotnet", "uv", "poetry",
                      "rake", "rails", "mix", "ansible-playbook", "docker", "podman", "kubectl", "ssh", "parallel",
                      "watch", "time", "timeout", "nohup", "nice", "command", "builtin", "busybox", "find", "rm",
                      "rmdir", "dd", "shred", "wipefs", "fdisk", "mkfs", "kill", "pkill", "killall", "chmod", "chown",
                      "truncate", "mv", "cp"})


def _asks_for_help(part: unwrap.Part) -> bool:
    """`git push --help`, `helm install --help`, `terraform --version`: the program prints its manual
    or version and exits, running nothing. Taken only from a program named plainly (not a path to
    a script), with nothing run at run time and no redirection, and only where every word before it
    is a plain word: behind `--` or an option (`git remote rename origin -- --help`, `--title
    --help`) it is an operand or a value, and the command runs."""
    words = part.words
    if len(words) < 2 or part.via or part.redirs or part.flags or any(w.dyn for w in words):
        return False
    if "/" in words[0].raw or part.name in _NO_HELP or part.name in INTERPRETERS:
        return False
    last = words[-1].text
    if any(w.text.startswith("-") for w in words[1:-1]):
        return False  # after `--`, or as an option's value (`--title --help`), it is an operand
    return last in ("--help", "--version") or (last == "-h" and len(words) == 2)


def _dry_run(part: unwrap.Part, toks: list[str]) -> bool:
    words = [w.text for w in part.words[1:] if not w.dyn]
    sub = next((t for t in words if not t.startswith("-")), "")
    if (part.name, sub) not in DRY_RUNS and (part.name, "") not in DRY_RUNS:
        return False
    if any(t.startswith(("--no-dry-run", "--no-dryrun", "--dry-run=", "--dryrun=")) and
           t not in ("--dry-run=client", "--dry-run=server") for t in words):
        return False  # `--dry-run --no-dry-run`, `--dry-run=false`: the last one said wins
    return any(t in ("--dry-run", "--dry-run=client", "--dry-run=server") or (t == "--dryrun" and part.name == "aws")
               for t in words)


def summary(answer: dict[str, Any]) -> str:
    """One line a person reads: what was decided, about which part, by which pattern or rule."""
    tier = answer["tier"]
    head = {1: "allowed", 2: "allowed, with a notice", 3: "needs a human", None: "unlisted"}[tier]
    decisive = [r for r in answer["reasons"] if r.get("tier") == tier]
    if not decisive:
        return head
    r = decisive[0]
    return f"{head}: {describe(r)}"


def describe(r: dict[str, Any]) -> str:
    via = f" (via {', '.join(r['via'])})" if r.get("via") else ""
    if r.get("reason") == "pattern":
        why = f": {r['why']}" if r.get("why") else ""
        return f"'{r['part']}'{via} matches '{r['pattern']}' in {r['key']} of {r['source']}{why}"
    if r.get("rule"):
        return f"'{r['part']}'{via}: rule {r['rule']}: {r['why']}"
    return f"'{r['part']}'{via}: {r['why']}"
