"""Predicates of the `provider` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs
from oms.schemas._generated import record_envelope as _m_record_envelope

_C0: object = 'provider'
_C1: tuple[object, ...] = ('known',)
_C2: tuple[object, ...] = (None, 'quota', 'transient')


def _v871(x: object) -> bool:
    # provider#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v872(x: object) -> bool:
    # provider#/properties/state
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v874(x: object) -> bool:
    # provider#/properties/payload/properties/provider_id
    if not _m_defs._v7(x):
        return False
    return True


def _v876(x: object) -> bool:
    # provider#/properties/payload/properties/cooldown_until/oneOf/0
    if not (x is None):
        return False
    return True


def _v877(x: object) -> bool:
    # provider#/properties/payload/properties/cooldown_until/oneOf/1
    if not _m_defs._v118(x):
        return False
    return True


def _v875(x: object) -> bool:
    # provider#/properties/payload/properties/cooldown_until
    if [_v876(x), _v877(x)].count(True) != 1:
        return False
    return True


def _v878(x: object) -> bool:
    # provider#/properties/payload/properties/cooldown_kind
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v879(x: object) -> bool:
    # provider#/properties/payload/properties/cooldown_reason
    if not (isinstance(x, str) or x is None):
        return False
    if isinstance(x, str):
        if len(x) > 512:
            return False
    return True


def _v880(x: object) -> bool:
    # provider#/properties/payload/properties/cooldown_source
    if not (isinstance(x, str) or x is None):
        return False
    if isinstance(x, str):
        if len(x) > 200:
            return False
    return True


def _v881(x: object) -> bool:
    # provider#/properties/payload/properties/quota_percent
    if not (_is_integer(x) or x is None):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 100:
            return False
    return True


def _v883(x: object) -> bool:
    # provider#/properties/payload/properties/probed_at/oneOf/0
    if not (x is None):
        return False
    return True


def _v884(x: object) -> bool:
    # provider#/properties/payload/properties/probed_at/oneOf/1
    if not _m_defs._v118(x):
        return False
    return True


def _v882(x: object) -> bool:
    # provider#/properties/payload/properties/probed_at
    if [_v883(x), _v884(x)].count(True) != 1:
        return False
    return True


def _v885(x: object) -> bool:
    # provider#/properties/payload/properties/probe_note
    if not (isinstance(x, str) or x is None):
        return False
    if isinstance(x, str):
        if len(x) > 512:
            return False
    return True


def _v886(x: object) -> bool:
    # provider#/properties/payload/properties/updated_at
    if not _m_defs._v118(x):
        return False
    return True


def _v873(x: object) -> bool:
    # provider#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('provider_id', 'cooldown_until', 'cooldown_kind', 'cooldown_reason', 'cooldown_source', 'quota_percent', 'probed_at', 'probe_note', 'updated_at'):
            if k not in x:
                return False
        if 'provider_id' in x and not _v874(x['provider_id']):
            return False
        if 'cooldown_until' in x and not _v875(x['cooldown_until']):
            return False
        if 'cooldown_kind' in x and not _v878(x['cooldown_kind']):
            return False
        if 'cooldown_reason' in x and not _v879(x['cooldown_reason']):
            return False
        if 'cooldown_source' in x and not _v880(x['cooldown_source']):
            return False
        if 'quota_percent' in x and not _v881(x['quota_percent']):
            return False
        if 'probed_at' in x and not _v882(x['probed_at']):
            return False
        if 'probe_note' in x and not _v885(x['probe_note']):
            return False
        if 'updated_at' in x and not _v886(x['updated_at']):
            return False
        for k in x:
            if k not in ('provider_id', 'cooldown_until', 'cooldown_kind', 'cooldown_reason', 'cooldown_source', 'quota_percent', 'probed_at', 'probe_note', 'updated_at'):
                return False
    return True


def _v887(x: object) -> bool:
    # provider#/allOf/0
    if not _m_record_envelope._v127(x):
        return False
    return True


def _v870(x: object) -> bool:
    # provider#
    if isinstance(x, dict):
        if 'kind' in x and not _v871(x['kind']):
            return False
        if 'state' in x and not _v872(x['state']):
            return False
        if 'payload' in x and not _v873(x['payload']):
            return False
    if not _v887(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'provider': _v870,
}
