"""What every step of a delivery works with: `DeliveryContext` — the workspace, oms's own tmux
server, the running oms and the deliverer's environment, what types into panes — and the reads and
writes the steps share (the latest records, a session's transition, a worker's move, a launch plan).

The steps (`once.py`, `launch.py`, `native_resume.py`, `lifecycle.py`, `reconcile.py`,
`registration.py`) take a context, never the service: `service.Delivery` is a context with the
service's verbs on it, so the module that calls the steps is above every one of them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Self

from oms.adapters.activation import Activator, Tui
from oms.adapters.host_sandbox import HostSandbox
from oms.adapters.panes import TMUX_CONF, TmuxPanes, socket_problem
from oms.adapters.providers.base import LaunchPlan
from oms.canonical import next_after
from oms.domain import hosts
from oms.domain.machine import Next
from oms.errors import AlreadyExistsError, OtherHostError, UnsafeFileError
from oms.services.chain import worker_moves
from oms.services.checkout import planned
from oms.services.delivery import plans, proxy_route, session_events
from oms.services.delivery.interface import Checkout, Panes, Sandbox
from oms.services.workspace import SYSTEM_ACTOR, Workspace
from oms.store import Change, Record
from oms.store.payloads import as_json, worker_payload

if TYPE_CHECKING:
    from oms.domain.lifecycle import SessionRedo
    from oms.schemas.payloads import SessionPayload


@dataclass
class DeliveryContext:
    """One workspace's delivery: its pane server (`interface.Panes`: oms's tmux server), the
    running oms, the deliverer's environment, and what types into panes (`Tui` over `panes` unless
    another `Activator` is given)."""

    ws: Workspace
    panes: Panes
    executable: str
    env: Mapping[str, str]
    activator: Activator | None = None
    sandbox: Sandbox = field(default_factory=HostSandbox)
    checkout: Checkout = field(default_factory=lambda: planned)

    @classmethod
    def open(
        cls,
        ws: Workspace,
        env: Mapping[str, str] | None = None,
        activator: Activator | None = None,
        *,
        sandbox: Sandbox | None = None,
        checkout: Checkout | None = None,
    ) -> Self:
        """The context with oms's own tmux server and the running executable (the host's sandbox
        and the attempt's git checkout unless others are given: the simulator's)."""
        source = dict(os.environ if env is None else env)
        root = ws.store.state.root

        def guard() -> (
            None
        ):  # before every tmux call (a refused command never gets here: it writes nothing)
            problem = socket_problem(root.lstat("tmux.sock"), os.geteuid())
            if problem is not None:
                raise UnsafeFileError(
                    f"{ws.store.path}/tmux.sock {problem}: not oms's tmux server; refusing",
                    hint="if no oms command is running, remove it: oms starts its own tmux server",
                )
            try:
                root.publish("tmux.conf", TMUX_CONF.encode(), mode=0o600)
            except AlreadyExistsError:
                if root.read_bytes("tmux.conf", 4096) != TMUX_CONF.encode():
                    raise UnsafeFileError(
                        f"{ws.store.path}/tmux.conf was changed; refusing",
                        hint=(
                            "a tmux config can run commands: find what changed it, remove it "
                            "(oms writes its own again), and check the rest with `oms store "
                            "verify`"
                        ),
                    ) from None

        panes = TmuxPanes(
            os.path.join(ws.store.path, "tmux.sock"),
            os.path.join(ws.store.path, "tmux.conf"),
            guard,
        )
        return cls(
            ws,
            panes,
            plans.resolve_executable(source),
            source,
            activator,
            sandbox if sandbox is not None else HostSandbox(),
            checkout if checkout is not None else planned,
        )

    @property
    def keys(self) -> Activator:
        """What types into the panes."""
        return self.activator if self.activator is not None else Tui(self.panes)

    # ------------------------------------------------------------------ plans
    def plan(
        self,
        dispatch: Record,
        role_argv: tuple[str, ...] | None,
        tools: tuple[str, ...] = (),
        instructions: str | None = None,
        resume: str | None = None,
    ) -> LaunchPlan:
        """`plans.plan` with this context's executable and environment (through the model proxy
        when the config routes workers through it: a fresh token for this launch,
        `services/delivery/proxy_route.py`)."""
        return plans.plan(
            self.ws,
            dispatch,
            executable=self.executable,
            env=self.env,
            role_argv=role_argv,
            tools=tools,
            instructions=instructions,
            proxy=proxy_route.route(self.ws, dispatch),
            resume=resume,
        )

    def native(self, dispatch: Record) -> LaunchPlan:
        """`plans.native`: the plan of a launched worker under its configured role."""
        return plans.native(self.ws, dispatch, executable=self.executable, env=self.env)

    # ------------------------------------------------------------------ records
    def dispatch(self, dispatch_id: str) -> Record:
        """The latest dispatch."""
        return self.ws.store.records("dispatch").read(dispatch_id)

    def worker(self, dispatch_id: str) -> Record:
        """The latest worker record."""
        return self.ws.store.records("worker").read(dispatch_id)

    def session(self, session_id: str) -> Record | None:
        """The session record, if registered."""
        return self.ws.store.records("session").read_if_exists(session_id)

    def host_of(self, dispatch_id: str) -> str | None:
        """The host whose worker this is (`domain/hosts.host_of`), None without a worker record."""
        worker = self.ws.store.records("worker").read_if_exists(dispatch_id)
        return None if worker is None else hosts.host_of(worker_payload(worker), self.ws.host())

    def check_host(self, dispatch_id: str) -> None:
        """Refuse (`OtherHostError`, one line naming the host) to act on a worker another host
        runs: its pane, sandbox and broker are there (`domain/hosts.py`). No worker record yet:
        nothing to refuse (the verb says what is missing)."""
        host = self.host_of(dispatch_id)
        if host is None or host == self.ws.host():
            return
        raise OtherHostError(
            hosts.refusal(dispatch_id, host),
            hint=f"run it on host {host} (OMS_HOST={host}), whose conductor acts on this worker",
        )

    def after(self, record: Record, now: str | None = None) -> str:
        """A timestamp for `record`'s next version (strictly after its last)."""
        return next_after(record.observed_at, self.ws.now() if now is None else now)

    def session_step(
        self,
        session: Record,
        nxt: Next[SessionPayload],
        op: str,
        again: SessionRedo | None = None,
    ) -> Record:
        """Write a session transition (observed at the time the machine stamped) and the lifecycle
        event it is, if any (`services/delivery/session_events.py`). `again`: on a version
        another writer put after `session`, the move is decided again on it (the store's
        read-decide-write-retry); without it that version is refused."""
        before: list[str] = []

        def decide(current: Record) -> Change:
            nxt_ = nxt
            if current.version != session.version and again is not None:
                nxt_ = again(current.state, current.payload, current.observed_at)
            before[:] = [current.state]
            return _session_change(nxt_, op)

        sessions = self.ws.store.records("session")
        if again is None:
            written = sessions.write_next(session, decide(session)).record
        else:
            done = sessions.update(session.record_id, decide, first=session)
            written = session if done is None else done.record
        session_events.after_step(self.ws, before[0], written)
        return written

    def move_worker(
        self, dispatch_id: str, decide: worker_moves.Decide, *, op: str
    ) -> Record | None:
        """`worker_moves.move` as delivery (`SYSTEM_ACTOR`)."""
        return worker_moves.move(self.ws, dispatch_id, decide, op=op, actor=SYSTEM_ACTOR)


def _session_change(nxt: Next[SessionPayload], op: str) -> Change:
    """A session's next version as the store writes it, observed when the machine stamped it."""
    return Change(
        nxt.state, as_json(nxt.payload), op, SYSTEM_ACTOR, nxt.payload["last_observed_at"]
    )
