"""What HEAD holds of what runs (the configuration, the executor instructions, the role policy) is
read once per operation — a conductor tick, and each launch's authority check in it — and every
check of that operation takes that one value (`Workspace.head`), never a read of its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.adapters import git
from oms.domain.config import CONFIG_PATH
from oms.services.chain import authority
from oms.store import Record
from tests.fleet import Fleet, make_fleet


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    yield from make_fleet(tmp_path / "fleet", max_workers=1)


def test_a_tick_reads_head_once_and_once_per_authority_check(
    fleet: Fleet, monkeypatch: pytest.MonkeyPatch
) -> None:
    fleet.add("Add a CHANGELOG line")
    reads: list[tuple[str, ...]] = []
    checks: list[str] = []
    blobs, intent = git.committed_blobs, authority.check_intent

    def counted_blobs(repo: str, paths: tuple[str, ...], rev: str = "HEAD") -> object:
        if CONFIG_PATH in paths or any(p.startswith(".oms/") for p in paths):
            reads.append(paths)
        return blobs(repo, paths, rev)

    def counted_check(dispatch: Record) -> str:  # asked first by every authority check
        checks.append(dispatch.record_id)
        return intent(dispatch)

    monkeypatch.setattr(git, "committed_blobs", counted_blobs)
    monkeypatch.setattr(authority, "check_intent", counted_check)
    report = fleet.tick()  # lease, propose, review, accept and launch: all in this one tick
    done = [line for phase in report.phases for line in phase.done]
    assert not report.internal, report
    assert any("launched" in line or "delivered" in line for line in done), done
    assert checks, "the tick ran no authority check"
    # opening the workspace reads `[store] backend` alone (ADR 0043: refused unless served on etcd),
    # never a value a check takes; then the tick once, and each authority check once
    assert reads[0] == (CONFIG_PATH,), reads
    assert len(reads[1:]) == 1 + len(checks), (reads, checks)
