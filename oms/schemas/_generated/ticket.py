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


def _v575(x: object) -> bool:
    # ticket#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v576(x: object) -> bool:
    # ticket#/properties/state
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v578(x: object) -> bool:
    # ticket#/properties/payload/properties/title
    if not _m_defs._v60(x):
        return False
    return True


def _v579(x: object) -> bool:
    # ticket#/properties/payload/properties/source
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v581(x: object) -> bool:
    # ticket#/properties/payload/properties/repository/anyOf/0
    if not _m_defs._v65(x):
        return False
    return True


def _v582(x: object) -> bool:
    # ticket#/properties/payload/properties/repository/anyOf/1
    if not (x is None):
        return False
    return True


def _v580(x: object) -> bool:
    # ticket#/properties/payload/properties/repository
    if not (_v581(x) or _v582(x)):
        return False
    return True


def _v583(x: object) -> bool:
    # ticket#/properties/payload/properties/content_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v584(x: object) -> bool:
    # ticket#/properties/payload/properties/attempt
    if not _m_defs._v11(x):
        return False
    return True


def _v586(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token/anyOf/0
    if not _m_defs._v184(x):
        return False
    return True


def _v587(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token/anyOf/1
    if not (x is None):
        return False
    return True


def _v585(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token
    if not (_v586(x) or _v587(x)):
        return False
    return True


def _v589(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id/anyOf/0
    if not _m_defs._v7(x):
        return False
    return True


def _v590(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v588(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id
    if not (_v589(x) or _v590(x)):
        return False
    return True


def _v592(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id/anyOf/0
    if not _m_defs._v15(x):
        return False
    return True


def _v593(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v591(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id
    if not (_v592(x) or _v593(x)):
        return False
    return True


def _v595(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at/anyOf/0
    if not _m_defs._v85(x):
        return False
    return True


def _v596(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v594(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at
    if not (_v595(x) or _v596(x)):
        return False
    return True


def _v597(x: object) -> bool:
    # ticket#/properties/payload/properties/created_at
    if not _m_defs._v85(x):
        return False
    return True


def _v599(x: object) -> bool:
    # ticket#/properties/payload/properties/reason/anyOf/0
    if not _m_defs._v91(x):
        return False
    return True


def _v600(x: object) -> bool:
    # ticket#/properties/payload/properties/reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v598(x: object) -> bool:
    # ticket#/properties/payload/properties/reason
    if not (_v599(x) or _v600(x)):
        return False
    return True


def _v602(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence/anyOf/0
    if not _m_defs._v3(x):
        return False
    return True


def _v603(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v601(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence
    if not (_v602(x) or _v603(x)):
        return False
    return True


def _v604(x: object) -> bool:
    # ticket#/properties/payload/properties/priority
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 5:
            return False
    return True


def _v606(x: object) -> bool:
    # ticket#/properties/payload/properties/retry_after/anyOf/0
    if not _m_defs._v85(x):
        return False
    return True


def _v607(x: object) -> bool:
    # ticket#/properties/payload/properties/retry_after/anyOf/1
    if not (x is None):
        return False
    return True


def _v605(x: object) -> bool:
    # ticket#/properties/payload/properties/retry_after
    if not (_v606(x) or _v607(x)):
        return False
    return True


def _v610(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/attempt
    if not _m_defs._v11(x):
        return False
    return True


def _v612(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/dispatch_id/anyOf/0
    if not _m_defs._v7(x):
        return False
    return True


def _v613(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/dispatch_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v611(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/dispatch_id
    if not (_v612(x) or _v613(x)):
        return False
    return True


def _v614(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/failed_at
    if not _m_defs._v85(x):
        return False
    return True


def _v615(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/reason
    if not _m_defs._v91(x):
        return False
    return True


def _v609(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'dispatch_id', 'failed_at', 'reason'):
            if k not in x:
                return False
        if 'attempt' in x and not _v610(x['attempt']):
            return False
        if 'dispatch_id' in x and not _v611(x['dispatch_id']):
            return False
        if 'failed_at' in x and not _v614(x['failed_at']):
            return False
        if 'reason' in x and not _v615(x['reason']):
            return False
        for k in x:
            if k not in ('attempt', 'dispatch_id', 'failed_at', 'reason'):
                return False
    return True


def _v608(x: object) -> bool:
    # ticket#/properties/payload/properties/failures
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 10:
            return False
        for v in x:
            if not _v609(v):
                return False
    return True


def _v577(x: object) -> bool:
    # ticket#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'content_sha256', 'created_at', 'lease_expires_at', 'lease_token', 'prior_failure_evidence', 'reason', 'repository', 'session_id', 'source', 'title', 'worker_id'):
            if k not in x:
                return False
        if 'title' in x and not _v578(x['title']):
            return False
        if 'source' in x and not _v579(x['source']):
            return False
        if 'repository' in x and not _v580(x['repository']):
            return False
        if 'content_sha256' in x and not _v583(x['content_sha256']):
            return False
        if 'attempt' in x and not _v584(x['attempt']):
            return False
        if 'lease_token' in x and not _v585(x['lease_token']):
            return False
        if 'worker_id' in x and not _v588(x['worker_id']):
            return False
        if 'session_id' in x and not _v591(x['session_id']):
            return False
        if 'lease_expires_at' in x and not _v594(x['lease_expires_at']):
            return False
        if 'created_at' in x and not _v597(x['created_at']):
            return False
        if 'reason' in x and not _v598(x['reason']):
            return False
        if 'prior_failure_evidence' in x and not _v601(x['prior_failure_evidence']):
            return False
        if 'priority' in x and not _v604(x['priority']):
            return False
        if 'retry_after' in x and not _v605(x['retry_after']):
            return False
        if 'failures' in x and not _v608(x['failures']):
            return False
        for k in x:
            if k not in ('title', 'source', 'repository', 'content_sha256', 'attempt', 'lease_token', 'worker_id', 'session_id', 'lease_expires_at', 'created_at', 'reason', 'prior_failure_evidence', 'priority', 'retry_after', 'failures'):
                return False
    return True


def _v616(x: object) -> bool:
    # ticket#/allOf/0
    if not _m_record_envelope._v94(x):
        return False
    return True


def _v574(x: object) -> bool:
    # ticket#
    if isinstance(x, dict):
        if 'kind' in x and not _v575(x['kind']):
            return False
        if 'state' in x and not _v576(x['state']):
            return False
        if 'payload' in x and not _v577(x['payload']):
            return False
    if not _v616(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'ticket': _v574,
}
