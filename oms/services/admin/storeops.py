"""`oms store verify` and `oms store sweep`."""

from __future__ import annotations

from oms.store.verify import Report, sweep, verify


def verify_state(state_root: str) -> Report:
    """Walk the state root and report every problem."""
    return verify(state_root)


def sweep_state(state_root: str) -> list[str]:
    """Remove debris left by dead processes; returns what was removed."""
    return sweep(state_root)
