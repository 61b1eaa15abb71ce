"""Predicates of the `etcd-settings` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_P0 = '^/'
_P1 = '^[0-9a-f]{64}:[0-9a-f]{64}\\Z'


def _v409(x: object) -> bool:
    # etcd-settings#/properties/tls/properties/ca
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) > 4096:
            return False
    return True


def _v410(x: object) -> bool:
    # etcd-settings#/properties/tls/properties/cert
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) > 4096:
            return False
    return True


def _v411(x: object) -> bool:
    # etcd-settings#/properties/tls/properties/key
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) > 4096:
            return False
    return True


def _v408(x: object) -> bool:
    # etcd-settings#/properties/tls
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if len(x) < 1:
            return False
        if 'ca' in x and not _v409(x['ca']):
            return False
        if 'cert' in x and not _v410(x['cert']):
            return False
        if 'key' in x and not _v411(x['key']):
            return False
        for k in x:
            if k not in ('ca', 'cert', 'key'):
                return False
    return True


def _v413(x: object) -> bool:
    # etcd-settings#/properties/hosts/additionalProperties
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
    return True


def _v414(x: object) -> bool:
    # etcd-settings#/properties/hosts/propertyNames
    if not _m_defs._v339(x):
        return False
    return True


def _v412(x: object) -> bool:
    # etcd-settings#/properties/hosts
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if len(x) > 256:
            return False
        for k, v in x.items():
            if k not in () and not _v413(v):
                return False
        for k in x:
            if not _v414(k):
                return False
    return True


def _v407(x: object) -> bool:
    # etcd-settings#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if len(x) < 1:
            return False
        if 'tls' in x and not _v408(x['tls']):
            return False
        if 'hosts' in x and not _v412(x['hosts']):
            return False
        for k in x:
            if k not in ('tls', 'hosts'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'etcd-settings': _v407,
}
