"""What a person typed for a ticket or a dispatch, resolved against the store (issue 26): a whole
id, a unique prefix of one, or a ticket's id where a dispatch (a worker) is meant. The rule is
`domain/handles.py`'s; this reads what it needs, and a ticket named is checked to be this
repository's (ADR 0032). Every command that takes a ticket or a dispatch asks here."""

from __future__ import annotations

import re

from oms.canonical import check
from oms.canonical.ids import OPAQUE_ID
from oms.domain.handles import Attempt, Want, dispatch_for, unique
from oms.errors import RecordNotFoundError
from oms.services.chain import tickets
from oms.services.workspace import Workspace
from oms.store.payloads import dispatch_payload, ticket_payload

__all__ = ["Want", "dispatch", "ticket"]

HANDLE = re.compile(r"[a-z0-9][a-z0-9-]{0,127}")  # an id or the start of one
WHOLE_DISPATCH = re.compile(r"dsp-[0-9a-f]{32}")  # a dispatch's whole id, as oms makes them


def ticket(ws: Workspace, handle: str) -> str:
    """The ticket `handle` names (an id or a unique prefix of one), of this repository."""
    check(handle, "ticket", HANDLE)
    ids = ws.store.records("ticket").ids()
    found = unique(handle, ids, "ticket", "see `oms ticket list`", lambda: _titles(ws))
    tickets.get(ws, found)  # another repository's is refused here, with its reason
    return found


def dispatch(ws: Workspace, handle: str, want: Want = Want.LIVE) -> str:
    """The dispatch `handle` names: its id or a unique prefix, or a ticket's id or prefix (its one
    live attempt; with `Want.RESULT` its one result; with `Want.LAST` the live one, else its
    latest)."""
    check(handle, "dispatch or ticket", HANDLE)
    records = ws.store.records("dispatch")
    whole = records.read_if_exists(handle) if OPAQUE_ID.fullmatch(handle) else None
    if whole is not None:  # a whole dispatch id: its ticket is still asked whose it is
        _ours(ws, dispatch_payload(whole)["ticket_id"])
        return handle
    attempts = [
        Attempt(
            r.record_id,
            dispatch_payload(r)["ticket_id"],
            r.state,
            dispatch_payload(r)["result_evidence"] is not None,
            dispatch_payload(r)["attempt"],
        )
        for r in ws.store.latest("dispatch").checked()
    ]
    try:
        ids = ws.store.records("ticket").ids()
        found = dispatch_for(handle, ids, attempts, want, lambda: _titles(ws, attempts))
    except RecordNotFoundError:
        if WHOLE_DISPATCH.fullmatch(handle):
            return handle  # none like it now: the command says what became of it (compacted)
        raise
    _ours(ws, next(a.ticket_id for a in attempts if a.dispatch_id == found))
    return found


def _ours(ws: Workspace, ticket_id: str) -> None:
    """Refuse a dispatch of another repository's ticket (`tickets.get` says whose, ADR 0032; on a
    cluster's shared prefix, ADR 0043 amendment `cross7`); a ticket compacted away is no one's."""
    if ws.store.records("ticket").read_if_exists(ticket_id) is not None:
        tickets.get(ws, ticket_id)  # another repository's is refused here, with its reason


def _titles(ws: Workspace, attempts: list[Attempt] | None = None) -> dict[str, str]:
    """Each ticket's title, and each dispatch's (its ticket's): read only for "did you mean"."""
    found = {r.record_id: ticket_payload(r)["title"] for r in ws.store.latest("ticket").records}
    for a in attempts or []:
        found[a.dispatch_id] = found.get(a.ticket_id, "")
    return found
