"""Predicates of the `proxy-usage` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: object = 1


def _v908(x: object) -> bool:
    # proxy-usage#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v909(x: object) -> bool:
    # proxy-usage#/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v910(x: object) -> bool:
    # proxy-usage#/properties/sequence
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v911(x: object) -> bool:
    # proxy-usage#/properties/input_tokens
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v912(x: object) -> bool:
    # proxy-usage#/properties/output_tokens
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v913(x: object) -> bool:
    # proxy-usage#/properties/pending_input_tokens
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v914(x: object) -> bool:
    # proxy-usage#/properties/pending_output_tokens
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v915(x: object) -> bool:
    # proxy-usage#/properties/requests
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v916(x: object) -> bool:
    # proxy-usage#/properties/updated_at
    if not _m_defs._v118(x):
        return False
    return True


def _v907(x: object) -> bool:
    # proxy-usage#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'format', 'input_tokens', 'output_tokens', 'requests', 'sequence', 'updated_at'):
            if k not in x:
                return False
        if 'format' in x and not _v908(x['format']):
            return False
        if 'dispatch_id' in x and not _v909(x['dispatch_id']):
            return False
        if 'sequence' in x and not _v910(x['sequence']):
            return False
        if 'input_tokens' in x and not _v911(x['input_tokens']):
            return False
        if 'output_tokens' in x and not _v912(x['output_tokens']):
            return False
        if 'pending_input_tokens' in x and not _v913(x['pending_input_tokens']):
            return False
        if 'pending_output_tokens' in x and not _v914(x['pending_output_tokens']):
            return False
        if 'requests' in x and not _v915(x['requests']):
            return False
        if 'updated_at' in x and not _v916(x['updated_at']):
            return False
        for k in x:
            if k not in ('format', 'dispatch_id', 'sequence', 'input_tokens', 'output_tokens', 'pending_input_tokens', 'pending_output_tokens', 'requests', 'updated_at'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'proxy-usage': _v907,
}
