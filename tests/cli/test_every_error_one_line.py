"""Every error one line with its exit code (ADR 0007), found by a newcomer (issue 26 item 3): each
case a real `oms` process, and no internal error ever exits 0."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import OmsCommand

pytestmark = pytest.mark.cli


def _one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    """The error's line (a hint may follow it, indented); never a traceback."""
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stderr.splitlines()
    assert lines, "an error with nothing said"
    assert lines[0].startswith("oms: error: "), result.stderr
    assert all(line.startswith("  hint: ") for line in lines[1:]), result.stderr
    return lines[0]


def test_doctor_outside_a_repository_prints_its_fail_every_time(oms: OmsCommand, tmp_path: Path) -> None:
    """`git cat-file --batch` ended before oms closed its stdin: the BrokenPipeError became a silent
    exit 1 (Click's), 3 runs in 6."""
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    for run in range(20):
        result = oms.run("doctor", "--state-root", str(tmp_path / "state"), cwd=outside)
        assert result.returncode == 1, (run, result.stderr)
        config = [line for line in result.stdout.splitlines() if line.split()[:2] == ["FAIL", "config"]]
        assert len(config) == 1, (run, result.stdout, result.stderr)
        assert "is not a git repository" in config[0]
        assert "fix: fix " not in result.stdout  # a fix that says something
        assert result.stderr == ""
