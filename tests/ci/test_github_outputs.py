"""The job summary and the error annotations `handrail ci` gives GitHub Actions."""

from __future__ import annotations

from pathlib import Path

from outkit import AGENT_COMMIT, UNKNOWN_COMMIT, every_rule, finding, report

from handrail.ci import github


def unescape(text: str) -> str:
    """What the runner makes of an escaped value (the toolkit's escapes, undone in reverse)."""
    for code, ch in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(code, ch)
    return text


def parse(line: str) -> tuple[dict[str, str], str]:
    """A workflow command split the way the runner splits it: properties at `,` and the
    first `=`, the message after the second `::`."""
    assert line.startswith("::error ")
    head, sep, message = line[len("::error "):].partition("::")
    assert sep
    props = dict(p.split("=", 1) for p in head.split(","))
    return {k: unescape(v) for k, v in props.items()}, unescape(message)


def test_escaping_follows_the_workflow_command_rules() -> None:
    assert github.escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert github.escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    # `%` first: an escape is never escaped twice
    assert github.escape_data("%0A") == "%250A"


def test_one_annotation_per_finding_with_file_and_line_where_known() -> None:
    rep = every_rule()
    lines = github.annotations(rep)
    assert len(lines) == len(rep["findings"])
    parsed = {p["title"]: (p, m) for p, m in map(parse, lines)}
    props, message = parsed["handrail: secret"]
    assert props["file"] == "config/settings.py" and props["line"] == "7"
    assert "an AWS access key" in message and "made by agent (claude)" in message and "fix secret" in message
    props, message = parsed["handrail: rewrite"]
    assert "file" not in props and "line" not in props   # nothing to point at: an annotation on the run
    assert parsed["handrail: policy_change"][0]["line"] == "1"


def test_hostile_paths_and_messages_survive_the_round_trip() -> None:
    path = "src/odd,name:1%.py"
    message = "line one\nline two: 100% sure, really"
    (line,) = github.annotations(report([finding("path", path=path, message=message)]))
    assert "\n" not in line
    props, text = parse(line)
    assert props["file"] == path and text.startswith(message)


def test_the_summary_is_one_table_row_per_finding(tmp_path: Path) -> None:
    rep = every_rule()
    text = github.summary_markdown(rep)
    lines = text.splitlines()
    assert lines[0] == f"### handrail ci: {len(rep['findings'])} findings"
    header = lines.index("| commit | made by | file | rule | what to do |")
    rows = lines[header + 2:]
    assert len(rows) == len(rep["findings"])
    secret = next(r for r in rows if "| `secret`:" in r)
    cells = [c.strip() for c in secret.strip("|").split(" | ")]
    assert cells == [f"`{AGENT_COMMIT[:12]}`", "agent (claude)", "`config/settings.py:7`",
                     "`secret`: an AWS access key", "fix secret"]
    unattributed = next(r for r in rows if "| `unattributed`:" in r)
    assert f"`{UNKNOWN_COMMIT[:12]}` | unknown |" in unattributed


def test_table_cells_cannot_break_the_table_or_hide_as_html() -> None:
    rep = report([finding("path", path="a|b.py", message="by Ann <ann@example.com>\nsecond | line")])
    row = github.summary_markdown(rep).splitlines()[-1]
    assert row.count(" | ") == 4 and "`a\\|b.py`" in row
    assert "&lt;ann@example.com&gt;" in row and "<ann" not in row


def test_a_clean_report_says_so_without_a_table() -> None:
    text = github.summary_markdown(report([]))
    assert text.startswith("### handrail ci: clean\n") and "|" not in text
    assert "3 commits in `111111111111..222222222222`" in text
    assert "1 by an agent, 1 by a human (signed), 1 unknown" in text


def test_the_summary_is_appended_to_the_file_github_names(tmp_path: Path) -> None:
    summary = tmp_path / "step_summary.md"
    summary.write_text("## an earlier step\n", encoding="utf-8")
    assert github.write_summary(report([]), {"GITHUB_STEP_SUMMARY": str(summary)}) == str(summary)
    assert summary.read_text(encoding="utf-8").startswith("## an earlier step\n### handrail ci: clean")
    assert github.write_summary(report([]), {}) is None


def test_a_huge_range_gets_the_first_rows_and_a_count_of_the_rest() -> None:
    """GitHub drops a step summary over 1 MiB whole: the table stops at MAX_ROWS."""
    many = [finding("path", path=f"src/f{i}.py", message="x" * 2000) for i in range(github.MAX_ROWS + 25)]
    text = github.summary_markdown(report(many))
    assert sum(line.startswith("| `") for line in text.splitlines()) == github.MAX_ROWS
    assert "… and 25 more" in text and len(text.encode()) < 1024 * 1024


def test_an_error_is_one_annotation_naming_the_fix() -> None:
    line = github.error_annotation("base abc: not in this clone: fetch the whole history (fetch-depth: 0)")
    props, message = parse(line)
    assert props == {"title": "handrail ci: error"} and message.endswith("(fetch-depth: 0)")
