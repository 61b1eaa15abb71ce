"""What an executor is told: `.agents/agents/executor.md` as committed at HEAD of the config root,
or oms's default text (`services/workspace/committed.py`; its digest is part of every dispatch's
intent).

Kept apart from delivery so the bridge's `read_dispatch` can read it without importing the launcher.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oms.canonical import equal, sha256_hex
from oms.errors import AuthorityChangedError
from oms.services.workspace import Workspace
from oms.services.workspace.committed import (
    ACTIVATION_TEXT,
    INSTRUCTIONS_PATH,
    committed_instructions,
)

if TYPE_CHECKING:
    from oms.schemas.payloads import DispatchPayload

__all__ = ["ACTIVATION_TEXT", "INSTRUCTIONS_PATH", "approved_instructions", "executor_instructions"]


def executor_instructions(ws: Workspace) -> str:
    """The executor instructions committed at HEAD, flattened to one ASCII line."""
    return committed_instructions(ws.config_root, ws.head())


def approved_instructions(ws: Workspace, dispatch: DispatchPayload) -> str:
    """The instructions an agent is given: read once, and only if they are the ones the dispatch's
    intent approved (`instructions_sha256`); a commit after approval is refused where it would reach
    the agent (a bridge call is an operation of its own: HEAD is read again for it)."""
    ws.next_operation()
    text = executor_instructions(ws)
    if not equal(sha256_hex(text.encode("ascii")), dispatch["instructions_sha256"]):
        raise AuthorityChangedError(
            f"the executor instructions ({INSTRUCTIONS_PATH}) "
            f"changed since the dispatch was approved",
            hint="revert them, or propose and review a new dispatch",
        )
    return text
