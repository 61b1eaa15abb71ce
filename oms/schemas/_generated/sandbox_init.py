"""Predicates of the `sandbox-init` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_P0 = '^[0-9a-f-]{36}\\Z'
_C0: object = 'oms-sandbox-init-v1'


def _v935(x: object) -> bool:
    # sandbox-init#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v936(x: object) -> bool:
    # sandbox-init#/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v937(x: object) -> bool:
    # sandbox-init#/properties/pid
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 2:
            return False
        if x > 4194304:
            return False
    return True


def _v938(x: object) -> bool:
    # sandbox-init#/properties/start_ticks
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v939(x: object) -> bool:
    # sandbox-init#/properties/boot_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
    return True


def _v940(x: object) -> bool:
    # sandbox-init#/properties/started_at
    if not _m_defs._v118(x):
        return False
    return True


def _v934(x: object) -> bool:
    # sandbox-init#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('boot_id', 'dispatch_id', 'format', 'pid', 'start_ticks', 'started_at'):
            if k not in x:
                return False
        if 'format' in x and not _v935(x['format']):
            return False
        if 'dispatch_id' in x and not _v936(x['dispatch_id']):
            return False
        if 'pid' in x and not _v937(x['pid']):
            return False
        if 'start_ticks' in x and not _v938(x['start_ticks']):
            return False
        if 'boot_id' in x and not _v939(x['boot_id']):
            return False
        if 'started_at' in x and not _v940(x['started_at']):
            return False
        for k in x:
            if k not in ('format', 'dispatch_id', 'pid', 'start_ticks', 'boot_id', 'started_at'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'sandbox-init': _v934,
}
