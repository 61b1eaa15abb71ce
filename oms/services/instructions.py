"""What an executor is told: `.agents/agents/executor.md` as committed at HEAD of the config root, or oms's
default text (`services/committed.py`; its digest is part of every dispatch's intent).

Kept apart from delivery so the bridge's `read_dispatch` can read it without importing the launcher.
"""

from __future__ import annotations

from oms.services.committed import ACTIVATION_TEXT, INSTRUCTIONS_PATH, committed_instructions
from oms.services.workspace import Workspace

__all__ = ["ACTIVATION_TEXT", "INSTRUCTIONS_PATH", "executor_instructions"]


def executor_instructions(ws: Workspace) -> str:
    """The executor instructions committed at HEAD, flattened to one ASCII line."""
    return committed_instructions(ws.config_root)
