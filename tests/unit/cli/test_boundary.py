"""The single error boundary: every outcome maps to the documented exit code, in one line."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import oms.cli.app as app_module
from oms.cli import boundary
from oms.cli.entry import main
from oms.errors import StateRootError, UsageError


@pytest.fixture(autouse=True)
def _whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app a test puts in place runs whole (some are plain functions, not a Typer)."""
    monkeypatch.setattr(app_module, "app_for", lambda _args: app_module.app)


def _explode(exc: BaseException) -> Callable[..., None]:
    def command(*args: object, **kwargs: object) -> None:
        raise exc

    return command


@pytest.mark.parametrize(
    ("exc", "code", "prefix"),
    [
        (StateRootError("state root /x is not initialised"), 1, "oms: error: state root /x"),
        (UsageError("give one of --a or --b"), 2, "oms: usage: give one of"),
        (RuntimeError("kaboom"), 3, "oms: internal error: RuntimeError: kaboom"),
        (KeyboardInterrupt(), 130, "oms: interrupted"),
    ],
)
def test_exit_codes(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    exc: BaseException,
    code: int,
    prefix: str,
) -> None:
    monkeypatch.setattr(app_module, "app", _explode(exc))
    assert boundary.run_cli(["anything"]) == code
    err = capsys.readouterr().err
    assert err.startswith(prefix)
    assert "Traceback" not in err


def test_internal_error_traceback_only_when_verbose(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(app_module, "app", _explode(RuntimeError("kaboom")))
    assert boundary.run_cli(["x", "--verbose"]) == 3
    assert "Traceback" in capsys.readouterr().err


def test_json_errors_go_to_stdout(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(app_module, "app", _explode(StateRootError("nope")))
    assert boundary.run_cli(["x", "--json"]) == 1
    out = capsys.readouterr()
    assert out.err == ""
    assert '"error": "state-root"' in out.out


def test_version_fast_path_does_not_import_typer(capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    loaded = {m: sys.modules.pop(m) for m in list(sys.modules) if m.split(".")[0] == "typer"}
    try:
        assert main(["--version"]) == 0
        assert capsys.readouterr().out == "oms 0.1.0\n"
        assert "typer" not in sys.modules
    finally:  # the next test's app and boundary share one typer, the one they imported
        sys.modules.update(loaded)


@pytest.mark.parametrize(
    "args",
    [
        ["worker", "supervise"],
        ["worker", "supervise", "--dispatch-id", "d"],
        ["worker", "supervise", "--dispatch-id", "d", "--state-root", "/s", "--"],
        ["worker", "supervise", "--dispatch-id", "d", "--state-root", "/s", "--", "true"],
        ["worker", "supervise", "--bogus", "x", "--state-root", "/s"],
    ],
)
def test_supervise_fast_path_usage(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    assert capsys.readouterr().err.startswith("oms: usage: oms worker supervise")


def test_supervise_without_a_launch_spec_records_why(tmp_path: pytest.TempPathFactory) -> None:
    import json
    from pathlib import Path

    from oms.canonical import now
    from oms.store import StateRoot

    state = Path(str(tmp_path)) / "state"
    StateRoot.create(str(state), now())[0].close()
    assert main(["worker", "supervise", "--dispatch-id", "dsp-1", "--state-root", str(state)]) == 1
    ended = json.loads((state / "panes" / "dsp-1.exit.json").read_text())
    assert ended["status"] == 1
    assert "could not start" in ended["detail"]


def test_a_broken_pipe_that_is_not_our_output_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Click turns every EPIPE into a silent exit 1; a pipe to a child that closed early is a bug to
    say (issue 26: `oms doctor` printed nothing, exit 1)."""
    import typer

    broken = typer.Typer()

    @broken.command()
    def feed() -> None:
        raise BrokenPipeError(32, "Broken pipe")

    @broken.command()
    def other() -> None:
        return None

    monkeypatch.setattr(app_module, "app", broken)
    assert boundary.run_cli(["feed"]) == 3
    assert capsys.readouterr().err.startswith("oms: internal error: BrokenPipeError")


def test_a_reader_that_left_ends_oms_quietly() -> None:
    """`oms ... | head -1`: the reader's leaving is no error to report (exit 1, nothing said)."""
    import subprocess
    import sys

    script = (
        "import sys, typer\n"
        "import oms.cli.app as a\n"
        "from oms.cli import boundary\n"
        "t = typer.Typer()\n"
        "@t.command()\n"
        "def many() -> None:\n"
        "    for _ in range(100000):\n"
        "        typer.echo('x' * 100)\n"
        "@t.command()\n"
        "def other() -> None:\n"
        "    pass\n"
        "a.app_for = lambda _args: t\n"
        "sys.exit(boundary.run_cli(['many']))\n"
    )
    pipe = subprocess.PIPE
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=pipe, stderr=pipe)
    assert proc.stdout is not None
    proc.stdout.read(10)
    proc.stdout.close()
    _, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (1, b"")
