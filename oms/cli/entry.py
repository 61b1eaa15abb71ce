"""The process entry point: fast paths first, then the Typer app.

`oms --version` is answered here without importing Typer, jsonschema or cryptography. The hook and
bridge entry points (`oms hook provider`, `oms worker bridge`) will dispatch here the same way.
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
    from oms.cli.boundary import run_cli

    return run_cli(args)
