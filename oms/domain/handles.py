"""What a person may type where oms asks for a ticket or a dispatch (issue 26). Pure.

A *handle* is a whole id, or a prefix that names exactly one id (as git takes a commit's prefix).
Where a dispatch (a worker: its id is its dispatch's) is meant, a ticket's handle names that
ticket's one attempt that matters: its one live attempt (`LIVE`), or, for a result, the one
attempt with a result (`RESULT`). A whole id always wins over a longer id it is a prefix of
(`tkt-1` is `tkt-1`, never `tkt-10`). None or several is an error listing the candidates.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from oms.domain.dispatches import NON_TERMINAL
from oms.errors import AmbiguousIdError, RecordNotFoundError
from oms.limits import LIMITS


class Want(StrEnum):
    """Which of a ticket's attempts a ticket's handle names."""

    LIVE = "live"  # the attempt that has not ended (a dispatch not resolved, rejected, cancelled)
    RESULT = "result"  # the attempt with a recorded result


@dataclass(frozen=True)
class Attempt:
    """What the resolver needs of one dispatch."""

    dispatch_id: str
    ticket_id: str
    state: str
    has_result: bool


def matching(handle: str, ids: Iterable[str]) -> list[str]:
    """The ids `handle` names: itself when it is one of them, else every id it begins (sorted)."""
    known = set(ids)
    if handle in known:
        return [handle]
    return sorted(i for i in known if handle and i.startswith(handle))


def listed(ids: Sequence[str], limit: int = LIMITS.handle_candidates_shown) -> str:
    """`a, b, c` (and how many more past `limit`)."""
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def unique(handle: str, ids: Iterable[str], what: str, hint: str) -> str:
    """The one id of `ids` that `handle` names; `RecordNotFoundError` for none,
    `AmbiguousIdError` listing them for several. `what` names the kind ("ticket")."""
    found = matching(handle, ids)
    if len(found) == 1:
        return found[0]
    if not found:
        raise RecordNotFoundError(f"no {what} {handle}", hint=hint)
    raise AmbiguousIdError(f"{what} {handle!r} names {len(found)}: {listed(found)}")


def dispatch_for(
    handle: str, ticket_ids: Iterable[str], attempts: Sequence[Attempt], want: Want
) -> str:
    """The dispatch `handle` names: a dispatch's id or prefix, or a ticket's (then its one attempt
    that `want` asks for)."""
    dispatch_ids = [a.dispatch_id for a in attempts]
    tickets = list(ticket_ids)
    if handle in dispatch_ids:
        return handle
    if handle in tickets:
        ticket = handle
    else:
        by_dispatch, by_ticket = matching(handle, dispatch_ids), matching(handle, tickets)
        if len(by_dispatch) + len(by_ticket) > 1:
            found = by_ticket + by_dispatch
            raise AmbiguousIdError(f"{handle!r} names {len(found)}: {listed(found)}")
        if by_dispatch:
            return by_dispatch[0]
        if not by_ticket:
            raise RecordNotFoundError(
                f"no dispatch or ticket {handle}",
                hint="give a dispatch's id or a ticket's (`oms dispatch list`, `oms ticket list`)",
            )
        ticket = by_ticket[0]
    return attempt_of(ticket, [a for a in attempts if a.ticket_id == ticket], want)


def attempt_of(ticket: str, attempts: Sequence[Attempt], want: Want) -> str:
    """The one attempt of `ticket` that `want` asks for, else why not (naming its attempts)."""
    if want is Want.LIVE:
        picked = [a for a in attempts if a.state in NON_TERMINAL]
        kind = "live attempt"
    else:
        with_result = [a for a in attempts if a.has_result]
        # a result not yet acted on comes before one already resolved (merged or discarded)
        picked = [a for a in with_result if a.state in NON_TERMINAL] or with_result
        kind = "result"
    if len(picked) == 1:
        return picked[0].dispatch_id
    every = [f"{a.dispatch_id} ({a.state})" for a in attempts]
    if not picked:
        theirs = f"its dispatches: {listed(every)}" if every else "it has no dispatch"
        raise RecordNotFoundError(
            f"ticket {ticket} has no {kind}; {theirs}",
            hint="name the dispatch by its id (`oms dispatch list`)",
        )
    raise AmbiguousIdError(
        f"ticket {ticket} has {len(picked)} {kind}s: "
        f"{listed([f'{a.dispatch_id} ({a.state})' for a in picked])}",
        hint="name the dispatch by its id",
    )
