"""How fast are the git hooks? Run by hand, never by CI:

    python bench/bench_git_hooks.py [--files 20000] [--staged 10000] [--commits 1000] [--runs 3]

1. pre-commit on a commit staging 10,000 files (half modified, half new) in a
   20,000-file repository (target: at most 1 s wall), beside `git diff --cached
   --name-only` timed in the same run;
2. pre-push of 1,000 new commits (target: at most 2 s), beside `git rev-list`.

Each hook runs as git runs it: a separate `handrail hook …` process, so interpreter
start-up and imports are part of the figure. The contract sets `max_diff_lines`, so
the pre-commit figure includes counting every changed line, and every new blob is
scanned for secrets. Prints the best of --runs for each and the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from handrail.records import task_states  # noqa: E402
from handrail.repo import no_git_env  # noqa: E402

ENV = {**no_git_env(), "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
       "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com", "GIT_CONFIG_NOSYSTEM": "1"}
HANDRAIL = [sys.executable, "-m", "handrail"]


def sh(cwd: str, *args: str, input: bytes | None = None) -> bytes:
    return subprocess.run(args, cwd=cwd, env=ENV, input=input, check=True, capture_output=True).stdout


def best(runs: int, fn) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def body(i: int, version: int) -> str:
    return "".join(f"def f{i}_{k}():\n    return {version} + {k}\n" for k in range(5))


def project(root: str, files: int) -> str:
    path = os.path.join(root, "project")
    sh(root, "git", "init", "-q", "-b", "main", path)
    sh(path, "git", "config", "core.autocrlf", "false")
    for i in range(files):
        d = os.path.join(path, "src", f"pkg{i // 500}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"m{i}.py"), "w") as f:
            f.write(body(i, 0))
    sh(path, "git", "add", "-A")
    sh(path, "git", "commit", "-q", "-m", "base")
    task_states.new_task(path, "bench", phase="implement")
    with open(os.path.join(path, ".handrail", "tasks", "bench", "harness-contract.json"), "w") as f:
        json.dump({"contract_mode": "autopilot", "allowed_files": ["src/**"],
                   "governor": {"max_diff_lines": 100_000_000}}, f)
    with open(os.path.join(path, ".git", "info", "exclude"), "a") as f:
        f.write(".handrail/\n")
    return path


def bench_pre_commit(path: str, files: int, staged: int, runs: int) -> None:
    half = staged // 2
    for i in range(half):  # modify half of the staged files, add the other half
        with open(os.path.join(path, "src", f"pkg{i // 500}", f"m{i}.py"), "w") as f:
            f.write(body(i, 1))
    for i in range(staged - half):
        d = os.path.join(path, "src", "new", f"pkg{i // 500}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"n{i}.py"), "w") as f:
            f.write(body(i, 2))
    sh(path, "git", "add", "-A")
    names = sh(path, "git", "diff", "--cached", "--name-only").count(b"\n")
    assert names == staged, names
    ref = best(runs, lambda: sh(path, "git", "diff", "--cached", "--name-only"))
    hook = best(runs, lambda: sh(path, *HANDRAIL, "hook", "pre-commit"))
    print(f"pre-commit: {staged} staged files in a {files}-file repository")
    print(f"  git diff --cached --name-only   {ref * 1000:8.0f} ms")
    print(f"  handrail hook pre-commit        {hook * 1000:8.0f} ms   ratio {hook / ref:5.1f}x   "
          f"target <= 1000 ms: {'ok' if hook <= 1.0 else 'MISSED'}")
    sh(path, "git", "commit", "-q", "--no-verify", "-m", "staged")


def bench_pre_push(root: str, path: str, commits: int, runs: int) -> None:
    remote = os.path.join(root, "remote.git")
    sh(root, "git", "init", "-q", "--bare", remote)
    sh(path, "git", "remote", "add", "origin", remote)
    sh(path, "git", "push", "-q", "--no-verify", "origin", "main")
    base = sh(path, "git", "rev-parse", "HEAD").decode().strip()
    # fast-import: 1,000 commits, each modifying one file and adding one.
    stream = []
    for n in range(commits):
        mod = f"src/pkg{n % 20}/m{n}.py"
        stream.append(f"commit refs/heads/main\ncommitter bench <bench@example.com> {1_700_000_000 + n} +0000\n"
                      f"data <<EOM\ncommit {n}\nEOM\n" + (f"from {base}\n" if n == 0 else "")
                      + f"M 100644 inline {mod}\ndata <<EOF\n{body(n, 3)}EOF\n"
                      + f"M 100644 inline src/pushed/p{n}.py\ndata <<EOF\n{body(n, 4)}EOF\n\n")
    sh(path, "git", "fast-import", "--quiet", input="".join(stream).encode())
    sh(path, "git", "reset", "-q", "--hard", "main")
    head = sh(path, "git", "rev-parse", "HEAD").decode().strip()
    count = int(sh(path, "git", "rev-list", "--count", head, "--not", "--remotes=origin"))
    assert count == commits, count
    line = f"refs/heads/main {head} refs/heads/main {base}\n".encode()
    ref = best(runs, lambda: sh(path, "git", "rev-list", head, "--not", "--remotes=origin"))
    hook = best(runs, lambda: sh(path, *HANDRAIL, "hook", "pre-push", "origin", remote, input=line))
    print(f"pre-push: {commits} new commits (2 files each)")
    print(f"  git rev-list NEW --not --remotes {ref * 1000:8.0f} ms")
    print(f"  handrail hook pre-push          {hook * 1000:8.0f} ms   ratio {hook / ref:5.1f}x   "
          f"target <= 2000 ms: {'ok' if hook <= 2.0 else 'MISSED'}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=20_000)
    ap.add_argument("--staged", type=int, default=10_000)
    ap.add_argument("--commits", type=int, default=1_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="handrail-bench-")
    try:
        t = time.perf_counter()
        path = project(root, args.files)
        print(f"(set-up: {args.files} files committed in {time.perf_counter() - t:.1f} s; best of {args.runs} runs)")
        bench_pre_commit(path, args.files, args.staged, args.runs)
        bench_pre_push(root, path, args.commits, args.runs)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
