"""Provider launch plans (ADR 0001): pure functions, one module per provider, and `REGISTRY`, the
one table of them (each module's `PROVIDER`, keyed by its transport)."""

from __future__ import annotations

from oms.adapters.providers import claude, codex, codex_exec, command
from oms.adapters.providers.base import HomeFile, LaunchPlan, LaunchRequest, Provider
from oms.provider_names import HOOK_CONTRACT

REGISTRY: dict[str, Provider] = {
    p.transport: p for p in (codex.PROVIDER, claude.PROVIDER, command.PROVIDER, codex_exec.PROVIDER)
}

__all__ = [
    "HOOK_CONTRACT",
    "REGISTRY",
    "HomeFile",
    "LaunchPlan",
    "LaunchRequest",
    "Provider",
    "claude",
    "codex",
    "codex_exec",
    "command",
]
