"""Shared timing for the benchmarks: process wall time and peak memory, side by side
with a baseline measured in the same run."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time


def handrail_command() -> list[str]:
    """The installed console script beside this interpreter, as harnesses call it."""
    found = shutil.which("handrail", path=os.path.dirname(sys.executable)) or shutil.which("handrail")
    if not found:
        sys.exit("bench: install handrail first (pip install .)")
    return [found]


def compile_package() -> None:
    """Byte-compile handrail as `pip install` does, so an editable checkout (or a
    PYTHONDONTWRITEBYTECODE environment) is measured like a real installation."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("handrail")
    assert spec is not None and spec.submodule_search_locations, "handrail is not importable"
    for location in spec.submodule_search_locations:
        compileall.compile_dir(location, quiet=1)


def run_once(cmd: list[str], cwd: str | None = None, stdin: bytes | None = None) -> tuple[float, int, int]:
    """Wall seconds, peak resident KiB and exit code of one run of `cmd`."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if stdin is not None:
        assert proc.stdin is not None
        proc.stdin.write(stdin)
        proc.stdin.close()
    _pid, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_maxrss, proc.returncode


def compare(label: str, cmd: list[str], *, runs: int = 40, cwd: str | None = None,
            baseline: list[str] | None = None, stdin: bytes | None = None) -> dict[str, float]:
    """Interleave `cmd` with the bare interpreter so both see the same machine load."""
    baseline = baseline or [sys.executable, "-c", "pass"]
    compile_package()
    for _ in range(3):  # warm caches: page cache, validation cache, .pyc files
        run_once(cmd, cwd, stdin)
        run_once(baseline)
    ours, base, peaks, codes = [], [], [], set()
    for _ in range(runs):
        t, rss, code = run_once(cmd, cwd, stdin)
        ours.append(t)
        peaks.append(rss)
        codes.add(code)
        base.append(run_once(baseline)[0])
    result = {
        "median_ms": statistics.median(ours) * 1000,
        "baseline_ms": statistics.median(base) * 1000,
        "peak_mib": max(peaks) / 1024,
    }
    result["ratio"] = result["median_ms"] / result["baseline_ms"]
    print(f"{label}: median {result['median_ms']:.1f} ms vs {result['baseline_ms']:.1f} ms for "
          f"`python3 -c pass` -> {result['ratio']:.2f}x; peak {result['peak_mib']:.1f} MiB; exit codes {sorted(codes)}")
    return result


def verdict(name: str, value: float, limit: float, unit: str = "") -> bool:
    ok = value <= limit
    print(f"  {'ok  ' if ok else 'MISS'} {name}: {value:.2f}{unit} (aim <= {limit}{unit})")
    return ok
