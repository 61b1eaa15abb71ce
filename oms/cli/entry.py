"""The process entry point: fast paths first, then the Typer app.

`oms --version` and `oms worker supervise` (the first process of every worker pane and its broker,
alive as long as the agent) are answered here without importing Typer, and so is the `--help` of
every command answered here (`cli/fast_help.py`). The hook and bridge entry points (`oms hook
provider`, `oms worker bridge`), which run inside a worker's sandbox as thin relays to its broker
(`cli/relay.py`, ADR 0012), dispatch here the same way, and so does `oms worker tree-job`, an
operation on an agent's worktree inside its own sandbox (`adapters/tree_work.py`, docs/adr/0024).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing's: every relay imports this module (docs/adr/0012)
if TYPE_CHECKING:
    from collections.abc import Sequence


FAST_HELP_HOOK = ["hook", "provider"]
FAST_HELP_WORKER = (
    ["worker", "bridge"],
    ["worker", "supervise"],
    ["worker", "netrelay"],
    ["worker", "tree-job"],
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run oms with `argv` (default: `sys.argv[1:]`) and return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        from oms.version import __version__

        sys.stdout.write(f"oms {__version__}\n")
        return 0
    if "--version" in args and set(args) <= {"--version", "--verbose", "--json"}:
        args = ["version", *(a for a in args if a != "--version")]  # `oms --version --verbose`
    if (args[:1] == ["hook"] and args[1:2] != ["provider"]) or (
        ("--help" in args or "-h" in args) and args[:2] in (FAST_HELP_HOOK, *FAST_HELP_WORKER)
    ):  # (the hook's own path imports nothing more)
        answered = _fast_help(args)
        if answered is not None:
            return answered
    if args[:2] == ["worker", "supervise"]:
        return _supervise(args[2:])
    if args[:2] == ["hook", "provider"]:
        from oms.cli.relay import hook

        return hook(args[2:])
    if args[:2] == ["worker", "bridge"]:
        from oms.cli.relay import bridge

        return bridge(args[2:])
    if args[:2] == [
        "worker",
        "netrelay",
    ]:  # inside a sandbox without a network: the agent's way to its model
        from oms.process.netrelay import main as netrelay

        return netrelay(args[2:])
    if args == ["worker", "tree-job"]:  # one operation on a worktree, in its own sandbox (ADR 0024)
        from oms.adapters.tree_work import main as tree_job

        return tree_job()
    from oms.cli.boundary import run_cli

    return run_cli(args)


def _fast_help(args: list[str]) -> int | None:
    """`--help` of a command answered here (without Typer), `oms hook` alone or with no known
    command; None: not a help request, run the command."""
    from oms.cli.fast_help import HOOK_GROUP, PAGES, asks_help

    if args[:2] == ["hook", "provider"] or args[:1] == ["worker"]:
        if not asks_help(args[2:]):
            return None
        sys.stdout.write(PAGES[tuple(args[:2])])
        return 0
    if args[1:] in (["--help"], ["-h"]):
        sys.stdout.write(HOOK_GROUP)
        return 0
    if not args[1:]:
        sys.stdout.write(HOOK_GROUP)
        return 2
    sys.stderr.write(f"oms: usage: no such command 'hook {args[1][:40]}' (see `oms hook --help`)\n")
    return 2


def _supervise(args: list[str]) -> int:
    """`oms worker supervise --dispatch-id D --state-root S` (written by delivery into the pane, not
    by hand): the agent's argv, environment and sandbox come from the launch spec delivery left in
    the state root."""
    usage = "oms: usage: oms worker supervise --dispatch-id D --state-root S\n"
    try:
        values = dict(zip(args[::2], args[1::2], strict=True))
    except ValueError:
        sys.stderr.write(usage)
        return 2
    if sorted(values) != ["--dispatch-id", "--state-root"] or len(args) != 4:
        sys.stderr.write(usage)
        return 2
    from oms.errors import OmsError, one_line
    from oms.services.supervisor.supervise import supervise

    try:
        return supervise(values["--state-root"], values["--dispatch-id"])
    except OmsError as exc:
        sys.stderr.write(f"oms: error: {exc.message}\n")
        return 1
    except Exception as exc:  # noqa: BLE001 - a bug (a late import failing): one line
        from oms.cli.exits import EXIT_INTERNAL

        sys.stderr.write(f"oms: internal error: {one_line(f'{type(exc).__name__}: {exc}')}\n")
        return EXIT_INTERNAL
