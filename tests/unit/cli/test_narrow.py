"""The Typer app narrowed to what argv names: the command that runs is the one registered, and only
its own level is built whole when a word is not a command (help, an option, a typo)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer._click import Command, Context  # the Click Typer carries (ADR 0006)
from typer.core import TyperGroup
from typer.main import get_command

import oms.cli.app as app_module
from oms.cli.app import GROUPS, app, app_for
from oms.cli.boundary import run_cli
from oms.cli.entry import main
from oms.cli.exits import EXIT_INTERNAL
from oms.cli.narrow import narrowed

FULL = get_command(app)


def _paths(command: Command, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    if isinstance(command, TyperGroup):
        for name, sub in command.commands.items():
            yield from _paths(sub, (*path, name))
    else:
        yield path


def _at(command: Command, path: tuple[str, ...]) -> Command:
    for name in path:
        assert isinstance(command, TyperGroup)
        command = command.commands[name]
    return command


def _info(command: Command, path: tuple[str, ...]) -> tuple[object, ...]:
    """What a run of `command` depends on: its parameters as parsed, and its help as shown."""
    with Context(command, info_name=path[-1] if path else "oms") as ctx:
        params = [
            (type(p).__name__, p.name, p.opts, p.secondary_opts, repr(p.type), p.required)
            + (repr(p.default), p.nargs, p.multiple, p.is_eager, p.expose_value)
            for p in command.params
        ]
        return params, command.get_help(ctx), command.hidden, command.no_args_is_help


PATHS = sorted(_paths(FULL))


def test_every_command_is_reached() -> None:
    assert len(PATHS) > 60
    assert ("worker", "deliver") in PATHS
    assert ("status",) in PATHS


@pytest.mark.parametrize("path", PATHS, ids=" ".join)
def test_a_narrowed_command_is_the_registered_one_and_nothing_beside_it(
    path: tuple[str, ...],
) -> None:
    narrow = get_command(narrowed(app, [*path, "--json"]))
    assert _info(_at(narrow, path), path) == _info(_at(FULL, path), path)
    level: Command = narrow
    for name in path:  # each level holds only the word argv named
        assert isinstance(level, TyperGroup)
        assert list(level.commands) == [name]
        level = level.commands[name]
    assert _info(narrow, ())[0] == _info(FULL, ())[0]  # the root's own options, as they were


@pytest.mark.parametrize("path", PATHS, ids=" ".join)
def test_the_app_a_run_gets_holds_its_command_as_the_whole_app_does(path: tuple[str, ...]) -> None:
    runs = get_command(app_for([*path, "--json"]))
    assert _info(_at(runs, path), path) == _info(_at(FULL, path), path)
    assert list(runs.commands) == [path[0]]  # type: ignore[attr-defined]


def test_a_run_imports_the_module_of_its_own_group_alone() -> None:
    """Every other group's module stays unimported: a command's start pays for its own."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from oms.cli.app import app_for\n"
        "app_for(sys.argv[1:])\n"
        "print(' '.join(sorted(m for m in sys.modules if m.endswith('_cmds'))))\n"
    )

    def loaded(*args: str) -> str:
        run = [sys.executable, "-c", script, *args]
        return subprocess.run(run, capture_output=True, text=True, check=True).stdout.strip()

    assert loaded("worker", "deliver") == "oms.cli.worker_cmds"
    assert loaded("provider", "show") == "oms.cli.route_cmds"
    assert loaded("status", "--json") == ""
    every = {f"oms.cli.{module}" for _, module, _ in GROUPS}
    assert set(loaded("--help").split()) == every  # the root's help lists every group


@pytest.mark.parametrize(
    "args",
    [[], ["--help"], ["--verbose", "worker", "deliver"], ["wroker", "deliver"], ["-h"]],
)
def test_a_word_that_is_no_command_keeps_the_whole_app(args: list[str]) -> None:
    assert narrowed(app, args) is app


@pytest.mark.parametrize("word", ["--help", "delivr", "--json"])
def test_a_group_is_built_whole_when_its_next_word_is_no_command(word: str) -> None:
    narrow = get_command(narrowed(app, ["worker", word]))
    assert isinstance(narrow, TyperGroup)
    assert list(narrow.commands) == ["worker"]
    assert _info(narrow.commands["worker"], ("worker",)) == _info(
        _at(FULL, ("worker",)), ("worker",)
    )


def test_the_whole_app_is_left_as_it_was() -> None:
    narrowed(app, ["worker", "deliver"])
    assert sorted(_paths(get_command(app))) == PATHS


def test_help_and_a_typo_read_as_they_did(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "worker" in capsys.readouterr().out  # the root's help lists every group
    assert main(["worker", "--help"]) == 0
    out = capsys.readouterr().out
    assert "deliver" in out
    assert "observe" in out
    assert main(["worker", "delivr"]) == 2
    assert "No such command 'delivr'" in capsys.readouterr().err


def test_an_app_without_a_callback_keeps_its_commands_a_group() -> None:
    """Typer builds an app of one command and no callback as that command alone: argv's first word
    would then be read as its argument, so such an app is never narrowed to one command."""
    import typer

    plain = typer.Typer()

    @plain.command()
    def feed() -> None:
        return None

    @plain.command()
    def other() -> None:
        return None

    assert narrowed(plain, ["feed"]) is plain


def _recording(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command and callback of the app prints what it was called with, and does nothing."""
    import functools

    from typer.models import CommandInfo, TyperInfo

    def record(callback: Callable[..., object]) -> Callable[..., None]:
        @functools.wraps(callback)  # the same signature: Typer builds the same options from it
        def ran(**kwargs: object) -> None:
            print("ran", callback.__name__, sorted((k, repr(v)) for k, v in kwargs.items()))

        return ran

    def each(typer_app: typer.Typer) -> Iterator[CommandInfo | TyperInfo]:
        yield from typer_app.registered_commands
        if typer_app.registered_callback is not None:
            yield typer_app.registered_callback
        for group in typer_app.registered_groups:
            if group.typer_instance is not None:
                yield from each(group.typer_instance)

    for info in each(app):
        if callable(info.callback):
            monkeypatch.setattr(info, "callback", record(info.callback))


WORDS = sorted(
    {name for path in PATHS for name in path}
    | {"--help", "-h", "--json", "--", "--verbose", "--version", "--state-root", "--reason"}
    | {"-x", "lst", "wroker", "tkt-1", "bash", "ticket", "r"}
)


@settings(max_examples=40)
@given(
    path=st.sampled_from(PATHS),
    words=st.lists(st.sampled_from(WORDS), max_size=4),
    at=st.integers(min_value=0, max_value=6),
    cut=st.integers(min_value=0, max_value=3),
)
def test_a_narrowed_run_reads_as_the_whole_app_does(
    path: tuple[str, ...], words: list[str], at: int, cut: int
) -> None:
    """Any argv (a command's path, cut short or not, with words put anywhere: help, options, `--`,
    typos, other commands' names) runs alike through the narrowed app and the whole one: the same
    exit code, stdout and stderr, and the same command called with the same values."""
    args = [*path[: max(len(path) - cut, 1)], *words]
    if words:  # one word put anywhere too: before the command, between a group and its command
        args.insert(min(at, len(args)), words[0])
    with pytest.MonkeyPatch.context() as monkeypatch:
        _recording(monkeypatch)
        monkeypatch.setenv("OMS_STATE_ROOT", "/nonexistent/state")
        monkeypatch.setenv("OMS_CONFIG_ROOT", "/nonexistent/repo")
        monkeypatch.delenv("_OMS_COMPLETE", raising=False)
        narrow = _run(args)
        monkeypatch.setattr(app_module, "app_for", lambda _args: app)
        whole = _run(args)
    assert narrow == whole


def _run(args: list[str]) -> tuple[int, str, str]:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run_cli(args)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("args", [["ticket", "list"], ["ticket", "list", "--json"], ["--help"]])
def test_a_group_that_fails_to_import_is_one_line(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A group's module imports as its command runs (a frozen build without it, a bug in it): the
    failure is the boundary's internal error in one line (JSON with --json), never a traceback."""
    import sys

    monkeypatch.setitem(sys.modules, "oms.cli.ticket_cmds", None)  # its import fails
    assert main(args) == EXIT_INTERNAL
    out, err = capsys.readouterr()
    said = out if "--json" in args else err
    assert "ModuleNotFoundError" in said
    assert "Traceback" not in out + err
    assert len(said.strip().splitlines()) == 1
