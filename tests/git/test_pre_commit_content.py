"""pre-commit counts the lines a NUL byte or bare `\\r` line ends would hide, and refuses a
token in the name of a file it adds."""

from __future__ import annotations

import pytest
from gitkit import AGENT, Project, refused

TOKEN = "ghp_" + "Zt5" * 12  # a GitHub token's shape, made up


@pytest.mark.parametrize("data", [
    b"\0" + b"".join(b"x%d = 1\n" % i for i in range(300)),
    b"".join(b"x%d = 1\r" % i for i in range(300)),
], ids=["nul in front", "bare cr line ends"])
def test_hidden_lines_count_against_the_budget(project: Project, data: bytes) -> None:
    project.task("t", contract={"governor": {"max_diff_lines": 50}})
    project.write("src/big.py", data)
    refused(project.commit("src/big.py", env=AGENT), "changes 300 lines (+300 -0), more than task 't' allows (50)")
    project.write("src/big.py", data[:40])  # a few lines, however they end
    assert project.commit("src/big.py", env=AGENT).returncode == 0


def test_a_modified_file_with_bare_cr_line_ends_counts_what_changed(project: Project) -> None:
    project.task("t", contract={"governor": {"max_diff_lines": 3}})
    rows = [b"row %d\r" % i for i in range(40)]
    project.write("data.txt", b"".join(rows[:2]))
    assert project.commit("data.txt").returncode == 0
    project.write("data.txt", b"".join(rows[:4]))
    assert project.commit("data.txt").returncode == 0        # two more rows: 2 lines
    project.write("data.txt", b"".join(rows))
    refused(project.commit("data.txt"), "changes 36 lines (+36 -0)")


def test_a_token_in_a_new_file_name_is_refused_without_printing_it(project: Project) -> None:
    project.task("t")
    project.write(f"fixtures/{TOKEN}.json", "{}\n")
    r = project.commit(f"fixtures/{TOKEN}.json")
    refused(r, "the file name fixtures/ghp_Zt5Z…", "GitHub token", "handrail built-in secret patterns")
    assert TOKEN not in r.stderr
