"""A path is judged as the client will read it, not as it was written: Gemini percent-decodes
paths and drops a leading `@`, and edits a file whose path merely ends in a missing one;
Claude Code trims Grep's path and expands `~`; OpenCode's grep searches the folder of any
path that is no folder, one that does not exist included."""

from __future__ import annotations

from pathlib import Path

from hookkit import hook


def gemini(project: Path, tool: str, tool_input: dict) -> tuple[int, str]:
    r = hook("gemini", {"session_id": "s", "cwd": str(project), "hook_event_name": "BeforeTool",
                        "tool_name": tool, "tool_input": tool_input}, cwd=project)
    return r.code, (r.json or {}).get("decision", "") + r.stderr


def test_gemini_paths_are_judged_decoded_and_without_the_at_sign(project: Path) -> None:
    for tool, args in (("write_file", {"file_path": "src/%2E%2E/%2Ehandrail/autonomy-protocol.json", "content": "{}"}),
                       ("write_file", {"file_path": "src/..%2F%2Egit/hooks/pre-commit", "content": "exit 0"}),
                       ("read_file", {"file_path": "@.env"}),
                       ("read_file", {"file_path": "src/%2E%2E/%2Eenv"}),
                       ("grep_search", {"pattern": "DATABASE", "dir_path": "%2E"}),
                       ("run_shell_command", {"command": "cat notes.txt", "dir_path": "src/%2E%2E"})):
        code, said = gemini(project, tool, args)
        assert code == 2 or "deny" in said, (tool, args, said)
    assert gemini(project, "read_file", {"file_path": "src/app.py"}) == (0, "")


def test_gemini_replace_of_a_file_that_does_not_exist_is_refused(project: Path) -> None:
    (project / "lib" / "mysrc").mkdir(parents=True)
    (project / "lib" / "mysrc" / "a.py").write_text("a = 1\n")
    code, said = gemini(project, "replace", {"file_path": "src/a.py", "old_string": "a = 1", "new_string": "a = 2"})
    assert code == 2 and "names no file" in said
    code, said = gemini(project, "replace", {"file_path": "src/app.py", "old_string": "old", "new_string": "new"})
    assert code == 0 and said == "allow"


def test_claude_grep_path_is_trimmed_and_its_tilde_expanded(project: Path) -> None:
    for path in (f" {project} ", "~"):
        payload = {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(project), "tool_name": "Grep",
                   "tool_input": {"pattern": "DATABASE", "path": path, "glob": "*"}}
        r = hook("claude", payload, cwd=project, env={"HOME": str(project)})
        assert r.json is not None and r.json["hookSpecificOutput"]["permissionDecision"] == "deny", (path, r)


def test_opencode_grep_of_a_path_that_does_not_exist_is_judged_by_its_folder(project: Path) -> None:
    r = hook("opencode", {"tool": "grep", "args": {"pattern": "DATABASE", "path": str(project / "README.md")},
                          "directory": str(project), "worktree": str(project)}, cwd=project)
    assert r.json is not None and r.json["decision"] == "deny" and ".env" in r.json["message"]
