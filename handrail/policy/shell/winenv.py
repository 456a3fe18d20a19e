"""The environment the Windows way: PowerShell's `Env:` drive, cmd's `%NAME%` and `set`.

PowerShell keeps the variables on a drive any item cmdlet reads or changes: `gci env:` (and
`dir env:`, `ls env:`, `Get-ChildItem Env:\\`) prints all of them, `gc env:GITHUB_TOKEN` one, and
`Remove-Item Env:CLAUDECODE` or `Set-Item env:CLAUDECODE ''` sheds the variable that says an agent
acts. cmd expands `%NAME%` in every command (`cmd /c echo %GITHUB_TOKEN%`), `set PREFIX` prints
every variable whose name begins with PREFIX, and `set NAME=` removes one. Judged as the POSIX
forms are (system.check_env_dump, check_markers): the whole environment, or a credential, printed,
and a marker changed, need a human; one plain variable read (`gc env:PATH`, `echo %PATH%`) runs.
"""

from __future__ import annotations

import re

from handrail.policy.shell.sends import CMD_VAR
from handrail.policy.shell.system import CMD, _is_marker, secret_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx, Finding
    from handrail.policy.shell.parts import Part

# Cmdlets (and their aliases) that only read or list the items they are given, or only test them.
_PS_READS = frozenset({"get-childitem", "gci", "dir", "ls", "get-item", "gi", "get-content", "gc", "type", "cat",
                       "get-itemproperty", "gp", "select-string", "sls"})
# Cmdlets (and their aliases) that remove, set, create, move or copy the items they are given.
_PS_CHANGES = frozenset({"remove-item", "ri", "rm", "del", "erase", "rd", "rmdir", "clear-item", "cli", "set-item",
                         "si", "new-item", "ni", "rename-item", "rni", "move-item", "mi", "mv", "copy-item", "cpi",
                         "cp", "set-content", "sc", "clear-content", "clc", "add-content", "ac"})
_DRIVE = re.compile(r"(?i)^-?(?:\w+:)?env:[\\/]?(.*)$")  # `env:X`, `Env:\X`, `-Path:env:X`


def is_candidate(part: Part) -> bool:
    """Cheap test: whether the part can name the environment in a Windows spelling at all."""
    return part.name == "set" or any("env:" in w.text.lower() or "%" in w.text for w in part.words[1:])


def check_windows_env(part: Part, ctx: Ctx) -> list[Finding]:
    out: list[Finding] = []
    name = part.name.lower()
    for w in part.words[1:]:
        m = _DRIVE.match(w.text)
        if m is None or name not in _PS_READS | _PS_CHANGES:
            continue  # `grep -r env: .github`, `Test-Path env:X`: no item of the drive is read or changed
        var = m.group(1).strip("\"'")
        reads = name in _PS_READS
        if not var or any(c in var for c in "*?["):
            if reads:
                out.append((3, "env-dump", f"{part.name} {w.raw} prints the whole environment, tokens and keys "
                                           "included"))
            else:
                out.append((3, "agent-markers", f"{part.name} {w.raw} changes every variable, the ones that say "
                                                "an agent is acting included"))
        elif _is_marker(var) and not reads:
            out.append((3, "agent-markers", f"{part.name} {w.raw} changes a variable that says an agent is acting"))
        elif secret_name(var):
            out.append((3, "env-dump", f"{part.name} {w.raw} reads a credential from the environment"))
    if name == "set":
        out += check_set_marker(part)
    if any(v.split(" ", 1)[0].lower() in CMD for v in part.via):
        out += _under_cmd(part)
    return [f for f in out if ctx.enabled(f[1])]


def _under_cmd(part: Part) -> list[Finding]:
    """What cmd itself does with a command's text: `%NAME%` expanded, `set` listing or assigning."""
    for w in part.words[1:]:
        hit = next((n for n in CMD_VAR.findall(w.text) if secret_name(n)), None)
        if hit is not None:
            return [(3, "env-dump", f"{part.name} uses %{hit}%, a credential cmd takes from the environment")]
    if part.name.lower() != "set":
        return []
    args = [w.text for w in part.words[1:] if w.text.lower() not in ("/a", "/p")]
    if len(args) == 1 and "=" not in args[0]:
        return [(3, "env-dump", f"set {args[0]} prints every variable whose name begins with {args[0]}, whatever "
                                "tokens the environment holds among them")]
    return []


def check_set_marker(part: Part) -> list[Finding]:
    """cmd's `set CLAUDECODE=` (and `set "CLAUDECODE="`, `set /p CLAUDECODE=`) unsets the marker; in
    bash the same words only set `$1`, which no agent needs: judged as cmd reads them, wherever."""
    for w in part.words[1:]:
        key = w.text.split("=", 1)[0].strip("\"' ")
        if "=" in w.text and _is_marker(key):
            return [(3, "agent-markers", f"set {w.raw} changes a variable that says an agent is acting")]
    return []
