"""Wrappers that run a command somewhere else: `ssh HOST CMD`, `docker exec`, `kubectl exec`,
and the Windows shells (`pwsh -c`, `cmd /c`).

The command still runs on the user's behalf, so it is judged like a local one; only the folder
it runs in is unknown (another machine, another container).
"""

from __future__ import annotations

from handrail.policy.shell.argscan import fs, opt_end, sub
from handrail.policy.shell.parts import DYNAMIC, State, has_download
from handrail.policy.shell.shells import stdin_script

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part, Walker
    from handrail.policy.shell.syntax import Word

_SSH = fs("-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q", "-R",
          "-S", "-W", "-w", "-B")
_CONTAINER = fs("-e", "--env", "-u", "--user", "-w", "--workdir", "--env-file", "--detach-keys")
_PS_COMMAND = fs("-command", "-c", "/c", "/k", "/r", "-commandwithargs", "-cwa")


def ssh(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    end = opt_end(words, 1, _SSH)
    rest = words[end + 1 :]
    if end >= len(words):
        return words
    remote = flat.new_part(part.context, part.via, part.pipe, part.index, st)
    remote.feed, remote.stdin_text = part.feed, part.stdin_text
    remote.cwd = None  # another machine
    host = words[end].raw
    if rest:
        flat.shell_text(remote, " ".join(w.text for w in rest), any(w.dyn for w in rest),
                        any(has_download(w) for w in rest), f"ssh {host}", st, words)
    else:
        stdin_script(flat, remote, f"ssh {host}", words, st)
        if remote.flags:
            remote.words, remote.name = words[:1], "ssh"
            flat.out.append(remote)
    return words


def container_exec(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`docker exec CTR CMD`, `docker compose exec SERVICE CMD`, `kubectl exec POD -- CMD`."""
    given = words
    if name in ("docker", "podman") and sub(words) == "compose" and len(words) > 2 and words[2].text == "exec":
        # `docker compose exec db dropdb app`: the service's command, as `docker exec` runs one
        words = words[:1] + words[2:]
    if sub(words) != "exec":
        return given
    if name in ("kubectl", "oc"):
        try:
            end = next(i for i, w in enumerate(words) if w.text == "--") + 1
        except StopIteration:
            return given
    else:
        end = opt_end(words, 2, _CONTAINER) + 1
    if end >= len(words):
        return given
    inner = flat.new_part(part.context, part.via + [f"{name} exec"], part.pipe, part.index, st)
    inner.cwd = None
    flat.unwrap(inner, words[end:], State(None, set(st.funcs)))
    return given


def windows_shell(flat: Walker, part: Part, name: str, words: list[Word], st: State) -> list[Word] | None:
    """`pwsh -c "Get-ChildItem"`, `cmd /c dir`: the command text is read as a command line (the
    simple commands, pipes and `;` of PowerShell and cmd read as the shell's do); an encoded or
    file script is code handrail does not read."""
    texts = [w.text.lower() for w in words]
    for i, t in enumerate(texts[1:], 1):
        if t in ("-encodedcommand", "-enc", "-e", "-ec", "-file", "-f"):
            part.flags.append((DYNAMIC, f"{name} {words[i].text} runs a script handrail does not read"))
            return words
        if t in _PS_COMMAND:
            rest = words[i + 1 :]
            if not rest:
                return words
            text = " ".join(w.text for w in rest)
            flat.shell_text(part, text, any(w.dyn for w in rest), False, f"{name} {words[i].text}", st, words)
            return None
    return words
