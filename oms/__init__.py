"""oms: the security-hardened kernel that lets a fleet of coding agents work on tickets untrusted.

Layers (docs/architecture.md "Layers", ADR 0001), each a subpackage, imports going downward only:
`cli` > `services` > `adapters` > `process` > `domain` > `store` > `schemas` > `canonical` > `fsio`,
with `errors`, `limits` and `version` at the bottom. The import-linter contract in pyproject.toml
enforces the order.
"""

from __future__ import annotations

from oms.version import __version__

__all__ = ["__version__"]
