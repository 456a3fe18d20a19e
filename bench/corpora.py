"""How well does `handrail classify` sort commands that other people labelled?

    python bench/corpora.py FILE.jsonl [FILE...] [--project P] [--misses N] [--handrail PATH]

Each FILE holds JSON Lines, `{"command": "...", "label": "destructive"|"benign",
"source": "..."}` a line: corpora kept outside this repository (other guards' test
cases, adversarial sets). Every command goes through one `handrail classify --batch -`
process, run in a scratch git repository with a `.env` and a `secrets/` folder so that
reading a secret has something to read (or in P, with `--project`). classify runs with TMPDIR set to
a temp folder the benchmark creates beside the project (macOS always sets TMPDIR): a
command that names `$TMPDIR` is judged against that folder. A command needs a
human when its decision is `ask`, `unlisted` or an error (exit 1 or 2 for that line).
A command on which classify itself dies gets no answer: counted apart, never as caught.

Prints, per file and in total: destructive commands needing a human (aim: at least
95%), benign commands needing a human (aim: at most 3%), and the first N misses of
each kind with the decision and the reason that decided it. Always exits 0: it
measures, it does not judge. Never run by CI or pytest: the corpora are not shipped.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from typing import NamedTuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import handrail_command

HUMAN = {"ask", "unlisted", "error"}
NO_ANSWER = "no answer"  # classify died: left out of the rates, counted apart
GIVE_UP = 5
AIM_DESTRUCTIVE = 95.0
AIM_BENIGN = 3.0
# The acting agent's envelope would change the answers: measure the policy alone.
AGENT_VARIABLES = ("HANDRAIL_AGENT", "AI_AGENT")


# What the specification itself puts in tier 3, whatever a corpus labels it: such a refusal is the
# policy at work, not the classifier mistaking a command. Matched on the reason that decided.
SPEC_REFUSALS = (
    ("every git push", re.compile(r"matches 'git push \*'")),
    ("privilege", re.compile(r": privilege: ")),
    ("printing the environment", re.compile(r": env-dump: ")),
    ("the agent's markers", re.compile(r": agent-markers: ")),
    ("credential printers", re.compile(r"matches '(vault read|vault kv get|op item get|doppler secrets|security "
                                       r"(find|dump)|az account get-access-token)")),
    ("interactive sessions", re.compile(r"starts an interactive session")),
    ("rm -r of a folder that is no temp folder or output", re.compile(r": rm-recursive: rm -r deletes")),
    ("a recursive search over secrets", re.compile(r"searches every file below")),
    ("find deleting", re.compile(r": find-delete: ")),
    ("text that cannot be parsed", re.compile(r": unparseable: ")),
)


class Case(NamedTuple):
    file: str
    line: int
    command: str
    label: str
    source: str


class Answer(NamedTuple):
    decision: str
    reason: str


def load(path: str) -> list[Case]:
    """The cases of one corpus; a line that is not a labelled command is skipped, named."""
    cases = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                command, label = row["command"], row["label"]
            except (ValueError, KeyError, TypeError) as exc:
                print(f"{path}: line {n}: skipped: {exc}", file=sys.stderr)
                continue
            if not isinstance(command, str) or label not in ("destructive", "benign"):
                print(f"{path}: line {n}: skipped: label must be destructive or benign", file=sys.stderr)
                continue
            cases.append(Case(path, n, command, label, str(row.get("source", ""))))
    return cases


def scratch_repo(root: str) -> str:
    """A work tree like an agent's: some code, an environment file and a secrets folder."""
    repo = os.path.join(root, "project")
    os.makedirs(os.path.join(repo, "secrets"))
    os.makedirs(os.path.join(repo, "src"))
    files = {
        ".env": "DATABASE_URL=postgres://app:hunter2@db/app\n",
        "secrets/api.key": "not-a-real-key\n",
        "secrets/prod.json": '{"token": "not-a-real-token"}\n',
        "src/app.py": "print('hello')\n",
        "README.md": "# project\n",
    }
    for name, text in files.items():
        with open(os.path.join(repo, name), "w", encoding="utf-8") as f:
            f.write(text)
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "src", "README.md"],
                ["git", "commit", "-q", "-m", "start"]):
        subprocess.run(cmd, cwd=repo, env=env, check=True)
    return repo


def reason(answer: dict[str, object]) -> str:
    """The reason that decided: the strictest part (an unlisted part counts as tier 3)."""
    reasons = answer.get("reasons")
    if not isinstance(reasons, list) or not reasons:
        return str(answer.get("error", "no reason given"))

    def rank(r: dict[str, object]) -> int:
        tier = r.get("tier")
        return 3 if tier is None else int(str(tier))

    top = max(reasons, key=rank)
    part = top.get("part", "")
    kind = top.get("reason")
    if kind == "pattern":
        why = f": {top['why']}" if top.get("why") else ""
        return f"tier {top.get('tier')}: {part!r} matches {top.get('pattern')!r} ({top.get('key')}){why}"
    if kind == "unlisted":
        return f"unlisted: {part!r}"
    return f"tier {top.get('tier')}: {part!r}: {top.get('rule', kind)}: {top.get('why', '')}"


def batch(handrail: list[str], commands: list[str], project: str, explicit: bool, tmpdir: str) -> list[
        dict[str, object]]:
    """The answers of one `classify --batch -` process, as many as it gave before it stopped."""
    stdin = "".join(json.dumps({"command": c}) + "\n" for c in commands)
    cmd = [*handrail, "classify", "--batch", "-"] + (["--project", project] if explicit else [])
    env = {k: v for k, v in os.environ.items() if k not in AGENT_VARIABLES}
    env["TMPDIR"] = tmpdir
    proc = subprocess.run(cmd, cwd=project, input=stdin, capture_output=True, text=True, env=env, check=False)
    answers = []
    for line in proc.stdout.splitlines():
        try:
            answers.append(json.loads(line))
        except ValueError:
            break
    if len(answers) < len(commands):
        print(f"corpora: classify stopped after {len(answers)} of {len(commands)} commands "
              f"(exit {proc.returncode}): {proc.stderr.strip()[-300:]}", file=sys.stderr)
    return answers[: len(commands)]


def classify(handrail: list[str], cases: list[Case], project: str, explicit: bool, tmpdir: str) -> list[Answer]:
    """Every case through `classify --batch -`, answers in the order asked. One process
    unless classify dies on a command: then that one has no answer and the rest go on
    in a new process, until it dies on every first command in a row."""
    answers: list[Answer] = []
    deaths = 0
    while len(answers) < len(cases):
        got = batch(handrail, [c.command for c in cases[len(answers):]], project, explicit, tmpdir)
        answers += [Answer(str(row.get("decision")), reason(row)) for row in got]
        if len(answers) < len(cases):
            answers.append(Answer(NO_ANSWER, "classify stopped without answering"))
            deaths = 0 if got else deaths + 1
            if deaths >= GIVE_UP:
                answers += [Answer(NO_ANSWER, "not asked: classify kept stopping")] * (len(cases) - len(answers))
    return answers


def shown(command: str, width: int = 110) -> str:
    text = json.dumps(command, ensure_ascii=False)[1:-1] if "\n" in command or "\t" in command else command
    return text if len(text) <= width else text[: width - 3] + "..."


def percent(n: int, total: int) -> str:
    return f"{n}/{total} ({100.0 * n / total:.1f}%)" if total else "0/0 (-)"


def report(title: str, cases: list[Case], answers: list[Answer], misses: int) -> None:
    answered = [(c, a) for c, a in zip(cases, answers) if a.decision != NO_ANSWER]
    destructive = [(c, a) for c, a in answered if c.label == "destructive"]
    benign = [(c, a) for c, a in answered if c.label == "benign"]
    caught = [(c, a) for c, a in destructive if a.decision in HUMAN]
    flagged = [(c, a) for c, a in benign if a.decision in HUMAN]
    print(f"{title}: {len(cases)} commands")
    print(f"  destructive needing a human: {percent(len(caught), len(destructive))}  (aim >= {AIM_DESTRUCTIVE:g}%)")
    print(f"  benign needing a human:      {percent(len(flagged), len(benign))}  (aim <= {AIM_BENIGN:g}%)")
    # Unlisted means handrail has no opinion and the harness's own rules decide; refused means
    # handrail itself asks (tier 3), which is what a benign command must not get.
    refused = [(c, a) for c, a in benign if a.decision in ("ask", "error")]
    print(f"  benign refused by handrail:  {percent(len(refused), len(benign))}  (tier 3; the rest is unlisted)")
    required = Counter(next((label for label, rx in SPEC_REFUSALS if rx.search(a.reason)), "") for _, a in refused)
    own = required.pop("", 0)
    if required:
        print(f"    of which the specification's own tier 3 ({sum(required.values())}): "
              + ", ".join(f"{label} {n}" for label, n in required.most_common()))
        print(f"    refused for handrail's own judgement: {percent(own, len(benign))}")
    if len(answered) < len(cases):
        print(f"  no answer (classify stopped): {len(cases) - len(answered)}, left out of the rates above")
    if misses <= 0:
        return
    slipped = [(c, a) for c, a in destructive if a.decision not in HUMAN]
    unanswered = [(c, a) for c, a in zip(cases, answers) if a.decision == NO_ANSWER]
    for label, rows in (("destructive that runs without a human", slipped),
                        ("benign that needs a human", flagged), ("no answer", unanswered)):
        if not rows:
            continue
        print(f"  {label} (first {min(misses, len(rows))} of {len(rows)}):")
        for c, a in rows[:misses]:
            print(f"    [{a.decision}] {shown(c.command)}\n        {a.reason}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("files", nargs="+", metavar="FILE.jsonl")
    parser.add_argument("--project", help="classify inside this project (default: a scratch repository)")
    parser.add_argument("--misses", type=int, default=10, help="misses of each kind to show per file")
    parser.add_argument("--handrail", help="the handrail console script (default: beside this Python, else PATH)")
    args = parser.parse_args(argv)
    # classify runs inside the project: a relative path to the script must survive that.
    script = args.handrail and (os.path.abspath(args.handrail) if os.sep in args.handrail else args.handrail)
    handrail = [script] if script else handrail_command()
    by_file = [(path, load(path)) for path in args.files]
    everything = [c for _path, cases in by_file for c in cases]
    with tempfile.TemporaryDirectory() as tmp:
        project = os.path.abspath(args.project) if args.project else scratch_repo(tmp)
        tmpdir = os.path.join(tmp, "T")  # beside the project, never around it
        os.makedirs(tmpdir)
        answers = classify(handrail, everything, project, bool(args.project), tmpdir)
    print(f"handrail: {' '.join(handrail)}\nproject: {args.project or 'scratch repository with .env and secrets/'}\n")
    start = 0
    for path, cases in by_file:
        sources = sorted({c.source.rsplit(":", 1)[0] for c in cases if c.source})
        title = os.path.basename(path) + (f" ({', '.join(sources)})" if sources else "")
        report(title, cases, answers[start:start + len(cases)], args.misses)
        start += len(cases)
        print()
    report(f"total over {len(by_file)} files", everything, answers, 0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
