"""Predicates of the `pool` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs
from oms.schemas._generated import record_envelope as _m_record_envelope

_C0: object = 'pool'
_C1: tuple[object, ...] = ('active',)
_C2: tuple[object, ...] = ('active', 'draining')


def _v857(x: object) -> bool:
    # pool#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v858(x: object) -> bool:
    # pool#/properties/state
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v860(x: object) -> bool:
    # pool#/properties/payload/properties/next_index
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 1000000:
            return False
    return True


def _v863(x: object) -> bool:
    # pool#/properties/payload/properties/slots/items/properties/index
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 1000000:
            return False
    return True


def _v864(x: object) -> bool:
    # pool#/properties/payload/properties/slots/items/properties/name
    if not _m_defs._v7(x):
        return False
    return True


def _v865(x: object) -> bool:
    # pool#/properties/payload/properties/slots/items/properties/state
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v866(x: object) -> bool:
    # pool#/properties/payload/properties/slots/items/properties/since
    if not _m_defs._v118(x):
        return False
    return True


def _v867(x: object) -> bool:
    # pool#/properties/payload/properties/slots/items/properties/forced
    if not (isinstance(x, bool)):
        return False
    return True


def _v862(x: object) -> bool:
    # pool#/properties/payload/properties/slots/items
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('index', 'name', 'since', 'state'):
            if k not in x:
                return False
        if 'index' in x and not _v863(x['index']):
            return False
        if 'name' in x and not _v864(x['name']):
            return False
        if 'state' in x and not _v865(x['state']):
            return False
        if 'since' in x and not _v866(x['since']):
            return False
        if 'forced' in x and not _v867(x['forced']):
            return False
        for k in x:
            if k not in ('index', 'name', 'state', 'since', 'forced'):
                return False
    return True


def _v861(x: object) -> bool:
    # pool#/properties/payload/properties/slots
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 256:
            return False
        for v in x:
            if not _v862(v):
                return False
    return True


def _v868(x: object) -> bool:
    # pool#/properties/payload/properties/updated_at
    if not _m_defs._v118(x):
        return False
    return True


def _v859(x: object) -> bool:
    # pool#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('next_index', 'slots', 'updated_at'):
            if k not in x:
                return False
        if 'next_index' in x and not _v860(x['next_index']):
            return False
        if 'slots' in x and not _v861(x['slots']):
            return False
        if 'updated_at' in x and not _v868(x['updated_at']):
            return False
        for k in x:
            if k not in ('next_index', 'slots', 'updated_at'):
                return False
    return True


def _v869(x: object) -> bool:
    # pool#/allOf/0
    if not _m_record_envelope._v127(x):
        return False
    return True


def _v856(x: object) -> bool:
    # pool#
    if isinstance(x, dict):
        if 'kind' in x and not _v857(x['kind']):
            return False
        if 'state' in x and not _v858(x['state']):
            return False
        if 'payload' in x and not _v859(x['payload']):
            return False
    if not _v869(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'pool': _v856,
}
