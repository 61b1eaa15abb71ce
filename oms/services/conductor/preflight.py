"""Check before spending (ADR 0031): what a launch will need, asked before any model call.

The conductor asks `oms doctor`'s own checks (`doctor.launch_checks`: the CLIs of the roles in
use, bubblewrap, a cgroup, each role's login or endpoint — for a worker, what the model proxy
would hold —, the paths a launch writes on a command line) before it leases a ticket, before it
takes a held ticket's chain on (worktree, propose, review: the advisor is paid), and again after
a step on the way or a launch is refused: a refusal that a failing check explains is a
configuration fault, not the attempt's. Nothing is counted for it: the ticket waits, open, with
"needs a person: <check>: <what> (fix: <what to do>)" as its reason, and moves on by itself at
the first tick whose checks pass. A tick asks them at most once (more only after a refusal), and
only when it would start something. Git identity is asked nowhere here: what the conductor
commits is the agent's (`oms worker`) or oms's own (salvage), never the person's (ADR 0032: a
person's `oms init --commit` and `oms result merge` refuse without it, saying what to set).
"""

from __future__ import annotations

from oms.domain import conductor as rules
from oms.domain.config import CREDENTIAL_DEFAULT
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
            worker = config.roles.get(config.worker_role)
            proxied = worker is not None and worker.credential == CREDENTIAL_DEFAULT
            agent = None if worker is None else doctor.agent_login(worker)
            if proxied and agent is not None:
                found.append(doctor.proxy(self.ws))  # through the model proxy (ADR 0026)
            self._faults = [check for check in found if not check.ok]
        return self._faults

    def reason(self, *, again: bool = False) -> str | None:
        """Why a launch cannot happen now, as a waiting ticket says it; None: it can."""
        found = self.faults(again=again)
        if not found:
            return None
        first = found[0]
        more = f"; {len(found) - 1} more (`oms doctor`)" if len(found) > 1 else ""
        return rules.needs_person(f"{first.name}: {first.detail} (fix: {first.fix}){more}")
