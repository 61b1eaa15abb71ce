"""A comments file is a regular file or refused at once (SECURITY.md "Review before merge"):
`oms result request-changes --comments` given a FIFO nobody writes, `/dev/zero` or a directory
answers in one line, without hanging or reading without end, and records nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.chain import Chain
from tests.helpers import OmsCommand


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "directory"])
def test_a_comment_file_that_is_not_a_file_is_refused(
    chain: Chain, oms: OmsCommand, tmp_path: Path, kind: str
) -> None:
    path = tmp_path / "comments"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path = Path(kind)
    log = (chain.state / "ledger" / "log").read_bytes()
    done = oms.run(
        "result", "request-changes", "tkt-1", "--comments", str(path), "--person", "Ada",
        "--yes", "--state-root", str(chain.state), "--config-root", str(chain.repo),
    )  # fmt: skip
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("oms: error: "), done.stderr
    assert len(done.stderr.splitlines()) <= 2
    assert (chain.state / "ledger" / "log").read_bytes() == log
