"""Predicates of the `proxy-record` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_P0 = '^[0-9a-f-]+\\Z'
_P1 = '^[0-9a-f]{32}\\Z'
_C0: object = 1
_C1: object = True


def _v889(x: object) -> bool:
    # proxy-record#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v890(x: object) -> bool:
    # proxy-record#/properties/pid
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 2:
            return False
        if x > 4194304:
            return False
    return True


def _v891(x: object) -> bool:
    # proxy-record#/properties/start_ticks
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v892(x: object) -> bool:
    # proxy-record#/properties/boot_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 64:
            return False
    return True


def _v893(x: object) -> bool:
    # proxy-record#/properties/port
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 65535:
            return False
    return True


def _v894(x: object) -> bool:
    # proxy-record#/properties/hello_nonce
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
    return True


def _v895(x: object) -> bool:
    # proxy-record#/properties/started_at
    if not _m_defs._v118(x):
        return False
    return True


def _v896(x: object) -> bool:
    # proxy-record#/properties/on_demand
    if not _eq(x, _C1):
        return False
    return True


def _v888(x: object) -> bool:
    # proxy-record#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('boot_id', 'format', 'hello_nonce', 'pid', 'port', 'start_ticks', 'started_at'):
            if k not in x:
                return False
        if 'format' in x and not _v889(x['format']):
            return False
        if 'pid' in x and not _v890(x['pid']):
            return False
        if 'start_ticks' in x and not _v891(x['start_ticks']):
            return False
        if 'boot_id' in x and not _v892(x['boot_id']):
            return False
        if 'port' in x and not _v893(x['port']):
            return False
        if 'hello_nonce' in x and not _v894(x['hello_nonce']):
            return False
        if 'started_at' in x and not _v895(x['started_at']):
            return False
        if 'on_demand' in x and not _v896(x['on_demand']):
            return False
        for k in x:
            if k not in ('format', 'pid', 'start_ticks', 'boot_id', 'port', 'hello_nonce', 'started_at', 'on_demand'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'proxy-record': _v888,
}
