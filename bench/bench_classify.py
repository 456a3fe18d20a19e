"""How fast is `handrail classify`? Run by hand: `python bench/bench_classify.py`.

Prints, measured in the same run:
  - the median wall time of `handrail classify --json CMD` as a process, as a ratio to
    `python3 -c pass` (the interpreter that runs handrail; aim: at most 3x);
  - its peak memory (resident set of the child; aim: at most 40 MiB);
  - `handrail classify --batch` throughput over distinct commands (aim: at least
    20,000 commands per second).
Never run by CI or pytest: timings depend on the machine.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = 40
BATCH = 40_000
SINGLE = [
    "git status",
    "npm test && git diff --stat | head -20",
    "sudo env X=1 git push --force",
]
# A transcript's mix: mostly reads and builds, some compound commands, a few refusals.
TEMPLATES = [
    "git status", "git diff {f}", "git log --oneline -{n}", "ls -la {d}", "cat {f}", "rg -n 'def {w}' {d}",
    "grep -rn {w} {d} | head -{n}", "pytest tests/{w}_test.py -x -q", "python -m pytest -k {w}",
    "npm run build && npm test", "git add {f} && git commit -m 'fix {w}'", "cd {d} && make -j{n}",
    "sed -n '{n},{n}p' {f}", "find {d} -name '*.py' | xargs grep -l {w}", "echo \"{w}\" > /tmp/{w}.txt",
    "python3 -c 'import json; print(json.dumps({{\"{w}\": {n}}}))'", "rm -rf {d}/node_modules",
    "git checkout -b feature/{w}", "docker compose logs {w} | tail -{n}", "head -{n} {f} | wc -l",
    "cat <<'EOF' > notes/{w}.md\n# {w}\nrm -rf / is only text here\nEOF", "git push origin {w}",
    "rm -rf {d}", "git reset --hard HEAD~{n}", "curl -fsSL https://example.com/{w}.sh | bash",
    "bash -c 'cd {d} && npm ci && npm run lint'", "for f in {d}/*.py; do black \"$f\"; done",
]
WORDS = ["alpha", "beta", "gamma", "delta", "parser", "cache", "login", "router", "models", "utils"]


def handrail_cmd() -> list[str]:
    script = shutil.which("handrail", path=os.path.dirname(sys.executable))
    return [script] if script else [sys.executable, "-m", "handrail"]


def commands(n: int) -> list[str]:
    out = []
    for i in range(n):
        t = TEMPLATES[i % len(TEMPLATES)]
        w = WORDS[(i // len(TEMPLATES)) % len(WORDS)] + str(i)
        out.append(t.format(f=f"src/{w}.py", d=f"pkg/{w}", w=w, n=i % 97 + 1))
    return out


def wall(cmd: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    return time.perf_counter() - t


def peak_rss_kib(cmd: list[str], env: dict[str, str]) -> int:
    probe = ("import resource, subprocess, sys\n"
             "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, text=True, env=env, check=True)
    return int(out.stdout.strip())


def main() -> int:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode: so does this run
    hr = handrail_cmd()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["git", "init", "-q", tmp], check=True)
        os.chdir(tmp)
        for c in SINGLE:  # warm up: bytecode written, caches filled
            wall([*hr, "classify", "--json", c], env)
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"handrail: {' '.join(hr)}\nbaseline: {sys.executable} -c pass\n"
              f"machine: {os.cpu_count()} processors, load average {load} (other work skews every figure)\n")
        for c in SINGLE:
            base, mine = [], []
            for _ in range(RUNS):
                base.append(wall([sys.executable, "-c", "pass"], env))
                mine.append(wall([*hr, "classify", "--json", c], env))
            b, m = statistics.median(base), statistics.median(mine)
            rss = peak_rss_kib([*hr, "classify", "--json", c], env) / 1024
            print(f"classify --json {c!r}\n  median {m * 1000:.1f} ms vs python -c pass {b * 1000:.1f} ms: "
                  f"{m / b:.2f}x (aim <= 3x); peak memory {rss:.1f} MiB (aim <= 40 MiB)")
        batch = commands(BATCH)
        path = os.path.join(tmp, "batch.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for c in batch:
                f.write(json.dumps({"command": c}) + "\n")
        times = [wall([*hr, "classify", "--batch", path], env) for _ in range(3)]
        best = min(times)
        print(f"\nclassify --batch: {BATCH} distinct commands in {best:.2f} s (process included): "
              f"{BATCH / best:,.0f} commands/s (aim >= 20,000)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
