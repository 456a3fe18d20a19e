"""A signature makes a commit a human's only when git calls it good, it is the committer's,
and the keys it was checked against are not the branch's own to write."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from cikit import Repo


def ssh_signing(project: Repo, key_dir: Path, allowed: Path, principal: str = "committer@example.com") -> None:
    key = key_dir / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "dev", "-f", str(key)], check=True)
    allowed.write_text(f"{principal} {(key_dir / 'id_ed25519.pub').read_text()}")
    project.git("config", "gpg.format", "ssh")
    project.git("config", "user.signingkey", str(key))
    project.git("config", "gpg.ssh.allowedSignersFile", str(allowed))


def signed_commit(project: Repo, message: str, env: dict[str, str] | None = None) -> str:
    project.write("src/login.py", message + "\n")
    project.git("add", "src/login.py")
    project.git("commit", "-q", "-S", "-m", message, env=env)
    return project.head()


def test_a_good_signature_by_someone_other_than_the_committer_proves_nothing(project: Repo, tmp_path: Path) -> None:
    ssh_signing(project, tmp_path, tmp_path / "allowed_signers")
    mine = signed_commit(project, "mine")
    theirs = signed_commit(project, "committed by another", env={"GIT_COMMITTER_EMAIL": "agent@example.com"})
    data = project.report("--base", "main", code=0)
    made = {c["commit"]: (c["made_by"], c["evidence"]) for c in data["commits"]}
    assert made[mine] == ("human", made[mine][1]) and made[mine][1].startswith("signature: Good ssh signature by "
                                                                              "committer@example.com")
    assert made[theirs][0] == "unknown" and "not by the committer <agent@example.com>" in made[theirs][1]
    text = project.ci("--base", "main").stdout
    assert "1 by a human (signed), 1 unknown" in text
    assert text.count("counted as unknown") == 1 and f"{theirs[:7]}: a ssh signature by committer@example.com" in text


def test_an_allowed_signers_file_the_branch_commits_signs_as_anyone(project: Repo, tmp_path: Path) -> None:
    inside = project.path / ".github" / "allowed_signers"
    inside.parent.mkdir(parents=True)
    ssh_signing(project, tmp_path, inside)
    project.git("add", "-f", str(inside))
    project.git("commit", "-q", "-m", "trust my own key")
    signed = signed_commit(project, "signed with the key the branch trusts")
    data = project.report("--base", "main", "--require-attribution", code=1)
    made = {c["commit"]: c for c in data["commits"]}
    assert made[signed]["made_by"] == "unknown"
    assert "lies inside the repository" in made[signed]["evidence"]
    assert ("unattributed", signed) in [(f["rule"], f["commit"]) for f in data["findings"]]
    text = project.ci("--base", "main").stdout
    assert text.count("counted as unknown") == 1 and "gpg.ssh.allowedSignersFile" in text


def test_a_file_outside_the_checkout_linked_from_inside_still_counts_as_inside(project: Repo,
                                                                             tmp_path: Path) -> None:
    inside = project.path / "signers"
    ssh_signing(project, tmp_path, inside)
    outside = tmp_path / "outside_link"
    outside.symlink_to(inside)  # the config names a path outside; the file it reaches is the branch's
    project.git("config", "gpg.ssh.allowedSignersFile", str(outside))
    signed = signed_commit(project, "signed")
    data = project.report("--base", "main", code=0)
    assert [c["made_by"] for c in data["commits"] if c["commit"] == signed] == ["unknown"]
