"""Attack on `oms result verify` (issue 14, ADR 0021: checks run with "bounded output and time"): the fresh
checkout the checks run in is a plain directory under the host's temporary directory, bound read-write
into the sandbox with no size limit (the sandbox's own /tmp and /var/tmp are capped at 1 GiB). Agent code
run as a check fills the host's disk (or RAM, where the host's /tmp is a tmpfs) at once: here 2 GiB in one
`fallocate`, with nothing stopping 100 GiB but the disk's size.

Found from outside (issue 14, round 1): a known limit (SECURITY.md), a strict xfail so that a fix is noticed."""

from __future__ import annotations

import shutil

import pytest

from oms.adapters.sandbox import TMP_BYTES
from oms.services import verify
from tests.chain import Chain
from tests.integration.test_finishing import _result

SIZE = 2 * TMP_BYTES

CHECKS = f"""
[verify]
commands = [["sh", "-c", "fallocate -l {SIZE} big && ls -l big"]]
timeout_seconds = 60
"""


@pytest.mark.xfail(
    strict=True, reason="known limit (SECURITY.md): no disk quota on a check's checkout, as on a worktree"
)
def test_a_check_cannot_write_more_into_its_checkout_than_its_tmp_may_hold(chain: Chain) -> None:
    if shutil.which("fallocate") is None:
        pytest.skip("no fallocate")
    bound = _result(chain, CHECKS)
    with chain.workspace() as ws:
        done = verify.verify(ws, bound.dispatch_id)
    (fill,) = done.ran
    assert fill.exit_code != 0, fill.output  # a bound like /tmp's: "No space left on device"
