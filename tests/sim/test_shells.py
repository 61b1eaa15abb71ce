"""The real delivery shells over an in-memory `Panes` (`tests/sim/panes.py`): `Delivery.deliver`
(`once.py` → `launch.launch_worker` and the decisions of `domain/launch.py`), the conductor's
observation of a pane's end (`reconcile.py`) and `oms worker stop` (`lifecycle.py`), driven through
random interleavings of deliveries (an event delivered again after its deliverer died past its
pane), refused panes,
panes that die, a tmux server that goes, failed activations and stops, with real git, store and
sandbox checks. After every step, the simulator's questions: nothing done twice (at most one pane
ever started per attempt: only a person's `resume` starts another), and one end per attempt (its
worker stops at most once, and a worker that ended keeps no live pane)."""

from __future__ import annotations

import itertools
import random

import pytest

from oms.adapters.activation import ActivationError, Witness
from oms.adapters.providers.base import LaunchPlan
from oms.canonical import JsonObject
from oms.domain.sandbox_limits import SandboxLimits
from oms.errors import (
    CgroupUnavailableError,
    OmsError,
    SandboxUnavailableError,
    WorktreeNeedsPersonError,
)
from oms.schemas.payloads import DispatchPayload
from oms.services.checkout import planned
from oms.services.delivery.service import Delivery
from oms.services.workspace import Workspace
from tests.chain import Chain, accepted, use_worker
from tests.sim.panes import Crash, MemoryPanes

SEEDS = range(12)
STEPS = 30


class _Agent:
    """What types into the in-memory panes: the instruction is taken, unless the seed says the
    activation fails (the pane then lives on, or dies with it)."""

    def __init__(self, panes: MemoryPanes) -> None:
        self.panes = panes

    def activate(self, plan: LaunchPlan, dispatch_id: str, witness: Witness) -> None:
        if self.panes.rng.random() < 0.25:
            if self.panes.rng.random() < 0.5:
                self.panes.die(dispatch_id)
            raise ActivationError("the agent never showed its prompt")
        self.panes.send_text(dispatch_id, "Start.")

    def interrupt(self, plan: LaunchPlan, dispatch_id: str) -> bool:
        return False

    def nudge(self, plan: LaunchPlan, dispatch_id: str, pressing: object = None) -> None:
        pass

    def say(self, plan: LaunchPlan, dispatch_id: str, text: str, witness: Witness) -> str:
        return "typed"


class _Sandbox:
    """The host's sandbox, but refusing as often as the seed says (bubblewrap gone, no cgroup)."""

    def __init__(self, rng: random.Random, bwrap: float, cgroup: float) -> None:
        self.rng, self.bwrap, self.cgroup = rng, bwrap, cgroup

    def probe(self) -> None:
        if self.rng.random() < self.bwrap:
            raise SandboxUnavailableError("(the simulator's) no bubblewrap here")

    def trial(self, limits: SandboxLimits) -> None:
        if self.rng.random() < self.cgroup:
            raise CgroupUnavailableError("(the simulator's) no cgroup here")


class _Checkout:
    """The real git checkout, but refusing as often as the seed says (a worktree broken by
    hand)."""

    def __init__(self, rng: random.Random, refusals: float) -> None:
        self.rng, self.refusals = rng, refusals

    def ready(
        self,
        payload: DispatchPayload,
        evidence: JsonObject | None,
        repository: str,
        *,
        bound: bool,
    ) -> None:
        if self.rng.random() < self.refusals:
            raise WorktreeNeedsPersonError("(the simulator's) worktree broken by hand")
        planned.ready(payload, evidence, repository, bound=bound)

    def verify(self, payload: DispatchPayload, repository: str, *, own_work: bool = False) -> None:
        planned.verify(payload, repository, own_work=own_work)


def _ends(ws: Workspace, dispatch_id: str) -> int:
    """How many times the worker became stopped."""
    history = ws.store.records("worker").history(dispatch_id)
    healths = [r.payload.get("health") for r in history]
    return sum(1 for a, b in itertools.pairwise(healths) if a != "stopped" and b == "stopped")


def _check(ws: Workspace, panes: MemoryPanes, dispatch_ids: list[str]) -> None:
    for dispatch_id in dispatch_ids:
        assert panes.started[dispatch_id] <= 1, f"{dispatch_id}: a second pane was started"
    _check_ends(ws, panes, dispatch_ids)


def _check_ends(ws: Workspace, panes: MemoryPanes, dispatch_ids: list[str]) -> None:
    """One end per attempt, and an ended worker keeps no live pane."""
    for dispatch_id in dispatch_ids:
        assert _ends(ws, dispatch_id) <= 1, f"{dispatch_id}: its attempt ended twice"
        worker = ws.store.records("worker").read(dispatch_id)
        pane = panes.observe(dispatch_id)
        if worker.payload["health"] == "stopped":
            assert pane is None or pane.dead, f"{dispatch_id}: ended, its pane still runs"


@pytest.mark.parametrize("seed", SEEDS)
def test_the_real_shells_over_memory_panes_start_once_and_end_once(
    deliverable: Chain, seed: int
) -> None:
    use_worker(deliverable, "silent")
    rng = random.Random(seed)
    launches = [accepted(deliverable, f"Ticket {i}") for i in range(2)]
    dispatch_ids = [d for d, _ in launches]
    panes = MemoryPanes(rng, faults=0.2, crashes=0.5)
    with deliverable.workspace() as ws:
        d = Delivery.open(ws, sandbox=_Sandbox(rng, 0.05, 0.05), checkout=_Checkout(rng, 0.1))
        d.panes = panes
        d.activator = _Agent(panes)
        for _ in range(STEPS):
            dispatch_id, event_id = rng.choice(launches)
            roll = rng.random()
            try:
                if roll < 0.4:
                    d.deliver(event_id)  # the first delivery, or the same event again
                elif roll < 0.7:
                    panes.die(dispatch_id, status=rng.choice((0, 1)))
                elif roll < 0.75:
                    panes.kill_server()
                elif roll < 0.92:
                    d.reconcile(dispatch_id)
                else:
                    d.stop(dispatch_id, "a person stopped it", by="ann")
            except (OmsError, Crash):
                pass  # a refusal is an answer, a crash leaves what it left: the checks still hold
            _check(ws, panes, dispatch_ids)


def test_an_event_delivered_again_after_its_deliverer_died_past_its_pane_parks(
    deliverable: Chain,
) -> None:
    """The interleaving the random runs find, walked on purpose: the deliverer dies right after its
    pane started, the pane ends, the event is delivered again — the worker parks for a person
    (`oms worker resume`), never a second pane."""
    use_worker(deliverable, "silent")
    dispatch_id, event_id = accepted(deliverable)
    panes = MemoryPanes(random.Random(0), crashes=1.0)
    with deliverable.workspace() as ws:
        d = Delivery.open(ws)
        d.panes = panes
        d.activator = _Agent(panes)
        with pytest.raises(Crash):
            d.deliver(event_id)
        panes.crashes = 0.0
        panes.die(dispatch_id)
        outcome = d.deliver(event_id)["outcome"]
        assert isinstance(outcome, dict)
        assert outcome["status"] == "parked"
        assert panes.started[dispatch_id] == 1
        _check(ws, panes, [dispatch_id])


@pytest.mark.parametrize("refused", ["sandbox", "cgroup", "checkout"])
def test_a_launch_the_sandbox_or_the_checkout_refuses_starts_no_pane_and_parks(
    deliverable: Chain, refused: str
) -> None:
    """What the launch asks of the host (`interface.Sandbox`) and of git (`interface.Checkout`)
    refuses: no pane, the worker parked with the reason, the receipt keeping it (the same event
    again starts nothing either)."""
    use_worker(deliverable, "silent")
    dispatch_id, event_id = accepted(deliverable)
    panes = MemoryPanes(random.Random(0))
    rng = random.Random(0)
    sandbox = _Sandbox(rng, float(refused == "sandbox"), float(refused == "cgroup"))
    checkout = _Checkout(rng, float(refused == "checkout"))
    with deliverable.workspace() as ws:
        d = Delivery.open(ws, sandbox=sandbox, checkout=checkout)
        d.panes = panes
        d.activator = _Agent(panes)
        for _ in range(2):
            outcome = d.deliver(event_id)["outcome"]
            assert isinstance(outcome, dict)
            assert outcome["status"] == "parked", outcome
        assert panes.started.get(dispatch_id, 0) == 0
        worker = ws.store.records("worker").read(dispatch_id)
        assert worker.payload["health"] == "parked"
        shown = {"sandbox": "no bubblewrap", "cgroup": "no cgroup", "checkout": "broken by hand"}
        assert shown[refused] in str(worker.payload.get("health_reason")), worker.payload
