"""Predicates of the `ticket` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

_P0 = '^[^\\u0000-\\u001f\\u007f]*$'
_P1 = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$'
_P2 = '^[0-9a-f]{64}$'
_P3 = '^[0-9a-f]{32,64}$'
_P4 = '^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$'
_P5 = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
_P6 = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'
_P7 = '^[a-z][a-z-]{0,31}$'
_P8 = '^[a-z][a-z0-9-]{0,62}(?:[.:][a-z0-9][a-z0-9-]{0,62}){0,3}$'
_C0: object = 'ticket'
_C1: tuple[object, ...] = ('open', 'leased', 'done', 'blocked')
_C2: tuple[object, ...] = ('local', 'github')
_C3: object = 'oms-record-v1'
_C4: tuple[object, ...] = ('authorization', 'dispatch', 'session', 'ticket', 'worker')


def _v1(x: object) -> bool:
    # ticket#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v2(x: object) -> bool:
    # ticket#/properties/state
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v5(x: object) -> bool:
    # defs#/$defs/title
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 256:
            return False
    return True


def _v4(x: object) -> bool:
    # ticket#/properties/payload/properties/title
    if not _v5(x):
        return False
    return True


def _v6(x: object) -> bool:
    # ticket#/properties/payload/properties/source
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v9(x: object) -> bool:
    # defs#/$defs/repository
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
        if len(x) > 140:
            return False
    return True


def _v8(x: object) -> bool:
    # ticket#/properties/payload/properties/repository/anyOf/0
    if not _v9(x):
        return False
    return True


def _v10(x: object) -> bool:
    # ticket#/properties/payload/properties/repository/anyOf/1
    if not (x is None):
        return False
    return True


def _v7(x: object) -> bool:
    # ticket#/properties/payload/properties/repository
    if not (_v8(x) or _v10(x)):
        return False
    return True


def _v12(x: object) -> bool:
    # defs#/$defs/sha256
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
    return True


def _v11(x: object) -> bool:
    # ticket#/properties/payload/properties/content_sha256
    if not _v12(x):
        return False
    return True


def _v14(x: object) -> bool:
    # defs#/$defs/count
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 1000000:
            return False
    return True


def _v13(x: object) -> bool:
    # ticket#/properties/payload/properties/attempt
    if not _v14(x):
        return False
    return True


def _v17(x: object) -> bool:
    # defs#/$defs/token
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
    return True


def _v16(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token/anyOf/0
    if not _v17(x):
        return False
    return True


def _v18(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token/anyOf/1
    if not (x is None):
        return False
    return True


def _v15(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_token
    if not (_v16(x) or _v18(x)):
        return False
    return True


def _v21(x: object) -> bool:
    # defs#/$defs/opaque_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v20(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id/anyOf/0
    if not _v21(x):
        return False
    return True


def _v22(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v19(x: object) -> bool:
    # ticket#/properties/payload/properties/worker_id
    if not (_v20(x) or _v22(x)):
        return False
    return True


def _v25(x: object) -> bool:
    # defs#/$defs/uuid
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P5, x) is None:
            return False
    return True


def _v24(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id/anyOf/0
    if not _v25(x):
        return False
    return True


def _v26(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v23(x: object) -> bool:
    # ticket#/properties/payload/properties/session_id
    if not (_v24(x) or _v26(x)):
        return False
    return True


def _v29(x: object) -> bool:
    # defs#/$defs/timestamp
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P6, x) is None:
            return False
    return True


def _v28(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at/anyOf/0
    if not _v29(x):
        return False
    return True


def _v30(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v27(x: object) -> bool:
    # ticket#/properties/payload/properties/lease_expires_at
    if not (_v28(x) or _v30(x)):
        return False
    return True


def _v31(x: object) -> bool:
    # ticket#/properties/payload/properties/created_at
    if not _v29(x):
        return False
    return True


def _v34(x: object) -> bool:
    # defs#/$defs/reason
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 512:
            return False
    return True


def _v33(x: object) -> bool:
    # ticket#/properties/payload/properties/reason/anyOf/0
    if not _v34(x):
        return False
    return True


def _v35(x: object) -> bool:
    # ticket#/properties/payload/properties/reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v32(x: object) -> bool:
    # ticket#/properties/payload/properties/reason
    if not (_v33(x) or _v35(x)):
        return False
    return True


def _v37(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence/anyOf/0
    if not _v12(x):
        return False
    return True


def _v38(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence/anyOf/1
    if not (x is None):
        return False
    return True


def _v36(x: object) -> bool:
    # ticket#/properties/payload/properties/prior_failure_evidence
    if not (_v37(x) or _v38(x)):
        return False
    return True


def _v3(x: object) -> bool:
    # ticket#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'content_sha256', 'created_at', 'lease_expires_at', 'lease_token', 'prior_failure_evidence', 'reason', 'repository', 'session_id', 'source', 'title', 'worker_id'):
            if k not in x:
                return False
        if 'title' in x and not _v4(x['title']):
            return False
        if 'source' in x and not _v6(x['source']):
            return False
        if 'repository' in x and not _v7(x['repository']):
            return False
        if 'content_sha256' in x and not _v11(x['content_sha256']):
            return False
        if 'attempt' in x and not _v13(x['attempt']):
            return False
        if 'lease_token' in x and not _v15(x['lease_token']):
            return False
        if 'worker_id' in x and not _v19(x['worker_id']):
            return False
        if 'session_id' in x and not _v23(x['session_id']):
            return False
        if 'lease_expires_at' in x and not _v27(x['lease_expires_at']):
            return False
        if 'created_at' in x and not _v31(x['created_at']):
            return False
        if 'reason' in x and not _v32(x['reason']):
            return False
        if 'prior_failure_evidence' in x and not _v36(x['prior_failure_evidence']):
            return False
        for k in x:
            if k not in ('title', 'source', 'repository', 'content_sha256', 'attempt', 'lease_token', 'worker_id', 'session_id', 'lease_expires_at', 'created_at', 'reason', 'prior_failure_evidence'):
                return False
    return True


def _v41(x: object) -> bool:
    # record-envelope#/properties/format
    if not _eq(x, _C3):
        return False
    return True


def _v42(x: object) -> bool:
    # record-envelope#/properties/kind
    if not any(_eq(x, c) for c in _C4):
        return False
    return True


def _v43(x: object) -> bool:
    # record-envelope#/properties/record_id
    if not _v21(x):
        return False
    return True


def _v45(x: object) -> bool:
    # defs#/$defs/version
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v44(x: object) -> bool:
    # record-envelope#/properties/version
    if not _v45(x):
        return False
    return True


def _v46(x: object) -> bool:
    # record-envelope#/properties/state
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P7, x) is None:
            return False
    return True


def _v48(x: object) -> bool:
    # record-envelope#/properties/expected_version/anyOf/0
    if not _v45(x):
        return False
    return True


def _v49(x: object) -> bool:
    # record-envelope#/properties/expected_version/anyOf/1
    if not (x is None):
        return False
    return True


def _v47(x: object) -> bool:
    # record-envelope#/properties/expected_version
    if not (_v48(x) or _v49(x)):
        return False
    return True


def _v50(x: object) -> bool:
    # record-envelope#/properties/operation_id
    if not _v21(x):
        return False
    return True


def _v52(x: object) -> bool:
    # defs#/$defs/actor
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P8, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v51(x: object) -> bool:
    # record-envelope#/properties/actor
    if not _v52(x):
        return False
    return True


def _v53(x: object) -> bool:
    # record-envelope#/properties/observed_at
    if not _v29(x):
        return False
    return True


def _v55(x: object) -> bool:
    # record-envelope#/properties/previous_sha256/anyOf/0
    if not _v12(x):
        return False
    return True


def _v56(x: object) -> bool:
    # record-envelope#/properties/previous_sha256/anyOf/1
    if not (x is None):
        return False
    return True


def _v54(x: object) -> bool:
    # record-envelope#/properties/previous_sha256
    if not (_v55(x) or _v56(x)):
        return False
    return True


def _v57(x: object) -> bool:
    # record-envelope#/properties/payload
    if not (isinstance(x, dict)):
        return False
    return True


def _v40(x: object) -> bool:
    # record-envelope#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('actor', 'expected_version', 'format', 'kind', 'observed_at', 'operation_id', 'payload', 'previous_sha256', 'record_id', 'state', 'version'):
            if k not in x:
                return False
        if 'format' in x and not _v41(x['format']):
            return False
        if 'kind' in x and not _v42(x['kind']):
            return False
        if 'record_id' in x and not _v43(x['record_id']):
            return False
        if 'version' in x and not _v44(x['version']):
            return False
        if 'state' in x and not _v46(x['state']):
            return False
        if 'expected_version' in x and not _v47(x['expected_version']):
            return False
        if 'operation_id' in x and not _v50(x['operation_id']):
            return False
        if 'actor' in x and not _v51(x['actor']):
            return False
        if 'observed_at' in x and not _v53(x['observed_at']):
            return False
        if 'previous_sha256' in x and not _v54(x['previous_sha256']):
            return False
        if 'payload' in x and not _v57(x['payload']):
            return False
        for k in x:
            if k not in ('format', 'kind', 'record_id', 'version', 'state', 'expected_version', 'operation_id', 'actor', 'observed_at', 'previous_sha256', 'payload'):
                return False
    return True


def _v39(x: object) -> bool:
    # ticket#/allOf/0
    if not _v40(x):
        return False
    return True


def _v0(x: object) -> bool:
    # ticket#
    if isinstance(x, dict):
        if 'kind' in x and not _v1(x['kind']):
            return False
        if 'state' in x and not _v2(x['state']):
            return False
        if 'payload' in x and not _v3(x['payload']):
            return False
    if not _v39(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'ticket': _v0,
}
