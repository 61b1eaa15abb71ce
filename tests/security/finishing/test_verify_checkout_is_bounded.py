"""Issue 23, attacked from outside: `oms result verify` writes the tree it checks into a fresh
checkout on the host before any check runs, and nothing bounded what that checkout may hold. A
worker's disk bound counts a hard link once (ADR 0025) and git stores identical content once, so
one file and its hard links — a few MiB in the worktree, one blob in the result commit — became
every copy's bytes on the host's disk (or RAM, where /tmp is a tmpfs) when verify checked it out:
here 16 copies of 4 MiB against a disk bound of 32 MiB; 40 links to a 256 MiB file would write
10 GiB. The check's own disk guard only measured the checkout once a check ran in it, after the
host had written it all. The tree's size is now read at object level first, and a tree larger
than `[limits] disk_bytes` (or with more entries than can be listed) is refused before anything is
written. This test failed before (64 MiB were written against the 32 MiB bound)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oms.adapters import git_finish
from oms.errors import OmsError
from oms.services.finishing import verify
from tests.agent_side import BoundTools, bind
from tests.chain import Chain

MIB = 1024 * 1024
CHECKS = f"""
[verify]
commands = [["true"]]
timeout_seconds = 60

[limits]
disk_bytes = {32 * MIB}
file_bytes = {8 * MIB}
"""


def _written(path: str) -> int:
    total = 0
    for top, _dirs, files in os.walk(path):
        for name in files:
            total += os.lstat(os.path.join(top, name)).st_size
    return total


def test_verify_never_checks_out_more_than_the_disk_bound(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    chain.edit_config(lambda s: s + CHECKS, commit=True)
    bound = bind(chain)
    tools = BoundTools(bound)
    try:
        assert tools.call("acknowledge_dispatch", {})[1] is False
        one = bound.worktree / "blob-0"
        one.write_bytes(os.urandom(4 * MIB))  # 4 MiB on the worktree's disk, however many links
        for n in range(1, 16):
            os.link(one, bound.worktree / f"blob-{n}")
        out, is_error = tools.call(
            "record_dispatch_result", {"status": "completed", "summary": "x"}
        )
        assert is_error is False, out  # within the worker's bounds: one file of 4 MiB on disk
    finally:
        tools.close()

    written: list[int] = []
    real = git_finish.checkout_tree

    def measured(repo: str, tree: str, dest: str, *bound: int) -> None:
        try:
            real(repo, tree, dest, *bound)
        finally:
            written.append(_written(dest))

    monkeypatch.setattr(git_finish, "checkout_tree", measured)
    with chain.workspace() as ws:
        try:
            done = verify.verify(ws, bound.dispatch_id)
        except OmsError as exc:
            assert "disk_bytes" in exc.message, exc.message
        else:
            assert not done.passed
    assert all(n <= 32 * MIB for n in written), f"the host wrote {written} bytes"  # before: 64 MiB
    assert not any(Path("/tmp").glob("oms-verify-*/blob-0"))  # nothing of it was left either
