"""Predicates of the `host-settings` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs



def _v734(x: object) -> bool:
    # host-settings#/properties/host/properties/name
    if not _m_defs._v339(x):
        return False
    return True


def _v733(x: object) -> bool:
    # host-settings#/properties/host
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('name',):
            if k not in x:
                return False
        if 'name' in x and not _v734(x['name']):
            return False
        for k in x:
            if k not in ('name',):
                return False
    return True


def _v732(x: object) -> bool:
    # host-settings#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('host',):
            if k not in x:
                return False
        if 'host' in x and not _v733(x['host']):
            return False
        for k in x:
            if k not in ('host',):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'host-settings': _v732,
}
