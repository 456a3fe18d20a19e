"""Credentials read from the environment by code given to an interpreter: `os.environ["X"]`,
`os.getenv("X")`, `process.env.X`, `ENV["X"]`, `$ENV{X}`, `ENVIRON["X"]`, `getenv('X')`,
`Deno.env.get("X")`. A variable whose name says it holds a credential (system.secret_name, the
one definition `echo $GITHUB_TOKEN` is judged by) is a secret read; `HOME` or `PATH` is not.
"""

from __future__ import annotations

import re

from handrail.policy.shell.system import secret_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.common import Ctx, Finding
    from handrail.policy.shell.parts import Part

_ACCESS: list[re.Pattern[str]] = []
_SOURCE = (r"(?:\benvironb?\s*(?:\[\s*|\.(?:get|pop|setdefault)\s*\(\s*)|\bgetenv\w*\s*\(\s*|"
           r"\bprocess\s*\.\s*env\s*(?:\.\s*|\[\s*)|\bDeno\.env\.get\s*\(\s*|\bBun\.env\s*(?:\.\s*|\[\s*)|"
           r"\bmeta\.env\.|\bENV\s*(?:\[\s*|\.fetch\s*\(\s*)|\$ENV\s*\{\s*|\$_(?:ENV|SERVER)\s*\[\s*|"
           r"\bENVIRON\s*\[\s*|\bSys\.getenv\s*\(\s*)[bB]?[\"'`]?([A-Za-z_][A-Za-z0-9_]*)")


def env_credentials(code: str) -> list[str]:
    """The credential variables a program's text reads by name."""
    if not _ACCESS:
        _ACCESS.append(re.compile(_SOURCE))
    return [m.group(1) for m in _ACCESS[0].finditer(code) if secret_name(m.group(1))]


def check_env_reads(part: Part, ctx: Ctx) -> list[Finding]:
    """`python3 -c 'print(os.environ["AWS_SECRET_ACCESS_KEY"])'`: the credential is printed or sent."""
    from handrail.policy.shell.interp import inline_code

    _lang, codes, from_stdin = inline_code(part)
    texts = [code for code, _dyn in codes]
    if part.name in ("lua", "luajit", "rscript", "julia"):
        texts += [w2.text for w1, w2 in zip(part.words, part.words[1:]) if w1.text in ("-e", "--eval")]
    if from_stdin and part.stdin_text is not None:
        texts.append(part.stdin_text)
    if part.script_text is not None:
        texts.append(part.script_text)
    for text in texts:
        names = env_credentials(text)
        if names:
            return [(3, "env-dump", f"{part.name} code reads {names[0]}, a credential from the environment")]
    return []
