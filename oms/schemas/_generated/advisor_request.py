"""Predicates of the `advisor-request` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs
from oms.schemas._generated import dispatch_intent as _m_dispatch_intent

_C0: object = 'oms-advisor-request-v1'
_C1: tuple[object, ...] = ('local', 'github')


def _v1(x: object) -> bool:
    # advisor-request#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v2(x: object) -> bool:
    # advisor-request#/properties/dispatch_intent_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v4(x: object) -> bool:
    # advisor-request#/properties/intent
    if not _m_dispatch_intent._v5(x):
        return False
    return True


def _v92(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/title
    if not _m_defs._v93(x):
        return False
    return True


def _v94(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/body
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 262144:
            return False
    return True


def _v95(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/source
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v97(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/repository/anyOf/0
    if not _m_defs._v98(x):
        return False
    return True


def _v99(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/repository/anyOf/1
    if not (x is None):
        return False
    return True


def _v96(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/repository
    if not (_v97(x) or _v99(x)):
        return False
    return True


def _v101(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/url/anyOf/0
    if not _m_defs._v102(x):
        return False
    return True


def _v103(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/url/anyOf/1
    if not (x is None):
        return False
    return True


def _v100(x: object) -> bool:
    # advisor-request#/properties/ticket/properties/url
    if not (_v101(x) or _v103(x)):
        return False
    return True


def _v91(x: object) -> bool:
    # advisor-request#/properties/ticket
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('body', 'repository', 'source', 'title', 'url'):
            if k not in x:
                return False
        if 'title' in x and not _v92(x['title']):
            return False
        if 'body' in x and not _v94(x['body']):
            return False
        if 'source' in x and not _v95(x['source']):
            return False
        if 'repository' in x and not _v96(x['repository']):
            return False
        if 'url' in x and not _v100(x['url']):
            return False
        for k in x:
            if k not in ('title', 'body', 'source', 'repository', 'url'):
                return False
    return True


def _v104(x: object) -> bool:
    # advisor-request#/properties/instructions
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 8192:
            return False
    return True


def _v0(x: object) -> bool:
    # advisor-request#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_intent_sha256', 'format', 'instructions', 'intent', 'ticket'):
            if k not in x:
                return False
        if 'format' in x and not _v1(x['format']):
            return False
        if 'dispatch_intent_sha256' in x and not _v2(x['dispatch_intent_sha256']):
            return False
        if 'intent' in x and not _v4(x['intent']):
            return False
        if 'ticket' in x and not _v91(x['ticket']):
            return False
        if 'instructions' in x and not _v104(x['instructions']):
            return False
        for k in x:
            if k not in ('format', 'dispatch_intent_sha256', 'intent', 'ticket', 'instructions'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'advisor-request': _v0,
}
