"""Predicates of the `pane-registry` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

_P0 = '^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$'
_P1 = '^%[0-9]{1,9}$'
_P2 = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'
_C0: object = 'oms-pane-v1'
_C1: tuple[object, ...] = ('claude_interactive', 'claude_print', 'codex_exec', 'codex_goal', 'command')


def _v1(x: object) -> bool:
    # pane-registry#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v3(x: object) -> bool:
    # defs#/$defs/opaque_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v2(x: object) -> bool:
    # pane-registry#/properties/dispatch_id
    if not _v3(x):
        return False
    return True


def _v4(x: object) -> bool:
    # pane-registry#/properties/session
    if not _v3(x):
        return False
    return True


def _v6(x: object) -> bool:
    # defs#/$defs/pane_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
    return True


def _v5(x: object) -> bool:
    # pane-registry#/properties/pane_id
    if not _v6(x):
        return False
    return True


def _v7(x: object) -> bool:
    # pane-registry#/properties/pane_pid
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 2:
            return False
        if x > 4194304:
            return False
    return True


def _v9(x: object) -> bool:
    # defs#/$defs/transport
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v8(x: object) -> bool:
    # pane-registry#/properties/provider_mode
    if not _v9(x):
        return False
    return True


def _v11(x: object) -> bool:
    # defs#/$defs/timestamp
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
    return True


def _v10(x: object) -> bool:
    # pane-registry#/properties/created_at
    if not _v11(x):
        return False
    return True


def _v0(x: object) -> bool:
    # pane-registry#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('created_at', 'dispatch_id', 'format', 'pane_id', 'pane_pid', 'provider_mode', 'session'):
            if k not in x:
                return False
        if 'format' in x and not _v1(x['format']):
            return False
        if 'dispatch_id' in x and not _v2(x['dispatch_id']):
            return False
        if 'session' in x and not _v4(x['session']):
            return False
        if 'pane_id' in x and not _v5(x['pane_id']):
            return False
        if 'pane_pid' in x and not _v7(x['pane_pid']):
            return False
        if 'provider_mode' in x and not _v8(x['provider_mode']):
            return False
        if 'created_at' in x and not _v10(x['created_at']):
            return False
        for k in x:
            if k not in ('format', 'dispatch_id', 'session', 'pane_id', 'pane_pid', 'provider_mode', 'created_at'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'pane-registry': _v0,
}
