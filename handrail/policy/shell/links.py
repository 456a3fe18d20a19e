"""Links made to a secret: `ln -s .env x`, `cp -s .env x` and a link to a folder of credentials
(`ln -s ~/.ssh keys`) are ways to read what they name later, so the secret-read rule judges
what each link names, and for a folder, what it holds."""

from __future__ import annotations

from handrail.policy.shell.syntax import Word
from handrail.policy.shell.targets import _link_sources

TYPE_CHECKING = False
if TYPE_CHECKING:
    from handrail.policy.shell.parts import Part


def linked(part: Part) -> list[tuple[Word, str]]:
    """`ln -s .env x`, `cp -s .env x`: a link made to a secret is a way to read it later."""
    if part.name not in ("ln", "cp"):
        return []
    out: list[tuple[Word, str]] = []
    for w in _link_sources(part):
        out.append((w, "links to"))
        if not w.dyn and not w.glob:
            inside = Word(w.text.rstrip("/") + "/*", f"{w.raw} (a folder: what it holds)")
            inside.glob, inside.tilde = True, w.tilde  # a link to ~/.ssh is a way to its keys
            out.append((inside, "links to"))
    return out
