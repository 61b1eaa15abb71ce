"""Predicates of the `sandbox-dir` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_P0 = '^/[\\x20-\\x7e]*\\Z'
_C0: object = 1


def _v930(x: object) -> bool:
    # sandbox-dir#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v931(x: object) -> bool:
    # sandbox-dir#/properties/path
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) < 2:
            return False
        if len(x) > 4000:
            return False
    return True


def _v932(x: object) -> bool:
    # sandbox-dir#/properties/key_id
    if not _m_defs._v3(x):
        return False
    return True


def _v933(x: object) -> bool:
    # sandbox-dir#/properties/created_at
    if not _m_defs._v118(x):
        return False
    return True


def _v929(x: object) -> bool:
    # sandbox-dir#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('created_at', 'format', 'key_id', 'path'):
            if k not in x:
                return False
        if 'format' in x and not _v930(x['format']):
            return False
        if 'path' in x and not _v931(x['path']):
            return False
        if 'key_id' in x and not _v932(x['key_id']):
            return False
        if 'created_at' in x and not _v933(x['created_at']):
            return False
        for k in x:
            if k not in ('format', 'path', 'key_id', 'created_at'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'sandbox-dir': _v929,
}
