"""`handrail ci`: the git rules over a pull request's commits, for a CI job.

Exit 0 clean, 1 findings, 2 an error (a range that cannot be had, a broken policy file
in a commit), with one line naming what to fix.
"""

from __future__ import annotations

import json
import os

from handrail.commands.render import echo
from handrail.commands.where import require_repository
from handrail.errors import EXIT_DENIED, EXIT_OK, HandrailError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import pygit2

FORMATS = ("text", "json", "sarif", "codequality")


def ci(*, project: str, base: str | None, head: str | None, output_format: str, output: str | None,
       require_attribution: bool) -> int:
    require_repository("ci", project)
    from handrail import repo as git
    from handrail.ci import github
    from handrail.ci import range as ranges
    from handrail.ci.judge import judge

    repo = git.open_path(project)
    if output is not None:
        _refuse_protected(project, output, repo)
    try:
        try:
            found = judge(repo, ranges.find(repo, os.environ, base, head), require_attribution=require_attribution)
        except RecursionError:
            # each reader stops at what it cannot follow and says so as a finding; this is the last word
            raise HandrailError("the range holds something nested too deeply for handrail to judge",
                                reason="too_deep") from None
    except HandrailError as e:
        if github.on_actions(os.environ):
            # the pull request's checks page then says why the job stopped, not only its log
            echo(github.error_annotation(str(e)), err=True)
        raise
    text = rendered(found, output_format)
    if output is not None:
        from handrail.fsio import atomic_write

        try:
            atomic_write(output, text + "\n")
        except OSError as e:
            raise HandrailError(f"{output}: cannot write the report: {e.strerror}") from None
        # The job's log still gets what a person reads.
        text = "\n".join(text_lines(found)) if output_format != "text" else text
    report_on_stdout = output is None and output_format != "text"
    if github.on_actions(os.environ):
        github.write_summary(found, os.environ)
        if not report_on_stdout:
            text = github.inert(text)
        # Annotations beside a report on stdout go to stderr, which the runner reads too:
        # stdout stays exactly the report.
        for line in github.annotations(found):
            echo(line, err=report_on_stdout)
    echo(text)
    return EXIT_DENIED if found["findings"] else EXIT_OK


def _refuse_protected(project: str, output: str, repo: pygit2.Repository) -> None:
    """Refuse, before anything runs, a report path handrail protects or forbids: the report
    would replace it (`--output .claude/settings.json` drops Claude's hook; a hook in
    `.git/hooks` stays executable with the report in it). Both the path as written (`..`
    collapsed: the file replaced is that name, a link included) and the file it resolves to
    through links are judged; a path outside the project and its git folders stays allowed.
    A path inside the project whose folder leads out of it through a link is refused: the
    tree's links are the pull request's, and a committed `outdir -> /anywhere` would have the
    job write where the branch chose (a link at the file itself is replaced, not followed)."""
    from handrail import repo as git
    from handrail.policy.scope import builtin_refusal

    if not output.strip():
        raise HandrailError("--output needs a path", reason="bad_arguments")
    literal = os.path.normpath(os.path.abspath(output))
    real = os.path.realpath(output)
    roots = (os.path.abspath(project), os.path.realpath(project))
    for path in dict.fromkeys((literal, real)):
        for folder in (repo.path, git.common_dir(repo), git.hooks_dir(repo)):
            if _under(path, (os.path.abspath(folder), os.path.realpath(folder))) is not None:
                raise HandrailError(f"--output {output}: {path} is in git's folder {folder.rstrip('/')}: the report "
                                    "would replace git's own files or hooks; name another file",
                                    reason="protected_output")
        rel = _under(path, roots)
        if path == literal and rel not in (None, "."):
            _refuse_leaving(output, os.path.realpath(project))
        found = builtin_refusal(rel) if rel is not None else None
        if found is not None:
            raise HandrailError(f"--output {output}: {found.describe(rel or '')}: the report would replace it; name "
                                "another file", reason="protected_output")


def _refuse_leaving(output: str, root: str) -> None:
    # the folder as the kernel will walk it: `outdir/../x` through a link leads where the link does
    folder = os.path.realpath(os.path.dirname(os.path.join(os.getcwd(), output)))
    if _under(folder, (root,)) is None:
        raise HandrailError(f"--output {output}: its folder leads out of the project through a symbolic link "
                            f"(to {folder}): links in the tree come from the commits judged; name a path with "
                            "no link on the way, or one outside the project", reason="protected_output")


def _under(path: str, folders: tuple[str, ...]) -> str | None:
    """`path` relative to the first of `folders` it lies in (`/`-separated; `.` for the folder itself)."""
    for folder in folders:
        if path == folder:
            return "."
        if path.startswith(folder.rstrip("/") + "/"):
            return path[len(folder.rstrip("/")) + 1:]
    return None


def rendered(found: dict[str, Any], output_format: str) -> str:
    """The report in one of FORMATS: `json` is exactly the report, one object."""
    if output_format == "json":
        return json.dumps(found, ensure_ascii=False)
    if output_format == "sarif":
        from handrail.ci.sarif import to_sarif

        return json.dumps(to_sarif(found), ensure_ascii=False, indent=2)
    if output_format == "codequality":
        from handrail.ci.gitlab import code_quality

        return json.dumps(code_quality(found), ensure_ascii=False, indent=2)
    return "\n".join(text_lines(found))


def text_lines(found: dict[str, Any]) -> list[str]:
    """What a person reads in the job's log: each commit with findings, then each finding
    with its file, rule and what to do; then one line with the outcome. What a commit
    carries (paths, names) is shown escaped (gitrules.display), as its summary is."""
    from handrail.policy.gitrules import display

    counts = found["counts"]
    humans = counts["commits"] - counts["agent_commits"] - counts["unknown_commits"]
    lines = [f"handrail ci: {counts['commits']} commit{'s' if counts['commits'] != 1 else ''} in "
             f"{found['base'][:7]}..{found['head'][:7]} (range from {found['range_from']}): "
             f"{counts['agent_commits']} by an agent, {humans} by a human (signed), "
             f"{counts['unknown_commits']} unknown"]
    lines += _untrusted_note(found["commits"])
    by_commit: dict[str | None, list[dict[str, Any]]] = {}
    for f in found["findings"]:
        by_commit.setdefault(f["commit"], []).append(f)
    makers = {c["commit"]: c for c in found["commits"]}
    for oid, findings in by_commit.items():
        c = makers.get(oid or "")
        if c is None:
            lines.append("\nthe range: the pull request as a whole (merge-base..head)")
        else:
            who = {"agent": f"made by an agent ({c['evidence']})", "human": f"made by a human ({c['evidence']})"
                   }.get(c["made_by"], "maker unknown")
            lines.append(f"\ncommit {oid[:7] if oid else ''} {c['summary'][:60]!r}, {display(c['author'])}, "
                         f"{display(who)}")
        for f in findings:
            where = display(f["path"]) + (f":{f['line']}" if f["line"] is not None else "") if f["path"] else ""
            shown = f["message"] if where in f["message"] else f"{where}: {f['message']}"
            lines.append(f"  {f['rule']}: {shown}")
            lines.append(f"     rule: {f['source']}")
            lines.append(f"     fix:  {f['fix']}")
    n = counts["findings"]
    if n:
        hit = sum(1 for oid in by_commit if oid in makers)
        whole = " and the pull request as a whole" if len(by_commit) > hit else ""
        lines.append(f"\nhandrail ci: {n} finding{'s' if n != 1 else ''} in {hit} "
                     f"of {counts['commits']} commits{whole}: the check fails")
    else:
        lines.append("handrail ci: clean: every commit passes the git rules")
    return lines


def _untrusted_note(commits: list[dict[str, Any]]) -> list[str]:
    """One line for every signature that counted for nothing, and why (the first reason)."""
    from handrail.ci.judge import UNTRUSTED
    from handrail.policy.gitrules import display

    doubted = [c for c in commits if str(c.get("evidence") or "").startswith(UNTRUSTED)]
    if not doubted:
        return []
    n = len(doubted)
    why = str(doubted[0]["evidence"])[len(UNTRUSTED):]
    more = f" (and {n - 1} more)" if n > 1 else ""
    return [f"note: {n} signed commit{'s' if n != 1 else ''} counted as unknown, the signature proving nothing: "
            f"{doubted[0]['commit'][:7]}: {display(why)}{more}"]
