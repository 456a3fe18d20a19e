"""Whether a commit's signature makes it a human's, in `handrail ci`.

A signature is the one mark a person's tools make that an agent cannot write without
that person's key, but only where every link holds. It counts when:

- git says `%G?` = `G`: a good signature by a key the job trusts (gpg's `U`, good but of
  unknown validity, is any key anyone made; `X`, `Y`, `R`, `E`, `B` are no better);
- the signer is the committer: the email of the key's user id (gpg, x509) or the
  principal the allowed-signers file names (ssh) is the committer's email. A person's key
  on a commit whose committer is someone else says only that they signed it;
- what git verified against is not the pull request's to write: for ssh the
  `gpg.ssh.allowedSignersFile`, for gpg a `GNUPGHOME`, must lie outside the work tree
  and the repository's git folder. A file there is checked out from (or written by) the
  commits being judged, so a branch that commits its own allowed-signers file signs as
  anyone; outside them no commit of the range can have put or changed it.

Anything else counts for nothing: the commit is judged by its other marks, and the
report says why once.
"""

from __future__ import annotations

import os
import re
import subprocess
from typing import NamedTuple

import pygit2

from handrail import repo as git

SSH_ARMOR = b"-----BEGIN SSH SIGNATURE-----"
ALLOWED_SIGNERS = "gpg.ssh.allowedSignersFile"
_STATUS_WORDS = {"B": "a bad signature", "U": "a good signature by a key of unknown validity",
                 "X": "an expired signature", "Y": "a signature by an expired key",
                 "R": "a signature by a revoked key", "E": "a signature git cannot check",
                 "N": "a signature git cannot check"}
_EMAIL = re.compile(r"<([^<>]*)>\s*$")


class Verdict(NamedTuple):
    trusted: str | None   # what shows the signature counts, e.g. `Good ssh signature by …`
    doubt: str | None     # why a signature the commit carries counts for nothing


NONE = Verdict(None, None)


def verdict(repo: pygit2.Repository, oid: str) -> Verdict:
    """What the signature of `oid` proves; NONE for an unsigned commit. Only a signed
    commit costs a `git show`."""
    commit = repo[oid].peel(pygit2.Commit)
    signature = commit.gpg_signature[0]
    if signature is None:
        return NONE
    ssh = signature.lstrip().startswith(SSH_ARMOR)
    kind = "ssh" if ssh else "gpg"
    place = _keys_in_reach(repo, ssh)
    if place is not None:
        return Verdict(None, place)
    status, signer, key = _git_says(repo, oid)
    if status != "G":
        return Verdict(None, f"{_STATUS_WORDS.get(status, 'a signature git does not call good')} ({kind})")
    committer = commit.committer.raw_email.decode("utf-8", "replace").strip().lower()
    signed_as = signer.strip() if ssh else _email(signer)
    if signed_as.lower() != committer:
        return Verdict(None, f"a {kind} signature by {signed_as or 'no named signer'}, not by the committer "
                             f"<{committer}>")
    return Verdict(f"Good {kind} signature by {signed_as} ({key})", None)


def _git_says(repo: pygit2.Repository, oid: str) -> tuple[str, str, str]:
    """(%G?, %GS, %GK) as the job's own git reads them."""
    r = subprocess.run(["git", "show", "-s", "--no-show-signature", "--format=%G?%x00%GS%x00%GK", oid],
                       cwd=git.workdir(repo), env=git.no_git_env(), capture_output=True, text=True,
                       errors="replace")
    parts = r.stdout.rstrip("\n").split("\0") if r.returncode == 0 else []
    if len(parts) != 3:
        return "E", "", ""
    return parts[0], parts[1], parts[2]


def _email(user_id: str) -> str:
    found = _EMAIL.search(user_id)
    return (found.group(1) if found else user_id).strip()


def _keys_in_reach(repo: pygit2.Repository, ssh: bool) -> str | None:
    """Why the keys git verifies against could be the branch's own, or None."""
    if ssh:
        configured = _config_path(repo, ALLOWED_SIGNERS)
        if configured is None:
            return None  # git cannot verify it then, and says so (%G? is not G)
        what = f"{ALLOWED_SIGNERS} {configured}"
    else:
        configured = os.environ.get("GNUPGHOME") or None
        if configured is None:
            return None
        what = f"GNUPGHOME {configured}"
    path = os.path.realpath(os.path.join(git.workdir(repo), os.path.expanduser(configured)))
    for folder in (git.workdir(repo), git.common_dir(repo), repo.path):
        root = os.path.realpath(folder)
        if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
            return (f"{what} lies inside the repository, where the commits judged can write it: "
                    "keep the keys the job trusts outside the checkout")
    return None


def _config_path(repo: pygit2.Repository, key: str) -> str | None:
    r = subprocess.run(["git", "config", "--type=path", "--get", key], cwd=git.workdir(repo),
                       env=git.no_git_env(), capture_output=True, text=True, errors="replace")
    value = r.stdout.strip()
    return value if r.returncode == 0 and value else None
