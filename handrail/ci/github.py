"""A `handrail ci` report on GitHub Actions: the job summary and error annotations.

The summary is Markdown appended to the file `GITHUB_STEP_SUMMARY` names (one table:
commit, made by, file, the rule and what it found, what to do). Annotations are workflow commands printed on
stdout, `::error file=F,line=L,title=T::MESSAGE`, escaped as GitHub documents them (and
its toolkit does, `escapeData`/`escapeProperty`): `%`, `\\r`, `\\n` in the message, and
also `:` and `,` in a property, which would end it.
"""

# No `from __future__ import annotations`: it would shadow `annotations()` below, and
# every hint here is valid at run time on Python 3.11.
import secrets
from collections.abc import Mapping
from typing import Any

from handrail.ci import locate, sarif
from handrail.errors import HandrailError
from handrail.policy.gitrules import display

SUMMARY_VARIABLE = "GITHUB_STEP_SUMMARY"
ACTIONS_VARIABLE = "GITHUB_ACTIONS"


def on_actions(env: Mapping[str, str]) -> bool:
    return env.get(ACTIONS_VARIABLE) == "true"


def inert(text: str) -> str:
    """Text the runner must not read as workflow commands, between `::stop-commands::`
    and its token. The report quotes what commits carry (summaries, paths, messages): a
    path named `x\n::add-mask::…`, or `##[error]`, which the runner's older parser finds
    anywhere in a line, would otherwise be a command an agent's commit gave the job. The
    token is random per run, so no commit can end the block early."""
    token = secrets.token_hex(16)
    return f"::stop-commands::{token}\n{text}\n::{token}::"


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotations(report: Mapping[str, Any]) -> list[str]:
    """One `::error` per finding; a finding without a path is an annotation on the run."""
    agents = locate.agents(report)
    lines = []
    for finding in report.get("findings") or ():
        props = []
        if finding.get("path"):
            where = locate.place(finding)
            props += [f"file={escape_property(display(where.path))}", f"line={where.line}"]
        props.append(f"title={escape_property('handrail: ' + str(finding.get('rule')))}")
        lines.append(f"::error {','.join(props)}::{escape_data(sarif.message(finding, agents))}")
    return lines


def error_annotation(message: str) -> str:
    """The one annotation of a check that could not judge (exit 2): the line that names the fix."""
    return f"::error title={escape_property('handrail ci: error')}::{escape_data(message)}"


# GitHub takes at most 1 MiB of summary per step and drops the whole of a larger one: a
# range with thousands of findings gets its first rows and a count of the rest.
MAX_ROWS = 300


def summary_markdown(report: Mapping[str, Any]) -> str:
    counts = report.get("counts") or {}
    commits, findings = counts.get("commits", 0), counts.get("findings", 0)
    agent, unknown = counts.get("agent_commits", 0), counts.get("unknown_commits", 0)
    human = commits - agent - unknown
    base, head = locate.short(report.get("base")), locate.short(report.get("head"))
    verdict = "clean" if report.get("result") == "clean" else f"{findings} finding{'s' * (findings != 1)}"
    out = [f"### handrail ci: {verdict}", "",
           f"{commits} commit{'s' * (commits != 1)} in `{base}..{head}` (range from {report.get('range_from')}): "
           f"{agent} by an agent, {human} by a human (signed), {unknown} unknown."]
    if report.get("rewritten"):
        out.append("The branch was rewritten: the engine says it no longer holds the commit it held before.")
    if report.get("findings"):
        agents = locate.agents(report)
        out += ["", "| commit | made by | file | rule | what to do |", "|---|---|---|---|---|"]
        for f in report["findings"][:MAX_ROWS]:
            commit = f.get("commit")
            made = locate.who({"made_by": f.get("made_by"), "agent": agents.get(str(commit))})
            where = display(f.get("path") or "")
            if where and f.get("line"):
                where = f"{where}:{f['line']}"
            cells = [f"`{locate.short(commit)}`" if commit else "", cell(made), _code(where),
                     f"`{cell(str(f.get('rule')))}`: {cell(str(f.get('message')))}", cell(str(f.get("fix") or ""))]
            out.append("| " + " | ".join(cells) + " |")
        if len(report["findings"]) > MAX_ROWS:
            out += ["", f"… and {len(report['findings']) - MAX_ROWS} more: every finding is in the job's log "
                        "and in the report (`--format json` or `sarif`)."]
    return "\n".join(out) + "\n"


def cell(text: str) -> str:
    """Text in a Markdown table cell: `|` would end the cell and a line break the row, and
    `<`, `>`, `&` would be read as HTML (an author's `<email>` vanishes as a tag)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def _code(path: str) -> str:
    # a path in backticks, unless it holds one: Markdown cannot quote it then, so escape it plainly
    return f"`{cell(path)}`" if path and "`" not in path else cell(path)


def write_summary(report: Mapping[str, Any], env: Mapping[str, str]) -> str | None:
    """Append the summary to the job summary file; the path written, or None where the job has none.
    Appended, not replaced: other steps of the job write theirs to the same file."""
    path = env.get(SUMMARY_VARIABLE)
    if not path:
        return None
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(summary_markdown(report))
    except OSError as e:
        raise HandrailError(f"{path}: cannot append the job summary ({SUMMARY_VARIABLE}): {e.strerror}") from None
    return path
