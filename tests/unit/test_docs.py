"""The README's two commands are real: CI runs exactly README's test command, and both scripts
exist."""

from __future__ import annotations

import os
import re

from tests.helpers import REPO


def _readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert block is not None, "README must open with a sh block holding the two commands"
    return [line for line in block.group(1).splitlines() if line and not line.startswith("#")]


def test_readme_opens_with_two_commands() -> None:
    text = (REPO / "README.md").read_text()
    assert text.index("```sh") < 400, "the commands must be on the first screen"
    install, test = _readme_commands()
    # the installed binary runs the main job: run as written by tests/cli/test_install.py
    assert install == "./.ci/setup --install && ~/.local/bin/oms demo"
    assert test == "./.ci/test"


def test_ci_runs_exactly_the_readme_test_command() -> None:
    run = (REPO / ".ci" / "run").read_text().splitlines()
    _, test = _readme_commands()
    assert run[-1] == test
    assert "./.ci/setup" in run
    for script in ("run", "setup", "test"):
        assert os.access(REPO / ".ci" / script, os.X_OK)
