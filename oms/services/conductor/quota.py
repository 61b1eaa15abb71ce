"""The conductor's provider phase (issue 13, ADR 0019): read every quota probe once, and park the
running workers of a provider that ran out until its reset (never killed: the resume phase resumes
them then).

Also here: what an ended attempt's report says of its provider (`rest_from_report`: a quota or
rate-limit error rests it for the fleet) and whether the queue must wait for a provider
(`queue_waits`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oms.canonical import add_ms, parse_ts, stable_id
from oms.domain import proxy_usage as counting
from oms.domain import routing, workers
from oms.domain.machine import Next
from oms.domain.proxy import UNKNOWABLE, ProxyState
from oms.errors import OmsError, one_line, suppress_faults
from oms.schemas.payloads import WorkerState
from oms.services.chain import providers, worker_moves
from oms.services.delivery.service import Delivery
from oms.services.proxy import control as proxy_control
from oms.services.proxy import tokens as proxy_tokens
from oms.services.workspace import Workspace
from oms.store import Record
from oms.store.payloads import dispatch_payload, worker_payload

if TYPE_CHECKING:
    from oms.schemas.payloads import WorkerPayload

QUOTA_PARK = "quota"  # the reason a worker parked for its provider's quota starts with
BUDGET_PARK = "token budget"  # ... for its dispatch's token budget
ACTOR = "oms-conductor"


def phase(d: Delivery, done: list[str], skipped: list[str]) -> None:
    """The model proxy kept running while workers need it, probes, quota parking, token budgets."""
    ensure_proxy(d.ws, done, skipped)
    if d.ws.config().routing.providers:
        read, unread = providers.probe_all(d.ws)
        done += [f"probe {line}" for line in read]
        skipped += [f"probe {line}" for line in unread]
        park_resting(d, done, skipped)
    park_over_budget(d, done, skipped)


def ensure_proxy(ws: Workspace, done: list[str], skipped: list[str]) -> None:
    """The model proxy runs while a worker that has not ended holds a token, and no longer (ADR
    0026): one is started if none runs (a stale record is replaced; one that answers the port but
    not the handshake is left alone and named), and one started on demand is stopped once no such
    worker is left."""
    root = ws.store.state.root
    try:
        if not proxy_tokens.needed(root, ws.store.backend):
            stopped = proxy_control.stop_if_idle(ws)
            if stopped is not None:
                done.append(f"the model proxy stopped: no running worker needs it ({stopped.note})")
            return
        found = proxy_control.status(ws)
        if found.state == ProxyState.RUNNING:
            return
        if found.state in UNKNOWABLE:
            skipped.append(f"the model proxy: {found.note} (launches wait; `oms proxy stop`)")
            return
        started = proxy_control.ensure(ws)
        done.append(f"the model proxy started: {started.note}")
    except OmsError as exc:
        skipped.append(f"the model proxy: {one_line(exc.message)}")


def park_over_budget(d: Delivery, done: list[str], skipped: list[str]) -> None:
    """Park, for a person, each running worker whose dispatch used up its role's token budget
    through the proxy (the proxy refuses its further requests already; parked, it is neither resumed
    by the clock nor counted as a failure)."""
    ws = d.ws
    budgets = {
        role_id: r.token_budget
        for role_id, r in ws.config().roles.items()
        if r.token_budget is not None
    }
    if not budgets:
        return
    for worker in ws.store.latest("worker").in_states(("idle", "working")):
        if worker_payload(worker).get("health") != "healthy":
            continue
        try:
            role_id = dispatch_payload(d.dispatch(worker.record_id))["role_id"]
            if role_id not in budgets:
                continue
            used, _, _ = proxy_tokens.read_usage(ws.store.state.root, worker.record_id)
            why = counting.over_budget(used, budgets[role_id], role_id)
            if why is None:
                continue
            reason = f"{BUDGET_PARK}: {why}"

            def decide(
                current: Record, now: str, reason: str = reason
            ) -> Next[WorkerPayload] | None:
                if worker_payload(current)["health"] != "healthy" or current.state not in (
                    WorkerState.IDLE,
                    WorkerState.WORKING,
                ):
                    return None
                return workers.set_health(
                    current.state, worker_payload(current), "parked", now=now, reason=reason
                )

            if worker_moves.move(
                ws,
                worker.record_id,
                decide,
                op=lambda w: stable_id("wkr-budget", w.record_id, w.version),
                actor=ACTOR,
            ):
                done.append(f"{worker.record_id}: parked for a person ({why})")
        except OmsError as exc:
            skipped.append(f"{worker.record_id}: {one_line(exc.message)}")


def park_resting(d: Delivery, done: list[str], skipped: list[str]) -> None:
    """Park each running worker whose provider rests for its quota, until the rest ends."""
    ws = d.ws
    now = ws.now()
    standings = providers.standings(ws)
    for worker in ws.store.latest("worker").in_states(("idle", "working")):
        if worker_payload(worker).get("health") != "healthy":
            continue
        try:
            dispatch = d.dispatch(worker.record_id)
            provider_id = dispatch_payload(dispatch).get("provider_id")
            standing = standings.get(provider_id) if isinstance(provider_id, str) else None
            if (
                standing is None
                or standing.cooldown_kind != "quota"
                or standing.cooldown_until is None
            ):
                continue
            if parse_ts(standing.cooldown_until) <= parse_ts(now):
                continue
            if d.session(dispatch_payload(dispatch)["session_id"]) is None:
                continue  # not launched yet: its launch meets the rest (the next tick parks it)
            reason = f"{QUOTA_PARK}: provider {provider_id} rests until {standing.cooldown_until}"
            d.park(worker.record_id, reason, standing.cooldown_until)
            done.append(
                f"{worker.record_id}: parked until "
                f"{standing.cooldown_until} ({provider_id} ran out)"
            )
        except OmsError as exc:
            skipped.append(f"{worker.record_id}: {one_line(exc.message)}")


def rest_from_report(ws: Workspace, dispatch: Record, status: str, summary: str) -> str:
    """An ended attempt whose report names a quota or rate-limit error rests its provider for the
    fleet; the status its ticket is decided on (a quota `blocked` is no question for a person:
    `failed`, retried on another provider or after the reset)."""
    provider_id = dispatch_payload(dispatch).get("provider_id")
    if not isinstance(provider_id, str) or status == "completed":
        return status
    found = routing.cooldown_of(summary, ws.now(), ws.config().routing)
    if found is None:
        return status
    # the report is the agent's own text: it says a limit was met, never for how long (a reset it
    # states could rest the provider for the fleet for days): the configured default
    config = ws.config().routing
    seconds = config.cooldown_minutes * 60 if found.kind == "quota" else config.transient_cooldown_s
    cooldown = routing.Cooldown(add_ms(ws.now(), seconds * 1000), found.kind, found.reason)
    with suppress_faults():  # no longer configured: the ticket is decided all the same
        providers.rest(ws, provider_id, cooldown, f"{dispatch.record_id}: its report")
    return "failed" if status in ("blocked", "stopped") else status


def queue_waits(ws: Workspace) -> str | None:
    """Why the queue waits (no provider can serve the worker role now), or None."""
    config = ws.config()
    role = config.roles.get(config.worker_role)
    if role is None or not config.routing.providers or routing.family_of(role.transport) is None:
        return None
    choice = providers.route(ws, role)
    if choice.provider_id is not None:
        return None
    wait = f" until {choice.wait_until}" if choice.wait_until else ""
    return f"no provider can serve role {role.role_id}{wait} (`oms route explain`)"
