"""Recovery (a dispatch advanced past `accepted` whose delivery has no receipt: the deliverer died
after launching) answers only with the dispatch's own session and worker: a record bound to another
dispatch is refused in one line, and nothing is launched or written."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from oms.canonical import next_after
from oms.errors import AuthorityChangedError
from oms.services.chain.liveness import CONSUMER
from oms.services.delivery.service import Delivery
from oms.store import Record
from oms.store.panefiles import PANES_DIR
from tests.agent_side import BoundTools, bind
from tests.chain import Chain, use_worker
from tests.integration.test_delivery import _deliver, _wait_for

OTHER = "dsp-00000000000000000000000000000000"


def _advanced_without_receipt(chain: Chain) -> tuple[str, str]:
    """(dispatch id, event id): delivered, acknowledged, and its receipt gone (a deliverer that died
    after the launch, before committing it)."""
    out = use_worker(chain)
    bound = bind(chain)
    _deliver(chain, bound.event_id)
    _wait_for(out)
    tools = BoundTools(bound)
    assert tools.call("acknowledge_dispatch", {})[1] is False
    tools.close()
    (chain.state / "outbox" / CONSUMER / f"{bound.event_id}.receipt.json").unlink()
    return bound.dispatch_id, bound.event_id


def _rebind(chain: Chain, kind: str, record_id: str) -> None:
    """A new version of the record naming another dispatch (what a damaged or forged store would
    hold)."""
    with chain.workspace() as ws:
        records = ws.store.records(kind)
        rec: Record = records.read(record_id)
        records.transition(
            record_id,
            expected_version=rec.version,
            state=rec.state,
            payload={**rec.payload, "dispatch_id": OTHER},
            operation_id=f"test-rebind-{kind}",
            actor="oms-system",
            observed_at=next_after(rec.observed_at, ws.now()),
        )


def _session_of(chain: Chain, dispatch_id: str) -> str:
    with chain.workspace() as ws:
        return str(ws.store.records("dispatch").read(dispatch_id).payload["session_id"])


def test_recovery_answers_with_the_dispatchs_own_binding(deliverable: Chain) -> None:
    dispatch_id, event_id = _advanced_without_receipt(deliverable)
    outcome = _deliver(deliverable, event_id)["outcome"]
    assert isinstance(outcome, dict)
    assert (outcome["status"], outcome["dispatch_id"]) == ("recovered", dispatch_id)


@pytest.mark.parametrize(
    ("kind", "record_of"),
    [("worker", lambda _chain, dispatch_id: dispatch_id), ("session", _session_of)],
)
def test_recovery_refuses_a_record_bound_to_another_dispatch(
    deliverable: Chain, kind: str, record_of: Callable[[Chain, str], str]
) -> None:
    dispatch_id, event_id = _advanced_without_receipt(deliverable)
    _rebind(deliverable, kind, record_of(deliverable, dispatch_id))
    panes_before = sorted(p.name for p in (deliverable.state / PANES_DIR).iterdir())
    with (
        deliverable.workspace() as ws,
        pytest.raises(AuthorityChangedError, match="no exact worker delivery binding"),
    ):
        Delivery.open(ws).deliver(event_id)
    assert not (deliverable.state / "outbox" / CONSUMER / f"{event_id}.receipt.json").exists()
    assert sorted(p.name for p in (deliverable.state / PANES_DIR).iterdir()) == panes_before
