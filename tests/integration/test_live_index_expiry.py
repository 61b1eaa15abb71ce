"""Attack on the live index (issue 26 item 4): a one-shot `oms conductor tick` (as from cron) no
longer walks every ticket to find expired leases — it reads the tickets the live index names
(`store/live.py`). A lease that ran out while no conductor ran must still be expired by the next
one-shot tick: on a state root whose index was built as it went, and on one made before the index
(its index removed)."""

from __future__ import annotations

import shutil

import pytest

from oms.services.chain import tickets
from oms.services.conductor import tick as conductor
from oms.store import live, summary
from tests.chain import Chain


def _one_shot(chain: Chain) -> conductor.Tick:
    """A tick in a new process: nothing kept from before (a fresh `Memory`, no summary cache)."""
    summary._CACHES.clear()
    with chain.workspace() as ws:
        return conductor.tick(ws)


@pytest.mark.parametrize("index", ["kept", "removed"])
def test_a_lease_that_ran_out_while_no_conductor_ran_is_expired(chain: Chain, index: str) -> None:
    with chain.workspace() as ws:
        for n in range(30):  # other tickets, open (the index names them too)
            tickets.add(ws, f"queued {n}", "body")
    ticket_id, _ = chain.leased_ticket()
    with chain.workspace() as ws:
        lease_minutes = ws.config().lease_minutes
    if index == "removed":
        shutil.rmtree(chain.state / live.TOP)
    chain.clock.advance(lease_minutes + 1)  # nobody ran a conductor meanwhile
    report = _one_shot(chain)
    expire = next(p for p in report.phases if p.name == "expire")
    assert any(line.startswith(f"{ticket_id}: lease expired") for line in expire.done), expire
    with chain.workspace() as ws:
        again = ws.store.records("ticket").read(ticket_id)
    assert again.state in ("open", "leased")  # expired (and the fill may lease it again)
    assert again.payload["attempt"] == 2
    assert (chain.state / live.TOP / "ticket" / live.COMPLETE).exists()


def test_one_shot_ticks_look_for_compaction_once_an_hour_like_a_long_lived_one(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Looking for tickets due for compaction walks every ended ticket (hundreds of ms at 10,000):
    a long-lived conductor looks once an hour; a one-shot tick from cron looked every tick."""
    from oms.services.admin import compaction

    looks: list[int] = []
    real = compaction.compact

    def counted(*args: object, **kwargs: object) -> compaction.Report:
        looks.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(compaction, "compact", counted)
    _one_shot(chain)
    _one_shot(chain)
    chain.clock.advance(30)
    _one_shot(chain)
    assert len(looks) == 1
    chain.clock.advance(31)
    _one_shot(chain)
    assert len(looks) == 2
