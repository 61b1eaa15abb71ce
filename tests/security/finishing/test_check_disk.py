"""Attack on `oms result verify` (issue 14, ADR 0021: checks run with "bounded output and time"):
the fresh checkout the checks run in is a plain directory under the host's temporary directory,
bound read-write into the sandbox. Agent code run as a check fills the host's disk (or RAM, where
the host's /tmp is a tmpfs) at once: here 2 GiB, in one `fallocate` or in four files of 512 MiB.

Found from outside (issue 14, round 1), a known limit until issue 23 (ADR 0025): no file a check
writes may be larger than `[limits] file_bytes` (RLIMIT_FSIZE: the one `fallocate` fails), and its
checkout is measured against `disk_bytes` while it runs and once it ended (the four files: the check
fails with `limit: disk`). This test's config sets both to the bound of the sandbox's own /tmp (1
GiB)."""

from __future__ import annotations

import shutil

import pytest

from oms.limits import LIMITS
from oms.services.finishing import verify
from tests.chain import Chain
from tests.integration.test_finishing import _result

SIZE = 2 * LIMITS.sandbox_tmp_bytes
QUARTER = SIZE // 4

CONFIG_LIMITS = f"""
[limits]
disk_bytes = {LIMITS.sandbox_tmp_bytes}
file_bytes = {LIMITS.sandbox_tmp_bytes}
"""
FILLS = {
    "one file": f"fallocate -l {SIZE} big && ls -l big",
    "four files": f"for i in 1 2 3 4; do fallocate -l {QUARTER} part$i || exit 1; done; ls -l",
}


@pytest.mark.parametrize("fill", sorted(FILLS))
def test_a_check_cannot_write_more_into_its_checkout_than_its_tmp_may_hold(
    chain: Chain,
    fill: str,
) -> None:
    if shutil.which("fallocate") is None:
        pytest.skip("no fallocate")
    checks = f"""
[verify]
commands = [["sh", "-c", "{FILLS[fill]}"]]
timeout_seconds = 60
{CONFIG_LIMITS}"""
    bound = _result(chain, checks)
    with chain.workspace() as ws:
        done = verify.verify(ws, bound.dispatch_id)
    (ran,) = done.ran
    assert not done.passed, ran.output
    assert ran.exit_code != 0 or ran.limit == "disk", (ran.exit_code, ran.limit, ran.output)
    assert ran.evidence().get("limit") == ran.limit
