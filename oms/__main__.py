"""`python -m oms` and the PyInstaller entry point."""

from __future__ import annotations

from oms.cli.entry import main

if __name__ == "__main__":
    raise SystemExit(main())
