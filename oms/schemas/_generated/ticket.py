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


def _v623(x: object) -> bool:
    # ticket#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v624(x: object) -> bool:
    # ticket#/properties/state
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v626(x: object) -> bool:
    # ticket#/properties/payload/properties/title
    if not _m_defs._v61(x):
        return False
    return True


def _v627(x: object) -> bool:
    # ticket#/properties/payload/properties/source
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v629(x: object) -> bool:
    # ticket#/properties/payload/properties/repository/anyOf/0
    if not _m_defs._v66(x):
        return False
    return True


def _v630(x: object) -> bool:
    # ticket#/properties/payload/properties/repository/anyOf/1
    if not (x is None):
        return False
    return True


def _v628(x: object) -> bool:
    # ticket#/properties/payload/properties/repository
    if not (_v629(x) or _v630(x)):
        return False
    return True


def _v631(x: object) -> bool:
    # ticket#/properties/payload/properties/content_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v632(x: object) -> bool:
    # ticket#/properties/payload/properties/attempt
    if not _m_defs._v11(x):
        return False
    return True


def _v634(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token/anyOf/0
    if not _m_defs._v213(x):
        return False
    return True


def _v635(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token/anyOf/1
    if not (x is None):
        return False
    return True


def _v633(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token
    if not (_v634(x) or _v635(x)):
        return False
    return True


def _v637(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id/anyOf/0
    if not _m_defs._v7(x):
        return False
    return True


def _v638(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v636(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id
    if not (_v637(x) or _v638(x)):
        return False
    return True


def _v640(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id/anyOf/0
    if not _m_defs._v15(x):
        return False
    return True


def _v641(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v639(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id
    if not (_v640(x) or _v641(x)):
        return False
    return True


def _v643(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at/anyOf/0
    if not _m_defs._v86(x):
        return False
    return True


def _v644(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v642(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at
    if not (_v643(x) or _v644(x)):
        return False
    return True


def _v645(x: object) -> bool:
    # ticket#/properties/payload/properties/created_at
    if not _m_defs._v86(x):
        return False
    return True


def _v647(x: object) -> bool:
    # ticket#/properties/payload/properties/reason/anyOf/0
    if not _m_defs._v92(x):
        return False
    return True


def _v648(x: object) -> bool:
    # ticket#/properties/payload/properties/reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v646(x: object) -> bool:
    # ticket#/properties/payload/properties/reason
    if not (_v647(x) or _v648(x)):
        return False
    return True


def _v650(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence/anyOf/0
    if not _m_defs._v3(x):
        return False
    return True


def _v651(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v649(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence
    if not (_v650(x) or _v651(x)):
        return False
    return True


def _v652(x: object) -> bool:
    # ticket#/properties/payload/properties/priority
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 5:
            return False
    return True


def _v654(x: object) -> bool:
    # ticket#/properties/payload/properties/retry_after/anyOf/0
    if not _m_defs._v86(x):
        return False
    return True


def _v655(x: object) -> bool:
    # ticket#/properties/payload/properties/retry_after/anyOf/1
    if not (x is None):
        return False
    return True


def _v653(x: object) -> bool:
    # ticket#/properties/payload/properties/retry_after
    if not (_v654(x) or _v655(x)):
        return False
    return True


def _v658(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/attempt
    if not _m_defs._v11(x):
        return False
    return True


def _v660(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/dispatch_id/anyOf/0
    if not _m_defs._v7(x):
        return False
    return True


def _v661(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/dispatch_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v659(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/dispatch_id
    if not (_v660(x) or _v661(x)):
        return False
    return True


def _v662(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/failed_at
    if not _m_defs._v86(x):
        return False
    return True


def _v663(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/reason
    if not _m_defs._v92(x):
        return False
    return True


def _v657(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'dispatch_id', 'failed_at', 'reason'):
            if k not in x:
                return False
        if 'attempt' in x and not _v658(x['attempt']):
            return False
        if 'dispatch_id' in x and not _v659(x['dispatch_id']):
            return False
        if 'failed_at' in x and not _v662(x['failed_at']):
            return False
        if 'reason' in x and not _v663(x['reason']):
            return False
        for k in x:
            if k not in ('attempt', 'dispatch_id', 'failed_at', 'reason'):
                return False
    return True


def _v656(x: object) -> bool:
    # ticket#/properties/payload/properties/failures
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 10:
            return False
        for v in x:
            if not _v657(v):
                return False
    return True


def _v625(x: object) -> bool:
    # ticket#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'content_sha256', 'created_at', 'lease_expires_at', 'lease_token', 'prior_failure_evidence', 'reason', 'repository', 'session_id', 'source', 'title', 'worker_id'):
            if k not in x:
                return False
        if 'title' in x and not _v626(x['title']):
            return False
        if 'source' in x and not _v627(x['source']):
            return False
        if 'repository' in x and not _v628(x['repository']):
            return False
        if 'content_sha256' in x and not _v631(x['content_sha256']):
            return False
        if 'attempt' in x and not _v632(x['attempt']):
            return False
        if 'lease_token' in x and not _v633(x['lease_token']):
            return False
        if 'worker_id' in x and not _v636(x['worker_id']):
            return False
        if 'session_id' in x and not _v639(x['session_id']):
            return False
        if 'lease_expires_at' in x and not _v642(x['lease_expires_at']):
            return False
        if 'created_at' in x and not _v645(x['created_at']):
            return False
        if 'reason' in x and not _v646(x['reason']):
            return False
        if 'prior_failure_evidence' in x and not _v649(x['prior_failure_evidence']):
            return False
        if 'priority' in x and not _v652(x['priority']):
            return False
        if 'retry_after' in x and not _v653(x['retry_after']):
            return False
        if 'failures' in x and not _v656(x['failures']):
            return False
        for k in x:
            if k not in ('title', 'source', 'repository', 'content_sha256', 'attempt', 'lease_token', 'worker_id', 'session_id', 'lease_expires_at', 'created_at', 'reason', 'prior_failure_evidence', 'priority', 'retry_after', 'failures'):
                return False
    return True


def _v664(x: object) -> bool:
    # ticket#/allOf/0
    if not _m_record_envelope._v95(x):
        return False
    return True


def _v622(x: object) -> bool:
    # ticket#
    if isinstance(x, dict):
        if 'kind' in x and not _v623(x['kind']):
            return False
        if 'state' in x and not _v624(x['state']):
            return False
        if 'payload' in x and not _v625(x['payload']):
            return False
    if not _v664(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'ticket': _v622,
}
