"""Attack on `oms result verify`'s sandbox (ADR 0021: "a cleared environment", "no home"): the check
sandbox does not hide `/proc/1` as the worker sandbox does (`sandbox.bwrap_args`: "out of the
agent's reach"). Its PID 1 is bubblewrap's own init, which kept oms's environment and argv: a check
reads the host user's HOME and PATH (the user's home layout, toolchain locations) and bubblewrap's
whole command line (the host path of the checkout, every `show` directory).

Found from outside (issue 14, round 1); it failed before its fix."""

from __future__ import annotations

import os

from oms.services.finishing import verify
from tests.chain import Chain
from tests.integration.test_finishing import _result

CHECKS = """
[verify]
commands = [["sh", "-c", "tr '\\\\0' '\\\\n' < /proc/1/environ; tr '\\\\0' ' ' < /proc/1/cmdline"]]
timeout_seconds = 20
"""


def test_checks_cannot_read_the_environment_oms_runs_with(chain: Chain) -> None:
    home = os.environ.get("HOME", "")
    assert home
    bound = _result(chain, CHECKS)
    with chain.workspace() as ws:
        done = verify.verify(ws, bound.dispatch_id)
    (probe,) = done.ran
    assert f"HOME={home}".encode() not in probe.output, probe.output
    assert b"--bind" not in probe.output, (
        probe.output
    )  # bubblewrap's argv, with the checkout's host path
