"""Layer 6 (adapters): the only place oms starts processes (ADR 0001; SECURITY.md invariant 4).

argv tuples only, never a shell; the environment is built from an allow-list (`env.child_env`), with
the user's `LD_LIBRARY_PATH` restored when frozen; every call has a timeout and an output cap.
"""

from __future__ import annotations

from oms.process.bounded import Bounded, run_bounded
from oms.process.env import child_env, is_frozen, oms_executable
from oms.process.runner import (
    Completed,
    Foreground,
    Pager,
    Started,
    Supervised,
    data_fd,
    end_own_group,
    kill_exact,
    kill_group,
    reap,
    run,
    running,
    start,
    start_detached,
    start_foreground,
    start_pager,
    stream,
    supervise,
    which,
)

__all__ = [
    "Bounded",
    "Completed",
    "Foreground",
    "Pager",
    "Started",
    "Supervised",
    "child_env",
    "data_fd",
    "end_own_group",
    "is_frozen",
    "kill_exact",
    "kill_group",
    "oms_executable",
    "reap",
    "run",
    "run_bounded",
    "running",
    "start",
    "start_detached",
    "start_foreground",
    "start_pager",
    "stream",
    "supervise",
    "which",
]
