"""PyInstaller entry script: the frozen `oms` starts here."""

from oms.cli.entry import main

raise SystemExit(main())
