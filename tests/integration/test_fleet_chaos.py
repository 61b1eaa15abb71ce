"""The fleet chaos test (issue 24 item 7), one CI-sized run of `tests/chaos.py`.

8 workers — the scripted stand-in for Claude Code (`tests/chaos_agent.py`: launched by oms as
Claude Code is, its model traffic only through the real model proxy and its dispatch's door, a
runaway that asks on after its result and after every refusal) — work 12 tickets against a
scripted upstream (the loopback model mock), under a real `oms conductor run`, while a seeded RNG
SIGKILLs the proxy, the conductor, a worker's broker and the tmux server, lapses leases, cancels
attempts and starts 429 storms for `SECONDS`. At the end: 0 duplicate launches, 0 lost results,
0 requests forwarded that were sent after their attempt ended or was fenced (counted at the
upstream against the records), no dispatch billed more than its budget and one answer, every
ticket done or waiting for a person with a reason, nothing left running but parked workers, and
`oms audit verify` clean. The seed is printed; `bench/fleet_chaos_bench.py --seed N` runs the
same schedule longer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chaos import ChaosFleet, prepare, run

SEED = 24
SECONDS = 45.0  # the chaos phase; the whole test takes about two minutes on a loaded 2-core machine
SETTLE_S = 90.0


@pytest.fixture
def chaos(tmp_path: Path) -> Iterator[ChaosFleet]:
    yield from prepare(tmp_path / "fleet", tickets_n=12, max_workers=8, seed=SEED)


@pytest.mark.slow
def test_a_fleet_under_chaos_loses_nothing_and_pays_for_no_ended_attempt(chaos: ChaosFleet) -> None:
    print(f"\nseed: {SEED}")
    outcome = run(chaos, seed=SEED, seconds=SECONDS, gap=2.0, settle_s=SETTLE_S)
    print(json.dumps(outcome.to_json(), sort_keys=True))
    assert sum(outcome.actions.values()) >= 5, f"too little chaos happened: {outcome.actions}"
    assert outcome.forwarded > 0
    assert outcome.launches > 0
    assert not outcome.bad(), "\n".join([f"seed {SEED}", *outcome.bad(), *chaos.log])
