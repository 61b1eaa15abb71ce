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


def _v1016(x: object) -> bool:
    # ticket#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v1017(x: object) -> bool:
    # ticket#/properties/state
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v1019(x: object) -> bool:
    # ticket#/properties/payload/properties/title
    if not _m_defs._v93(x):
        return False
    return True


def _v1020(x: object) -> bool:
    # ticket#/properties/payload/properties/source
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v1022(x: object) -> bool:
    # ticket#/properties/payload/properties/repository/anyOf/0
    if not _m_defs._v98(x):
        return False
    return True


def _v1023(x: object) -> bool:
    # ticket#/properties/payload/properties/repository/anyOf/1
    if not (x is None):
        return False
    return True


def _v1021(x: object) -> bool:
    # ticket#/properties/payload/properties/repository
    if not (_v1022(x) or _v1023(x)):
        return False
    return True


def _v1024(x: object) -> bool:
    # ticket#/properties/payload/properties/repository_root
    if not _m_defs._v35(x):
        return False
    return True


def _v1025(x: object) -> bool:
    # ticket#/properties/payload/properties/added_by
    if not _m_defs._v3(x):
        return False
    return True


def _v1026(x: object) -> bool:
    # ticket#/properties/payload/properties/content_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v1027(x: object) -> bool:
    # ticket#/properties/payload/properties/attempt
    if not _m_defs._v11(x):
        return False
    return True


def _v1029(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token/anyOf/0
    if not _m_defs._v341(x):
        return False
    return True


def _v1030(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token/anyOf/1
    if not (x is None):
        return False
    return True


def _v1028(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token
    if not (_v1029(x) or _v1030(x)):
        return False
    return True


def _v1032(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id/anyOf/0
    if not _m_defs._v7(x):
        return False
    return True


def _v1033(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v1031(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id
    if not (_v1032(x) or _v1033(x)):
        return False
    return True


def _v1035(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_host/anyOf/0
    if not _m_defs._v339(x):
        return False
    return True


def _v1036(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_host/anyOf/1
    if not (x is None):
        return False
    return True


def _v1034(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_host
    if not (_v1035(x) or _v1036(x)):
        return False
    return True


def _v1038(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id/anyOf/0
    if not _m_defs._v15(x):
        return False
    return True


def _v1039(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v1037(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id
    if not (_v1038(x) or _v1039(x)):
        return False
    return True


def _v1041(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at/anyOf/0
    if not _m_defs._v118(x):
        return False
    return True


def _v1042(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v1040(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at
    if not (_v1041(x) or _v1042(x)):
        return False
    return True


def _v1043(x: object) -> bool:
    # ticket#/properties/payload/properties/created_at
    if not _m_defs._v118(x):
        return False
    return True


def _v1045(x: object) -> bool:
    # ticket#/properties/payload/properties/reason/anyOf/0
    if not _m_defs._v124(x):
        return False
    return True


def _v1046(x: object) -> bool:
    # ticket#/properties/payload/properties/reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v1044(x: object) -> bool:
    # ticket#/properties/payload/properties/reason
    if not (_v1045(x) or _v1046(x)):
        return False
    return True


def _v1048(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence/anyOf/0
    if not _m_defs._v3(x):
        return False
    return True


def _v1049(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v1047(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence
    if not (_v1048(x) or _v1049(x)):
        return False
    return True


def _v1050(x: object) -> bool:
    # ticket#/properties/payload/properties/priority
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 5:
            return False
    return True


def _v1052(x: object) -> bool:
    # ticket#/properties/payload/properties/retry_after/anyOf/0
    if not _m_defs._v118(x):
        return False
    return True


def _v1053(x: object) -> bool:
    # ticket#/properties/payload/properties/retry_after/anyOf/1
    if not (x is None):
        return False
    return True


def _v1051(x: object) -> bool:
    # ticket#/properties/payload/properties/retry_after
    if not (_v1052(x) or _v1053(x)):
        return False
    return True


def _v1056(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/attempt
    if not _m_defs._v11(x):
        return False
    return True


def _v1058(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/dispatch_id/anyOf/0
    if not _m_defs._v7(x):
        return False
    return True


def _v1059(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/dispatch_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v1057(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/dispatch_id
    if not (_v1058(x) or _v1059(x)):
        return False
    return True


def _v1060(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/failed_at
    if not _m_defs._v118(x):
        return False
    return True


def _v1061(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items/properties/reason
    if not _m_defs._v124(x):
        return False
    return True


def _v1055(x: object) -> bool:
    # ticket#/properties/payload/properties/failures/items
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'dispatch_id', 'failed_at', 'reason'):
            if k not in x:
                return False
        if 'attempt' in x and not _v1056(x['attempt']):
            return False
        if 'dispatch_id' in x and not _v1057(x['dispatch_id']):
            return False
        if 'failed_at' in x and not _v1060(x['failed_at']):
            return False
        if 'reason' in x and not _v1061(x['reason']):
            return False
        for k in x:
            if k not in ('attempt', 'dispatch_id', 'failed_at', 'reason'):
                return False
    return True


def _v1054(x: object) -> bool:
    # ticket#/properties/payload/properties/failures
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 10:
            return False
        for v in x:
            if not _v1055(v):
                return False
    return True


def _v1062(x: object) -> bool:
    # ticket#/properties/payload/properties/changes_requested
    if not _m_defs._v76(x):
        return False
    return True


def _v1018(x: object) -> bool:
    # ticket#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'content_sha256', 'created_at', 'lease_expires_at', 'lease_token', 'prior_failure_evidence', 'reason', 'repository', 'session_id', 'source', 'title', 'worker_id'):
            if k not in x:
                return False
        if 'title' in x and not _v1019(x['title']):
            return False
        if 'source' in x and not _v1020(x['source']):
            return False
        if 'repository' in x and not _v1021(x['repository']):
            return False
        if 'repository_root' in x and not _v1024(x['repository_root']):
            return False
        if 'added_by' in x and not _v1025(x['added_by']):
            return False
        if 'content_sha256' in x and not _v1026(x['content_sha256']):
            return False
        if 'attempt' in x and not _v1027(x['attempt']):
            return False
        if 'lease_token' in x and not _v1028(x['lease_token']):
            return False
        if 'worker_id' in x and not _v1031(x['worker_id']):
            return False
        if 'lease_host' in x and not _v1034(x['lease_host']):
            return False
        if 'session_id' in x and not _v1037(x['session_id']):
            return False
        if 'lease_expires_at' in x and not _v1040(x['lease_expires_at']):
            return False
        if 'created_at' in x and not _v1043(x['created_at']):
            return False
        if 'reason' in x and not _v1044(x['reason']):
            return False
        if 'prior_failure_evidence' in x and not _v1047(x['prior_failure_evidence']):
            return False
        if 'priority' in x and not _v1050(x['priority']):
            return False
        if 'retry_after' in x and not _v1051(x['retry_after']):
            return False
        if 'failures' in x and not _v1054(x['failures']):
            return False
        if 'changes_requested' in x and not _v1062(x['changes_requested']):
            return False
        for k in x:
            if k not in ('title', 'source', 'repository', 'repository_root', 'added_by', 'content_sha256', 'attempt', 'lease_token', 'worker_id', 'lease_host', 'session_id', 'lease_expires_at', 'created_at', 'reason', 'prior_failure_evidence', 'priority', 'retry_after', 'failures', 'changes_requested'):
                return False
    return True


def _v1063(x: object) -> bool:
    # ticket#/allOf/0
    if not _m_record_envelope._v127(x):
        return False
    return True


def _v1015(x: object) -> bool:
    # ticket#
    if isinstance(x, dict):
        if 'kind' in x and not _v1016(x['kind']):
            return False
        if 'state' in x and not _v1017(x['state']):
            return False
        if 'payload' in x and not _v1018(x['payload']):
            return False
    if not _v1063(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'ticket': _v1015,
}
