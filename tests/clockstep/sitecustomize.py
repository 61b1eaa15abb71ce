"""A wall clock stepped for one simulated host (`tests/hosts_rig.py`, ADR 0043 amendment `hosts3`).

A Python process whose `PYTHONPATH` starts with this directory imports this module as it starts
(`site`): `time.time` and `time.time_ns` — what oms's clock reads (`oms.canonical.now`) — add the
offset in seconds written in the file `OMS_RIG_CLOCK_FILE` names (re-read at most once a second, so
a step reaches a running process within a second). The monotonic clock is left alone, as a real
step of the wall clock leaves it. It is the test harness's, never oms's: oms has no such seam, and
a process started without the variable is untouched. Debian's libfaketime was tried first: its
0.9.10 hangs a Python thread's timed wait (`threading.Event.wait`: the lease keeper's), and with
`FAKETIME_DONT_FAKE_MONOTONIC` Python's `time.sleep` fails with EINVAL."""

from __future__ import annotations

import os
import time

_FILE = os.environ.get("OMS_RIG_CLOCK_FILE")

if _FILE:
    _path: str = _FILE
    _real_ns = time.time_ns
    _real_monotonic = time.monotonic
    _offset = [0]  # the offset in ns
    _read_at = [-2.0]  # when it was read (monotonic)

    def _offset_ns() -> int:
        now = _real_monotonic()
        if now - _read_at[0] >= 1.0:
            try:
                with open(_path) as file:
                    _offset[0] = int(float(file.read().strip() or "0") * 1_000_000_000)
            except (OSError, ValueError):
                pass
            _read_at[0] = now
        return _offset[0]

    def _time_ns() -> int:
        return _real_ns() + _offset_ns()

    def _time() -> float:
        return _time_ns() / 1_000_000_000

    time.time_ns = _time_ns
    time.time = _time
