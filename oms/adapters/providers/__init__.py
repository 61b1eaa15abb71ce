"""Provider launch plans (ADR 0001): pure functions, a static registry."""

from __future__ import annotations

from oms.adapters.providers import claude, codex, command
from oms.adapters.providers.base import HomeFile, LaunchPlan, LaunchRequest
from oms.version import HOOK_CONTRACT

__all__ = ["HOOK_CONTRACT", "HomeFile", "LaunchPlan", "LaunchRequest", "claude", "codex", "command"]
