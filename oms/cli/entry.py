"""The process entry point: fast paths first, then the Typer app.

`oms --version` and `oms worker supervise` (the first process of every worker pane, alive as long as
the agent) are answered here without importing Typer. The hook and bridge entry points
(`oms hook provider`, `oms worker bridge`) dispatch here the same way.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run oms with `argv` (default: `sys.argv[1:]`) and return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        from oms.version import __version__

        sys.stdout.write(f"oms {__version__}\n")
        return 0
    if args[:2] == ["worker", "supervise"]:
        return _supervise(args[2:])
    if args[:2] == ["hook", "provider"]:
        from oms.services.hooks import main as hook_main

        return hook_main(args[2:])
    if args[:2] == ["worker", "bridge"]:
        from oms.services.bridge import serve

        return serve(args[2:])
    from oms.cli.boundary import run_cli

    return run_cli(args)


def _supervise(args: list[str]) -> int:
    """`oms worker supervise --dispatch-id D --state-root S -- ARGV...` (written by delivery, not by hand)."""
    try:
        split = args.index("--")
        opts, argv = args[:split], args[split + 1 :]
        values = dict(zip(opts[::2], opts[1::2], strict=True))
    except ValueError:
        sys.stderr.write("oms: usage: oms worker supervise --dispatch-id D --state-root S -- ARGV...\n")
        return 2
    if sorted(values) != ["--dispatch-id", "--state-root"] or not argv:
        sys.stderr.write("oms: usage: oms worker supervise --dispatch-id D --state-root S -- ARGV...\n")
        return 2
    from oms.errors import OmsError
    from oms.services.supervise import supervise

    try:
        return supervise(values["--state-root"], values["--dispatch-id"], argv)
    except OmsError as exc:
        sys.stderr.write(f"oms: error: {exc.message}\n")
        return 1
