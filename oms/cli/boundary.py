"""The one error boundary: every exit code oms returns is decided here.

| code | meaning                                                            |
|------|--------------------------------------------------------------------|
| 0    | success                                                            |
| 1    | a domain error (`OmsError`): one line on stderr (JSON with --json) |
| 2    | usage: unknown command or option, bad argument                     |
| 3    | internal error (a bug): one line; the traceback only with --verbose|
|      | (also a conductor tick or run that went on past one: it says which)|
| 130  | interrupted (^C)                                                   |

`oms store verify` and `oms doctor` exit 1 when they find a problem.
"""

from __future__ import annotations

import json
import os
import select
import sys
import traceback
from collections.abc import Sequence

from oms.cli.exits import EXIT_DOMAIN, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from oms.cli.internal import InternalErrorsSeen
from oms.errors import OmsError, UsageError, one_line


def _wants_json(args: Sequence[str]) -> bool:
    return "--json" in args


def _verbose(args: Sequence[str]) -> bool:
    return "--verbose" in args or os.environ.get("OMS_VERBOSE") == "1"


def _report(args: Sequence[str], payload: dict[str, str], line: str) -> None:
    if _wants_json(args):
        sys.stdout.write(json.dumps({"ok": False, **payload}, sort_keys=True) + "\n")
    else:
        sys.stderr.write(line + "\n")


def _stdout_gone() -> bool:
    """Has the reader of our stdout gone (`oms status | head -1`)? A pipe whose reader closed polls
    POLLERR; a file, a terminal or a pipe still read do not."""
    try:
        poller = select.poll()
        poller.register(sys.__stdout__.fileno() if sys.__stdout__ else 1, select.POLLOUT)
        return any(event & select.POLLERR for _, event in poller.poll(0))
    except (OSError, ValueError):
        return True  # no stdout to speak of: nothing could be said there anyway


def run_cli(args: Sequence[str]) -> int:
    """Run the Typer app on `args`, mapping every outcome to an exit code."""
    import typer

    from oms.cli import app as apps

    completing = bool(os.environ.get(apps.COMPLETE_VAR))
    try:  # the app is chosen inside: a group's module failing to import is an error like any
        if completing:  # a completion script asks for the next words
            from typer._completion_classes import completion_init

            completion_init()
            runs = apps.app
        else:  # only the named command's module is imported, and only its tree built
            runs = apps.app_for(args)
        result = runs(args=list(args), prog_name="oms", standalone_mode=False)
    except KeyboardInterrupt:
        sys.stderr.write("oms: interrupted\n")
        return EXIT_INTERRUPTED
    except SystemExit as exc:
        if completing:  # a completion ends so once its words are written: its own exit code
            return exc.code if isinstance(exc.code, int) else EXIT_OK
        # Click ends any EPIPE so, silently: right only when our own reader left
        if _stdout_gone():
            return EXIT_DOMAIN
        message = "BrokenPipeError: a pipe oms wrote to closed early (not its output)"
        _report(args, {"error": "internal", "message": message}, f"oms: internal error: {message}")
        return EXIT_INTERNAL
    except typer.Exit as exc:
        return int(exc.exit_code)
    except typer.Abort:
        sys.stderr.write("oms: aborted\n")
        return EXIT_INTERRUPTED
    except InternalErrorsSeen as exc:
        if not _wants_json(args):
            sys.stderr.write(f"oms: internal error: {one_line(str(exc))}\n")
        return EXIT_INTERNAL
    except UsageError as exc:
        _report(args, exc.to_json(), f"oms: usage: {exc.message}")
        return EXIT_USAGE
    except OmsError as exc:
        text = exc.diagnostics().replace("\n", "\n  ")
        _report(args, exc.to_json(), f"oms: error: {text}")
        return EXIT_DOMAIN
    except typer.TyperException as exc:
        code = int(getattr(exc, "exit_code", EXIT_USAGE))
        if type(exc).__name__ == "NoArgsIsHelpError":
            sys.stdout.write(exc.format_message() + "\n")
            return EXIT_USAGE
        message = one_line(exc.format_message())
        _report(
            args,
            {"error": "usage", "message": message},
            f"oms: usage: {message} (see `oms --help`)",
        )
        return code if code else EXIT_USAGE
    # the boundary: anything else is a bug, reported in one line
    except Exception as exc:  # noqa: BLE001
        if _verbose(args):
            traceback.print_exc()
        message = one_line(f"{type(exc).__name__}: {exc}")
        _report(
            args,
            {"error": "internal", "message": message},
            f"oms: internal error: {message} (rerun with --verbose for the traceback)",
        )
        return EXIT_INTERNAL
    return result if isinstance(result, int) else EXIT_OK
