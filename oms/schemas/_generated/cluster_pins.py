"""Predicates of the `cluster-pins` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique


_P0 = '^/'
_P1 = '^https?://[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?/?\\Z'
_P2 = '^/([A-Za-z0-9._-]+/)+\\Z'
_P3 = '^(sha256:[0-9a-f]{64}|system)\\Z'
_P4 = '^[0-9a-f]{64}\\Z'


def _v231(x: object) -> bool:
    # cluster-pins#/properties/clusters/additionalProperties/properties/repository
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) > 4096:
            return False
    return True


def _v233(x: object) -> bool:
    # cluster-pins#/properties/clusters/additionalProperties/properties/endpoints/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
    return True


def _v232(x: object) -> bool:
    # cluster-pins#/properties/clusters/additionalProperties/properties/endpoints
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 16:
            return False
        for v in x:
            if not _v233(v):
                return False
    return True


def _v234(x: object) -> bool:
    # cluster-pins#/properties/clusters/additionalProperties/properties/prefix
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
        if len(x) > 256:
            return False
    return True


def _v235(x: object) -> bool:
    # cluster-pins#/properties/clusters/additionalProperties/properties/ca
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
    return True


def _v230(x: object) -> bool:
    # cluster-pins#/properties/clusters/additionalProperties
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('repository', 'endpoints', 'prefix'):
            if k not in x:
                return False
        if 'repository' in x and not _v231(x['repository']):
            return False
        if 'endpoints' in x and not _v232(x['endpoints']):
            return False
        if 'prefix' in x and not _v234(x['prefix']):
            return False
        if 'ca' in x and not _v235(x['ca']):
            return False
        for k in x:
            if k not in ('repository', 'endpoints', 'prefix', 'ca'):
                return False
    return True


def _v236(x: object) -> bool:
    # cluster-pins#/properties/clusters/propertyNames
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
    return True


def _v229(x: object) -> bool:
    # cluster-pins#/properties/clusters
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if len(x) > 256:
            return False
        for k, v in x.items():
            if k not in () and not _v230(v):
                return False
        for k in x:
            if not _v236(k):
                return False
    return True


def _v228(x: object) -> bool:
    # cluster-pins#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('clusters',):
            if k not in x:
                return False
        if 'clusters' in x and not _v229(x['clusters']):
            return False
        for k in x:
            if k not in ('clusters',):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'cluster-pins': _v228,
}
