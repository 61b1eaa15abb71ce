"""`oms worker deliver|park|resume|stop|send|observe`: the delivery service of one workspace (ADR
0009), a thin facade over its steps, each in its own module of this package:

- `once.py`: exactly once per event — receipt replay, event binding, launch or recovery, receipt;
- `launch.py`: one launch — authority, checkout, plan, pane, session, activation;
- `native_resume.py`: a worker whose pane ended, relaunched on its agent's own session;
- `lifecycle.py`: park, resume, stop;
- `messages.py`: send — a person's message typed into a live agent's conversation;
- `reconcile.py`: observe — the end of a pane, liveness;
- `plans.py`: the oms executable, the agent CLI's version, the provider plan, the launch spec.

The steps take a `DeliveryContext` (`context.py`: what they work with), which `Delivery` is. Their
decisions are `domain/delivery.py`'s; the keys typed into a pane `adapters/activation.py`'s (an
`Activator`: pass a fake to inject a failure); the pane files `store/panefiles.py`'s; every worker
transition goes through `chain/worker_moves.move`. A worker another host runs is refused by every
verb that acts on its pane (`check_host`: park, resume, stop, send, reconcile, check_liveness,
deliver).
"""

from __future__ import annotations

from oms.adapters.providers.base import LaunchPlan
from oms.canonical import JsonObject
from oms.services.delivery import launch, lifecycle, messages, once, reconcile
from oms.services.delivery.context import DeliveryContext


class Delivery(DeliveryContext):
    """The delivery service of one workspace: its context (`DeliveryContext.open`) and its verbs."""

    def deliver(self, event_id: str) -> JsonObject:
        """`once.deliver`."""
        return once.deliver(self, event_id)

    def park(
        self,
        dispatch_id: str,
        reason: str,
        until: str,
        *,
        person: bool = False,
        ending: bool = False,
    ) -> JsonObject:
        """`lifecycle.park`."""
        self.check_host(dispatch_id)
        return lifecycle.park(self, dispatch_id, reason, until, person=person, ending=ending)

    def resume(self, dispatch_id: str, *, early: bool = False) -> JsonObject:
        """`lifecycle.resume`."""
        self.check_host(dispatch_id)
        return lifecycle.resume(self, dispatch_id, early=early)

    def stop(
        self,
        dispatch_id: str,
        reason: str,
        *,
        end_reason: str = "stopped",
        by: str = "oms-cli",
    ) -> JsonObject:
        """`lifecycle.stop`."""
        self.check_host(dispatch_id)
        return lifecycle.stop(self, dispatch_id, reason, end_reason=end_reason, by=by)

    def send(self, dispatch_id: str, text: str, *, person: str) -> JsonObject:
        """`messages.send`."""
        self.check_host(dispatch_id)
        return messages.send(self, dispatch_id, text, person=person)

    def observe(self, dispatch_id: str) -> JsonObject:
        """`reconcile.observe`."""
        return reconcile.observe(self, dispatch_id)

    def reconcile(self, dispatch_id: str) -> None:
        """`reconcile.reconcile`."""
        self.check_host(dispatch_id)
        reconcile.reconcile(self, dispatch_id)

    def check_liveness(self, dispatch_id: str) -> None:
        """`reconcile.check_liveness`."""
        self.check_host(dispatch_id)
        reconcile.check_liveness(self, dispatch_id)

    def activate(self, plan: LaunchPlan, dispatch_id: str) -> None:
        """`launch.activate`."""
        launch.activate(self, plan, dispatch_id)
