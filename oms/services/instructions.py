"""What an executor is told: `.agents/agents/executor.md` of the config root, or oms's default text.

Kept apart from delivery so the bridge's `read_dispatch` can read it without importing the launcher.
"""

from __future__ import annotations

from oms.errors import ConfigError
from oms.services.workspace import Workspace

INSTRUCTIONS_PATH = ".agents/agents/executor.md"
ACTIVATION_TEXT = (
    "You are an oms worker. Call the read_dispatch tool of the oms_worker server, then acknowledge_dispatch, "
    "do the work in this worktree and commit it, then call record_dispatch_result with the commit."
)


def executor_instructions(ws: Workspace) -> str:
    """The executor instructions, flattened to one ASCII line (they go on the agent's command line)."""
    data = ws.repo.read_optional(INSTRUCTIONS_PATH, 16 * 1024)
    text = "" if data is None else data.decode("utf-8", "replace")
    flat = " ".join(text.split())
    if flat and not flat.isascii():
        raise ConfigError(f"{INSTRUCTIONS_PATH} must be ASCII (it is passed on the agent's command line)")
    return (flat or ACTIVATION_TEXT)[:4096]
