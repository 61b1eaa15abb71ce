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


MARKDOWN_WIDTH = 100  # as ruff holds the code (issue 25 item 5)
_ITEM = re.compile(r"\s*(?:[-*+]|\d+[.)]|>)?\s*")


_NOT_OURS = {".venv", "node", "node_modules", "dist"}  # installed by .ci/setup, or built


def _markdown_files() -> list[str]:
    tops = [REPO / "README.md", REPO / "SECURITY.md"]
    found = [p for p in tops if p.is_file()]
    for folder in ("docs", "bench", "policy", "schemas", "tests", "oms", "build", ".ci"):
        found.extend(
            p for p in sorted((REPO / folder).rglob("*.md")) if not set(p.parts) & _NOT_OURS
        )
    generated = {"docs/cli.md"}  # written by build/gen_cli_docs.py from each command's help
    return [rel for p in found if (rel := p.relative_to(REPO).as_posix()) not in generated]


def _too_long(text: str) -> list[tuple[int, str]]:
    """The lines over the width outside fenced code and tables, but for a line that is one token
    (a test's node id, a URL): nothing could break it."""
    long, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        bare = line.lstrip()
        if bare.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or bare.startswith("|") or len(line) <= MARKDOWN_WIDTH:
            continue
        if " " not in line[_ITEM.match(line).end() :].strip():  # type: ignore[union-attr]
            continue
        long.append((number, line))
    return long


def test_markdown_lines_fit_in_100_characters() -> None:
    found = [
        f"{rel}:{number}: {line[:60]}…"
        for rel in _markdown_files()
        for number, line in _too_long((REPO / rel).read_text(encoding="utf-8"))
    ]
    assert not found, (
        f"{len(found)} markdown lines over {MARKDOWN_WIDTH} characters:\n" + "\n".join(found[:20])
    )


def test_the_markdown_width_check_sees_what_it_must() -> None:
    long = "word " * 30
    text = f"# t\n{long}\n- {long}\n| {long} |\n```\n{long}\n```\n- `{'x' * 120}`\n"
    assert [n for n, _ in _too_long(text)] == [2, 3]
