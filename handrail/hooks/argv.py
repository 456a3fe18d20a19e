"""A small option parser for the hot-path commands (argparse alone costs ~20 ms)."""

from __future__ import annotations

from handrail.errors import HandrailError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


def peek(argv: list[str], options: Mapping[str, bool], *names: str) -> set[str]:
    """Which of `names` stand where `parse` reads an option: before `--` (`classify -- grep
    -h x` classifies `grep -h x`), and not as the value of an option that takes one
    (`--tool --json` is no tool: `parse` refuses it, in JSON). `--name=value` counts as `--name`.

    For the choices made before parsing (answer in JSON? serve the help? a batch?), so
    it never raises: an unknown option is read as a flag, and a bad line is `parse`'s
    to refuse, in the shape these choices asked for."""
    found: set[str] = set()
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            break
        name, eq, _value = arg.partition("=")
        if arg.startswith("-") and arg != "-":
            if name in names:
                found.add(name)
            takes = options.get(name) and not eq
            # `parse` takes no option as a value (`--agent --json` is an error, answered in
            # the JSON asked for), so neither does the peek
            i += 2 if takes and not (i + 1 < len(argv) and argv[i + 1].startswith("-") and argv[i + 1] != "-") else 1
        else:
            i += 1
    return found


def parse(argv: list[str], options: dict[str, bool], *,
          max_positionals: int = 0) -> tuple[dict[str, object], list[str]]:
    """`options` maps `--name` to whether it takes a value. Flags come back as True.

    Accepts `--name value` and `--name=value`; `--` ends the options. A separate value
    that looks like an option (`--agent --json`) is a usage error: `--name=-x` says it.
    """
    opts: dict[str, object] = {}
    positionals: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            positionals.extend(argv[i + 1 :])
            break
        if arg.startswith("-") and arg != "-":
            name, eq, value = arg.partition("=")
            if name not in options:
                raise HandrailError(f"unknown option {name} (options: {', '.join(sorted(options))})",
                                    reason="bad_arguments")
            if options[name]:
                if not eq:
                    i += 1
                    if i >= len(argv):
                        raise HandrailError(f"option {name} needs a value", reason="bad_arguments")
                    value = argv[i]
                    if value.startswith("-") and value != "-":
                        # `--agent --json` is a missing value, not an agent named "--json".
                        raise HandrailError(f"option {name} needs a value, found the option {value} (for a value "
                                            f"that starts with '-', write {name}={value})", reason="bad_arguments")
                opts[name] = value
            else:
                if eq:
                    raise HandrailError(f"option {name} takes no value", reason="bad_arguments")
                opts[name] = True
        else:
            positionals.append(arg)
        i += 1
    if len(positionals) > max_positionals:
        raise HandrailError(f"unexpected argument '{positionals[max_positionals]}'", reason="bad_arguments")
    return opts, positionals
