"""Predicates of the `ticket-content` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

_P0 = '^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$'
_P1 = '^[^\\u0000-\\u001f\\u007f]*$'
_P2 = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$'
_P3 = '^https://[^\\u0000-\\u0020\\u007f]+$'
_C0: object = 'oms-ticket-content-v1'
_C1: tuple[object, ...] = ('local', 'github')


def _v1(x: object) -> bool:
    # ticket-content#/properties/format
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
    # ticket-content#/properties/ticket_id
    if not _v3(x):
        return False
    return True


def _v4(x: object) -> bool:
    # ticket-content#/properties/source
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v6(x: object) -> bool:
    # defs#/$defs/title
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 256:
            return False
    return True


def _v5(x: object) -> bool:
    # ticket-content#/properties/title
    if not _v6(x):
        return False
    return True


def _v7(x: object) -> bool:
    # ticket-content#/properties/body
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 262144:
            return False
    return True


def _v10(x: object) -> bool:
    # defs#/$defs/repository
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
        if len(x) > 140:
            return False
    return True


def _v9(x: object) -> bool:
    # ticket-content#/properties/repository/anyOf/0
    if not _v10(x):
        return False
    return True


def _v11(x: object) -> bool:
    # ticket-content#/properties/repository/anyOf/1
    if not (x is None):
        return False
    return True


def _v8(x: object) -> bool:
    # ticket-content#/properties/repository
    if not (_v9(x) or _v11(x)):
        return False
    return True


def _v14(x: object) -> bool:
    # defs#/$defs/url
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
        if len(x) > 2048:
            return False
    return True


def _v13(x: object) -> bool:
    # ticket-content#/properties/url/anyOf/0
    if not _v14(x):
        return False
    return True


def _v15(x: object) -> bool:
    # ticket-content#/properties/url/anyOf/1
    if not (x is None):
        return False
    return True


def _v12(x: object) -> bool:
    # ticket-content#/properties/url
    if not (_v13(x) or _v15(x)):
        return False
    return True


def _v17(x: object) -> bool:
    # ticket-content#/properties/number/anyOf/0
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 1000000000:
            return False
    return True


def _v18(x: object) -> bool:
    # ticket-content#/properties/number/anyOf/1
    if not (x is None):
        return False
    return True


def _v16(x: object) -> bool:
    # ticket-content#/properties/number
    if not (_v17(x) or _v18(x)):
        return False
    return True


def _v0(x: object) -> bool:
    # ticket-content#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('body', 'format', 'number', 'repository', 'source', 'ticket_id', 'title', 'url'):
            if k not in x:
                return False
        if 'format' in x and not _v1(x['format']):
            return False
        if 'ticket_id' in x and not _v2(x['ticket_id']):
            return False
        if 'source' in x and not _v4(x['source']):
            return False
        if 'title' in x and not _v5(x['title']):
            return False
        if 'body' in x and not _v7(x['body']):
            return False
        if 'repository' in x and not _v8(x['repository']):
            return False
        if 'url' in x and not _v12(x['url']):
            return False
        if 'number' in x and not _v16(x['number']):
            return False
        for k in x:
            if k not in ('format', 'ticket_id', 'source', 'title', 'body', 'repository', 'url', 'number'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'ticket-content': _v0,
}
