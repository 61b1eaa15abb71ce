"""Shared shape of the pure state machines: a transition returns the next state and payload, the
payload typed as its kind's (`Next[WorkerPayload]`, ...), so mypy refuses a key the kind does not
have, written or read; each kind's `*_with` makes a new version's payload from the last with
some keys changed (checked against the kind's `*Fields`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Generic, NamedTuple, TypeVar, cast

from oms.errors import IllegalTransitionError

if TYPE_CHECKING:
    from typing import Unpack

    from oms.canonical import JsonObject
    from oms.schemas.payloads import (
        AuthorizationFields,
        AuthorizationPayload,
        DispatchFields,
        DispatchPayload,
        SessionFields,
        SessionPayload,
        TicketFields,
        TicketPayload,
        WorkerFields,
        WorkerPayload,
    )

P = TypeVar("P")
Payload = Mapping[str, object]  # the last version's payload: its kind's TypedDict or the JSON


class Next(NamedTuple, Generic[P]):
    """The state and payload a transition produces (the store writes them as version N+1)."""

    state: str
    payload: P


def step(kind: str, table: Mapping[str, Mapping[str, str]], state: str, event: str) -> str:
    """The state `event` leads to from `state`, or `IllegalTransitionError`."""
    target = table.get(event, {}).get(state)
    if target is None:
        raise IllegalTransitionError(kind, state, event)
    return target


def with_fields(payload: Payload, **fields: object) -> JsonObject:
    """A copy of `payload` with `fields` replaced (records are immutable: never edit in place);
    unchecked (a value only the schema narrows, which the store checks before it writes): a
    kind's own `*_with` below checks the keys and values."""
    return cast("JsonObject", {**payload, **fields})


# A record's payload was validated against its kind's schema when the store read it, so the last
# version is its kind's TypedDict (`oms/store/payloads.py`); the keys changed are checked here.
def authorization_with(
    payload: Payload, **fields: Unpack[AuthorizationFields]
) -> AuthorizationPayload:
    """An authorization payload with `fields` changed."""
    return cast("AuthorizationPayload", {**payload, **fields})


def dispatch_with(payload: Payload, **fields: Unpack[DispatchFields]) -> DispatchPayload:
    """A dispatch payload with `fields` changed."""
    return cast("DispatchPayload", {**payload, **fields})


def session_with(payload: Payload, **fields: Unpack[SessionFields]) -> SessionPayload:
    """A session payload with `fields` changed."""
    return cast("SessionPayload", {**payload, **fields})


def ticket_with(payload: Payload, **fields: Unpack[TicketFields]) -> TicketPayload:
    """A ticket payload with `fields` changed."""
    return cast("TicketPayload", {**payload, **fields})


def worker_with(payload: Payload, **fields: Unpack[WorkerFields]) -> WorkerPayload:
    """A worker payload with `fields` changed."""
    return cast("WorkerPayload", {**payload, **fields})
