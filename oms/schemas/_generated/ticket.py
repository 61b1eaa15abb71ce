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


def _v726(x: object) -> bool:
    # ticket#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v727(x: object) -> bool:
    # ticket#/properties/state
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v729(x: object) -> bool:
    # ticket#/properties/payload/properties/title
    if not _m_defs._v61(x):
        return False
    return True


def _v730(x: object) -> bool:
    # ticket#/properties/payload/properties/source
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v732(x: object) -> bool:
    # ticket#/properties/payload/properties/repository/anyOf/0
    if not _m_defs._v66(x):
        return False
    return True


def _v733(x: object) -> bool:
    # ticket#/properties/payload/properties/repository/anyOf/1
    if not (x is None):
        return False
    return True


def _v731(x: object) -> bool:
    # ticket#/properties/payload/properties/repository
    if not (_v732(x) or _v733(x)):
        return False
    return True


def _v734(x: object) -> bool:
    # ticket#/properties/payload/properties/content_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v735(x: object) -> bool:
    # ticket#/properties/payload/properties/attempt
    if not _m_defs._v11(x):
        return False
    return True


def _v737(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token/anyOf/0
    if not _m_defs._v235(x):
        return False
    return True


def _v738(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token/anyOf/1
    if not (x is None):
        return False
    return True


def _v736(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token
    if not (_v737(x) or _v738(x)):
        return False
    return True


def _v740(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id/anyOf/0
    if not _m_defs._v7(x):
        return False
    return True


def _v741(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v739(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id
    if not (_v740(x) or _v741(x)):
        return False
    return True


def _v743(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id/anyOf/0
    if not _m_defs._v15(x):
        return False
    return True


def _v744(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v742(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id
    if not (_v743(x) or _v744(x)):
        return False
    return True


def _v746(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at/anyOf/0
    if not _m_defs._v86(x):
        return False
    return True


def _v747(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v745(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at
    if not (_v746(x) or _v747(x)):
        return False
    return True


def _v748(x: object) -> bool:
    # ticket#/properties/payload/properties/created_at
    if not _m_defs._v86(x):
        return False
    return True


def _v750(x: object) -> bool:
    # ticket#/properties/payload/properties/reason/anyOf/0
    if not _m_defs._v92(x):
        return False
    return True


def _v751(x: object) -> bool:
    # ticket#/properties/payload/properties/reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v749(x: object) -> bool:
    # ticket#/properties/payload/properties/reason
    if not (_v750(x) or _v751(x)):
        return False
    return True


def _v753(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence/anyOf/0
    if not _m_defs._v3(x):
        return False
    return True


def _v754(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v752(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence
    if not (_v753(x) or _v754(x)):
        return False
    return True


def _v755(x: object) -> bool:
    # ticket#/properties/payload/properties/priority
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 5:
            return False
    return True


def _v757(x: object) -> bool:
    # ticket#/properties/payload/properties/retry_after/anyOf/0
    if not _m_defs._v86(x):
        return False
    return True


def _v758(x: object) -> bool:
    # ticket#/properties/payload/properties/retry_after/anyOf/1
    if not (x is None):
        return False
    return True


def _v756(x: object) -> bool:
    # ticket#/properties/payload/properties/retry_after
    if not (_v757(x) or _v758(x)):
        return False
    return True


def _v761(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/attempt
    if not _m_defs._v11(x):
        return False
    return True


def _v763(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/dispatch_id/anyOf/0
    if not _m_defs._v7(x):
        return False
    return True


def _v764(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/dispatch_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v762(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/dispatch_id
    if not (_v763(x) or _v764(x)):
        return False
    return True


def _v765(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/failed_at
    if not _m_defs._v86(x):
        return False
    return True


def _v766(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/reason
    if not _m_defs._v92(x):
        return False
    return True


def _v760(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'dispatch_id', 'failed_at', 'reason'):
            if k not in x:
                return False
        if 'attempt' in x and not _v761(x['attempt']):
            return False
        if 'dispatch_id' in x and not _v762(x['dispatch_id']):
            return False
        if 'failed_at' in x and not _v765(x['failed_at']):
            return False
        if 'reason' in x and not _v766(x['reason']):
            return False
        for k in x:
            if k not in ('attempt', 'dispatch_id', 'failed_at', 'reason'):
                return False
    return True


def _v759(x: object) -> bool:
    # ticket#/properties/payload/properties/failures
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 10:
            return False
        for v in x:
            if not _v760(v):
                return False
    return True


def _v728(x: object) -> bool:
    # ticket#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'content_sha256', 'created_at', 'lease_expires_at', 'lease_token', 'prior_failure_evidence', 'reason', 'repository', 'session_id', 'source', 'title', 'worker_id'):
            if k not in x:
                return False
        if 'title' in x and not _v729(x['title']):
            return False
        if 'source' in x and not _v730(x['source']):
            return False
        if 'repository' in x and not _v731(x['repository']):
            return False
        if 'content_sha256' in x and not _v734(x['content_sha256']):
            return False
        if 'attempt' in x and not _v735(x['attempt']):
            return False
        if 'lease_token' in x and not _v736(x['lease_token']):
            return False
        if 'worker_id' in x and not _v739(x['worker_id']):
            return False
        if 'session_id' in x and not _v742(x['session_id']):
            return False
        if 'lease_expires_at' in x and not _v745(x['lease_expires_at']):
            return False
        if 'created_at' in x and not _v748(x['created_at']):
            return False
        if 'reason' in x and not _v749(x['reason']):
            return False
        if 'prior_failure_evidence' in x and not _v752(x['prior_failure_evidence']):
            return False
        if 'priority' in x and not _v755(x['priority']):
            return False
        if 'retry_after' in x and not _v756(x['retry_after']):
            return False
        if 'failures' in x and not _v759(x['failures']):
            return False
        for k in x:
            if k not in ('title', 'source', 'repository', 'content_sha256', 'attempt', 'lease_token', 'worker_id', 'session_id', 'lease_expires_at', 'created_at', 'reason', 'prior_failure_evidence', 'priority', 'retry_after', 'failures'):
                return False
    return True


def _v767(x: object) -> bool:
    # ticket#/allOf/0
    if not _m_record_envelope._v95(x):
        return False
    return True


def _v725(x: object) -> bool:
    # ticket#
    if isinstance(x, dict):
        if 'kind' in x and not _v726(x['kind']):
            return False
        if 'state' in x and not _v727(x['state']):
            return False
        if 'payload' in x and not _v728(x['payload']):
            return False
    if not _v767(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'ticket': _v725,
}
