"""The oms version, importable without anything else (used by the `--version` fast path)."""

from __future__ import annotations

__version__ = "0.1.0"
