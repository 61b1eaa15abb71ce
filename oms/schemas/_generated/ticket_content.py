"""Predicates of the `ticket-content` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: object = 'oms-ticket-content-v1'
_C1: tuple[object, ...] = ('local', 'github')


def _v1001(x: object) -> bool:
    # ticket-content#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v1002(x: object) -> bool:
    # ticket-content#/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v1003(x: object) -> bool:
    # ticket-content#/properties/source
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v1004(x: object) -> bool:
    # ticket-content#/properties/title
    if not _m_defs._v93(x):
        return False
    return True


def _v1005(x: object) -> bool:
    # ticket-content#/properties/body
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 262144:
            return False
    return True


def _v1007(x: object) -> bool:
    # ticket-content#/properties/repository/anyOf/0
    if not _m_defs._v98(x):
        return False
    return True


def _v1008(x: object) -> bool:
    # ticket-content#/properties/repository/anyOf/1
    if not (x is None):
        return False
    return True


def _v1006(x: object) -> bool:
    # ticket-content#/properties/repository
    if not (_v1007(x) or _v1008(x)):
        return False
    return True


def _v1010(x: object) -> bool:
    # ticket-content#/properties/url/anyOf/0
    if not _m_defs._v102(x):
        return False
    return True


def _v1011(x: object) -> bool:
    # ticket-content#/properties/url/anyOf/1
    if not (x is None):
        return False
    return True


def _v1009(x: object) -> bool:
    # ticket-content#/properties/url
    if not (_v1010(x) or _v1011(x)):
        return False
    return True


def _v1013(x: object) -> bool:
    # ticket-content#/properties/number/anyOf/0
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 1000000000:
            return False
    return True


def _v1014(x: object) -> bool:
    # ticket-content#/properties/number/anyOf/1
    if not (x is None):
        return False
    return True


def _v1012(x: object) -> bool:
    # ticket-content#/properties/number
    if not (_v1013(x) or _v1014(x)):
        return False
    return True


def _v1000(x: object) -> bool:
    # ticket-content#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('body', 'format', 'number', 'repository', 'source', 'ticket_id', 'title', 'url'):
            if k not in x:
                return False
        if 'format' in x and not _v1001(x['format']):
            return False
        if 'ticket_id' in x and not _v1002(x['ticket_id']):
            return False
        if 'source' in x and not _v1003(x['source']):
            return False
        if 'title' in x and not _v1004(x['title']):
            return False
        if 'body' in x and not _v1005(x['body']):
            return False
        if 'repository' in x and not _v1006(x['repository']):
            return False
        if 'url' in x and not _v1009(x['url']):
            return False
        if 'number' in x and not _v1012(x['number']):
            return False
        for k in x:
            if k not in ('format', 'ticket_id', 'source', 'title', 'body', 'repository', 'url', 'number'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'ticket-content': _v1000,
}
