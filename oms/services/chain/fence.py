"""The one rule of whether an attempt may act (`domain/fence.py` decides; this reads the records and
parks).

`verdict` reads the dispatch, its ticket, its worker and (a GitHub ticket) the repository's
authorisation from any store (a `Workspace`'s, or the model proxy's root: `Reads`). Asked by the
broker's doors before anything a hook or the bridge would record (and by PreToolUse), by
`record_result`, by `oms worker resume` and `observe`, by the model proxy on every request and by
the worker's supervisor (ADR 0028); `oms ticket expire` and `oms live revoke` park the workers they
fence at once. Parking keeps everything: the pane, the worktree, the agent's changes.
A worker is fenced whatever its activity: one whose result is recorded (`done`, `blocked`) still
runs its agent until it ends; only an ended worker (health `stopped`) is left alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from oms.canonical import stable_id
from oms.domain import fence, hosts, workers
from oms.domain.machine import Next
from oms.errors import AttemptFencedError, AuthorityChangedError, one_line
from oms.services.chain import live, worker_moves
from oms.services.workspace import Workspace
from oms.store import Record
from oms.store.payloads import (
    authorization_payload,
    dispatch_payload,
    text_set,
    ticket_payload,
    worker_payload,
)
from oms.store.records import RecordStore

if TYPE_CHECKING:
    from oms.schemas.payloads import WorkerPayload

Reads = Callable[[str], RecordStore]  # the records of a kind
RESULT_RECORDED = ("done", "blocked")  # a worker's states once its result is recorded


def verdict(records: Reads, dispatch: Record, now: str, *, parked: bool = True) -> fence.Verdict:
    """What `dispatch`'s attempt may do now: over (its dispatch ended, or its worker), fenced (its
    lease or live authorisation lapsed; `parked`: or its worker is parked for an earlier lapse) or
    live."""
    worker = records("worker").read_if_exists(dispatch.record_id)
    health = None if worker is None else worker_payload(worker).get("health")
    fenced = _authority(records, dispatch, now)
    if parked and worker is not None:
        fenced.append(fence.parked_by_fence(health, worker_payload(worker).get("health_reason")))
    over = (
        fence.dispatch_lapse(dispatch.state, dispatch_payload(dispatch).get("reason")),
        fence.worker_lapse(health),
    )
    result = fence.has_result(dispatch.state, dispatch.payload)
    return fence.judge(over, tuple(fenced), result=result)


def _authority(records: Reads, dispatch: Record, now: str) -> list[str | None]:
    """The lapses of the attempt's authority: its lease, and a GitHub ticket's live
    authorisation."""
    ticket = records("ticket").read(dispatch_payload(dispatch)["ticket_id"])
    lapses = [fence.lease_lapse(dispatch.payload, ticket.state, ticket.payload, now)]
    if ticket_payload(ticket).get("source") == "github":
        repository = text_set(ticket_payload(ticket)["repository"], "repository")
        auth = records("authorization").read_if_exists(live.authorization_id(repository))
        lapses.append(
            fence.authorization_lapse(
                repository,
                None if auth is None else auth.state,
                None if auth is None else auth.payload,
            )
        )
    return lapses


def reason(ws: Workspace, dispatch: Record) -> str | None:
    """Why `dispatch`'s attempt is fenced now (its dispatch, lease or live authorisation), or None —
    what `resume` asks (a worker parked for a lapse, or one that ended, is the resume rules' to
    refuse)."""
    dispatched = fence.dispatch_lapse(dispatch.state, dispatch_payload(dispatch).get("reason"))
    return fence.reason((dispatched, *_authority(ws.store.records, dispatch, ws.now())))


def require(ws: Workspace, dispatch: Record, actor: str) -> None:
    """For the doors: `AttemptFencedError` (after parking the worker: its supervisor ends one whose
    attempt is over) when the attempt may not act."""
    judged = verdict(ws.store.records, dispatch, ws.now())
    if judged.reason is not None:
        park(
            ws,
            dispatch.record_id,
            judged.reason,
            actor,
            over=judged.standing is fence.Standing.OVER,
        )
        raise AttemptFencedError(judged.reason)


def require_live(ws: Workspace, dispatch: Record) -> None:
    """For `resume`: `AttemptFencedError` when the attempt's authority has lapsed (nothing is
    written)."""
    why = reason(ws, dispatch)
    if why is not None:
        raise AttemptFencedError(f"worker cannot resume: {why}")


def park(ws: Workspace, dispatch_id: str, why: str, actor: str, *, over: bool = False) -> bool:
    """Park the worker of a fenced attempt, or mark an already parked one as parked for the lapse
    (so that only `oms worker resume` lifts it), whatever its activity; an ended worker (`stopped`)
    is left alone, and so is one whose result is recorded when the attempt is `over` (resolved,
    cancelled: its supervisor ends it, and the conductor closes its pane — parked, it would wait for
    a person). True if written now."""

    def decide(worker: Record, now: str) -> Next[WorkerPayload] | None:
        if worker_payload(worker)["health"] == "stopped":
            return None
        if over and worker.state in RESULT_RECORDED:
            return None
        if worker_payload(worker)["health"] == "parked":
            if (
                fence.parked_by_fence("parked", worker_payload(worker).get("health_reason"))
                is not None
            ):
                return None
            return workers.mark_parked(
                worker.state, worker_payload(worker), now=now, reason=one_line(why)
            )
        return workers.set_health(
            worker.state, worker_payload(worker), "parked", now=now, reason=one_line(why)
        )

    def op(worker: Record) -> str:
        return stable_id("wkr-fence", dispatch_id, worker.version)

    return worker_moves.move(ws, dispatch_id, decide, op=op, actor=actor) is not None


def park_fenced(
    ws: Workspace, keep: Callable[[Record], bool], actor: str, *, host: str | None = None
) -> list[str]:
    """Park every worker that has not ended (a recorded result's too: its agent still runs) whose
    ticket `keep` selects and whose attempt is fenced — with `host`, only the workers that host
    runs; the ids of those now parked for a lapse, whoever wrote it (its pane's supervisor may
    have seen the lapse first)."""
    parked = []
    tickets = ws.store.records("ticket")
    dispatches = ws.store.records("dispatch")
    for worker_id in ws.store.records("worker").ids():
        worker = ws.store.records("worker").read(worker_id)
        if worker_payload(worker)["health"] == "stopped":
            continue
        if host is not None and not hosts.mine(worker_payload(worker), host):
            continue
        if not keep(tickets.read(worker_payload(worker)["ticket_id"])):
            continue
        why = reason(ws, dispatches.read(worker_id))
        if why is not None and (park(ws, worker_id, why, actor) or _fence_parked(ws, worker_id)):
            parked.append(worker_id)
    return parked


def _fence_parked(ws: Workspace, worker_id: str) -> bool:
    payload = worker_payload(ws.store.records("worker").read(worker_id))
    return fence.parked_by_fence(payload["health"], payload.get("health_reason")) is not None


def expire_leases(ws: Workspace) -> tuple[list[Record], list[str]]:
    """`oms ticket expire`: return every lapsed lease's ticket to `open` and park the workers of the
    attempts that held them; (the tickets, the parked workers)."""
    from oms.services.chain import tickets

    expired = tickets.expire_due(ws)
    ids = {t.record_id for t in expired}
    return expired, park_fenced(ws, lambda t: t.record_id in ids, "oms-cli")


def revoke(ws: Workspace, repository: str, why: str) -> tuple[Record, list[str]]:
    """`oms live revoke`: withdraw the authorisation and park the workers of that repository's
    tickets; (the authorisation, the parked workers). On a cluster (ADR 0043, amendment
    `github`) the authorisation's record fences every host's attempts at once (each door, the
    proxy and each supervisor reads it); only this host's workers are parked here, another host's
    by its own conductor as it ticks, or its pane's supervisor (`elsewhere` names them), as a
    lapsed lease's are. On files every worker is parked here."""
    rec = live.revoke(ws, repository, why)
    host = None if ws.store.backend is None else ws.host()
    return rec, park_fenced(ws, _of_repository(rec), "oms-cli", host=host)


def _of_repository(authorization: Record) -> Callable[[Record], bool]:
    """Whether a ticket is a GitHub ticket of the authorisation's repository."""
    name = authorization_payload(authorization)["repository"].lower()

    def of_repository(ticket: Record) -> bool:
        repo = ticket_payload(ticket).get("repository")
        return (
            ticket_payload(ticket).get("source") == "github"
            and isinstance(repo, str)
            and repo.lower() == name
        )

    return of_repository


def elsewhere(ws: Workspace, authorization: Record) -> list[tuple[str, str]]:
    """(worker, host) of each worker of the authorisation's repository that another host runs
    and that has not ended: on a cluster, its host parks it (`revoke`); none on files."""
    if ws.store.backend is None:
        return []
    this = ws.host()
    of_repository = _of_repository(authorization)
    tickets = ws.store.records("ticket")
    found = []
    for worker in ws.store.latest("worker").checked():
        payload = worker_payload(worker)
        if payload["health"] == "stopped" or hosts.mine(payload, this):
            continue
        if of_repository(tickets.read(payload["ticket_id"])):
            found.append((worker.record_id, hosts.host_of(payload, this)))
    return found


def still_running(ws: Workspace, dispatch: Record, running: list[str]) -> Record | None:
    """Among the workers whose panes still run, another attempt's of the same ticket (it shares the
    worktree), or None."""
    ticket_id = dispatch_payload(dispatch)["ticket_id"]
    records = ws.store.records("worker")
    for worker_id in running:
        if worker_id == dispatch.record_id:
            continue
        worker = records.read_if_exists(worker_id)
        if worker is not None and worker_payload(worker).get("ticket_id") == ticket_id:
            return worker
    return None


def require_alone(ws: Workspace, dispatch: Record, running: list[str]) -> None:
    """No attempt is launched into a worktree another attempt's pane still runs in (it may still
    write)."""
    other = still_running(ws, dispatch, running)
    if other is not None:
        attempt = dispatch_payload(ws.store.records("dispatch").read(other.record_id))["attempt"]
        raise AuthorityChangedError(
            f"{other.record_id} (attempt {attempt}) still runs in this worktree: stop it first",
            hint=(
                f"`oms worker stop {other.record_id}` (its work stays "
                f"in the worktree), then deliver again"
            ),
        )
