"""`oms worker deliver|park|resume|stop|observe` (DESIGN.md §5; seed 003 is the behaviour reference).

`deliver(event)`, under the outbox lock for (event, `oms-worker-delivery`):
1. a receipt exists: return it (`replayed`), launch nothing;
2. the event must still match its dispatch (accepted version, ids, attempt, lease token);
3. an accepted dispatch is launched; an already advanced one has its exact session binding recovered;
4. launch re-checks every authority (`services/authority.py`) and parks the worker with a bounded
   one-line reason when one fails;
5. an expired attempt's checkout is reset to its start commit (never losing work, only when nothing is
   bound); 6. the checkout is verified without running repository code;
7. the provider plan is materialised, the pane ensured, the session registered, the pane activated — a
   failure after the pane exists stops it or parks with `activation_pending`; the worker stays `idle`
   until its hooks and its bridge have both proven themselves with the delivery nonce (`liveness.py`),
   then it is `working`; a channel silent past the deadline parks it (`hooks_silent`, `bridge_silent`);
8. the receipt records the outcome and the nonce derived from (event, consumer).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from oms.adapters import bwrap, tools
from oms.adapters.panes import TMUX_CONF, Pane, Panes, socket_problem
from oms.adapters.providers import claude, codex, command
from oms.adapters.providers.base import LaunchPlan, LaunchRequest, hook_tools
from oms.canonical import JsonObject, access, equal, next_after, operation_nonce, parse_ts, stable_id
from oms.domain import sessions, workers
from oms.domain.config import role as configured_role
from oms.domain.machine import Next
from oms.domain.policy import role_tools
from oms.errors import (
    AlreadyExistsError,
    AuthorityChangedError,
    ConfigError,
    InvalidInputError,
    OmsError,
    RecordNotFoundError,
    UnsafeFileError,
)
from oms.fsio.outside import regular_file_target
from oms.fsio.procinfo import group_alive
from oms.process import is_frozen
from oms.services import checkout, fence, launch, live, liveness, reaper, sandboxing
from oms.services.authority import Authority, check_dispatch
from oms.services.homes import home_path, materialise
from oms.services.instructions import executor_instructions
from oms.services.workspace import SYSTEM_ACTOR, Workspace
from oms.store import Record, panefiles
from oms.version import HOOK_CONTRACT

CONSUMER = "oms-worker-delivery"
READY_TIMEOUT_S = 30.0
CONFIRM_TIMEOUT_S = 5.0
SESSION_MODE = {"codex_goal": "goal", "claude_interactive": "pane", "command": "command"}
PROVIDER = {"codex_goal": "codex", "claude_interactive": "claude", "command": "command"}
SURFACE = {"goal": "codex-goal", "claude": "claude-interactive"}  # the journal's contact surface (else command)
# What each agent CLI may see of the deliverer's environment: its own credential and endpoint, nothing of
# another provider's (a command worker gets none).
PASSTHROUGH = {
    "codex_goal": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY"),
    "claude_interactive": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    "command": (),
}


def bounded(reason: str) -> str:
    """One line, at most 512 characters (seed: boundedReason)."""
    flat = " ".join(reason.replace("\x00", " ").split())
    return (flat or "worker lifecycle request")[:512]


class ActivationError(OmsError):
    """The agent did not become ready, or did not take the instruction."""

    code = "activation"


COMPATIBLE = {"codex_goal": ("codex", "0.171."), "claude_interactive": ("claude", "2.1.")}


def check_cli_version(provider_mode: str) -> None:
    """The agent CLI must be a version whose hook and flag contract oms was verified against."""
    wanted = COMPATIBLE.get(provider_mode)
    if wanted is None:
        return
    found = tools.probe(next(t for t in tools.TOOLS if t.name == wanted[0]))
    if found.error is not None or found.version is None or not found.version.startswith(wanted[1]):
        raise ConfigError(
            f"{wanted[0]} {found.version or found.error} is not compatible (expected {wanted[1]}x)",
            hint=found.tool.install,
        )


def resolve_executable(env: Mapping[str, str]) -> str:
    """The real, absolute, non-symlink path of the oms executable that hooks and the MCP config will run."""
    candidates = [env.get("OMS_EXECUTABLE", "")]
    if is_frozen():
        candidates.append(sys.executable)
    candidates += [sys.argv[0] if sys.argv else "", os.path.join(os.path.dirname(sys.executable), "oms")]
    for candidate in candidates:
        if not candidate or (not os.path.isabs(candidate) and os.sep not in candidate):
            continue
        real = os.path.realpath(candidate)
        if os.path.isfile(real) and os.access(real, os.X_OK) and os.path.basename(real).startswith("oms"):
            return real
    raise ConfigError(
        "cannot find the oms executable to write into hooks and MCP config",
        hint="set OMS_EXECUTABLE to the absolute path of the oms binary",
    )


@dataclass
class Delivery:
    """The delivery service of one workspace."""

    ws: Workspace
    panes: Panes
    executable: str
    env: Mapping[str, str]
    confirm: Callable[[str], bool] | None = None  # did the agent take the instruction? (hooks, issue 5)

    @classmethod
    def open(cls, ws: Workspace, env: Mapping[str, str] | None = None) -> Delivery:
        """The service with oms's own tmux server and the running executable."""
        source = dict(os.environ if env is None else env)
        root = ws.store.state.root

        def guard() -> None:  # before every tmux call (a refused command never gets here: it writes nothing)
            problem = socket_problem(root.lstat("tmux.sock"), os.geteuid())
            if problem is not None:
                raise UnsafeFileError(f"{ws.store.path}/tmux.sock {problem}: not oms's tmux server; refusing")
            try:
                root.publish("tmux.conf", TMUX_CONF.encode(), mode=0o600)
            except AlreadyExistsError:
                if root.read_bytes("tmux.conf", 4096) != TMUX_CONF.encode():
                    raise UnsafeFileError(
                        f"{ws.store.path}/tmux.conf was changed; refusing",
                        hint="remove it: oms writes its own again",
                    ) from None

        panes = Panes(os.path.join(ws.store.path, "tmux.sock"), os.path.join(ws.store.path, "tmux.conf"), guard)
        return cls(ws, panes, resolve_executable(source), source)

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

    def _worker_step(
        self,
        worker: Record,
        op: str,
        *,
        health: str | None = None,
        activity: str | None = None,
        end_reason: str | None = None,
        end_detail: str | None = None,
        reason: str | None = None,
    ) -> Record:
        now = next_after(worker.observed_at, self.ws.now())
        nxt = workers.set_health(worker.state, worker.payload, health, now=now, reason=reason) if health else None
        if activity:
            base = nxt or Next(worker.state, worker.payload)
            nxt = workers.set_activity(
                base.state, base.payload, activity, now=now, end_reason=end_reason, end_detail=end_detail
            )
        assert nxt is not None  # noqa: S101 - one of health/activity is always given
        return (
            self.ws.store.records("worker")
            .transition(
                worker.record_id,
                expected_version=worker.version,
                state=nxt.state,
                payload=nxt.payload,
                operation_id=op,
                actor=SYSTEM_ACTOR,
                observed_at=now,
            )
            .record
        )

    def _session_step(self, session: Record, nxt: Next, op: str) -> Record:
        return (
            self.ws.store.records("session")
            .transition(
                session.record_id,
                expected_version=session.version,
                state=nxt.state,
                payload=nxt.payload,
                operation_id=op,
                actor=SYSTEM_ACTOR,
                observed_at=access.text(nxt.payload, "last_observed_at"),
            )
            .record
        )

    def _park_worker(self, dispatch: Record, event_id: str, prefix: str, exc: Exception) -> JsonObject:
        message = bounded(exc.message if isinstance(exc, OmsError) else str(exc))
        worker = self.worker(dispatch.record_id)
        if worker.payload["health"] != "parked":
            self._worker_step(worker, stable_id(prefix, dispatch.record_id, event_id), health="parked", reason=message)
        return {"status": "parked", "dispatch_id": dispatch.record_id, "reason": message}

    # ------------------------------------------------------------------ deliver
    def deliver(self, event_id: str) -> JsonObject:
        """Deliver one accepted dispatch, exactly once per event."""
        box = self.ws.store.outbox(CONSUMER)
        with box.lock(event_id):
            existing = box.read_receipt(event_id)
            if existing is not None:
                return {"status": "replayed", "outcome": existing.result}
            event = self.ws.store.events.read(event_id, "dispatch-delivery-requested")
            dispatch = self.dispatch(access.text(event.payload, "dispatch_id"))
            self._check_binding(dispatch, event.payload, event_id)
            outcome = (
                self._launch(dispatch, event_id) if dispatch.state == "accepted" else self._recover(dispatch, event_id)
            )
            receipt, _ = box.commit_receipt(event_id, self.ws.now(), outcome)
            return {"status": "processed", "outcome": receipt.result}

    def _check_binding(self, dispatch: Record, event: JsonObject, event_id: str) -> None:
        version = access.integer(event, "dispatch_version")
        history = self.ws.store.records("dispatch").history(dispatch.record_id)
        accepted = history[version] if version < len(history) else None
        payload = dispatch.payload
        if (
            accepted is None
            or accepted.state != "accepted"
            or payload.get("delivery_event_id") != event_id
            or payload.get("accepted_at") is None
            or payload.get("worker_record_id") != event["worker_record_id"]
            or payload.get("ticket_id") != event["ticket_id"]
            or payload.get("attempt") != event["attempt"]
            or not equal(str(payload.get("lease_token")), str(event["lease_token"]))
        ):
            raise AuthorityChangedError("delivery event changed its accepted dispatch binding")

    def _launch(self, dispatch: Record, event_id: str) -> JsonObject:
        if dispatch.state != "accepted":  # on every path (deliver, resume): only an accepted dispatch launches
            raise AuthorityChangedError(
                f"dispatch {dispatch.record_id} is {dispatch.state}; only an accepted one launches"
            )
        try:
            authority = check_dispatch(self.ws, dispatch)
        except OmsError as exc:
            return self._park_worker(dispatch, event_id, "wkr-pre-park", exc)
        worker = self.worker(dispatch.record_id)
        if worker.state != "idle" or worker.payload["health"] not in ("healthy", "parked"):
            raise AuthorityChangedError("worker delivery requires one idle healthy or parked reservation")
        payload = dispatch.payload
        session_id = access.text(payload, "session_id")
        try:
            running = [p.dispatch_id for p in self.panes.list() if not p.dead]  # one tmux call for both questions
            self._alone_in_worktree(dispatch, running)
            prior = payload.get("prior_failure_evidence")
            evidence = self.ws.store.evidence.get(prior).body if isinstance(prior, str) else None
            bound = self.session(session_id) is not None or dispatch.record_id in running
            check_cli_version(str(payload["provider_mode"]))  # the cheap refusals before anything is reset
            bwrap.probe()  # no sandbox, no launch: a missing or unusable bubblewrap parks with its reason
            checkout.restore_after_expiry(payload, evidence, self.ws.config_root, bound=bound)
            checkout.verify(payload, self.ws.config_root)
            tools = self._role_tools(authority)
            plan = self.plan(dispatch, authority.role.argv, tools, authority.instructions)
            materialise(self.ws.store.state.root, plan)
            spec = self._launch_spec(dispatch, plan, tools)
        except OmsError as exc:
            return self._park_worker(dispatch, event_id, "wkr-pre-park", exc)
        if authority.ticket.payload["source"] == "github":
            try:
                live.disclose(
                    self.ws,
                    access.text(authority.ticket.payload, "repository"),
                    operation="worker-session",
                    surface=SURFACE.get(plan.native_action, "command"),
                    subject_id=session_id,
                    request=_disclosure(dispatch),
                )
            except OmsError as exc:
                return self._park_worker(dispatch, event_id, "wkr-auth-park", exc)
        try:
            supervised = (
                self.executable,
                "worker",
                "supervise",
                "--dispatch-id",
                dispatch.record_id,
                "--state-root",
                self.ws.store.path,
            )
            root = self.ws.store.state.root
            if self.panes.observe(dispatch.record_id) is None:
                panefiles.clear_exit(root, dispatch.record_id)
                launch.write(root, spec)
            status, pane = self.panes.ensure(dispatch.record_id, argv=supervised, cwd=plan.cwd)
            if status == "reused":
                launch.discard(root, dispatch.record_id)
            self._register_pane(dispatch, pane)
        except OmsError as exc:
            if self.panes.observe(dispatch.record_id) is None:  # no supervisor will read it: the credential goes
                launch.discard(self.ws.store.state.root, dispatch.record_id)
            return self._park_worker(dispatch, event_id, "wkr-lch-park", exc)
        try:
            self._register_session(dispatch, pane, event_id)
        except OmsError as exc:
            if status == "created":
                self.panes.stop(dispatch.record_id)
                panefiles.drop_registry(self.ws.store.state.root, dispatch.record_id)
            return self._park_worker(dispatch, event_id, "wkr-reg-park", exc)
        try:
            self.activate(plan, dispatch.record_id)
        except OmsError as exc:
            return self._after_failed_activation(dispatch, event_id, exc)
        fenced = fence.reason(self.ws, dispatch)  # lapsed while the agent was activated: it stays parked
        if fenced is not None:
            fence.park(self.ws, dispatch.record_id, fenced, SYSTEM_ACTOR)
            return {"status": "parked", "dispatch_id": dispatch.record_id, "reason": bounded(fenced)}
        current = self.worker(dispatch.record_id)
        if current.payload["health"] == "parked":
            current = self._worker_step(
                current, stable_id("wkr-pre-res", dispatch.record_id, event_id), health="healthy"
            )
        liveness.promote(self.ws, dispatch.record_id, session_id)  # else `working` waits for hooks and bridge
        return {
            "status": status,
            "dispatch_id": dispatch.record_id,
            "session_id": session_id,
            "pane_id": pane.pane_id,
            "provider_mode": payload["provider_mode"],
        }

    def _after_failed_activation(self, dispatch: Record, event_id: str, exc: OmsError) -> JsonObject:
        pane = self.panes.observe(dispatch.record_id)
        if pane is not None and not pane.dead:
            out = self._park_worker(dispatch, event_id, "wkr-act-park", exc)
            return {**out, "activation_pending": True}
        session = self.session(access.text(dispatch.payload, "session_id"))
        if session is not None and session.state != "stopped":
            nxt = sessions.stop(
                session.state,
                session.payload,
                reason=bounded(exc.message),
                now=next_after(session.observed_at, self.ws.now()),
            )
            self._session_step(session, nxt, stable_id("wkr-act-stop", dispatch.record_id, event_id))
        worker = self.worker(dispatch.record_id)
        if worker.payload["health"] != "stopped":
            self._end_worker(
                worker,
                stable_id("wkr-act-hstop", dispatch.record_id, event_id),
                "exit" if pane is not None else "stopped",
                bounded(exc.message),
            )
        return {"status": "stopped", "dispatch_id": dispatch.record_id, "reason": bounded(exc.message)}

    # ------------------------------------------------------------------ plans
    def plan(
        self,
        dispatch: Record,
        role_argv: tuple[str, ...] | None,
        tools: tuple[str, ...] = (),
        instructions: str | None = None,
    ) -> LaunchPlan:
        """The provider launch plan for a dispatch (pure given its inputs; a launch passes the approved
        instructions, read once)."""
        payload = dispatch.payload
        session_id = access.text(payload, "session_id")
        endpoint = payload.get("model_endpoint")
        endpoint = endpoint if isinstance(endpoint, str) else None
        req = LaunchRequest(
            dispatch_id=dispatch.record_id,
            session_id=session_id,
            role_id=access.text(payload, "role_id"),
            model=access.text(payload, "model_id"),
            worktree=access.text(payload, "worktree_path"),
            executable=self.executable,
            instructions=self._instructions() if instructions is None else instructions,
            role_argv=role_argv,
            codex_auth=self._codex_auth(required=endpoint is None)
            if payload["provider_mode"] == "codex_goal"
            else None,
            passthrough={k: self.env[k] for k in PASSTHROUGH.get(str(payload["provider_mode"]), ()) if self.env.get(k)},
            tools=tools,
            endpoint=endpoint,
        )
        mode = payload["provider_mode"]
        if mode == "codex_goal":
            return codex.plan(req)
        if mode == "claude_interactive":
            return claude.plan(req)
        if mode == "command":
            return command.plan(req)
        raise InvalidInputError(f"provider mode {mode} cannot run a worker")

    def _launch_spec(self, dispatch: Record, plan: LaunchPlan, tools: tuple[str, ...]) -> JsonObject:
        """The supervisor's launch spec: the plan inside its sandbox, and the broker's binding."""
        payload = dispatch.payload
        provider = PROVIDER[str(payload["provider_mode"])]
        if plan.home is None:
            raise InvalidInputError("a worker needs a private home")
        return sandboxing.build(
            plan,
            dispatch_id=dispatch.record_id,
            session_id=access.text(payload, "session_id"),
            provider=provider,
            provider_version=HOOK_CONTRACT[provider],
            allowed_tools=hook_tools(tools),
            nonce=operation_nonce(access.text(payload, "delivery_event_id"), CONSUMER),
            config_root=self.ws.config_root,
            home_abs=home_path(self.ws.store.path, plan.home),
            executable=self.executable,
            state_root=self.ws.store.path,
        )

    @staticmethod
    def _role_tools(authority: Authority) -> tuple[str, ...]:
        return role_tools(authority.policy, authority.role.role_id)

    def _instructions(self) -> str:
        return self.instructions_of(self.ws)

    @staticmethod
    def instructions_of(ws: Workspace) -> str:
        """The executor instructions (`services/instructions.py`)."""
        return executor_instructions(ws)

    def _codex_auth(self, *, required: bool = True) -> str | None:
        """The user's Codex `auth.json` (optional with a role endpoint: a gateway may need no login)."""
        base = self.env.get("CODEX_HOME") or os.path.join(self.env.get("HOME", "/nonexistent"), ".codex")
        path = os.path.join(base, "auth.json")
        if not required and not os.path.lexists(path):
            return None
        return regular_file_target(path)

    # ------------------------------------------------------------------ panes, sessions
    def _register_pane(self, dispatch: Record, pane: Pane) -> None:
        doc: JsonObject = {
            "format": "oms-pane-v1",
            "dispatch_id": dispatch.record_id,
            "session": pane.session,
            "pane_id": pane.pane_id,
            "pane_pid": pane.pane_pid,
            "provider_mode": dispatch.payload["provider_mode"],
            "created_at": self.ws.now(),
        }
        panefiles.write_registry(self.ws.store.state.root, doc)

    def _register_session(self, dispatch: Record, pane: Pane, event_id: str) -> Record:
        session_id = access.text(dispatch.payload, "session_id")
        now = self.ws.now()
        nxt = sessions.register(
            dispatch=dispatch.payload,
            dispatch_id=dispatch.record_id,
            mode=SESSION_MODE[str(dispatch.payload["provider_mode"])],
            pane_id=pane.pane_id,
            source_event_id=event_id,
            now=now,
        )
        existing = self.session(session_id)
        if existing is not None:
            if existing.payload["dispatch_id"] != dispatch.record_id:
                raise AuthorityChangedError(f"session {session_id} belongs to another dispatch")
            return existing
        return (
            self.ws.store.records("session")
            .create(
                session_id,
                state=nxt.state,
                payload=nxt.payload,
                operation_id=stable_id("wkr-reg", dispatch.record_id, event_id),
                actor=SYSTEM_ACTOR,
                observed_at=now,
            )
            .record
        )

    def activate(self, plan: LaunchPlan, dispatch_id: str) -> None:
        """Make the agent start its work (research/tui.md §1.4-§1.7, §2.4)."""
        if plan.prompt is None:  # a command worker starts working by itself
            return
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            pane = self.panes.observe(dispatch_id)
            if pane is None or pane.dead:
                raise ActivationError("the agent exited before it became ready")
            screen = self.panes.capture(dispatch_id)
            if all(mark in screen for mark in plan.ready_marks) and (plan.busy_mark or "\x00") not in screen:
                break
            if time.monotonic() > deadline:
                raise ActivationError(f"the agent did not become ready within {READY_TIMEOUT_S:g}s")
            time.sleep(0.05)
        typed_at = self.ws.now()
        self.panes.send_text(dispatch_id, plan.prompt)
        for _attempt in range(2):  # Enter, confirm; one more Enter if the first became a newline
            time.sleep(0.3)  # Codex turns an Enter within 50 ms of text into a newline (tui.md §1.7)
            self.panes.send_keys(dispatch_id, "Enter")
            until = time.monotonic() + CONFIRM_TIMEOUT_S
            while time.monotonic() < until:
                if self.confirm is not None and self.confirm(dispatch_id):
                    return
                if self._hook_heard_since(dispatch_id, typed_at):
                    return
                if plan.busy_mark and plan.busy_mark in self.panes.capture(dispatch_id):
                    return
                time.sleep(0.05)
        raise ActivationError("the agent did not take the instruction (no prompt hook, not busy)")

    def _hook_heard_since(self, dispatch_id: str, since: str) -> bool:
        """Did a hook (SessionStart / UserPromptSubmit heartbeat) observe the session after `since`?"""
        session = self.session(access.text(self.dispatch(dispatch_id).payload, "session_id"))
        return session is not None and access.text(session.payload, "last_observed_at") >= since

    # ------------------------------------------------------------------ recover
    def _recover(self, dispatch: Record, event_id: str) -> JsonObject:
        if dispatch.state not in ("acknowledged", "result-received", "resolved"):
            raise AuthorityChangedError(f"delivery cannot recover dispatch state {dispatch.state}")
        session = self.session(access.text(dispatch.payload, "session_id"))
        worker = self.worker(dispatch.record_id)
        p = dispatch.payload
        if (
            session is None
            or session.payload["source_event_id"] != event_id
            or session.payload["ticket_id"] != p["ticket_id"]
            or session.payload["role_id"] != p["role_id"]
            or session.payload["engine"] != p["engine"]
            or session.payload["native_session_ref"] != p["session_id"]
            or session.payload["tmux_pane_id"] is None
            or worker.payload["dispatch_id"] != dispatch.record_id
            or worker.payload["ticket_id"] != p["ticket_id"]
            or worker.payload["session_id"] != p["session_id"]
            or worker.payload["role_id"] != p["role_id"]
            or worker.payload["provider_mode"] != p["provider_mode"]
            or worker.payload["worktree_id"] != p["worktree_id"]
        ):
            raise AuthorityChangedError("advanced dispatch has no exact worker delivery binding")
        return {
            "status": "recovered",
            "dispatch_id": dispatch.record_id,
            "dispatch_state": dispatch.state,
            "session_id": session.record_id,
            "session_state": session.state,
            "pane_id": session.payload["tmux_pane_id"],
            "provider_mode": p["provider_mode"],
        }

    def _alone_in_worktree(self, dispatch: Record, running: list[str]) -> None:
        """No attempt is launched into a worktree another attempt's pane still runs in (it may still write)."""
        other = fence.still_running(self.ws, dispatch, running)
        if other is not None:
            attempt = self.dispatch(other.record_id).payload.get("attempt")
            raise AuthorityChangedError(
                f"{other.record_id} (attempt {attempt}) still runs in this worktree: stop it first "
                f"(`oms worker stop {other.record_id}`; its work stays in the worktree)"
            )

    # ------------------------------------------------------------------ park / resume / stop / observe
    def _native(self, dispatch: Record) -> LaunchPlan:
        config = self.ws.config()
        argv = configured_role(config, access.text(dispatch.payload, "role_id")).argv
        return self.plan(dispatch, argv)

    def park(self, dispatch_id: str, reason: str, until: str) -> JsonObject:
        """Interrupt the agent and park the worker until a future time."""
        dispatch = self.dispatch(dispatch_id)
        session = self._require_session(dispatch)
        worker = self.worker(dispatch_id)
        now = self.ws.now()
        parse_ts(until, "parked-until")
        if session.state not in ("running", "stalled", "parked"):
            raise InvalidInputError(f"worker cannot park from session {session.state}")
        if worker.payload["health"] not in ("healthy", "stalled", "parked"):
            raise InvalidInputError(f"worker cannot park from health {worker.payload['health']}")
        if session.state == "parked" and session.payload["parked_until"] != until:
            raise InvalidInputError("worker is already parked until a different time")
        nxt = None  # validated before any key reaches the pane (a past --until is refused untouched)
        if session.state != "parked":
            nxt = sessions.park(session.state, session.payload, until=until, now=next_after(session.observed_at, now))
        plan = self._native(dispatch)
        pane = self.panes.observe(dispatch_id)
        if pane is not None and not pane.dead and session.state != "parked":
            screen = self.panes.capture(dispatch_id)
            if plan.busy_mark and plan.busy_mark in screen:  # Escape only while a turn runs (tui.md §3)
                for keys in plan.park_keys:
                    self.panes.send_keys(dispatch_id, *keys)
                    time.sleep(0.3)
        if nxt is not None:
            self._session_step(session, nxt, stable_id("wkr-park", dispatch_id, bounded(reason), until))
        if worker.payload["health"] != "parked":
            self._worker_step(worker, stable_id("wkr-hlth-park", dispatch_id, bounded(reason), until), health="parked")
        return self.observe(dispatch_id)

    def resume(self, dispatch_id: str) -> JsonObject:
        """Resume a parked worker when it is due and its pane is live (or launch it if it never started)."""
        dispatch = self.dispatch(dispatch_id)
        fence.require_live(self.ws, dispatch)  # a refusal writes nothing
        session = self.session(access.text(dispatch.payload, "session_id"))
        if session is None:
            event_id = dispatch.payload.get("delivery_event_id")
            if not isinstance(event_id, str):
                raise InvalidInputError("dispatch has no delivery event")
            with self.ws.store.outbox(CONSUMER).lock(event_id):  # one lock for every launch (deliver's own)
                dispatch = self.dispatch(dispatch_id)
                if self.session(access.text(dispatch.payload, "session_id")) is not None:
                    return self.observe(dispatch_id)  # launched meanwhile, by a deliverer or another resume
                outcome = self._launch(dispatch, event_id)
            if outcome.get("status") == "parked":
                raise ActivationError(f"worker was not launched: {outcome.get('reason')}")
            return self.observe(dispatch_id)
        worker = self.worker(dispatch_id)
        if session.state not in ("parked", "running") or worker.payload["health"] not in ("parked", "healthy"):
            raise InvalidInputError(
                f"worker cannot resume from session {session.state} and health {worker.payload['health']}"
            )
        pane = self.panes.observe(dispatch_id)
        if pane is None or pane.dead:
            raise InvalidInputError("worker cannot resume without its live bound pane")
        now = self.ws.now()
        until = session.payload.get("parked_until")
        if session.state == "parked" and (not isinstance(until, str) or parse_ts(now) < parse_ts(until)):
            raise InvalidInputError(f"worker resume is not due (parked until {until})")
        receipt = self.ws.store.outbox(CONSUMER).read_receipt(str(dispatch.payload["delivery_event_id"]))
        plan = self._native(dispatch)
        ticket = self.ws.store.records("ticket").read(access.text(dispatch.payload, "ticket_id"))
        if ticket.payload["source"] == "github":  # resuming is contact: journaled first, refused if not in force
            live.disclose(
                self.ws,
                access.text(ticket.payload, "repository"),
                operation="worker-resume",
                surface=SURFACE.get(plan.native_action, "command"),
                subject_id=session.record_id,
                request=_disclosure(dispatch),
            )
        if (
            session.state == "running"
            and session.version == 0
            and worker.payload["health"] == "parked"
            and receipt is not None
            and receipt.result.get("activation_pending") is True
        ):
            self.activate(plan, dispatch_id)
        elif (session.state == "parked" or worker.payload["health"] == "parked") and plan.prompt is not None:
            self.panes.send_text(dispatch_id, "Continue the dispatch where you stopped.")
            time.sleep(0.3)
            self.panes.send_keys(dispatch_id, "Enter")
        if session.state == "parked":
            nxt = sessions.resume(session.state, session.payload, now=next_after(session.observed_at, now))
            session = self._session_step(session, nxt, stable_id("wkr-resume", dispatch_id, str(until)))
        if worker.payload["health"] == "parked":
            fence.require_live(self.ws, self.dispatch(dispatch_id))  # lapsed while resuming: stays parked
            worker = self._worker_step(
                worker, stable_id("wkr-hlth-res", dispatch_id, session.version), health="healthy"
            )
        liveness.promote(self.ws, dispatch_id, session.record_id)
        return self.observe(dispatch_id)

    def stop(self, dispatch_id: str, reason: str, *, end_reason: str = "stopped", by: str = "oms-cli") -> JsonObject:
        """Stop the pane (and every process in it); session stopped, health stopped, activity blocked."""
        dispatch = self.dispatch(dispatch_id)
        reason = bounded(reason)
        root = self.ws.store.state.root
        doc: JsonObject = {
            "format": "oms-kill-v1",
            "dispatch_id": dispatch_id,
            "by": by,
            "pid": os.getpid(),
            "reason": reason,
            "requested_at": self.ws.now(),
        }
        panefiles.leave_kill(root, doc)
        try:
            plan = self._native(dispatch)
            quit_keys = plan.quit_keys
        except OmsError:
            quit_keys = ()
        self.panes.stop(dispatch_id, quit_keys=quit_keys)
        reaper.end_sandbox(root, dispatch_id)  # should its init have outlived its supervisor (ADR 0012)
        session = self.session(access.text(dispatch.payload, "session_id"))
        if session is not None and session.state != "stopped":
            nxt = sessions.stop(
                session.state, session.payload, reason=reason, now=next_after(session.observed_at, self.ws.now())
            )
            self._session_step(session, nxt, stable_id("wkr-stop", dispatch_id, reason))
        worker = self.worker(dispatch_id)
        if worker.payload["health"] != "stopped" or worker.state not in ("done", "blocked"):
            self._end_worker(worker, stable_id("wkr-stop-end", dispatch_id, reason), end_reason, f"{reason} (by {by})")
        panefiles.drop_registry(root, dispatch_id)
        panefiles.drop_kill(root, dispatch_id)
        panefiles.clear_exit(root, dispatch_id)
        launch.discard(root, dispatch_id)  # a spec no supervisor took (it holds the agent's credential)
        self.panes.kill_server_if_idle()
        return self.observe(dispatch_id)

    def _end_worker(self, worker: Record, op: str, end_reason: str, detail: str) -> Record:
        health = "stopped" if worker.payload["health"] != "stopped" else None
        activity = "blocked" if worker.state in ("idle", "working") else None
        if health is None and activity is None:
            return worker
        now = next_after(worker.observed_at, self.ws.now())
        state, payload = worker.state, dict(worker.payload)
        if health:
            nxt = workers.set_health(state, payload, health, now=now)
            state, payload = nxt.state, nxt.payload
        if activity:
            nxt = workers.set_activity(
                state, payload, activity, now=now, end_reason=end_reason, end_detail=bounded(detail)
            )
            state, payload = nxt.state, nxt.payload
        elif payload.get("end_reason") is None:
            payload = {**payload, "end_reason": end_reason, "end_detail": bounded(detail)}
        return (
            self.ws.store.records("worker")
            .transition(
                worker.record_id,
                expected_version=worker.version,
                state=state,
                payload=payload,
                operation_id=op,
                actor=SYSTEM_ACTOR,
                observed_at=now,
            )
            .record
        )

    def reconcile(self, dispatch_id: str) -> None:
        """Record why a worker whose pane ended has ended (exit, signal, or `oms worker stop`) — also when
        the pane itself is gone (its tmux server died): then from the supervisor's exit record, or, when
        the pane's whole process group is gone without one, as an unrecorded end. A pane that merely cannot
        be seen while its processes live (a tmux hiccup) ends nothing."""
        dispatch = self.dispatch(dispatch_id)
        pane = self.panes.observe(dispatch_id)
        worker = self.worker(dispatch_id)
        if (pane is not None and not pane.dead) or worker.payload["health"] == "stopped":
            return
        root = self.ws.store.state.root
        ended = panefiles.read_exit(root, dispatch_id)
        if pane is None:
            registry = panefiles.read_registry(root, dispatch_id)
            if registry is None:
                return  # never launched, or stopped and forgotten
            pane_id = access.text(registry, "pane_id")
            if ended is None and group_alive(access.integer(registry, "pane_pid")):
                return
        else:
            pane_id = pane.pane_id
        reaper.end_sandbox(root, dispatch_id)  # the pane has ended: so does whatever is left of its sandbox
        marker = panefiles.read_kill(root, dispatch_id)
        status = ended["status"] if ended is not None else pane.dead_status if pane is not None else None
        signum = ended["signal"] if ended is not None else pane.dead_signal if pane is not None else None
        if marker is not None:
            reason, detail = "stopped", f"{marker['reason']} (by {marker['by']})"
        elif signum:
            reason, detail = "signal", f"the agent was killed by signal {signum}"
        elif status is not None:
            reason, detail = "exit", f"the agent exited with status {status}"
        elif pane is None:
            reason, detail = "exit", "the pane and every process in it are gone (the end was not recorded)"
        else:
            reason, detail = "exit", "the agent exited (its status was not recorded)"
        if pane is None and ended is not None:
            detail += "; its tmux pane is gone"
        session = self.session(access.text(dispatch.payload, "session_id"))
        if session is not None and session.state != "stopped":
            nxt = sessions.stop(
                session.state, session.payload, reason=detail, now=next_after(session.observed_at, self.ws.now())
            )
            self._session_step(session, nxt, stable_id("wkr-end-sess", dispatch_id, pane_id))
        self._end_worker(worker, stable_id("wkr-end", dispatch_id, pane_id), reason, detail)

    def check_liveness(self, dispatch_id: str) -> None:
        """Park a worker whose hooks or bridge stayed silent past the deadline (its pane is kept)."""
        dispatch = self.dispatch(dispatch_id)
        worker = self.worker(dispatch_id)
        session = self.session(access.text(dispatch.payload, "session_id"))
        if session is None or worker.payload["health"] != "healthy" or worker.state not in ("idle", "working"):
            return
        fenced = fence.reason(self.ws, dispatch)
        if fenced is not None:
            fence.park(self.ws, dispatch_id, fenced, SYSTEM_ACTOR)
            return
        silent = liveness.silent(self.ws, session, worker.observed_at)
        if silent is not None:
            self._worker_step(
                worker, stable_id("wkr-silent", dispatch_id, silent, worker.version), health="parked", reason=silent
            )

    def observe(self, dispatch_id: str) -> JsonObject:
        """Worker, session and pane at a glance (recording an end reason if the pane has ended)."""
        self.reconcile(dispatch_id)
        self.check_liveness(dispatch_id)
        dispatch = self.dispatch(dispatch_id)
        worker = self.worker(dispatch_id)
        session = self.session(access.text(dispatch.payload, "session_id"))
        pane = self.panes.observe(dispatch_id)
        return {
            "dispatch_id": dispatch_id,
            "dispatch_state": dispatch.state,
            "worker_activity": worker.state,
            "worker_health": worker.payload["health"],
            "end_reason": worker.payload.get("end_reason"),
            "end_detail": worker.payload.get("end_detail"),
            "session_state": None if session is None else session.state,
            "pane_id": (pane.pane_id if pane else None)
            or (None if session is None else session.payload["tmux_pane_id"]),
            "pane_live": pane is not None and not pane.dead,
            "health_reason": worker.payload.get("health_reason"),
            "live_channels": None if session is None else liveness.channels(self.ws, session.record_id),
            "agent_stopped_at": None if session is None else session.payload.get("agent_stopped_at"),
        }

    def _require_session(self, dispatch: Record) -> Record:
        session = self.session(access.text(dispatch.payload, "session_id"))
        if session is None:
            raise RecordNotFoundError(f"dispatch {dispatch.record_id} has no session yet (deliver it first)")
        return session


def _disclosure(dispatch: Record) -> JsonObject:
    return {k: dispatch.payload[k] for k in ("ticket_id", "role_id", "model_id", "provider_mode", "worktree_id")} | {
        "dispatch_id": dispatch.record_id
    }
