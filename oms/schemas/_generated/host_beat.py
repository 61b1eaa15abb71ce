"""Predicates of the `host-beat` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: object = 'oms-host-beat-v1'


def _v715(x: object) -> bool:
    # host-beat#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v716(x: object) -> bool:
    # host-beat#/properties/host
    if not _m_defs._v339(x):
        return False
    return True


def _v717(x: object) -> bool:
    # host-beat#/properties/beat_at
    if not _m_defs._v118(x):
        return False
    return True


def _v718(x: object) -> bool:
    # host-beat#/properties/expires_at
    if not _m_defs._v118(x):
        return False
    return True


def _v719(x: object) -> bool:
    # host-beat#/properties/pid
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 4194304:
            return False
    return True


def _v714(x: object) -> bool:
    # host-beat#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('beat_at', 'expires_at', 'format', 'host', 'pid'):
            if k not in x:
                return False
        if 'format' in x and not _v715(x['format']):
            return False
        if 'host' in x and not _v716(x['host']):
            return False
        if 'beat_at' in x and not _v717(x['beat_at']):
            return False
        if 'expires_at' in x and not _v718(x['expires_at']):
            return False
        if 'pid' in x and not _v719(x['pid']):
            return False
        for k in x:
            if k not in ('format', 'host', 'beat_at', 'expires_at', 'pid'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'host-beat': _v714,
}
