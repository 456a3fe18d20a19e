"""Entry point. The commands that run before every agent action are routed here to
lean modules, so that they never pay for click, jsonschema or pygit2."""

from __future__ import annotations

import sys

# Command name -> module with `main(argv) -> int`: the hot path.
FAST = {
    "can-edit": "handrail.hooks.can_edit",
    "classify": "handrail.hooks.classify",
}


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in FAST and not any(a in ("--help", "-h") for a in args[1:]):
        import importlib

        return importlib.import_module(FAST[args[0]]).main(args[1:])
    from handrail.cli import run

    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
