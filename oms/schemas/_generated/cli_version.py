"""Predicates of the `cli-version` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import build_info as _m_build_info
from oms.schemas._generated import defs as _m_defs

_C0: object = True
_C1: tuple[object, ...] = ('onedir', 'onefile', 'source')
_C2: tuple[object, ...] = ('sha256-tree', 'sha256')


def _v214(x: object) -> bool:
    # cli-version#/properties/ok
    if not _eq(x, _C0):
        return False
    return True


def _v215(x: object) -> bool:
    # cli-version#/properties/version
    if not _m_build_info._v202(x):
        return False
    return True


def _v216(x: object) -> bool:
    # cli-version#/properties/running
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v217(x: object) -> bool:
    # cli-version#/properties/executable
    if not _m_defs._v35(x):
        return False
    return True


def _v218(x: object) -> bool:
    # cli-version#/properties/python
    if not _m_build_info._v202(x):
        return False
    return True


def _v221(x: object) -> bool:
    # cli-version#/properties/digest/anyOf/0/properties/algorithm
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v222(x: object) -> bool:
    # cli-version#/properties/digest/anyOf/0/properties/value
    if not _m_defs._v3(x):
        return False
    return True


def _v223(x: object) -> bool:
    # cli-version#/properties/digest/anyOf/0/properties/of
    if not _m_defs._v35(x):
        return False
    return True


def _v220(x: object) -> bool:
    # cli-version#/properties/digest/anyOf/0
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('algorithm', 'value', 'of'):
            if k not in x:
                return False
        if 'algorithm' in x and not _v221(x['algorithm']):
            return False
        if 'value' in x and not _v222(x['value']):
            return False
        if 'of' in x and not _v223(x['of']):
            return False
        for k in x:
            if k not in ('algorithm', 'value', 'of'):
                return False
    return True


def _v224(x: object) -> bool:
    # cli-version#/properties/digest/anyOf/1
    if not (x is None):
        return False
    return True


def _v219(x: object) -> bool:
    # cli-version#/properties/digest
    if not (_v220(x) or _v224(x)):
        return False
    return True


def _v226(x: object) -> bool:
    # cli-version#/properties/build/anyOf/0
    if not _m_build_info._v199(x):
        return False
    return True


def _v227(x: object) -> bool:
    # cli-version#/properties/build/anyOf/1
    if not (x is None):
        return False
    return True


def _v225(x: object) -> bool:
    # cli-version#/properties/build
    if not (_v226(x) or _v227(x)):
        return False
    return True


def _v213(x: object) -> bool:
    # cli-version#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('ok', 'version', 'running', 'executable', 'python', 'digest', 'build'):
            if k not in x:
                return False
        if 'ok' in x and not _v214(x['ok']):
            return False
        if 'version' in x and not _v215(x['version']):
            return False
        if 'running' in x and not _v216(x['running']):
            return False
        if 'executable' in x and not _v217(x['executable']):
            return False
        if 'python' in x and not _v218(x['python']):
            return False
        if 'digest' in x and not _v219(x['digest']):
            return False
        if 'build' in x and not _v225(x['build']):
            return False
        for k in x:
            if k not in ('ok', 'version', 'running', 'executable', 'python', 'digest', 'build'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'cli-version': _v213,
}
