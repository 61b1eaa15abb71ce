"""Every error one line with its exit code (ADR 0007), found by a newcomer (issue 26 item 3): each
case a real `oms` process, and no internal error ever exits 0."""

from __future__ import annotations

import json
import subprocess
import sys
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


def test_doctor_outside_a_repository_prints_its_fail_every_time(
    oms: OmsCommand, tmp_path: Path
) -> None:
    """`git cat-file --batch` ended before oms closed its stdin: the BrokenPipeError became a silent
    exit 1 (Click's), 3 runs in 6."""
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    for run in range(20):
        result = oms.run("doctor", "--state-root", str(tmp_path / "state"), cwd=outside)
        assert result.returncode == 1, (run, result.stderr)
        config = [
            line for line in result.stdout.splitlines() if line.split()[:2] == ["FAIL", "config"]
        ]
        assert len(config) == 1, (run, result.stdout, result.stderr)
        assert "is not a git repository" in config[0]
        assert "fix: fix " not in result.stdout  # a fix that says something
        assert result.stderr == ""


INJECT = """
import sys
from oms.services.conductor import work as conductor_work
from oms.cli.entry import main

def fill(*args, **kwargs):
    raise BrokenPipeError(32, "Broken pipe")

conductor_work.fill = fill
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture
def initialised(oms: OmsCommand, tmp_path: Path) -> tuple[Path, Path]:
    """(repository, state root), committed."""
    repo, state = tmp_path / "repo", tmp_path / "state"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    git = ("git", "-C", str(repo))
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "start"], check=True)
    done = oms.run("init", "--state-root", str(state), cwd=repo)
    assert done.returncode == 0, done.stderr
    subprocess.run([*git, "add", ".oms"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "oms"], check=True)
    return repo, state


@pytest.mark.parametrize("command", [("tick",), ("tick", "--json"), ("run", "--ticks", "2")])
def test_no_internal_error_exits_0(
    oms: OmsCommand, initialised: tuple[Path, Path], tmp_path: Path, command: tuple[str, ...]
) -> None:
    """A phase an unexpected error stops is one line and the tick goes on; the command then exits 3
    (it said 'internal error: BrokenPipeError' and exited 0)."""
    if oms.frozen:
        pytest.skip("a fault injected into the source (the frozen binary runs its own)")
    repo, state = initialised
    script = tmp_path / "inject.py"
    script.write_text(INJECT)
    argv = ("conductor", *command, "--state-root", str(state), "--interval", "1")
    argv = argv if command[0] == "run" else argv[:-2]
    done = subprocess.run(
        [sys.executable, str(script), *argv],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert "Traceback" not in done.stdout + done.stderr
    if "--json" in command:
        report = json.loads(done.stdout)
        assert report["ok"] is False
        line = "fill: internal error: BrokenPipeError: [Errno 32] Broken pipe"
        assert report["internal_errors"] == [line]
        assert done.stderr == ""
        return
    shown = "fill: skipped the phase stopped: internal error: BrokenPipeError"
    assert sum(shown in line for line in done.stdout.splitlines()) == (2 if "run" in command else 1)
    assert done.stderr.startswith("oms: internal error: fill: internal error: BrokenPipeError")
    assert len(done.stderr.splitlines()) == 1


def _hint(result: subprocess.CompletedProcess[str]) -> str:
    """The hint line's text."""
    lines = [line for line in result.stderr.splitlines() if line.startswith("  hint: ")]
    assert len(lines) == 1, result.stderr
    return lines[0].removeprefix("  hint: ")


def test_a_body_that_is_not_utf8_is_exit_1_with_its_reason(
    oms: OmsCommand, initialised: tuple[Path, Path]
) -> None:
    """`printf 'ok \\xff' | oms ticket add --title x` exited 3 (internal error:
    UnicodeDecodeError); its hint's command then works."""
    repo, state = initialised
    roots = ("--state-root", str(state))
    stdin = subprocess.run(
        [*oms.argv, "ticket", "add", "--title", "x", *roots],
        input=b"ok \xff",
        capture_output=True,
        cwd=repo,
        check=False,
    )
    result = subprocess.CompletedProcess(
        stdin.args, stdin.returncode, stdin.stdout.decode(), stdin.stderr.decode()
    )
    assert result.returncode == 1
    line = _one_line_error(result)
    assert line == "oms: error: the ticket's body from stdin is not UTF-8 (byte 0xff at offset 3)"
    assert "nothing was recorded" in _hint(result)
    assert "tkt-" not in oms.run("ticket", "list", *roots, cwd=repo).stdout
    converted = subprocess.run(
        ["sh", "-c", 'printf "ok \\377" | iconv -f latin1 -t utf-8 | "$@"', "sh", *oms.argv]
        + ["ticket", "add", "--title", "x", *roots],
        capture_output=True,
        text=True,
        cwd=repo,
        check=False,
    )
    assert converted.returncode == 0, converted.stderr
    assert "ok \u00ff" in oms.run("ticket", "show", "tkt-1", *roots, cwd=repo).stdout
    for option in ("--title", "--body"):
        argv = [*oms.argv, "ticket", "add", "--title", "x", "--body", "y", *roots]
        argv[argv.index(option) + 1] = "x\udcff"  # Python's argv for a byte 0xff
        raw = [a.encode("utf-8", "surrogateescape") for a in argv]
        done = subprocess.run(raw, capture_output=True, cwd=repo, check=False)
        assert done.returncode == 1, done.stderr
        assert done.stderr.decode().startswith(f"oms: error: {option} is not UTF-8 (byte 0xff")
