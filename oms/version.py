"""The oms version, importable without anything else (used by the `--version` fast path)."""

from __future__ import annotations

__version__ = "0.1.0"

# The hook contract oms writes into each agent CLI's configuration; `oms hook provider
# --provider-version` is gated on it (here, so the hook's fast path reads it without importing the
# providers).
HOOK_CONTRACT = {"codex": "codex-0.171", "claude": "claude-2.1", "command": "command-1"}
