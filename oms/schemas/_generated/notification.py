"""Predicates of the `notification` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: object = 'oms-notification-v1'
_C1: tuple[object, ...] = ('done', 'blocked', 'needs-a-person', 'parked', 'merged', 'limit')


def _v531(x: object) -> bool:
    # notification#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v532(x: object) -> bool:
    # notification#/properties/notice_id
    if not _m_defs._v7(x):
        return False
    return True


def _v533(x: object) -> bool:
    # notification#/properties/kind
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v534(x: object) -> bool:
    # notification#/properties/at
    if not _m_defs._v118(x):
        return False
    return True


def _v535(x: object) -> bool:
    # notification#/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v536(x: object) -> bool:
    # notification#/properties/title
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 512:
            return False
    return True


def _v538(x: object) -> bool:
    # notification#/properties/dispatch_id/oneOf/0
    if not _m_defs._v7(x):
        return False
    return True


def _v539(x: object) -> bool:
    # notification#/properties/dispatch_id/oneOf/1
    if not (x is None):
        return False
    return True


def _v537(x: object) -> bool:
    # notification#/properties/dispatch_id
    if [_v538(x), _v539(x)].count(True) != 1:
        return False
    return True


def _v540(x: object) -> bool:
    # notification#/properties/reason
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 512:
            return False
    return True


def _v541(x: object) -> bool:
    # notification#/properties/summary
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 1024:
            return False
    return True


def _v530(x: object) -> bool:
    # notification#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('at', 'dispatch_id', 'format', 'kind', 'notice_id', 'reason', 'summary', 'ticket_id', 'title'):
            if k not in x:
                return False
        if 'format' in x and not _v531(x['format']):
            return False
        if 'notice_id' in x and not _v532(x['notice_id']):
            return False
        if 'kind' in x and not _v533(x['kind']):
            return False
        if 'at' in x and not _v534(x['at']):
            return False
        if 'ticket_id' in x and not _v535(x['ticket_id']):
            return False
        if 'title' in x and not _v536(x['title']):
            return False
        if 'dispatch_id' in x and not _v537(x['dispatch_id']):
            return False
        if 'reason' in x and not _v540(x['reason']):
            return False
        if 'summary' in x and not _v541(x['summary']):
            return False
        for k in x:
            if k not in ('format', 'notice_id', 'kind', 'at', 'ticket_id', 'title', 'dispatch_id', 'reason', 'summary'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'notification': _v530,
}
