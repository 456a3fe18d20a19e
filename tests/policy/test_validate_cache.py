"""A protocol that passed validation is remembered when the command ends, so the next
command skips jsonschema; loading it writes nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from handrail.policy import protocol, validate
from handrail.policy.protocol import DEFAULT_PROTOCOL


def _project(repo: Path) -> str:
    (repo / ".handrail").mkdir()
    shutil.copy(DEFAULT_PROTOCOL, repo / ".handrail" / "autonomy-protocol.json")
    return (repo / ".handrail" / "autonomy-protocol.json").read_text()


def _cached() -> list[str]:
    folder = validate.cache_dir()
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def test_loading_a_protocol_writes_no_cache(repo: Path) -> None:
    text = _project(repo)
    validate.PASSED.clear()
    protocol.load(str(repo))
    assert _cached() == []
    assert ("protocol", text) in validate.PASSED
    validate.PASSED.clear()


def test_a_command_remembers_the_protocol_and_the_next_skips_jsonschema(repo: Path) -> None:
    text = _project(repo)
    code = ("import sys, json; sys.argv = ['handrail', 'classify', '--json', 'git status'];"
            "from handrail.main import main; main();"
            "print(json.dumps('jsonschema' in sys.modules), file=sys.stderr)")
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=repo)
    assert json.loads(first.stderr.strip().splitlines()[-1]) is True, first.stderr
    assert validate.known_valid("protocol", text)
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=repo)
    assert json.loads(second.stderr.strip().splitlines()[-1]) is False, second.stderr
    assert json.loads(second.stdout.splitlines()[-1])["tier"] == 1
