"""Predicates of the `worker` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

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

_P0 = '^refs/oms/salvage/[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?/[0-9]{1,9}(?:-[0-9]{1,4})?\\Z'
_C0: object = 'worker'
_C1: tuple[object, ...] = ('idle', 'working', 'done', 'blocked')
_C2: tuple[object, ...] = ('healthy', 'parked', 'stalled', 'stopped')
_C3: tuple[object, ...] = ('result-recorded', 'exit', 'stopped', 'deadline', 'parent-gone', 'signal', 'limit: pids', 'limit: memory', 'limit: disk')


def _v1065(x: object) -> bool:
    # worker#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v1066(x: object) -> bool:
    # worker#/properties/state
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v1068(x: object) -> bool:
    # worker#/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v1069(x: object) -> bool:
    # worker#/properties/payload/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v1070(x: object) -> bool:
    # worker#/properties/payload/properties/session_id
    if not _m_defs._v15(x):
        return False
    return True


def _v1071(x: object) -> bool:
    # worker#/properties/payload/properties/role_id
    if not _m_defs._v17(x):
        return False
    return True


def _v1072(x: object) -> bool:
    # worker#/properties/payload/properties/provider_mode
    if not _m_defs._v26(x):
        return False
    return True


def _v1073(x: object) -> bool:
    # worker#/properties/payload/properties/worktree_id
    if not _m_defs._v7(x):
        return False
    return True


def _v1074(x: object) -> bool:
    # worker#/properties/payload/properties/health
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v1075(x: object) -> bool:
    # worker#/properties/payload/properties/updated_at
    if not _m_defs._v118(x):
        return False
    return True


def _v1077(x: object) -> bool:
    # worker#/properties/payload/properties/end_reason/anyOf/0
    if not any(_eq(x, c) for c in _C3):
        return False
    return True


def _v1078(x: object) -> bool:
    # worker#/properties/payload/properties/end_reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v1076(x: object) -> bool:
    # worker#/properties/payload/properties/end_reason
    if not (_v1077(x) or _v1078(x)):
        return False
    return True


def _v1080(x: object) -> bool:
    # worker#/properties/payload/properties/end_detail/anyOf/0
    if not _m_defs._v124(x):
        return False
    return True


def _v1081(x: object) -> bool:
    # worker#/properties/payload/properties/end_detail/anyOf/1
    if not (x is None):
        return False
    return True


def _v1079(x: object) -> bool:
    # worker#/properties/payload/properties/end_detail
    if not (_v1080(x) or _v1081(x)):
        return False
    return True


def _v1083(x: object) -> bool:
    # worker#/properties/payload/properties/health_reason/anyOf/0
    if not _m_defs._v124(x):
        return False
    return True


def _v1084(x: object) -> bool:
    # worker#/properties/payload/properties/health_reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v1082(x: object) -> bool:
    # worker#/properties/payload/properties/health_reason
    if not (_v1083(x) or _v1084(x)):
        return False
    return True


def _v1085(x: object) -> bool:
    # worker#/properties/payload/properties/salvage_ref
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
    return True


def _v1086(x: object) -> bool:
    # worker#/properties/payload/properties/salvage_commit
    if not _m_defs._v39(x):
        return False
    return True


def _v1087(x: object) -> bool:
    # worker#/properties/payload/properties/salvage_error
    if not _m_defs._v124(x):
        return False
    return True


def _v1088(x: object) -> bool:
    # worker#/properties/payload/properties/host
    if not _m_defs._v339(x):
        return False
    return True


def _v1067(x: object) -> bool:
    # worker#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'end_detail', 'end_reason', 'health', 'health_reason', 'provider_mode', 'role_id', 'session_id', 'ticket_id', 'updated_at', 'worktree_id'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v1068(x['dispatch_id']):
            return False
        if 'ticket_id' in x and not _v1069(x['ticket_id']):
            return False
        if 'session_id' in x and not _v1070(x['session_id']):
            return False
        if 'role_id' in x and not _v1071(x['role_id']):
            return False
        if 'provider_mode' in x and not _v1072(x['provider_mode']):
            return False
        if 'worktree_id' in x and not _v1073(x['worktree_id']):
            return False
        if 'health' in x and not _v1074(x['health']):
            return False
        if 'updated_at' in x and not _v1075(x['updated_at']):
            return False
        if 'end_reason' in x and not _v1076(x['end_reason']):
            return False
        if 'end_detail' in x and not _v1079(x['end_detail']):
            return False
        if 'health_reason' in x and not _v1082(x['health_reason']):
            return False
        if 'salvage_ref' in x and not _v1085(x['salvage_ref']):
            return False
        if 'salvage_commit' in x and not _v1086(x['salvage_commit']):
            return False
        if 'salvage_error' in x and not _v1087(x['salvage_error']):
            return False
        if 'host' in x and not _v1088(x['host']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'ticket_id', 'session_id', 'role_id', 'provider_mode', 'worktree_id', 'health', 'updated_at', 'end_reason', 'end_detail', 'health_reason', 'salvage_ref', 'salvage_commit', 'salvage_error', 'host'):
                return False
    return True


def _v1089(x: object) -> bool:
    # worker#/allOf/0
    if not _m_record_envelope._v127(x):
        return False
    return True


def _v1064(x: object) -> bool:
    # worker#
    if isinstance(x, dict):
        if 'kind' in x and not _v1065(x['kind']):
            return False
        if 'state' in x and not _v1066(x['state']):
            return False
        if 'payload' in x and not _v1067(x['payload']):
            return False
    if not _v1089(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'worker': _v1064,
}
