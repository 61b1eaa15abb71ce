"""Predicates of the `evidence-envelope` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: object = 'application/vnd.oms.evidence+json'


def _v600(x: object) -> bool:
    # evidence-envelope#/properties/payloadType
    if not _eq(x, _C0):
        return False
    return True


def _v601(x: object) -> bool:
    # evidence-envelope#/properties/payload
    if not _m_defs._v344(x):
        return False
    return True


def _v604(x: object) -> bool:
    # evidence-envelope#/properties/signatures/items/properties/keyid
    if not _m_defs._v3(x):
        return False
    return True


def _v605(x: object) -> bool:
    # evidence-envelope#/properties/signatures/items/properties/sig
    if not _m_defs._v344(x):
        return False
    return True


def _v603(x: object) -> bool:
    # evidence-envelope#/properties/signatures/items
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('keyid', 'sig'):
            if k not in x:
                return False
        if 'keyid' in x and not _v604(x['keyid']):
            return False
        if 'sig' in x and not _v605(x['sig']):
            return False
        for k in x:
            if k not in ('keyid', 'sig'):
                return False
    return True


def _v602(x: object) -> bool:
    # evidence-envelope#/properties/signatures
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 1:
            return False
        for v in x:
            if not _v603(v):
                return False
    return True


def _v599(x: object) -> bool:
    # evidence-envelope#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('payload', 'payloadType', 'signatures'):
            if k not in x:
                return False
        if 'payloadType' in x and not _v600(x['payloadType']):
            return False
        if 'payload' in x and not _v601(x['payload']):
            return False
        if 'signatures' in x and not _v602(x['signatures']):
            return False
        for k in x:
            if k not in ('payloadType', 'payload', 'signatures'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'evidence-envelope': _v599,
}
