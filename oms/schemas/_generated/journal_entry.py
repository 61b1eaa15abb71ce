"""Predicates of the `journal-entry` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

_P0 = '^[0-9a-f]{64}$'
_P1 = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'
_P2 = '^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$'
_P3 = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$'
_P4 = '^[a-z][a-z0-9-]{0,30}(?:\\.[a-z][a-z0-9-]{0,30}){0,3}$'
_P5 = '^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$'
_C0: object = 'oms-journal-v1'
_C1: tuple[object, ...] = ('live-contact',)
_C2: tuple[object, ...] = ('worker-session', 'advisor-review')
_C3: tuple[object, ...] = ('codex-goal', 'claude-interactive', 'command', 'codex-exec', 'claude-print')
_C4: tuple[object, ...] = ('claude_interactive', 'claude_print', 'codex_exec', 'codex_goal', 'command')


def _v1(x: object) -> bool:
    # journal-entry#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v2(x: object) -> bool:
    # journal-entry#/properties/journal
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v4(x: object) -> bool:
    # defs#/$defs/version
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v3(x: object) -> bool:
    # journal-entry#/properties/seq
    if not _v4(x):
        return False
    return True


def _v7(x: object) -> bool:
    # defs#/$defs/sha256
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
    return True


def _v6(x: object) -> bool:
    # journal-entry#/properties/previous_sha256/anyOf/0
    if not _v7(x):
        return False
    return True


def _v8(x: object) -> bool:
    # journal-entry#/properties/previous_sha256/anyOf/1
    if not (x is None):
        return False
    return True


def _v5(x: object) -> bool:
    # journal-entry#/properties/previous_sha256
    if not (_v6(x) or _v8(x)):
        return False
    return True


def _v10(x: object) -> bool:
    # defs#/$defs/timestamp
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
    return True


def _v9(x: object) -> bool:
    # journal-entry#/properties/recorded_at
    if not _v10(x):
        return False
    return True


def _v13(x: object) -> bool:
    # defs#/$defs/opaque_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v12(x: object) -> bool:
    # journal-entry#/properties/entry/properties/authorization_id
    if not _v13(x):
        return False
    return True


def _v14(x: object) -> bool:
    # journal-entry#/properties/entry/properties/authorization_version
    if not _v4(x):
        return False
    return True


def _v16(x: object) -> bool:
    # defs#/$defs/repository
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
        if len(x) > 140:
            return False
    return True


def _v15(x: object) -> bool:
    # journal-entry#/properties/entry/properties/repository
    if not _v16(x):
        return False
    return True


def _v17(x: object) -> bool:
    # journal-entry#/properties/entry/properties/operation
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v18(x: object) -> bool:
    # journal-entry#/properties/entry/properties/contact_surface
    if not any(_eq(x, c) for c in _C3):
        return False
    return True


def _v19(x: object) -> bool:
    # journal-entry#/properties/entry/properties/subject_id
    if not _v13(x):
        return False
    return True


def _v21(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/dispatch_id
    if not _v13(x):
        return False
    return True


def _v22(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/ticket_id
    if not _v13(x):
        return False
    return True


def _v24(x: object) -> bool:
    # defs#/$defs/role_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 127:
            return False
    return True


def _v23(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/role_id
    if not _v24(x):
        return False
    return True


def _v26(x: object) -> bool:
    # defs#/$defs/model_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P5, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v25(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/model_id
    if not _v26(x):
        return False
    return True


def _v28(x: object) -> bool:
    # defs#/$defs/transport
    if not any(_eq(x, c) for c in _C4):
        return False
    return True


def _v27(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/provider_mode
    if not _v28(x):
        return False
    return True


def _v29(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/worktree_id
    if not _v13(x):
        return False
    return True


def _v20(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'model_id', 'provider_mode', 'role_id', 'ticket_id', 'worktree_id'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v21(x['dispatch_id']):
            return False
        if 'ticket_id' in x and not _v22(x['ticket_id']):
            return False
        if 'role_id' in x and not _v23(x['role_id']):
            return False
        if 'model_id' in x and not _v25(x['model_id']):
            return False
        if 'provider_mode' in x and not _v27(x['provider_mode']):
            return False
        if 'worktree_id' in x and not _v29(x['worktree_id']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'ticket_id', 'role_id', 'model_id', 'provider_mode', 'worktree_id'):
                return False
    return True


def _v30(x: object) -> bool:
    # journal-entry#/properties/entry/properties/disclosed_at
    if not _v10(x):
        return False
    return True


def _v11(x: object) -> bool:
    # journal-entry#/properties/entry
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('authorization_id', 'authorization_version', 'contact_surface', 'disclosed_at', 'operation', 'repository', 'request', 'subject_id'):
            if k not in x:
                return False
        if 'authorization_id' in x and not _v12(x['authorization_id']):
            return False
        if 'authorization_version' in x and not _v14(x['authorization_version']):
            return False
        if 'repository' in x and not _v15(x['repository']):
            return False
        if 'operation' in x and not _v17(x['operation']):
            return False
        if 'contact_surface' in x and not _v18(x['contact_surface']):
            return False
        if 'subject_id' in x and not _v19(x['subject_id']):
            return False
        if 'request' in x and not _v20(x['request']):
            return False
        if 'disclosed_at' in x and not _v30(x['disclosed_at']):
            return False
        for k in x:
            if k not in ('authorization_id', 'authorization_version', 'repository', 'operation', 'contact_surface', 'subject_id', 'request', 'disclosed_at'):
                return False
    return True


def _v0(x: object) -> bool:
    # journal-entry#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('entry', 'format', 'journal', 'previous_sha256', 'recorded_at', 'seq'):
            if k not in x:
                return False
        if 'format' in x and not _v1(x['format']):
            return False
        if 'journal' in x and not _v2(x['journal']):
            return False
        if 'seq' in x and not _v3(x['seq']):
            return False
        if 'previous_sha256' in x and not _v5(x['previous_sha256']):
            return False
        if 'recorded_at' in x and not _v9(x['recorded_at']):
            return False
        if 'entry' in x and not _v11(x['entry']):
            return False
        for k in x:
            if k not in ('format', 'journal', 'seq', 'previous_sha256', 'recorded_at', 'entry'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'journal-entry': _v0,
}
