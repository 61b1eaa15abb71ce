"""The exit codes of every oms command (ADR 0007), in a module that imports nothing: the error
boundary maps errors to them, and a command that ends on its own (Ctrl-C while following) uses
them too."""

from __future__ import annotations

EXIT_OK = 0
EXIT_DOMAIN = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130
