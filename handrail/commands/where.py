"""The one refusal for a command that needs a git repository and runs outside one."""

from __future__ import annotations

from handrail.errors import EXIT_ERROR, Refused


def require_repository(verb: str, project: str) -> None:
    """Refuse, before anything is written, when `project` (the root `projectroot` found)
    lies in no git work tree: tasks, gates, hooks and permission files only mean
    something in a repository whose commits handrail guards. Exit 2, as a usage error."""
    from handrail.projectroot import git_tree

    if git_tree(project) is None:
        raise Refused(verb, f"{project} is not inside a git repository; run `git init` first "
                      "(or pass --project REPO)", reason="not_a_repository", exit_code=EXIT_ERROR)
