"""Check before spending (ADR 0031): what a launch will need, asked before any model call.

The conductor asks `oms doctor`'s own checks (`doctor.launch_checks`: the CLIs of the roles in
use, bubblewrap, a cgroup, each role's login or endpoint — for a worker, what the model proxy
would hold —, the paths a launch writes on a command line) before it leases a ticket, before it
takes a held ticket's chain on (worktree, propose, review: the advisor is paid), and again after
a step on the way or a launch is refused: a refusal that a failing check explains is a
configuration fault, not the attempt's. Nothing is counted for it: the ticket waits, open, with
"needs a person: <check>: <what> (fix: <what to do>)" as its reason, and moves on by itself at
the first tick whose checks pass. A tick asks them at most once (more only after a refusal), and
only when it would start something. Git identity is asked nowhere here: the conductor commits as
oms (`adapters/git.OMS_IDENTITY`), never as the person.
"""

from __future__ import annotations

from oms.domain import conductor as rules
from oms.services.admin import doctor
from oms.services.workspace import Workspace


class Preflight:
    """The launch checks of one tick, asked when first needed."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._faults: list[doctor.Check] | None = None

    def faults(self, *, again: bool = False) -> list[doctor.Check]:
        """The checks that fail now (`again`: asked anew, not the tick's first answer)."""
        if self._faults is None or again:
            config = self.ws.config()
            found = doctor.launch_checks(self.ws.store.path, self.ws.config_root, config)
            self._faults = [check for check in found if not check.ok]
        return self._faults

    def reason(self, *, again: bool = False) -> str | None:
        """Why a launch cannot happen now, as a ticket waiting for a person says it; None: it can."""
        found = self.faults(again=again)
        if not found:
            return None
        first = found[0]
        more = f"; {len(found) - 1} more (`oms doctor`)" if len(found) > 1 else ""
        return rules.needs_person(f"{first.name}: {first.detail} (fix: {first.fix}){more}")
