"""How much does reading inline Python cost? Run by hand: `python bench/inline_code.py`.

Prints microseconds per `python_effects` call for a typical one-liner and for a 10 KB
program, beside `ast.parse` of the same code (the floor: the analysis parses first).
Never run by CI or pytest: timings depend on the machine.
"""

from __future__ import annotations

import ast
import timeit

from handrail.policy.shell.inline import python_effects, script_effects

ONE_LINER = "import json, sys; d = json.load(sys.stdin); print(d['version'])"
_BLOCK = '''
def load_{n}(path):
    import json
    from pathlib import Path
    with open(path) as f:
        data = json.load(f)
    items = [x for x in data.get("items", []) if x.get("ok")]
    total_{n} = sum(int(x["size"]) for x in items)
    print(f"{{path}}: {{len(items)}} items, {{total_{n}}} bytes")
    return Path(path).with_suffix(".out")

'''
PROGRAM = "".join(_BLOCK.format(n=n) for n in range(40))[:10_240]
PROGRAM = PROGRAM[: PROGRAM.rindex("\ndef ")]


def per_call(fn: object, code: str) -> float:
    timer = timeit.Timer(lambda: fn(code))  # type: ignore[operator]
    loops, _ = timer.autorange()
    return min(timer.repeat(5, loops)) / loops * 1e6


def main() -> None:
    for label, code in (("one-liner", ONE_LINER), (f"{len(PROGRAM) // 1024} KB program", PROGRAM)):
        ours, parse = per_call(python_effects, code), per_call(ast.parse, code)
        print(f"{label:>16}: python_effects {ours:9.1f} us   ast.parse {parse:9.1f} us   ratio {ours / parse:4.1f}x")
    awk = per_call(lambda c: script_effects("awk", c), "{sum += $3} END {print sum}")
    print(f"{'awk one-liner':>16}: script_effects {awk:9.1f} us")


if __name__ == "__main__":
    main()
