"""The command lines the classifier reads as handrail's and the framework's own parsers read them."""

from __future__ import annotations

import re

import click
import pytest

from handrail.cli import cli
from handrail.policy.shell import cliverbs, precommit


def test_handrail_groups_are_the_clis_groups() -> None:
    """A group the classifier does not know would let `handrail NEWGROUP -- VERB` hide its verb."""
    groups = {name for name, command in cli.commands.items() if isinstance(command, click.Group)}
    assert groups == set(cliverbs.HANDRAIL_GROUPS)


def test_the_frameworks_commands_are_the_installed_frameworks(capsys: pytest.CaptureFixture[str]) -> None:
    """Every subcommand of the installed pre-commit is known, so that none passes for an option's value."""
    from pre_commit import main as framework

    with pytest.raises(SystemExit):
        framework.main(["--help"])
    listed = re.search(r"\{([a-z,-]+)\}", capsys.readouterr().out)
    assert listed is not None, "pre-commit --help lists no subcommands"
    assert set(listed.group(1).split(",")) == set(precommit.COMMANDS)
