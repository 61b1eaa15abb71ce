"""Predicates of the `advisor-verdict` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: tuple[object, ...] = ('approve', 'reject')


def _v106(x: object) -> bool:
    # advisor-verdict#/properties/verdict
    if not any(_eq(x, c) for c in _C0):
        return False
    return True


def _v107(x: object) -> bool:
    # advisor-verdict#/properties/rationale
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 8192:
            return False
    return True


def _v108(x: object) -> bool:
    # advisor-verdict#/properties/dispatch_intent_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v105(x: object) -> bool:
    # advisor-verdict#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_intent_sha256', 'rationale', 'verdict'):
            if k not in x:
                return False
        if 'verdict' in x and not _v106(x['verdict']):
            return False
        if 'rationale' in x and not _v107(x['rationale']):
            return False
        if 'dispatch_intent_sha256' in x and not _v108(x['dispatch_intent_sha256']):
            return False
        for k in x:
            if k not in ('verdict', 'rationale', 'dispatch_intent_sha256'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'advisor-verdict': _v105,
}
