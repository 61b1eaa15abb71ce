"""Predicates of the `ticket` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

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

_C0: object = 'ticket'
_C1: tuple[object, ...] = ('open', 'leased', 'done', 'blocked')
_C2: tuple[object, ...] = ('local', 'github')


def _v558(x: object) -> bool:
    # ticket#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v559(x: object) -> bool:
    # ticket#/properties/state
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v561(x: object) -> bool:
    # ticket#/properties/payload/properties/title
    if not _m_defs._v60(x):
        return False
    return True


def _v562(x: object) -> bool:
    # ticket#/properties/payload/properties/source
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v564(x: object) -> bool:
    # ticket#/properties/payload/properties/repository/anyOf/0
    if not _m_defs._v65(x):
        return False
    return True


def _v565(x: object) -> bool:
    # ticket#/properties/payload/properties/repository/anyOf/1
    if not (x is None):
        return False
    return True


def _v563(x: object) -> bool:
    # ticket#/properties/payload/properties/repository
    if not (_v564(x) or _v565(x)):
        return False
    return True


def _v566(x: object) -> bool:
    # ticket#/properties/payload/properties/content_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v567(x: object) -> bool:
    # ticket#/properties/payload/properties/attempt
    if not _m_defs._v11(x):
        return False
    return True


def _v569(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token/anyOf/0
    if not _m_defs._v182(x):
        return False
    return True


def _v570(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token/anyOf/1
    if not (x is None):
        return False
    return True


def _v568(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token
    if not (_v569(x) or _v570(x)):
        return False
    return True


def _v572(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id/anyOf/0
    if not _m_defs._v7(x):
        return False
    return True


def _v573(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v571(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id
    if not (_v572(x) or _v573(x)):
        return False
    return True


def _v575(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id/anyOf/0
    if not _m_defs._v15(x):
        return False
    return True


def _v576(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v574(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id
    if not (_v575(x) or _v576(x)):
        return False
    return True


def _v578(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at/anyOf/0
    if not _m_defs._v85(x):
        return False
    return True


def _v579(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v577(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at
    if not (_v578(x) or _v579(x)):
        return False
    return True


def _v580(x: object) -> bool:
    # ticket#/properties/payload/properties/created_at
    if not _m_defs._v85(x):
        return False
    return True


def _v582(x: object) -> bool:
    # ticket#/properties/payload/properties/reason/anyOf/0
    if not _m_defs._v91(x):
        return False
    return True


def _v583(x: object) -> bool:
    # ticket#/properties/payload/properties/reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v581(x: object) -> bool:
    # ticket#/properties/payload/properties/reason
    if not (_v582(x) or _v583(x)):
        return False
    return True


def _v585(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence/anyOf/0
    if not _m_defs._v3(x):
        return False
    return True


def _v586(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v584(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence
    if not (_v585(x) or _v586(x)):
        return False
    return True


def _v560(x: object) -> bool:
    # ticket#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'content_sha256', 'created_at', 'lease_expires_at', 'lease_token', 'prior_failure_evidence', 'reason', 'repository', 'session_id', 'source', 'title', 'worker_id'):
            if k not in x:
                return False
        if 'title' in x and not _v561(x['title']):
            return False
        if 'source' in x and not _v562(x['source']):
            return False
        if 'repository' in x and not _v563(x['repository']):
            return False
        if 'content_sha256' in x and not _v566(x['content_sha256']):
            return False
        if 'attempt' in x and not _v567(x['attempt']):
            return False
        if 'lease_token' in x and not _v568(x['lease_token']):
            return False
        if 'worker_id' in x and not _v571(x['worker_id']):
            return False
        if 'session_id' in x and not _v574(x['session_id']):
            return False
        if 'lease_expires_at' in x and not _v577(x['lease_expires_at']):
            return False
        if 'created_at' in x and not _v580(x['created_at']):
            return False
        if 'reason' in x and not _v581(x['reason']):
            return False
        if 'prior_failure_evidence' in x and not _v584(x['prior_failure_evidence']):
            return False
        for k in x:
            if k not in ('title', 'source', 'repository', 'content_sha256', 'attempt', 'lease_token', 'worker_id', 'session_id', 'lease_expires_at', 'created_at', 'reason', 'prior_failure_evidence'):
                return False
    return True


def _v587(x: object) -> bool:
    # ticket#/allOf/0
    if not _m_record_envelope._v94(x):
        return False
    return True


def _v557(x: object) -> bool:
    # ticket#
    if isinstance(x, dict):
        if 'kind' in x and not _v558(x['kind']):
            return False
        if 'state' in x and not _v559(x['state']):
            return False
        if 'payload' in x and not _v560(x['payload']):
            return False
    if not _v587(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'ticket': _v557,
}
