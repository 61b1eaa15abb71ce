"""Predicates of the `build-info` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_P0 = '^[0-9A-Za-z][0-9A-Za-z.+_-]*\\Z'
_C0: object = 'oms-build-v1'


def _v200(x: object) -> bool:
    # build-info#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v202(x: object) -> bool:
    # build-info#/$defs/release
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 64:
            return False
    return True


def _v201(x: object) -> bool:
    # build-info#/properties/version
    if not _v202(x):
        return False
    return True


def _v204(x: object) -> bool:
    # build-info#/properties/commit/anyOf/0
    if not _m_defs._v39(x):
        return False
    return True


def _v205(x: object) -> bool:
    # build-info#/properties/commit/anyOf/1
    if not (x is None):
        return False
    return True


def _v203(x: object) -> bool:
    # build-info#/properties/commit
    if not (_v204(x) or _v205(x)):
        return False
    return True


def _v206(x: object) -> bool:
    # build-info#/properties/dirty
    if not (isinstance(x, bool)):
        return False
    return True


def _v207(x: object) -> bool:
    # build-info#/properties/source_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v208(x: object) -> bool:
    # build-info#/properties/packages_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v209(x: object) -> bool:
    # build-info#/properties/python
    if not _v202(x):
        return False
    return True


def _v210(x: object) -> bool:
    # build-info#/properties/pyinstaller
    if not _v202(x):
        return False
    return True


def _v211(x: object) -> bool:
    # build-info#/properties/source_date_epoch
    if not _m_defs._v132(x):
        return False
    return True


def _v212(x: object) -> bool:
    # build-info#/properties/built_at
    if not _m_defs._v118(x):
        return False
    return True


def _v199(x: object) -> bool:
    # build-info#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('format', 'version', 'commit', 'dirty', 'source_sha256', 'packages_sha256', 'python', 'pyinstaller', 'source_date_epoch', 'built_at'):
            if k not in x:
                return False
        if 'format' in x and not _v200(x['format']):
            return False
        if 'version' in x and not _v201(x['version']):
            return False
        if 'commit' in x and not _v203(x['commit']):
            return False
        if 'dirty' in x and not _v206(x['dirty']):
            return False
        if 'source_sha256' in x and not _v207(x['source_sha256']):
            return False
        if 'packages_sha256' in x and not _v208(x['packages_sha256']):
            return False
        if 'python' in x and not _v209(x['python']):
            return False
        if 'pyinstaller' in x and not _v210(x['pyinstaller']):
            return False
        if 'source_date_epoch' in x and not _v211(x['source_date_epoch']):
            return False
        if 'built_at' in x and not _v212(x['built_at']):
            return False
        for k in x:
            if k not in ('format', 'version', 'commit', 'dirty', 'source_sha256', 'packages_sha256', 'python', 'pyinstaller', 'source_date_epoch', 'built_at'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'build-info': _v199,
    'build-info#/$defs/release': _v202,
}
