"""Predicates of the `settings` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique


_P0 = '^[A-Za-z_][A-Za-z0-9_]{0,63}\\Z'
_C0: tuple[object, ...] = ('done', 'blocked', 'needs-a-person', 'parked', 'merged', 'limit')


def _v985(x: object) -> bool:
    # settings#/properties/notify/properties/commands/items/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 4096:
            return False
    return True


def _v984(x: object) -> bool:
    # settings#/properties/notify/properties/commands/items
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 64:
            return False
        for v in x:
            if not _v985(v):
                return False
    return True


def _v983(x: object) -> bool:
    # settings#/properties/notify/properties/commands
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 8:
            return False
        for v in x:
            if not _v984(v):
                return False
    return True


def _v987(x: object) -> bool:
    # settings#/properties/notify/properties/on/items
    if not any(_eq(x, c) for c in _C0):
        return False
    return True


def _v986(x: object) -> bool:
    # settings#/properties/notify/properties/on
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        for v in x:
            if not _v987(v):
                return False
        if not _unique(x):
            return False
    return True


def _v989(x: object) -> bool:
    # settings#/properties/notify/properties/pass_env/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
    return True


def _v988(x: object) -> bool:
    # settings#/properties/notify/properties/pass_env
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 32:
            return False
        for v in x:
            if not _v989(v):
                return False
    return True


def _v990(x: object) -> bool:
    # settings#/properties/notify/properties/timeout_seconds
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 60:
            return False
    return True


def _v982(x: object) -> bool:
    # settings#/properties/notify
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('commands',):
            if k not in x:
                return False
        if 'commands' in x and not _v983(x['commands']):
            return False
        if 'on' in x and not _v986(x['on']):
            return False
        if 'pass_env' in x and not _v988(x['pass_env']):
            return False
        if 'timeout_seconds' in x and not _v990(x['timeout_seconds']):
            return False
        for k in x:
            if k not in ('commands', 'on', 'pass_env', 'timeout_seconds'):
                return False
    return True


def _v981(x: object) -> bool:
    # settings#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('notify',):
            if k not in x:
                return False
        if 'notify' in x and not _v982(x['notify']):
            return False
        for k in x:
            if k not in ('notify',):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'settings': _v981,
}
