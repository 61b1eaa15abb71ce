"""Predicates of the `authorization` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

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

_C0: object = 'authorization'
_C1: tuple[object, ...] = ('authorized', 'revoked')
_C2: tuple[object, ...] = ('tty', 'flag')


def _v110(x: object) -> bool:
    # authorization#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v111(x: object) -> bool:
    # authorization#/properties/state
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v113(x: object) -> bool:
    # authorization#/properties/payload/properties/repository
    if not _m_defs._v98(x):
        return False
    return True


def _v114(x: object) -> bool:
    # authorization#/properties/payload/properties/person
    if not _m_defs._v115(x):
        return False
    return True


def _v116(x: object) -> bool:
    # authorization#/properties/payload/properties/confirmed_by
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v117(x: object) -> bool:
    # authorization#/properties/payload/properties/authorized_at
    if not _m_defs._v118(x):
        return False
    return True


def _v120(x: object) -> bool:
    # authorization#/properties/payload/properties/revoked_at/anyOf/0
    if not _m_defs._v118(x):
        return False
    return True


def _v121(x: object) -> bool:
    # authorization#/properties/payload/properties/revoked_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v119(x: object) -> bool:
    # authorization#/properties/payload/properties/revoked_at
    if not (_v120(x) or _v121(x)):
        return False
    return True


def _v123(x: object) -> bool:
    # authorization#/properties/payload/properties/reason/anyOf/0
    if not _m_defs._v124(x):
        return False
    return True


def _v125(x: object) -> bool:
    # authorization#/properties/payload/properties/reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v122(x: object) -> bool:
    # authorization#/properties/payload/properties/reason
    if not (_v123(x) or _v125(x)):
        return False
    return True


def _v112(x: object) -> bool:
    # authorization#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('authorized_at', 'confirmed_by', 'person', 'reason', 'repository', 'revoked_at'):
            if k not in x:
                return False
        if 'repository' in x and not _v113(x['repository']):
            return False
        if 'person' in x and not _v114(x['person']):
            return False
        if 'confirmed_by' in x and not _v116(x['confirmed_by']):
            return False
        if 'authorized_at' in x and not _v117(x['authorized_at']):
            return False
        if 'revoked_at' in x and not _v119(x['revoked_at']):
            return False
        if 'reason' in x and not _v122(x['reason']):
            return False
        for k in x:
            if k not in ('repository', 'person', 'confirmed_by', 'authorized_at', 'revoked_at', 'reason'):
                return False
    return True


def _v126(x: object) -> bool:
    # authorization#/allOf/0
    if not _m_record_envelope._v127(x):
        return False
    return True


def _v109(x: object) -> bool:
    # authorization#
    if isinstance(x, dict):
        if 'kind' in x and not _v110(x['kind']):
            return False
        if 'state' in x and not _v111(x['state']):
            return False
        if 'payload' in x and not _v112(x['payload']):
            return False
    if not _v126(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'authorization': _v109,
}
