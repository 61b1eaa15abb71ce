"""Shared shape of the pure state machines: a transition returns the next state and payload."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from oms.canonical import JsonObject
from oms.errors import IllegalTransitionError


class Next(NamedTuple):
    """The state and payload a transition produces (the store writes them as version N+1)."""

    state: str
    payload: JsonObject


def step(kind: str, table: Mapping[str, Mapping[str, str]], state: str, event: str) -> str:
    """The state `event` leads to from `state`, or `IllegalTransitionError`."""
    target = table.get(event, {}).get(state)
    if target is None:
        raise IllegalTransitionError(kind, state, event)
    return target


def with_fields(payload: JsonObject, **fields: object) -> JsonObject:
    """A copy of `payload` with `fields` replaced (records are immutable: never edit in place)."""
    out = dict(payload)
    out.update(fields)  # type: ignore[arg-type]
    return out
